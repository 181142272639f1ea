"""Every content field ``openai`` declares on a Chat delta and message: an event or a loss.

Chat has no start event (the first chunk is a delta like the others), so issue 36's
"content in a start event" needs nothing here; what it does need is that nothing the model
sends vanishes without a word. The SDK parses each chunk / completion first.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _openai_chat_sdk import client_for_body, stream_body
from losses_seen import content_losses
from openai.types.chat import ChatCompletionMessage
from openai.types.chat.chat_completion_chunk import ChoiceDelta

from toolwire.adapters.openai_chat import Decoder, sse_chunks
from toolwire.losses import ContentLossWarning

#: a value of each content field in the documented shape (``role`` only says who speaks)
SAMPLES: dict[str, Any] = {
    "content": "hello",
    "refusal": "I cannot help with that.",
    "tool_calls": [
        {
            "index": 0,
            "id": "call_1",
            "type": "function",
            "function": {"name": "f", "arguments": "{}"},
        }
    ],
    "function_call": {"name": "f", "arguments": "{}"},
    "audio": {"id": "audio_1", "data": "UklGRg==", "transcript": "hello", "expires_at": 1},
    "annotations": [
        {
            "type": "url_citation",
            "url_citation": {"start_index": 0, "end_index": 5, "title": "A", "url": "https://a"},
        }
    ],
}
STRUCTURAL = {"role"}


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-36",
        "object": "chat.completion.chunk",
        "created": 1760000000,
        "model": "gpt-4o-audio-preview",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }


def sse(chunks: list[dict[str, Any]]) -> bytes:
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


def test_every_declared_field_is_sampled() -> None:
    declared = set(ChoiceDelta.model_fields) | set(ChatCompletionMessage.model_fields)
    assert declared == set(SAMPLES) | STRUCTURAL, sorted(declared ^ (set(SAMPLES) | STRUCTURAL))


@pytest.mark.parametrize("name", sorted(set(ChoiceDelta.model_fields) - STRUCTURAL))
def test_every_delta_field_gives_an_event_or_a_loss(name: str) -> None:
    value = SAMPLES[name]
    body = sse([chunk({"role": "assistant", name: value}), chunk({}, "stop")])
    raw = stream_body(body)
    assert getattr(raw[0].choices[0].delta, name) is not None  # the SDK reads it
    for source in (raw, sse_chunks(body)):
        d = Decoder()
        with content_losses() as lost:
            events = list(d.events(source))
        assert events or (d.losses and lost), f"{name} vanished without a word"
        if not events:
            assert name in d.losses[0].reason


@pytest.mark.parametrize("name", sorted(set(ChatCompletionMessage.model_fields) - STRUCTURAL))
def test_every_message_field_gives_an_event_or_a_loss(name: str) -> None:
    value = SAMPLES[name]
    if name == "tool_calls":
        value = [{k: v for k, v in c.items() if k != "index"} for c in value]
    completion = {
        "id": "chatcmpl-36",
        "object": "chat.completion",
        "created": 1760000000,
        "model": "gpt-4o-audio-preview",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": None, name: value},
            }
        ],
    }
    sdk = client_for_body(json.dumps(completion).encode(), "application/json")
    parsed = sdk.chat.completions.create(model="m", messages=[])
    assert getattr(parsed.choices[0].message, name) is not None
    d = Decoder()
    with content_losses() as lost:
        events = d.feed_response(parsed) + d.close()
    assert events or (d.losses and lost), f"{name} vanished without a word"


def test_an_audio_answer_is_announced_once_not_per_delta() -> None:
    pieces = [chunk({"audio": {"id": "a", "data": "UklG"}}), chunk({"audio": {"data": "Rg=="}})]
    d = Decoder()
    with pytest.warns(ContentLossWarning, match="audio answer"):
        list(d.events(sse_chunks(sse([*pieces, chunk({}, "stop")]))))
    assert [loss.kind for loss in d.losses] == ["content-dropped"]


def test_a_request_s_assistant_audio_or_second_refusal_is_announced() -> None:
    from toolwire.adapters.openai_chat import decode_request

    body = {
        "model": "gpt-4o-audio-preview",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello", "refusal": "no", "audio": {"id": "audio_1"}},
        ],
    }
    with pytest.warns(ContentLossWarning) as seen:
        ri = decode_request(body)
    said = " | ".join(str(w.message) for w in seen)
    assert "messages[1].refusal" in said and "messages[1].audio" in said
    assert ri.messages[1].content == "hello"  # type: ignore[union-attr]
