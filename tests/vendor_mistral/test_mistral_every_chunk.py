"""Every content chunk type of the Mistral SDK's ``ContentChunk`` union, and every piece a
``ThinkChunk`` may hold, in a streamed delta and in a whole response: each gives an AG-UI
event or is announced as a loss (issue 36: nothing dropped without a word). Each chunk and
response is read by the SDK's own models first. Mistral has no start event: the first
chunk's content is decoded like any other (checked below).
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from ag_ui.core import BaseEvent
from losses_seen import content_losses
from mistralai.client import models

from toolwire.adapters.mistral import Decoder


def _members(union: Any) -> list[Any]:
    args = typing.get_args(getattr(union, "__value__", union))
    out: list[Any] = []
    for arg in args:
        out += [arg] if hasattr(arg, "model_fields") else _members(arg)
    return out


def _types(union: Any) -> set[str]:
    found = {m.model_fields["type"].default for m in _members(union)}
    return {t for t in found if isinstance(t, str) and t != "UNKNOWN"}


#: one sample of each content chunk type (the SDK's ``UnknownContentChunk`` is its catch-all)
CHUNKS: dict[str, dict[str, Any]] = {
    "text": {"type": "text", "text": "hello"},
    "thinking": {"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]},
    "image_url": {"type": "image_url", "image_url": "https://example.com/a.png"},
    "document_url": {"type": "document_url", "document_url": "https://example.com/d.pdf"},
    "file": {"type": "file", "file_id": "file-1"},
    "reference": {"type": "reference", "reference_ids": [1]},
    "input_audio": {"type": "input_audio", "input_audio": "AAAA"},
    "resource": {"type": "resource", "uri": "r://x", "content": {"type": "text", "text": "x"}},
    "resource_link": {"type": "resource_link", "uri": "r://x"},
}
#: each piece a ThinkChunk declares, inside one
THINKING: dict[str, dict[str, Any]] = {
    "text": {"type": "text", "text": "hmm"},
    "reference": {"type": "reference", "reference_ids": [1]},
    "tool_reference": {"type": "tool_reference", "tool": "web_search", "title": "t"},
}


def test_every_declared_type_has_a_sample_here() -> None:
    assert _types(models.ContentChunk) == set(CHUNKS)
    thinking = models.ThinkChunk.model_fields["thinking"].annotation
    assert _types(typing.get_args(thinking)[0]) == set(THINKING)


def _chunk(content: list[dict[str, Any]], finish: str | None = "stop") -> dict[str, Any]:
    choice = {"index": 0, "delta": {"role": "assistant", "content": content}}
    chunk = {"id": "c-1", "model": "m", "choices": [{**choice, "finish_reason": finish}]}
    models.CompletionChunk.model_validate(chunk)  # the SDK reads it
    return chunk


def _whole(content: list[dict[str, Any]]) -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    body = {
        "id": "c-1",
        "object": "chat.completion",
        "model": "m",
        "created": 1,
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    models.ChatCompletionResponse.model_validate(body)
    return body


def _both(content: list[dict[str, Any]]) -> list[tuple[list[BaseEvent], Decoder, list[Any]]]:
    out = []
    for whole in (False, True):
        d = Decoder()
        with content_losses() as lost:
            if whole:
                events = d.feed_response(_whole(content)) + d.close()
            else:
                events = list(d.events([_chunk(content)]))
        out.append((events, d, lost))
    return out


@pytest.mark.parametrize("name", sorted(CHUNKS))
def test_every_content_chunk_gives_an_event_or_a_loss(name: str) -> None:
    for events, d, lost in _both([CHUNKS[name]]):
        if events:
            assert not d.losses
        else:
            assert d.losses and len(lost) == len(d.losses), f"{name} vanished without a word"
            assert repr(name) in d.losses[-1].reason and "content[0]" in d.losses[-1].reason


@pytest.mark.parametrize("name", sorted(THINKING))
def test_every_thinking_piece_gives_reasoning_or_a_loss(name: str) -> None:
    chunk = {"type": "thinking", "thinking": [THINKING[name]]}
    for events, d, lost in _both([chunk]):
        if name == "text":
            assert any(getattr(e, "delta", None) == "hmm" for e in events) and not lost
        else:
            assert [loss.kind for loss in d.losses] == ["content-dropped"] and len(lost) == 1
            assert repr(name) in d.losses[0].reason and "thinking[0]" in d.losses[0].reason


def test_log_probabilities_are_announced_once() -> None:
    first = _chunk([{"type": "text", "text": "a"}], None)
    first["choices"][0]["logprobs"] = {"content": [{"token": "a", "logprob": -0.1}]}
    last = _chunk([{"type": "text", "text": "b"}])
    last["choices"][0]["logprobs"] = {"content": [{"token": "b", "logprob": -0.2}]}
    d = Decoder()
    with content_losses() as lost:
        list(d.events([first, last]))
    assert [loss.kind for loss in d.losses] == ["logprobs-dropped"] and len(lost) == 1


def test_the_first_chunk_s_content_is_decoded_like_any_other() -> None:
    first = _chunk([{"type": "text", "text": "Hi"}], None)
    events = list(Decoder().events([first, _chunk([{"type": "text", "text": "!"}])]))
    text = "".join(getattr(e, "delta", "") for e in events if e.type.value.endswith("CONTENT"))
    assert text == "Hi!"


# ---------------------------------------------------------------- request histories too


@pytest.mark.parametrize("name", sorted(CHUNKS))
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_every_content_chunk_in_a_request_is_a_part_or_a_loss(name: str, role: str) -> None:
    from toolwire.adapters.mistral import decode_request

    body = {"model": "m", "messages": [{"role": role, "content": [CHUNKS[name]]}]}
    models.ChatCompletionRequest.model_validate(body)  # the SDK takes the request
    with content_losses() as lost:
        ri = decode_request(body, thread_id="t", run_id="r")
    kept = [m.model_dump(exclude_none=True) for m in ri.messages]
    said = [m for m in kept if m.get("content") not in ("", [], None)]
    kept_as_parts = ("image_url", "document_url", "file") if role == "user" else ("thinking",)
    if name == "text" or name in kept_as_parts:
        assert said and not lost
    else:
        assert lost and repr(name) in str(lost[0].message), f"{name} vanished without a word"


@pytest.mark.parametrize("name", sorted(set(THINKING) - {"text"}))
def test_a_non_text_thinking_piece_in_a_request_is_announced(name: str) -> None:
    from toolwire.adapters.mistral import decode_request

    chunk = {"type": "thinking", "thinking": [THINKING["text"], THINKING[name]]}
    body = {"model": "m", "messages": [{"role": "assistant", "content": [chunk]}]}
    with content_losses() as lost:
        ri = decode_request(body, thread_id="t", run_id="r")
    assert ri.messages[0].content == "hmm"
    assert len(lost) == 1 and "thinking[1]" in str(lost[0].message)
