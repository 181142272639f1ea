"""``StreamMachine.feed_call``, a tool call's start, one arguments event and (when given) its
end checked in one step, decides every stream as ``feed`` of each event in turn does: the
same events out, the same violation (type, code, message, index) at the same event, the
same thread after it, down to the ledger's own tables (a call's record or shared shape, the
messages, the last assistant message, the shapes kept), in every mode the machine runs in,
for random streams valid and invalid."""

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
from ag_ui.core import ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import ProtocolViolation, ToolwireError
from toolwire.protocol import _ledger
from toolwire.protocol.events import parse_event
from toolwire.protocol.limits import configure, limits
from toolwire.protocol.machine import StreamMachine

_CLASSES = (ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent)


def _in_calls(events: list[Any], mode: dict[str, Any], counted: list[int]) -> tuple[Any, ...]:
    """``feed_call`` wherever a start and an arguments event (and an end) come in a row,
    whatever their ids; ``feed`` where it declines and for every other event. ``counted``
    gets how many events ``feed_call`` took."""
    machine = StreamMachine(**mode)
    out: list[str] = []
    failed: Any = None
    i = 0
    try:
        while i < len(events):
            kinds = tuple(type(e) for e in events[i : i + 3])
            if kinds[:2] == _CLASSES[:2]:
                three = kinds == _CLASSES
                group = events[i : i + (3 if three else 2)]
                first = machine.index + 1
                try:
                    took = machine.feed_call(*group)
                except ProtocolViolation as exc:  # the events before the failing one taken
                    assert exc.index == first + machine.call_taken
                    raise
                if took:
                    out.extend(e.model_dump_json() for e in group)
                    counted.append(len(group))
                    i += len(group)
                    continue
            out.extend(e.model_dump_json() for e in machine.feed(events[i]))
            i += 1
        out.extend(e.model_dump_json() for e in machine.end_input())
    except ToolwireError as exc:
        failed = error(exc)
    return (out, failed, state(machine, mode))


def _agree(events: list[Any]) -> list[tuple[Any, ...]]:
    seen = []
    for mode in MODES:
        general = one_by_one(events, mode)
        counted: list[int] = []
        got = _in_calls(events, mode, counted)
        assert got[1] == general[1], mode
        assert got[2] == general[2], mode
        if general[1] is None:
            assert got[0] == general[0], mode
        else:  # feed_call's events come out only when all passed
            assert general[0][: len(got[0])] == got[0], mode
        seen.append(general)
    return seen


def _call(cid: str, text: str = "{}", **kw: Any) -> list[dict[str, Any]]:
    return [start(cid, **kw), args(cid, text), end(cid)]


CASES: dict[str, tuple[list[Any], str | None]] = {
    "whole calls": (
        parsed(
            run_started(),
            text_start("m1"),
            text_end("m1"),
            *_call("c1", parent="m1"),
            *_call("c2"),
            result("c1"),
            run_finished(),
        ),
        None,
    ),
    "a call reopened": (parsed(run_started(), *_call("c1"), *_call("c1"), run_finished()), None),
    "a call opened twice": (
        parsed(run_started(), start("c1"), args("c1", "{}"), *_call("c1")),
        "tool-call-already-open",
    ),
    "arguments for another call": (
        parsed(run_started(), start("c1"), args("c2", "{}"), end("c1")),
        "tool-call-not-open",
    ),
    "an end for another call": (
        parsed(run_started(), start("c1"), args("c1", "{}"), end("c2")),
        "tool-call-not-open",
    ),
    "a call outside a run": (
        parsed(run_started(), run_finished(), *_call("c1")),
        "event-after-run-closed",
    ),
    "a call before the run": (parsed(*_call("c1"), run_started()), "event-before-run-started"),
    "a call after an error": (
        parsed(run_started(), run_error(), *_call("c1")),
        "event-after-run-closed",
    ),
    "a parent that is not an assistant": (
        parsed(
            run_started(), text_start("u1", role="user"), text_end("u1"), *_call("c1", parent="u1")
        ),
        "tool-call-parent-not-assistant",
    ),
    "a parent of another owner": (
        parsed(
            run_started(),
            text_start("m2", subagentRunId="sub-1"),
            text_end("m2", subagentRunId="sub-1"),
            *_call("c1", parent="m2", subagentRunId="sub-2"),
        ),
        "tool-call-owner-mismatch",
    ),
    "a parent's owner taken": (
        parsed(
            run_started(),
            text_start("m2", subagentRunId="sub-1"),
            text_end("m2", subagentRunId="sub-1"),
            *_call("c1", parent="m2"),
            start("c1"),
            args("c1", "{}"),
            end("c1", subagentRunId="sub-1"),
            run_finished(),
        ),
        None,
    ),
    "a subagent's call, its arguments and end untagged": (
        parsed(
            run_started(),
            {"type": "SUBAGENT_STARTED", "subagentRunId": "sub-1", "name": "h"},
            *_call("c1", subagentRunId="sub-1"),
            *_call("c2"),
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "sub-1"},
            run_finished(),
        ),
        None,
    ),
    "a reopening under another name": (
        parsed(run_started(), *_call("c1"), *_call("c1", name="g")),
        "tool-call-reopen-disagrees",
    ),
    "an end under another owner": (
        parsed(run_started(), start("c1"), args("c1", "{}"), end("c1", subagentRunId="sub-2")),
        "owner-mismatch",
    ),
    "a call into a chunk stream": (
        parsed(run_started(), chunk(toolCallId="c4", toolCallName="f", delta="{"), *_call("c4")),
        "chunk-forms-mixed",
    ),
    "a call left open at the finish": (
        parsed(run_started(), start("c1"), args("c1", "{}"), run_finished()),
        "item-open-at-run-finished",
    ),
    "a pending list stated": (
        parsed(
            run_started(),
            *_call("c1"),
            *_call("c2"),
            result("c2"),
            run_finished(outcome={"type": "success", "pendingToolCallIds": ["c1"]}),
        ),
        None,
    ),
    "a snapshot between calls": (
        parsed(
            run_started(),
            *_call("c1"),
            {"type": "MESSAGES_SNAPSHOT", "messages": []},
            *_call("c2"),
            run_finished(),
        ),
        None,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_each_case_is_decided_alike_and_as_expected(name: str) -> None:
    events, code = CASES[name]
    assert_framed_code(_agree(events), code)


def test_arguments_past_their_cap_fail_alike() -> None:
    events = parsed(run_started(), *_call("c1", "x" * 30), *_call("c2", "y" * 10))
    previous = limits()
    configure(max_argument_chars=20)
    try:
        seen = _agree(events)
        for (_, failed, _), mode in zip(seen, MODES, strict=True):
            if "run_open" not in mode:
                assert failed is not None
                assert failed[0] == "LimitExceeded"
    finally:
        configure(max_argument_chars=previous.max_argument_chars)


def test_calls_past_the_shapes_kept_keep_their_records_alike(monkeypatch: Any) -> None:
    monkeypatch.setattr(_ledger, "_SHAPES_KEPT", 2)
    calls = [e for i in range(5) for e in _call(f"c{i}", "{}" + " " * i)]
    _agree(parsed(run_started(), *calls, *_call("c0"), run_finished()))
    machine = StreamMachine(history=False)
    machine.feed(parse_event(run_started()))
    for i in range(5):
        assert machine.feed_call(*parsed(*_call(f"c{i}", "{}" + " " * i)))
    kinds = [type(c).__name__ for c in machine._thread.calls.values()]
    assert kinds == ["ClosedCall", "ClosedCall", "CallRecord", "CallRecord", "CallRecord"]


def test_the_one_step_way_is_taken_for_a_plain_call() -> None:
    """(so the tests above compare two ways): a new call's three events inside a run take
    the one step without the call's open record; a call the history keeps, the three
    checks in turn (feed_call still takes them), and outside a run nothing."""
    taken: list[int] = []
    _in_calls(parsed(run_started(), *_call("c1"), start("c2"), args("c2", "{}")), MODES[0], taken)
    assert taken == [3, 2]
    plain = StreamMachine(history=False)
    plain.feed(parse_event(run_started()))
    assert plain._rules.whole_call(*parsed(*_call("c1")))
    assert plain.index == 3
    kept = StreamMachine(history=True)
    kept.feed(parse_event(run_started()))
    assert not kept._rules.whole_call(*parsed(*_call("c1")))
    assert kept.feed_call(*parsed(*_call("c1")))
    assert kept.index == 3
    before = StreamMachine(history=False)
    assert not before.feed_call(*parsed(*_call("c1")))
    assert before.index == -1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, len(CALL_ALPHABET) - 1), max_size=16))
def test_random_streams_are_decided_alike(picks: list[int]) -> None:
    _agree([CALL_MODELS[i] for i in picks])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.booleans(), st.booleans()), max_size=10),
    st.lists(st.integers(0, 60)),
)
def test_runs_of_calls_are_decided_alike(
    calls: list[tuple[int, bool, bool]], noise: list[int]
) -> None:
    """Runs of calls (start, args and an end, or left open to end later), ids repeated at
    random, other events dropped in anywhere."""
    events = [run_started()]
    later = []
    for n, (k, whole, parented) in enumerate(calls):
        cid = f"c{k}" if n % 2 else f"n{n}"
        events += [start(cid, parent="m1" if parented else None), args(cid, '{"a":1}')]
        if whole:
            events.append(end(cid))
        else:
            later.append(end(cid))
    events = [events[0], text_start("m1"), text_end("m1"), *events[1:], *later]
    for i in noise:
        events.insert(i % len(events), CALL_ALPHABET[i % len(CALL_ALPHABET)])
    events.append(run_finished())
    _agree([parse_event(e) for e in events])
