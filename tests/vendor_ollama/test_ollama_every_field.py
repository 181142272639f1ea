"""Every field the ollama SDK declares on ``ChatResponse``, its ``Message`` and a
``Message.ToolCall``: content gives an AG-UI event, the turn's bookkeeping lands on the run's
usage and metadata, and what AG-UI has no place for is announced as a loss (issue 36:
nothing dropped without a word). Each line is read by the SDK's ``ChatResponse`` first.
Ollama has no start event: the first line's content is decoded like any other.
"""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import BaseEvent
from losses_seen import content_losses
from ollama import ChatResponse, Image, Message

from toolwire.adapters.ollama import Decoder

#: message fields that are content, each with a sample
CONTENT: dict[str, Any] = {
    "content": "hello",
    "thinking": "hmm",
    "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}],
}
#: message fields AG-UI has no event for
DROPPED: dict[str, Any] = {"images": ["iVBORw0KGgo="], "tool_name": "f"}
#: the turn's bookkeeping, and where each lands (run metadata, usage or the decoder)
TURN: dict[str, Any] = {
    "model": "llama3.2",
    "created_at": "2026-01-01T00:00:00Z",
    "done": True,
    "done_reason": "stop",
    "total_duration": 5,
    "load_duration": 1,
    "prompt_eval_count": 3,
    "prompt_eval_duration": 1,
    "eval_count": 2,
    "eval_duration": 1,
}
LOGPROBS = [{"token": "a", "logprob": -0.1}]


def test_every_declared_field_is_sorted_here() -> None:
    assert set(Message.model_fields) == set(CONTENT) | set(DROPPED) | {"role"}
    assert set(ChatResponse.model_fields) == set(TURN) | {"message", "logprobs"}
    assert set(Message.ToolCall.model_fields) == {"function"}
    assert set(Message.ToolCall.Function.model_fields) == {"name", "arguments"}


def _line(message: dict[str, Any], **more: Any) -> dict[str, Any]:
    line = {**TURN, "message": {"role": "assistant", **message}, **more}
    images = line["message"].get("images")
    sdk = {**line, "message": {**line["message"], "images": [Image(value=i) for i in images or []]}}
    ChatResponse.model_validate(sdk if images else line)  # the SDK reads it
    return line


def _both(line: dict[str, Any]) -> list[tuple[list[BaseEvent], Decoder, list[Any]]]:
    out = []
    for whole in (False, True):
        d = Decoder()
        with content_losses() as lost:
            events = d.feed_response(line) + d.close() if whole else list(d.events([line]))
        out.append((events, d, lost))
    return out


@pytest.mark.parametrize("name", sorted(CONTENT))
def test_every_content_field_gives_an_event(name: str) -> None:
    for events, d, lost in _both(_line({name: CONTENT[name]})):
        assert events and not d.losses and not lost


@pytest.mark.parametrize("name", sorted(DROPPED))
def test_every_field_without_an_agui_place_is_announced(name: str) -> None:
    for events, d, lost in _both(_line({"content": "", name: DROPPED[name]})):
        assert events == []
        assert [loss.kind for loss in d.losses] == ["content-dropped"] and len(lost) == 1
        assert f"message.{name}" in d.losses[0].reason


def test_log_probabilities_are_announced_once_per_turn() -> None:
    first = {**_line({"content": "a"}, logprobs=LOGPROBS), "done": False}
    d = Decoder()
    with content_losses() as lost:
        list(d.events([first, _line({"content": "b"}, logprobs=LOGPROBS)]))
    assert [loss.kind for loss in d.losses] == ["logprobs-dropped"] and len(lost) == 1


def test_the_turns_bookkeeping_lands_on_usage_and_metadata() -> None:
    for _, d, lost in _both(_line({"content": "x"})):
        assert not lost and d.model == "llama3.2" and d.done
        assert d.usage[0].input_tokens == 3 and d.usage[0].output_tokens == 2
        assert d.run_metadata["ollama.done_reason"] == "stop"
        assert len(d.run_metadata["ollama.durations"]) == 4


def test_the_first_line_s_content_is_decoded_like_any_other() -> None:
    first = {**_line({"thinking": "why", "content": "Hi"}), "done": False}
    events = list(Decoder().events([first, _line({"content": "!"})]))
    kinds = [e.type.value for e in events]
    assert kinds[:3] == ["REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT"]
    text = "".join(
        getattr(e, "delta", "") for e in events if e.type.value == "TEXT_MESSAGE_CONTENT"
    )
    assert text == "Hi!"


# ---------------------------------------------------------------- request histories too

REQUEST_SAMPLES: dict[str, Any] = {**CONTENT, "images": ["iVBORw0KGgo="]}
#: per role, the message fields its AG-UI message holds (the others must be announced)
HELD = {
    "system": {"content"},
    "user": {"content", "images"},
    "assistant": {"content", "thinking", "tool_calls"},
    "tool": {"content", "images"},
}


@pytest.mark.parametrize("name", sorted(REQUEST_SAMPLES))
@pytest.mark.parametrize("role", sorted(HELD))
def test_every_message_field_in_a_request_is_kept_or_announced(role: str, name: str) -> None:
    from toolwire.adapters.ollama import decode_request

    message = {"role": role, "content": "" if name != "content" else "hello"}
    message[name] = REQUEST_SAMPLES[name]
    messages: list[dict[str, Any]] = [message]
    if role == "tool":  # answers a call the assistant made before it
        messages = [{"role": "assistant", "content": "", "tool_calls": CONTENT["tool_calls"]}]
        messages.append({**message, "tool_name": "f"})
    Message.model_validate(
        {**message, "images": [Image(value=i) for i in message.get("images", [])]}
    )
    with content_losses() as lost:
        ri = decode_request({"model": "m", "messages": messages}, thread_id="t", run_id="r")
    if name in HELD[role]:
        assert not lost
        last = ri.messages[-1].model_dump(exclude_none=True)
        assert last.get("content") or last.get("tool_calls") or len(ri.messages) > 1
    else:
        assert len(lost) == 1 and f"messages[{len(messages) - 1}].{name}" in str(lost[0].message)
