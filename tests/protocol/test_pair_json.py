"""A call's start and its first arguments as one text (``_event_json.pair_json``): where it
gives a text, that is the two events' own texts joined by ``FRAME_GAP``, whatever forms
the starts before it came in and whichever of ``call_json`` and ``pair_json`` wrote last;
a start with its parent and its arguments (the commonest) is always one text."""

from __future__ import annotations

from typing import Any

from ag_ui.core import ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import PydanticSerializationError

from toolwire.protocol._event_json import FRAME_GAP, call_json, pair_json, pairs_json, run_json
from toolwire.protocol.sse import encode_agui_sse
from toolwire.protocol.sse import event_json as written_alone


def event_json(event: Any) -> str:
    """An event's text as pydantic writes it (one it cannot write, a lone surrogate's, as
    ``sse.event_json`` does: escaped): what the templates must give, not their own forms'
    writing."""
    try:
        return str(event.model_dump_json(by_alias=True))
    except PydanticSerializationError:
        return written_alone(event)


_STARTS = st.builds(
    dict,
    tool_call_id=st.sampled_from(["c1", "c2", "é", "c\ud800"]),
    tool_call_name=st.sampled_from(["f", "naïve", "g\udfff"]),
    parent_message_id=st.sampled_from([None, "m1"]),
    metadata=st.sampled_from([None, {"index": 2}, {"a": {"b": [1, None]}}, {"f": 1.5}]),
    timestamp=st.sampled_from([None, 7]),
)


def _start(fields: dict[str, Any]) -> ToolCallStartEvent:
    return ToolCallStartEvent(**{k: v for k, v in fields.items() if v is not None})


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(_STARTS, st.sampled_from(["c1", "c2"]), st.text(max_size=5), st.booleans()),
        min_size=1,
        max_size=8,
    )
)
def test_a_pair_written_by_one_template_is_its_events_texts(
    calls: list[tuple[dict[str, Any], str, str, bool]],
) -> None:
    for fields, args_id, delta, whole in calls:
        start = _start(fields)
        args = ToolCallArgsEvent(tool_call_id=args_id, delta=delta)
        if whole:  # (the other template between: the forms cached move)
            end = ToolCallEndEvent(tool_call_id=args_id)
            text = call_json(start, args, end)
            if text is not None:
                assert text == FRAME_GAP.join(event_json(e) for e in (start, args, end))
        text = pair_json(start, args)
        if text is None:  # (each written alone, as a writer then does: its form first now)
            written_alone(start)
            written_alone(args)
            expected = event_json(start) + FRAME_GAP + event_json(args)
            text = pair_json(start, args)
            assert text is None or text == expected
        else:
            assert text == event_json(start) + FRAME_GAP + event_json(args)


def test_the_commonest_pair_is_one_text() -> None:
    start = ToolCallStartEvent(tool_call_id="c9", tool_call_name="get", parent_message_id="m")
    args = ToolCallArgsEvent(tool_call_id="c9", delta='{"q":"\\"x\\""}')
    written_alone(start)  # (a class's forms are made as it is first written)
    written_alone(args)
    assert pair_json(start, args) == event_json(start) + FRAME_GAP + event_json(args)
    other = ToolCallArgsEvent(tool_call_id="c8", delta="{}")
    assert pair_json(start, other) == event_json(start) + FRAME_GAP + event_json(other)


_ENDS = st.one_of(
    st.builds(ToolCallEndEvent, tool_call_id=st.sampled_from(["c1", "é", "c\ud800"])),
    st.builds(lambda cid: ToolCallEndEvent(tool_call_id=cid, timestamp=3), st.sampled_from(["c2"])),
    st.builds(lambda cid: ToolCallEndEvent.model_construct(tool_call_id=cid), st.just(5)),
    st.builds(ToolCallArgsEvent, tool_call_id=st.just("c1"), delta=st.just("x")),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ENDS, min_size=1, max_size=8), st.integers(0, 7))
def test_ends_in_a_row_written_in_one_loop_are_their_texts(events: list[Any], at: int) -> None:
    at %= len(events)
    written_alone(ToolCallEndEvent(tool_call_id="c0"))  # (the bare form first)
    out: list[str] = []
    stop = run_json(events, at, out)
    assert at <= stop <= len(events)
    assert out == [event_json(e) for e in events[at:stop]]
    if type(events[at]) is ToolCallEndEvent and events[at].__dict__ == {
        **events[at].__dict__,
        "timestamp": None,
        "tool_call_id": "c1",
    }:
        assert stop > at  # (the plain end is written here)


def test_a_run_of_ends_stops_where_its_form_does() -> None:
    """A lone surrogate (no UTF-8: event_json escapes it), another form, another class."""
    plain = [ToolCallEndEvent(tool_call_id=c) for c in ("c1", "é", "c2")]
    for odd in (
        ToolCallEndEvent(tool_call_id="c\ud800"),
        ToolCallEndEvent(tool_call_id="c3", timestamp=3),
        ToolCallArgsEvent(tool_call_id="c1", delta="x"),
    ):
        events = [*plain, odd, *plain]
        written_alone(plain[0])  # (the bare form first: writing ``odd`` may have moved it)
        out: list[str] = []
        assert run_json(events, 0, out) == 3
        assert out == [event_json(e) for e in plain]
        assert event_json(odd) not in out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(_STARTS, st.sampled_from(["c1", "c2"]), st.text(max_size=4), st.booleans()),
        max_size=6,
    )
)
def test_the_sse_writer_s_calls_are_their_events_frames(
    calls: list[tuple[dict[str, Any], str, str, bool]],
) -> None:
    """``encode_agui_sse`` of starts each with its first arguments, some ended at once,
    the rest at the end (as a turn whose calls end at its finish gives them)."""
    events: list[Any] = []
    later: list[Any] = []
    for fields, args_id, delta, ended in calls:
        events += [_start(fields), ToolCallArgsEvent(tool_call_id=args_id, delta=delta)]
        end = ToolCallEndEvent(tool_call_id=args_id)
        if ended:
            events.append(end)
        else:
            later.append(end)
    events += later
    expected = "".join(f"data: {event_json(e)}\n\n" for e in events)
    assert encode_agui_sse(events) == expected.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(_STARTS, st.sampled_from(["c1", "c2"]), st.text(max_size=4)),
        min_size=1,
        max_size=6,
    )
)
def test_pairs_written_in_one_loop_are_their_events_texts(
    calls: list[tuple[dict[str, Any], str, str]],
) -> None:
    """From the first pair on, while they are in the commonest form; what is written is
    each pair's two texts joined, and the deltas are the pairs' own."""
    events: list[Any] = []
    for fields, args_id, delta in calls:
        events += [_start(fields), ToolCallArgsEvent(tool_call_id=args_id, delta=delta)]
    plain = ToolCallStartEvent(tool_call_id="c0", tool_call_name="f", parent_message_id="m")
    written_alone(plain)  # (the commonest form first)
    written_alone(events[1])
    out: list[str] = []
    deltas: list[str] = []
    stop = pairs_json(events, 0, out, deltas)
    assert stop % 2 == 0 and stop <= len(events)
    pairs = [events[i : i + 2] for i in range(0, stop, 2)]
    assert out == [event_json(s) + FRAME_GAP + event_json(a) for s, a in pairs]
    assert deltas == [a.delta for _, a in pairs]
    first = calls[0][0]
    if first["parent_message_id"] and not first["metadata"] and not first["timestamp"]:
        if "\ud800" not in first["tool_call_id"] + first["tool_call_name"]:
            if "\udfff" not in first["tool_call_name"] and "\ud800" not in calls[0][2]:
                assert stop >= 2  # (the commonest pair is written here)
