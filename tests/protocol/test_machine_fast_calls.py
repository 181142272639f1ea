"""The machine's short way for a tool call's start, arguments and end, ``feed_many`` and
``checked`` decide every stream as the general way does: the same events out, the same
violation (code, message, index) at the same event, the same pending calls, call ids and
history after it, in every mode the machine runs in, for random streams valid and invalid."""

from __future__ import annotations

from typing import Any

import pytest
from _agui_builders import (
    args,
    chunk,
    end,
    result,
    run_error,
    run_finished,
    run_started,
    start,
    text_end,
    text_start,
)
from _machine_agree import (
    CALL_ALPHABET,
    CALL_MODELS,
    MODES,
    assert_framed_code,
    error,
    one_by_one,
    parsed,
    state,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import ToolwireError
from toolwire.protocol.events import parse_event
from toolwire.protocol.machine import StreamMachine


def _general(machine: StreamMachine) -> StreamMachine:
    machine._fast = machine._fast_all = {}  # every event the general way (verify)
    return machine


def _many(events: list[Any], mode: dict[str, Any], cut: int) -> tuple[Any, ...]:
    """``feed_many`` over the stream in two lists (cut at ``cut``): what it returns is the
    general way's events, unless a violation comes (then nothing of that list is out)."""
    machine = StreamMachine(**mode)
    out: list[str] = []
    failed: Any = None
    try:
        for part in (events[:cut], iter(events[cut:])):
            out.extend(e.model_dump_json() for e in machine.feed_many(part))
        out.extend(e.model_dump_json() for e in machine.end_input())
    except ToolwireError as exc:
        failed = error(exc)
    return (out, failed, state(machine, mode))


def _checked(events: list[Any], mode: dict[str, Any]) -> tuple[Any, ...]:
    """``checked`` over the stream (an iterator, read lazily): each event it hands on as
    the general way gives it, up to the same violation, and the same state after."""
    machine = StreamMachine(**mode)
    out: list[str] = []
    failed: Any = None
    try:
        for ev in machine.checked(iter(events)):
            out.append(ev.model_dump_json())
        out.extend(e.model_dump_json() for e in machine.end_input())
    except ToolwireError as exc:
        failed = error(exc)
    return (out, failed, state(machine, mode))


def _agree(events: list[Any]) -> list[tuple[Any, ...]]:
    seen = []
    for mode in MODES:
        general = one_by_one(events, mode, _general)
        assert one_by_one(events, mode) == general, mode
        assert _checked(events, mode) == general, mode
        for cut in (0, len(events) // 2, len(events)):
            many = _many(events, mode, cut)
            assert many[1:] == general[1:], (mode, cut)
            if general[1] is None:
                assert many[0] == general[0], (mode, cut)
            else:  # the events before the failing list's are out alike
                assert general[0][: len(many[0])] == many[0], (mode, cut)
        seen.append(general)
    return seen


WHOLE = [
    run_started(),
    text_start("m1"),
    text_end("m1"),
    start("c1", parent="m1"),
    args("c1", '{"a":1}'),
    end("c1"),
    start("c2"),
    args("c2", "{}"),
    end("c2"),
    result("c1"),
    run_finished(),
]


CASES: dict[str, tuple[list[Any], str | None]] = {
    "whole calls": (parsed(*WHOLE), None),
    "a repeated call id": (
        parsed(run_started(), start("c1"), start("c1")),
        "tool-call-already-open",
    ),
    "the end of an unknown call": (parsed(run_started(), end("c9")), "tool-call-not-open"),
    "args after the end": (
        parsed(run_started(), start("c1"), end("c1"), args("c1", "x")),
        "tool-call-not-open",
    ),
    "a parent that is not an assistant": (
        parsed(
            run_started(), text_start("u1", role="user"), text_end("u1"), start("c1", parent="u1")
        ),
        "tool-call-parent-not-assistant",
    ),
    "a reopening under another name": (
        parsed(run_started(), start("c1"), end("c1"), start("c1", name="g")),
        "tool-call-reopen-disagrees",
    ),
    "an end under another owner": (
        parsed(run_started(), start("c1"), end("c1", subagentRunId="sub-2")),
        "owner-mismatch",
    ),
    "a start after the run finished": (
        parsed(run_started(), run_finished(), start("c1")),
        "event-after-run-closed",
    ),
    "an end after the run errored": (
        parsed(run_started(), start("c1"), run_error(), end("c1")),
        "event-after-run-closed",
    ),
    "a start before the run": (parsed(start("c1"), run_started()), "event-before-run-started"),
    "a start into a chunk stream": (
        parsed(run_started(), chunk(toolCallId="c4", toolCallName="f", delta="{"), start("c4")),
        "chunk-forms-mixed",
    ),
    "a call left open at the finish": (
        parsed(run_started(), start("c1"), run_finished()),
        "item-open-at-run-finished",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_each_case_is_decided_alike_and_as_expected(name: str) -> None:
    events, code = CASES[name]
    assert_framed_code(_agree(events), code)


def test_the_short_way_is_taken_for_a_call_inside_a_run() -> None:
    # (the check of the test's own switch: the general way is another path than the short)
    m = StreamMachine(history=True)
    assert {c.__name__ for c in m._fast} == {
        "ToolCallStartEvent",
        "ToolCallArgsEvent",
        "ToolCallEndEvent",
    }
    assert _general(StreamMachine())._fast == {}
    assert StreamMachine(run_open="auto")._fast == {}


def test_the_history_keeps_a_calls_metadata_on_the_short_way() -> None:
    m = StreamMachine(history=True)
    m.feed_many(parsed(run_started(), start("c1", metadata={"k": 1}), args("c1", "{}"), end("c1")))
    m.feed_many(parsed(run_finished()))
    (msg,) = m.messages
    assert msg.tool_calls is not None
    assert msg.tool_calls[0].function.arguments == "{}"
    assert m.pending_tool_call_ids == ["c1"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, len(CALL_ALPHABET) - 1), max_size=14), st.booleans())
def test_random_streams_are_decided_alike(picks: list[int], as_dicts: bool) -> None:
    pool = CALL_ALPHABET if as_dicts else CALL_MODELS
    _agree([pool[i] for i in picks])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 2]), max_size=12), st.lists(st.integers(0, 40)))
def test_runs_of_whole_calls_are_decided_alike(calls: list[int], noise: list[int]) -> None:
    """Runs of whole calls (start, args, end), with ids repeated at random (then refused)."""
    events = [run_started()]
    for n, k in enumerate(calls):
        cid = f"c{k}" if n % 3 else f"c{n}"
        events += [start(cid), args(cid, "{}"), end(cid)]
    for i in noise:
        if events:
            events.insert(i % len(events), CALL_ALPHABET[i % len(CALL_ALPHABET)])
    events.append(run_finished())
    _agree([parse_event(e) for e in events])
