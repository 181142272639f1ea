"""What the tests comparing two ways of checking a stream with ``StreamMachine`` share: the
modes a machine runs in, the events their random streams are drawn from (every refusal a
call's events can meet, and what a call's check reads: parents, owners), and what a machine
shows after a stream (down to the ledger's own tables), so that two ways can be compared."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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

from toolwire.errors import ProtocolViolation, ToolwireError
from toolwire.protocol.events import parse_event
from toolwire.protocol.machine import StreamMachine

MODES: list[dict[str, Any]] = [
    {"history": False},
    {"history": True},
    {"history": False, "run_open": True},
    {"history": True, "run_open": True},
    {"history": False, "run_open": "auto"},
    {"history": True, "run_open": "auto"},
]

CALL_ALPHABET: list[dict[str, Any]] = [
    run_started(),
    run_started(run="r2"),
    run_finished(),
    run_finished(outcome={"type": "success", "pendingToolCallIds": ["c1"]}),
    run_error(),
    text_start("m1"),
    text_end("m1"),
    text_start("u1", role="user"),
    text_end("u1"),
    text_start("m2", subagentRunId="sub-1"),
    text_end("m2", subagentRunId="sub-1"),
    start("c1"),
    start("c1", parent="m1"),
    start("c1", name="g"),
    start("c2", parent="u1"),
    start("c2", parent="m1", subagentRunId="sub-1"),
    start("c2", parent="m2"),
    start("c3", subagentRunId="sub-1"),
    start("c1", metadata={"k": 1}),
    start("c4", parent="m9"),
    args("c1", '{"a":'),
    args("c1", "1}"),
    args("c1", "x" * 40),
    args("c2", "{}"),
    args("c3", "x", subagentRunId="sub-1"),
    args("c3", "x", subagentRunId="sub-2"),
    args("c3", "{}"),
    args("c4", "{}"),
    args("c9", "x"),
    end("c1"),
    end("c2"),
    end("c3", subagentRunId="sub-1"),
    end("c3"),
    end("c1", subagentRunId="sub-2"),
    end("c4"),
    end("c9"),
    end("c1", metadata={"done": True}),
    result("c1"),
    result("c2", mid="m1"),
    chunk(toolCallId="c5", toolCallName="f", delta="{"),
    chunk(toolCallId="c5", delta="}"),
    chunk(delta="x"),
    {"type": "MESSAGES_SNAPSHOT", "messages": []},
    {"type": "SUBAGENT_STARTED", "subagentRunId": "sub-1", "name": "helper"},
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "sub-1"},
]
CALL_MODELS: list[Any] = [parse_event(e) for e in CALL_ALPHABET]


def parsed(*events: dict[str, Any]) -> list[Any]:
    return [parse_event(e) for e in events]


def ledger_state(machine: StreamMachine) -> tuple[Any, ...]:
    """What the ledger holds, table by table (a record's fields, a shape as it is)."""
    thread = machine._thread
    rules = machine._rules
    calls = [(cid, type(c).__name__, repr(c)) for cid, c in thread.calls.items()]
    msgs = [(mid, m.role, m.owner) for mid, m in thread.msgs.items()]
    open_calls = [(cid, repr(c)) for cid, c in rules.open_calls.items()]
    started = None if rules._started is None else list(rules._started)
    return (calls, msgs, thread._last_assistant, list(thread._shapes), open_calls, started)


def state(machine: StreamMachine, mode: dict[str, Any]) -> tuple[Any, ...]:
    kept = [m.model_dump_json() for m in machine.messages] if mode["history"] else None
    return (
        machine.index,
        machine.bare,
        machine.pending_tool_call_ids,
        sorted(machine.call_ids),
        ledger_state(machine),
        kept,
    )


def error(exc: ToolwireError) -> tuple[Any, ...]:
    index = exc.index if isinstance(exc, ProtocolViolation) else None
    return (type(exc).__name__, getattr(exc, "code", None), str(exc), index)


def one_by_one(
    events: list[Any],
    mode: dict[str, Any],
    prepare: Callable[[StreamMachine], object] | None = None,
) -> tuple[Any, ...]:
    """``feed`` of each event in turn, then ``end_input``: (the events out as JSON, the
    error if one came, the machine's state after); ``prepare`` is given the new machine."""
    machine = StreamMachine(**mode)
    if prepare is not None:
        prepare(machine)
    out: list[str] = []
    failed: Any = None
    try:
        for ev in events:
            out.extend(e.model_dump_json() for e in machine.feed(ev))
        out.extend(e.model_dump_json() for e in machine.end_input())
    except ToolwireError as exc:
        failed = error(exc)
    return (out, failed, state(machine, mode))


def assert_framed_code(seen: list[tuple[Any, ...]], code: str | None) -> None:
    """Each framed mode's outcome (of ``seen``, one a mode of :data:`MODES`; a mode that
    opens the run itself has no "before the run" to refuse) fails with ``code``, or passes
    where it is ``None``."""
    framed = [s for s, mode in zip(seen, MODES, strict=True) if "run_open" not in mode]
    for _, failed, _ in framed:
        assert (failed[1] if failed else None) == code
