"""``StreamMachine.feed_opened`` (calls opened in a row: start, arguments, start, ...) and
``StreamMachine.feed_ends`` (ends in a row), each checked in one step, decide every stream
as ``feed`` of each event in turn does: the same events out, the same violation (type,
code, message, index) at the same event, the same thread after it, down to the ledger's
own tables, in every mode the machine runs in, for random streams valid and hostile (an
end for a call never opened, an end given twice, an end after its run closed, an end of
another owner, ends among other events)."""

from __future__ import annotations

from typing import Any

import pytest
from _agui_builders import (
    args,
    end,
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

_START, _ARGS, _END = ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent


def _runs(events: list[Any]) -> list[tuple[str, list[Any]]]:
    """The stream cut into the runs the encoders gather: ends in a row, (start, arguments)
    pairs in a row, and single events between them."""
    out: list[tuple[str, list[Any]]] = []
    i = 0
    while i < len(events):
        if type(events[i]) is _END:
            j = i
            while j < len(events) and type(events[j]) is _END:
                j += 1
            out.append(("ends", events[i:j]))
            i = j
            continue
        j = i
        while j + 1 < len(events) and type(events[j]) is _START and type(events[j + 1]) is _ARGS:
            j += 2
        if j > i:
            out.append(("opened", events[i:j]))
            i = j
            continue
        out.append(("one", [events[i]]))
        i += 1
    return out


def _in_runs(events: list[Any], mode: dict[str, Any], taken: list[str]) -> tuple[Any, ...]:
    """``feed_opened`` / ``feed_ends`` for each run of them, ``feed`` where they decline and
    for every other event; ``taken`` gets the kinds of the runs taken in one step."""
    machine = StreamMachine(**mode)
    out: list[str] = []
    failed: Any = None
    try:
        for kind, run in _runs(events):
            if kind != "one":
                step = machine.feed_ends if kind == "ends" else machine.feed_opened
                first = machine.index + 1
                try:
                    took = step(run)
                except ProtocolViolation as exc:  # the events before the failing one taken
                    assert exc.index == first + machine.call_taken
                    assert machine.index == exc.index
                    raise
                except ToolwireError:
                    assert machine.index == first + machine.call_taken
                    raise
                if took:
                    assert machine.index == first + len(run) - 1
                    out.extend(e.model_dump_json() for e in run)
                    taken.append(kind)
                    continue
                assert machine.index == first - 1  # (declined: nothing taken)
            for ev in run:
                out.extend(e.model_dump_json() for e in machine.feed(ev))
        out.extend(e.model_dump_json() for e in machine.end_input())
    except ToolwireError as exc:
        failed = error(exc)
    return (out, failed, state(machine, mode))


def _agree(events: list[Any]) -> list[tuple[Any, ...]]:
    seen = []
    for mode in MODES:
        general = one_by_one(events, mode)
        got = _in_runs(events, mode, [])
        assert got[1] == general[1], mode
        assert got[2] == general[2], mode
        if general[1] is None:
            assert got[0] == general[0], mode
        else:  # a run's events come out only when all passed
            assert general[0][: len(got[0])] == got[0], mode
        seen.append(general)
    return seen


def _opened(*cids: str, **kw: Any) -> list[dict[str, Any]]:
    return [e for cid in cids for e in (start(cid, **kw), args(cid, '{"a":1}'))]


def _ends(*cids: str, **kw: Any) -> list[dict[str, Any]]:
    return [end(cid, **kw) for cid in cids]


CASES: dict[str, tuple[list[Any], str | None]] = {
    "calls opened, then ended": (
        parsed(run_started(), *_opened("c1", "c2", "c3"), *_ends("c1", "c2", "c3"), run_finished()),
        None,
    ),
    "ended in another order": (
        parsed(run_started(), *_opened("c1", "c2", "c3"), *_ends("c3", "c1", "c2"), run_finished()),
        None,
    ),
    "an end for a call never opened": (
        parsed(run_started(), *_opened("c1", "c2"), *_ends("c1", "c9", "c2"), run_finished()),
        "tool-call-not-open",
    ),
    "an end given twice": (
        parsed(run_started(), *_opened("c1", "c2"), *_ends("c1", "c2", "c1"), run_finished()),
        "tool-call-not-open",
    ),
    "an end after its run closed (an error)": (
        parsed(run_started(), *_opened("c1", "c2"), run_error(), *_ends("c1", "c2")),
        "event-after-run-closed",
    ),
    "an end in a new run after its run's error": (
        parsed(run_started(), *_opened("c1"), run_error(), run_started(run="r2"), *_ends("c1")),
        "tool-call-not-open",
    ),
    "ends at the finish, one left": (
        parsed(run_started(), *_opened("c1", "c2"), *_ends("c1"), run_finished()),
        "item-open-at-run-finished",
    ),
    "an end of another owner": (
        parsed(
            run_started(),
            *_opened("c1", "c2"),
            *_ends("c1"),
            end("c2", subagentRunId="sub-2"),
            run_finished(),
        ),
        "owner-mismatch",
    ),
    "a subagent's calls ended with and without its tag": (
        parsed(
            run_started(),
            {"type": "SUBAGENT_STARTED", "subagentRunId": "sub-1", "name": "h"},
            *_opened("c1", "c2", subagentRunId="sub-1"),
            *_opened("c3"),
            end("c1", subagentRunId="sub-1"),
            *_ends("c2", "c3"),
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "sub-1"},
            run_finished(),
        ),
        None,
    ),
    "a tagged end after untagged ones (the shapes kept in the same order)": (
        parsed(
            run_started(),
            {"type": "SUBAGENT_STARTED", "subagentRunId": "sub-1", "name": "h"},
            *_opened("c3", "c4"),
            *_opened("c1", subagentRunId="sub-1"),
            *_ends("c3"),
            end("c1", subagentRunId="sub-1"),
            *_ends("c4"),
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "sub-1"},
            run_finished(),
        ),
        None,
    ),
    "ends among other events": (
        parsed(
            run_started(),
            text_start("m1"),
            *_opened("c1", "c2", parent="m1"),
            text_end("m1"),
            *_ends("c1"),
            text_start("m2"),
            *_ends("c2"),
            text_end("m2"),
            run_finished(),
        ),
        None,
    ),
    "a call reopened in a run of opened calls": (
        parsed(
            run_started(),
            *_opened("c1"),
            *_ends("c1"),
            *_opened("c2", "c1", "c3"),
            *_ends("c3", "c1", "c2"),
            run_finished(),
        ),
        None,
    ),
    "a call opened twice in a run": (
        parsed(run_started(), *_opened("c1", "c2", "c1"), *_ends("c1", "c2"), run_finished()),
        "tool-call-already-open",
    ),
    "a parent that is not an assistant in a run": (
        parsed(
            run_started(),
            text_start("u1", role="user"),
            text_end("u1"),
            *_opened("c1"),
            start("c2", parent="u1"),
            args("c2", "{}"),
        ),
        "tool-call-parent-not-assistant",
    ),
    "arguments of another call in a run": (
        parsed(run_started(), *_opened("c1"), start("c2"), args("c9", "{}"), run_finished()),
        "tool-call-not-open",
    ),
    "ends after the run finished": (
        parsed(run_started(), *_opened("c1"), *_ends("c1"), run_finished(), *_ends("c1")),
        "event-after-run-closed",
    ),
    "ends into a chunk stream": (
        parsed(
            run_started(),
            *_opened("c1"),
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "k1", "toolCallName": "f", "delta": "{"},
            *_ends("c1"),
            run_finished(),
        ),
        None,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_each_case_is_decided_alike_and_as_expected(name: str) -> None:
    events, code = CASES[name]
    assert_framed_code(_agree(events), code)


def test_the_one_step_ways_are_taken() -> None:
    """(so the tests above compare two ways): runs of opened calls and of ends inside a run
    are taken in one step, by the rules' own loop where the ledger is the plain one; outside
    a run, or with a start where an end should be, nothing is taken."""
    taken: list[str] = []
    events = parsed(run_started(), *_opened("c1", "c2"), *_ends("c2", "c1"), run_finished())
    _in_runs(events, MODES[0], taken)
    assert taken == ["opened", "ends"]
    plain = StreamMachine(history=False)
    plain.feed(parse_event(run_started()))
    assert plain._rules.calls_opened(parsed(*_opened("c1", "c2")))
    assert plain._rules.calls_ended(parsed(*_ends("c1", "c2")))
    assert plain.index == 6
    kept = StreamMachine(history=True)
    kept.feed(parse_event(run_started()))
    assert not kept._rules.calls_opened(parsed(*_opened("c1")))
    assert kept.feed_opened(parsed(*_opened("c1")))
    assert not kept._rules.calls_ended(parsed(*_ends("c1")))
    assert kept.feed_ends(parsed(*_ends("c1")))
    assert kept.index == 3
    before = StreamMachine(history=False)
    assert not before.feed_opened(parsed(*_opened("c1")))
    assert not before.feed_ends(parsed(*_ends("c1")))
    assert before.index == -1
    mixed = StreamMachine(history=False)
    mixed.feed(parse_event(run_started()))
    assert not mixed.feed_opened(parsed(start("c1"), start("c2")))
    assert not mixed.feed_ends(parsed(end("c1"), start("c2")))
    assert not mixed.feed_opened(parsed(start("c1")))
    assert mixed.index == 0


def test_arguments_past_their_cap_fail_alike() -> None:
    events = parsed(run_started(), start("c1"), args("c1", "x" * 10), *_opened("c2"))
    events += parsed(start("c3"), args("c3", "y" * 30), *_ends("c1", "c2", "c3"), run_finished())
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
    opened = [e for i in range(5) for e in (start(f"c{i}"), args(f"c{i}", "{}" + " " * i))]
    events = parsed(run_started(), *opened, *_ends(*(f"c{i}" for i in range(5))), run_finished())
    _agree(events)
    machine = StreamMachine(history=False)
    machine.feed(parse_event(run_started()))
    assert machine.feed_opened(parsed(*opened))
    assert machine.feed_ends(parsed(*_ends(*(f"c{i}" for i in range(5)))))
    kinds = [type(c).__name__ for c in machine._thread.calls.values()]
    assert kinds == ["ClosedCall", "ClosedCall", "CallRecord", "CallRecord", "CallRecord"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, len(CALL_ALPHABET) - 1), max_size=16))
def test_random_streams_are_decided_alike(picks: list[int]) -> None:
    _agree([CALL_MODELS[i] for i in picks])


#: the ends a random run of calls may meet besides its own
_STRAY_ENDS = [end("c9"), end("n0"), end("c1", subagentRunId="sub-2"), run_error(), run_finished()]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.booleans()), max_size=10),
    st.permutations(range(10)),
    st.lists(st.integers(0, 200), max_size=4),
)
def test_runs_of_opened_calls_and_ends_are_decided_alike(
    calls: list[tuple[int, bool]], order: list[int], noise: list[int]
) -> None:
    """Calls opened in a row and ended later in any order (ids repeated at random, some
    ended twice), other events and stray ends dropped in anywhere."""
    events = [run_started(), text_start("m1"), text_end("m1")]
    cids = []
    for n, (k, parented) in enumerate(calls):
        cid = f"c{k}" if n % 3 == 0 else f"n{n}"
        events += [start(cid, parent="m1" if parented else None), args(cid, '{"a":1}')]
        cids.append(cid)
    events += [end(cids[i]) for i in order if i < len(cids)]
    for i in noise:
        pool = _STRAY_ENDS if i % 3 else CALL_ALPHABET
        events.insert(i % (len(events) + 1), pool[i % len(pool)])
    events.append(run_finished())
    _agree([parse_event(e) for e in events])
