"""Every event type of the Cohere SDK's ``StreamedChatResponseV2`` union and every content
item type of ``AssistantMessageResponseContentItem``: each gives an AG-UI event, does what
its closing role says, or is announced as a loss (issue 36: nothing dropped without a word).
Each sample is read by the SDK's own models first. ``message-start`` may already hold
content (issue 36, category 1): it is decoded as if it had been streamed.
"""

from __future__ import annotations

import typing
from typing import Any

import cohere
import pytest
from ag_ui.core import BaseEvent
from losses_seen import content_losses
from pydantic import TypeAdapter

from toolwire.adapters.cohere import Decoder
from toolwire.protocol.runs import frame_run


def _members(union: Any) -> list[Any]:
    out: list[Any] = []
    for arg in typing.get_args(union):
        out += [arg] if hasattr(arg, "model_fields") else _members(arg)
    return out


def _type_of(model: Any) -> str:
    return str(model.model_fields["type"].default)


EVENT_TYPES = {_type_of(m) for m in _members(cohere.StreamedChatResponseV2)}
ITEM_TYPES = {_type_of(m) for m in _members(cohere.AssistantMessageResponseContentItem)}
_EVENTS = TypeAdapter(cohere.StreamedChatResponseV2)

START = {"type": "message-start", "id": "msg-1", "delta": {"message": {"role": "assistant"}}}
END = {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}}
CALL = {"id": "call-1", "type": "function", "function": {"name": "f", "arguments": ""}}


def _content(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content-start", "index": index, "delta": {"message": {"content": item}}}


#: each event type, with what comes before it; the closers are checked on their own below
SAMPLES: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "content-start": ([], _content(0, {"type": "text", "text": "hi"})),
    "content-delta": (
        [_content(0, {"type": "text", "text": ""})],
        {
            "type": "content-delta",
            "index": 0,
            "delta": {"message": {"content": {"text": "hi"}}},
        },
    ),
    "tool-plan-delta": ([], {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "p"}}}),
    "tool-call-start": (
        [],
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": CALL}}},
    ),
    "tool-call-delta": (
        [{"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": CALL}}}],
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": '{"a":1}'}}}},
        },
    ),
    "debug": ([], {"type": "debug", "prompt": "the rendered prompt"}),
}
CLOSERS = {"message-start", "message-end", "content-end", "tool-call-end", "citation-start"}
CLOSERS |= {"citation-end"}


def _run(chunks: list[dict[str, Any]]) -> tuple[list[BaseEvent], Decoder, list[Any]]:
    for c in chunks:
        _EVENTS.validate_python(c)  # the SDK reads each one
    d = Decoder()
    with content_losses() as lost:
        events = list(d.events(chunks))
    return events, d, lost


def test_every_declared_event_and_item_type_is_sorted_here() -> None:
    assert set(SAMPLES) | CLOSERS == EVENT_TYPES
    assert {"text", "thinking"} == ITEM_TYPES


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_every_event_type_gives_an_event_or_a_loss(kind: str) -> None:
    before, event = SAMPLES[kind]
    baseline = [e.model_dump() for e in _run([START, *before, END])[0]]
    events, d, lost = _run([START, *before, event, END])
    if [e.model_dump() for e in events] == baseline:
        assert d.losses and len(lost) == len(d.losses), f"{kind} vanished without a word"
        assert "debug" in d.losses[-1].reason
    else:
        assert not d.losses


def test_the_closers_close_what_they_close() -> None:
    chunks = [
        START,
        _content(0, {"type": "thinking", "thinking": "hmm"}),
        {"type": "content-end", "index": 0},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": CALL}}},
        {"type": "tool-call-end", "index": 0},
        {
            "type": "citation-start",
            "index": 0,
            "delta": {"message": {"citations": {"start": 0, "end": 1, "text": "h"}}},
        },
        {"type": "citation-end", "index": 0},
    ]
    d = Decoder()
    with content_losses() as lost:  # no message-end yet: nothing closed by it
        events = [e for c in chunks for e in d.feed(c)]
    kinds = [e.type.value for e in events]
    assert kinds.index("REASONING_MESSAGE_END") < kinds.index("TOOL_CALL_START")
    assert kinds[-1] == "TOOL_CALL_END" and not lost
    d2 = Decoder()
    list(d2.events([*chunks, END]))
    assert d2.run_metadata["cohere.citations"][0]["text"] == "h"
    assert d2.message_id == "msg-1" and d2.ended


@pytest.mark.parametrize("item", sorted(ITEM_TYPES))
def test_every_content_item_type_gives_an_event_streamed_and_whole(item: str) -> None:
    body = {"type": item, item: "words"}
    events, d, lost = _run([START, _content(0, body), {"type": "content-end", "index": 0}, END])
    assert any(getattr(e, "delta", None) == "words" for e in events) and not lost
    whole = {
        "id": "msg-1",
        "finish_reason": "COMPLETE",
        "message": {"role": "assistant", "content": [body]},
    }
    cohere.V2ChatResponse.model_validate(whole)
    d = Decoder()
    assert any(getattr(e, "delta", None) == "words" for e in d.feed_response(whole))


def test_a_content_item_of_a_type_this_version_does_not_know_is_announced() -> None:
    d = Decoder()
    with content_losses() as lost:
        events = list(
            d.events(
                [
                    START,
                    _content(0, {"type": "hologram", "hologram": {}}),
                    {
                        "type": "content-delta",
                        "index": 0,
                        "delta": {"message": {"content": {"hologram": {}}}},
                    },
                    {"type": "content-end", "index": 0},
                    END,
                ]
            )
        )
    assert events == [] and [loss.kind for loss in d.losses] == ["content-dropped"]
    assert "'hologram'" in d.losses[0].reason and len(lost) == 1
    d = Decoder()
    whole = {"id": "m", "finish_reason": "COMPLETE", "message": {"content": [{"type": "x"}]}}
    with pytest.warns(Warning, match="'x' content item"):
        d.feed_response(whole)


def test_an_event_type_this_version_does_not_know_is_announced() -> None:
    d = Decoder()
    with content_losses() as lost:
        list(d.events([START, {"type": "hologram-start"}, END]))
    assert [loss.kind for loss in d.losses] == ["event-dropped"] and len(lost) == 1


def test_log_probabilities_are_announced_once() -> None:
    delta = {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "x"}}}}
    logp = {"token_ids": [1], "logprobs": [-0.1]}
    chunks = [START, _content(0, {"type": "text", "text": ""})]
    chunks += [{**delta, "logprobs": logp}, {**delta, "logprobs": logp}, END]
    _, d, lost = _run(chunks)
    assert [loss.kind for loss in d.losses] == ["logprobs-dropped"] and len(lost) == 1


def test_content_inside_message_start_is_decoded_as_if_streamed() -> None:
    start = {
        "type": "message-start",
        "id": "msg-9",
        "delta": {
            "message": {
                "role": "assistant",
                "tool_plan": "I will call f.",
                "content": [
                    {"type": "thinking", "thinking": "why"},
                    {"type": "text", "text": "ok"},
                ],
                "tool_calls": [{**CALL, "function": {"name": "f", "arguments": '{"a":1}'}}],
            }
        },
    }
    end = {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}}
    d = Decoder()
    with content_losses() as lost:
        events = list(frame_run(d, [start, end], thread_id="t", run_id="r"))
    assert not lost
    kinds = [e.type.value for e in events]
    for kind in ("REASONING_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"):
        assert kind in kinds
    text = "".join(
        getattr(e, "delta", "") for e in events if e.type.value == "TEXT_MESSAGE_CONTENT"
    )
    assert text == "I will call f.ok"
    finished = events[-1]
    assert finished.type.value == "RUN_FINISHED"
    assert finished.outcome.pending_tool_call_ids == ["call-1"]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- request histories too


def test_an_assistant_messages_citations_in_a_request_are_announced() -> None:
    from toolwire.adapters.cohere import decode_request

    said = {"role": "assistant", "content": "y", "citations": [{"start": 0, "end": 1, "text": "y"}]}
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}, said]}
    with content_losses() as lost:
        ri = decode_request(body, thread_id="t", run_id="r")
    assert ri.messages[-1].content == "y"
    assert len(lost) == 1 and "messages[1].citations" in str(lost[0].message)


@pytest.mark.parametrize("item", sorted(ITEM_TYPES))
def test_every_content_item_type_in_an_assistant_turn_of_a_request_is_kept(item: str) -> None:
    from toolwire.adapters.cohere import decode_request

    said = {"role": "assistant", "content": [{"type": item, item: "words"}]}
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}, said]}
    with content_losses() as lost:
        ri = decode_request(body, thread_id="t", run_id="r")
    assert not lost and any(m.content == "words" for m in ri.messages)


def test_thinking_in_message_start_and_then_streamed_are_two_reasoning_messages() -> None:
    start = {
        "type": "message-start",
        "id": "msg-3",
        "delta": {
            "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "a"}]}
        },
    }
    chunks = [start, _content(0, {"type": "thinking", "thinking": "b"}), END]
    events, _, lost = _run(chunks)
    starts = [e.message_id for e in events if e.type.value == "REASONING_START"]  # type: ignore[attr-defined]
    assert len(starts) == 2 and len(set(starts)) == 2 and not lost
