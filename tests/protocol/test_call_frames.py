"""``encode_agui_sse`` writes a whole call's three events by one template
(``_event_json.call_json``): the bytes are the frames written event by event
(``encode_agui_event``), for any run of events, whole calls or not, in any form, with
strings JSON escapes, ``%`` signs, text UTF-8 cannot carry and fields pydantic writes."""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.protocol._event_json import FRAME_GAP, call_json, event_json
from toolwire.protocol._makers import args_delta, call_end, call_start, call_start_meta, maker
from toolwire.protocol.sse import encode_agui_event, encode_agui_sse

_text = st.sampled_from(
    ["c1", "c2", "f", "m1", "é", "%s", "100%", '"', "\\", "\n", "\ud800", "🙂", "", "a b"]
)
_meta = st.sampled_from(
    [
        {"ollama.index": 3},
        {"toolwire.vendor_id": {"vendor": "v", "id": "x"}},
        {"k": 1.5},  # (a float: pydantic writes the event)
        {"é": "ü", "b": True, "n": None},
        {"deep": [[[1]]]},
        {"s": "\ud800"},
    ]
)


@st.composite
def _start(draw: Any) -> BaseEvent:
    cid, name = draw(_text), draw(_text)
    parent = draw(st.one_of(st.none(), _text))
    way = draw(st.sampled_from(["maker", "meta", "model", "tagged", "stamped", "extra"]))
    if way == "maker" and parent is not None:
        return call_start(cid, name, parent)
    if way == "meta" and parent is not None:
        return call_start_meta(cid, name, parent, draw(_meta))
    fields: dict[str, Any] = {"tool_call_id": cid, "tool_call_name": name}
    if parent is not None:
        fields["parent_message_id"] = parent
    if way == "tagged":
        fields["subagent_run_id"] = draw(_text)
    if way == "stamped":
        fields["timestamp"] = 5
    if way == "extra":
        fields["note"] = draw(_text)  # (an extra field: pydantic writes the event)
    return maker(ToolCallStartEvent)(fields)


@st.composite
def _args(draw: Any, cid: str | None = None) -> BaseEvent:
    cid = draw(_text) if cid is None else cid
    delta = draw(st.sampled_from(['{"a":1}', "{}", "%d%%", "\ud800", "é", '"\\']))
    way = draw(st.sampled_from(["maker", "maker", "tagged", "meta"]))
    if way == "maker":
        return args_delta(cid, delta)
    extra = {"subagent_run_id": "s"} if way == "tagged" else {"metadata": {"k": 1}}
    return ToolCallArgsEvent(tool_call_id=cid, delta=delta, **extra)


@st.composite
def _end(draw: Any, cid: str | None = None) -> BaseEvent:
    cid = draw(_text) if cid is None else cid
    way = draw(st.sampled_from(["maker", "maker", "tagged", "stamped"]))
    if way == "maker":
        return call_end(cid)
    extra: dict[str, Any] = {"subagent_run_id": "s"} if way == "tagged" else {"timestamp": 7}
    return ToolCallEndEvent(tool_call_id=cid, **extra)


@st.composite
def _piece(draw: Any) -> list[BaseEvent]:
    """A whole call (one id, or the end naming another), part of one, or another event."""
    kind = draw(st.sampled_from(["call", "call", "call", "start", "start args", "other"]))
    if kind == "other":
        return [
            draw(
                st.sampled_from(
                    [
                        TextMessageContentEvent(message_id="m1", delta="hi"),
                        RunStartedEvent(thread_id="t", run_id="r"),
                        call_end("c1"),
                        args_delta("c1", "x"),
                    ]
                )
            )
        ]
    start = draw(_start())
    if kind == "start":
        return [start]
    cid = start.tool_call_id if draw(st.booleans()) else draw(_text)
    args = draw(_args(cid))
    if kind == "start args":
        return [start, args]
    return [start, args, draw(_end(cid if draw(st.booleans()) else None))]


def _one_by_one(events: list[BaseEvent]) -> bytes:
    return "".join(encode_agui_event(e) for e in events).encode("utf-8")


@settings(max_examples=400)
@given(st.lists(_piece(), max_size=8))
def test_a_run_of_calls_is_written_as_event_by_event(pieces: list[list[BaseEvent]]) -> None:
    events = [e for piece in pieces for e in piece]
    assert encode_agui_sse(events) == _one_by_one(events)
    assert encode_agui_sse(iter(events)) == _one_by_one(events)  # (read as it comes)


@settings(max_examples=300)
@given(st.lists(_piece(), min_size=1, max_size=3))
def test_a_joined_call_is_its_events_texts(pieces: list[list[BaseEvent]]) -> None:
    events = [e for piece in pieces for e in piece]
    for e in events:
        encode_agui_event(e)  # (each class written once: its forms made)
    for piece in pieces:
        if len(piece) == 3:
            text = call_json(*piece)
            if text is not None:  # never another text than the events' own
                assert text == FRAME_GAP.join(event_json(e) for e in piece)


def test_a_plain_whole_call_takes_the_template() -> None:
    with_meta = call_start_meta("c1", "f", "m1", {"ollama.index": 7})
    calls = [
        [with_meta, args_delta("c1", '{"a":1}'), call_end("c1")],
        [call_start("c2", "f", "m1"), args_delta("c2", "{}"), call_end("c2")],
    ]
    # each kind after the other, twice: a form that writes more fields (the metadata),
    # tried first since the last call, never keeps the next call from its own form
    for call in calls * 2:
        expected = FRAME_GAP.join(e.model_dump_json(by_alias=True) for e in call)
        assert encode_agui_sse(call) == f"data: {expected}\n\n".encode()
        assert call_json(*call) == expected


def test_a_call_the_template_cannot_write_is_written_event_by_event() -> None:
    start, end = call_start("c1", "f", "m1"), call_end("c1")
    for e in (start, end, args_delta("c1", "x")):
        event_json(e)
    # the arguments and the end of two ids, a lone surrogate, an extra field, a tag
    assert call_json(start, args_delta("c1", "x"), call_end("c2")) is None
    assert call_json(start, args_delta("c1", "\ud800"), end) is None
    tagged = ToolCallEndEvent(tool_call_id="c1", subagent_run_id="s")
    assert call_json(start, args_delta("c1", "x"), tagged) is None
    extra = maker(ToolCallStartEvent)({"tool_call_id": "c1", "tool_call_name": "f", "x": 1})
    assert call_json(extra, args_delta("c1", "x"), end) is None
    for call in (
        [start, args_delta("c1", "x"), call_end("c2")],
        [start, args_delta("c1", "\ud800"), end],
        [extra, args_delta("c1", "x"), tagged],
    ):
        assert encode_agui_sse(call) == _one_by_one(call)
