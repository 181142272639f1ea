"""The machine's short way for TOOL_CALL_ARGS decides every stream as its general way does:
the same events out, the same violation at the same event, in every mode it can run in."""

from __future__ import annotations

from dataclasses import asdict
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
    text,
    text_end,
    text_start,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import ToolwireError
from toolwire.protocol.events import parse_event
from toolwire.protocol.limits import configure
from toolwire.protocol.machine import StreamMachine

MODES: list[dict[str, Any]] = [
    {"history": False},
    {"history": True},
    {"history": False, "run_open": True},
    {"history": False, "run_open": "auto"},
]


def _decided(events: list[Any], fast: bool, **mode: Any) -> tuple[Any, ...]:
    machine = StreamMachine(**mode)
    if not fast:
        machine._fast = machine._fast_all = {}
    taken = 0
    out: list[str] = []
    try:
        for ev in events:
            out.extend(e.model_dump_json() for e in machine.feed(ev))
            taken += 1
        out.extend(e.model_dump_json() for e in machine.end_input())
    except ToolwireError as exc:
        return ("error", type(exc).__name__, str(exc), taken, out)
    # and what the history made of the run (the arguments are kept there)
    kept = [m.model_dump_json() for m in machine.messages] if mode.get("history") else None
    return ("events", out, kept)


def _agree(events: list[Any]) -> list[tuple[Any, ...]]:
    # as models (the short way's case) and as dicts (always the general way)
    models = []
    for ev in events:
        parsed = parse_event(ev) if isinstance(ev, dict) else ev
        if parsed is not None:
            models.append(parsed)
    seen = []
    for mode in MODES:
        fast = _decided(models, True, **mode)
        assert fast == _decided(models, False, **mode), mode
        seen.append(fast)
    return seen


BASE = [
    run_started(),
    text_start("m1"),
    text("m1", "hi"),
    text_end("m1"),
    start("c1", parent="m1"),
    args("c1", '{"a":'),
    args("c1", "1}"),
    end("c1"),
    start("c2"),
    args("c2", "{}"),
    end("c2"),
    result("c1"),
    run_finished(),
]

CASES = {
    "whole": BASE,
    "args of no call": [run_started(), args("c9", "x"), run_finished()],
    "args after the call ended": [*BASE[:8], args("c1", "x"), run_finished()],
    "args before RUN_STARTED": [args("c1", "x"), *BASE],
    "args after RUN_FINISHED": [*BASE, args("c1", "x")],
    "args after RUN_ERROR": [*BASE[:6], run_error(), args("c1", "x")],
    "args tagged with another owner": [
        *BASE[:5],
        args("c1", "x", subagentRunId="sub-9"),
        *BASE[5:],
    ],
    "args inside a chunk stream": [
        run_started(),
        chunk(toolCallId="c5", toolCallName="f", delta="{"),
        start("c6"),
        args("c6", "x"),
        end("c6"),
        chunk(toolCallId="c5", delta="}"),
        run_finished(),
    ],
    "args into an open chunk stream": [
        run_started(),
        chunk(toolCallId="c5", toolCallName="f", delta="{"),
        args("c5", "}"),
        run_finished(),
    ],
    "args with a timestamp": [*BASE[:5], args("c1", "x", timestamp=5), *BASE[5:]],
}


@pytest.mark.parametrize("name", CASES)
def test_each_case_is_decided_alike(name: str) -> None:
    _agree(CASES[name])


def _framed(seen: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The outcomes of the modes that take a framed run (a bare turn has no RUN_STARTED)."""
    return [s for s, mode in zip(seen, MODES, strict=True) if mode.get("run_open") is not True]


def test_the_whole_run_passes_and_the_cases_fail_where_expected() -> None:
    assert all(s[0] == "events" for s in _framed(_agree(BASE)))
    for name in ("args of no call", "args after the call ended", "args after RUN_FINISHED"):
        assert all(s[0] == "error" for s in _framed(_agree(CASES[name]))), name
    bare = _agree([e for e in BASE if e["type"] not in ("RUN_STARTED", "RUN_FINISHED")])
    assert bare[2][0] == "events"
    assert '{\\"a\\":1}' in _agree(BASE)[1][2][0]  # the history kept the arguments


def test_the_argument_cap_is_kept_on_the_short_way() -> None:
    previous = configure(max_argument_chars=4)
    try:
        got = _agree([*BASE[:5], args("c1", "abc"), args("c1", "de"), *BASE[7:]])
    finally:
        configure(**asdict(previous))
    assert all(s[0] == "error" and "max_argument_chars" in s[2] for s in _framed(got))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["drop", "repeat", "move", "swap"]),
            st.integers(0, len(BASE) - 1),
            st.integers(0, len(BASE) - 1),
        ),
        max_size=4,
    )
)
def test_mutated_runs_are_decided_alike(edits: list[tuple[str, int, int]]) -> None:
    events = list(BASE)
    for op, i, j in edits:
        i, j = i % len(events), j % len(events)
        if op == "drop" and len(events) > 1:
            del events[i]
        elif op == "repeat":
            events.insert(j, events[i])
        elif op == "move":
            events.insert(j, events.pop(i))
        else:
            events[i], events[j] = events[j], events[i]
    _agree(events)
