"""The machine's three parts: the run lifecycle table, the checking-only ledger, the history.

The lifecycle expectations are agui-1.0-rules.md §1.5 ("A stream MUST begin with
RUN_STARTED or RUN_ERROR"; after RUN_FINISHED only RUN_STARTED or a late RUN_ERROR;
after RUN_ERROR only RUN_STARTED; a RUN_STARTED while a run is active is a violation).
A machine made with ``history=False`` must decide every stream exactly as the full one.
"""

from __future__ import annotations

import gc
import tracemalloc
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
from ag_ui.core import ToolCallResultEvent

from toolwire.errors import ProtocolViolation, ToolwireError
from toolwire.protocol._states import TRANSITIONS, RunState
from toolwire.protocol.machine import StreamMachine, validate_stream

# a prefix that leaves the machine in each state
_PREFIX: dict[str, list[dict[str, Any]]] = {
    "idle": [],
    "active": [run_started()],
    "finished": [run_started(), run_finished()],
    "errored": [run_started(), run_error()],
}
# one event of each kind the lifecycle treats differently
_PROBES: dict[str, dict[str, Any]] = {
    "RUN_STARTED": run_started("r2"),
    "RUN_FINISHED": run_finished(),
    "RUN_ERROR": run_error(),
    "TEXT_MESSAGE_START": text_start("m1"),
    "STEP_STARTED": {"type": "STEP_STARTED", "stepName": "s"},
    "CUSTOM": {"type": "CUSTOM", "name": "n", "value": 1},
    "RAW": {"type": "RAW", "event": {}},
}
_CLOSED = "event-after-run-closed"
# (state, probe) -> the violation §1.5 names; absent: allowed
_REFUSED: dict[tuple[str, str], str] = {
    **{
        ("idle", p): "event-before-run-started"
        for p in _PROBES
        if p not in ("RUN_STARTED", "RUN_ERROR")
    },
    ("active", "RUN_STARTED"): "run-already-started",
    **{("finished", p): _CLOSED for p in _PROBES if p not in ("RUN_STARTED", "RUN_ERROR")},
    **{("errored", p): _CLOSED for p in _PROBES if p != "RUN_STARTED"},
}
# the state an allowed probe leads to (the rest stay where they are)
_NEXT = {"RUN_STARTED": "active", "RUN_FINISHED": "finished", "RUN_ERROR": "errored"}


@pytest.mark.parametrize("history", [True, False])
@pytest.mark.parametrize("state", list(_PREFIX))
@pytest.mark.parametrize("probe", list(_PROBES))
def test_the_lifecycle_follows_the_spec_in_every_state(
    state: str, probe: str, history: bool
) -> None:
    m = StreamMachine(history=history)
    for e in _PREFIX[state]:
        m.feed(e)
    refused = _REFUSED.get((state, probe))
    if refused is not None:
        with pytest.raises(ProtocolViolation) as info:
            m.feed(_PROBES[probe])
        assert info.value.code == refused
        assert info.value.index == len(_PREFIX[state])
        return
    m.feed(_PROBES[probe])
    after = _NEXT.get(probe, state)
    # only an active run is truncated at the end of the stream
    if after == "active":
        with pytest.raises(ProtocolViolation, match="RUN_FINISHED or RUN_ERROR"):
            m.close()
    else:
        m.close()


def test_the_table_decides_every_event_type_in_every_state() -> None:
    assert set(TRANSITIONS) == set(RunState)
    for row in TRANSITIONS.values():
        assert "*" in row  # every type the row does not name has an outcome too


# --- history=False decides as history=True --------------------------------------------


def _rich_stream() -> list[dict[str, Any]]:
    """A valid two-run stream touching every part: input history, text, reasoning, steps,
    explicit and chunked calls, results, a snapshot, subagent tags."""
    return [
        run_started(
            input={
                "threadId": "t1",
                "runId": "r1",
                "state": {},
                "tools": [],
                "context": [],
                "forwardedProps": {},
                "messages": [{"id": "u0", "role": "user", "content": "hi"}],
            }
        ),
        {"type": "STEP_STARTED", "stepName": "plan"},
        {"type": "REASONING_START", "messageId": "th1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "th1m", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "th1m", "delta": "think"},
        {"type": "REASONING_MESSAGE_END", "messageId": "th1m"},
        {"type": "REASONING_END", "messageId": "th1"},
        text_start("a1"),
        text("a1", "Let me look."),
        text_end("a1"),
        start("c1", "lookup", parent="a1"),
        args("c1", '{"q":'),
        args("c1", '"x"}', metadata={"k": 1}),
        end("c1"),
        chunk(type="TOOL_CALL_CHUNK", toolCallId="c2", toolCallName="calc", delta='{"n"'),
        chunk(type="TOOL_CALL_CHUNK", delta=":1}"),
        {"type": "STEP_FINISHED", "stepName": "plan"},
        result("c1", "found"),
        {"type": "SUBAGENT_STARTED", "subagentRunId": "sa1", "name": "helper"},
        text_start("s1", subagentRunId="sa1"),
        text("s1", "sub", subagentRunId="sa1"),
        text_end("s1", subagentRunId="sa1"),
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "sa1"},
        run_finished(outcome={"type": "success", "pendingToolCallIds": ["c2"]}),
        run_started("r2"),
        result("c2", "2"),
        {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u9", "role": "user", "content": "x"}]},
        text_start("a2"),
        text("a2", "done"),
        text_end("a2"),
        run_finished("r2"),
    ]


def _outcome(stream: list[dict[str, Any]], history: bool) -> Any:
    m = StreamMachine(history=history)
    out: list[Any] = []
    try:
        for e in stream:
            out.extend(x.model_dump(by_alias=True, mode="json") for x in m.feed(e))
        m.close()
    except ProtocolViolation as v:
        return ("violation", v.code, v.reason, v.index, out)
    return ("valid", out, m.pending_tool_call_ids, sorted(m.call_ids), len(m.runs))


def _mutations(stream: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    out = [stream]
    for i in range(len(stream)):
        out.append(stream[:i] + stream[i + 1 :])  # one event lost
        out.append(stream[: i + 1] + stream[i:])  # one event repeated
        if i + 1 < len(stream):
            out.append([*stream[:i], stream[i + 1], stream[i], *stream[i + 2 :]])  # swapped
    return out


def test_the_rich_stream_is_valid() -> None:
    assert _outcome(_rich_stream(), True)[0] == "valid"


def test_a_machine_without_history_decides_every_mutated_stream_as_the_full_one() -> None:
    outcomes = set()
    for stream in _mutations(_rich_stream()):
        full = _outcome(stream, True)
        assert _outcome(stream, False) == full
        outcomes.add(full[1] if full[0] == "violation" else "valid")
    # the mutations reach many rules, or the comparison checks little
    assert len(outcomes) >= 8, outcomes


def test_messages_of_a_machine_without_history_is_a_clear_error() -> None:
    m = validate_stream(
        [run_started(), text_start("a1"), text_end("a1"), run_finished()], history=False
    )
    assert m.keeps_history is False
    with pytest.raises(ToolwireError, match="history=False"):
        m.messages  # noqa: B018


# --- the history's argument buffer --------------------------------------------------------


def test_arguments_fed_in_many_deltas_come_back_whole() -> None:
    deltas = [f'"k{i}": "é😀{i}", ' for i in range(1000)]  # wider than ASCII from the start
    deltas[:0] = ["{", "a" * 3]  # narrow first, then wide: the buffer must widen
    stream = [
        run_started(),
        start("c1"),
        *(args("c1", d) for d in deltas),
        end("c1"),
        run_finished(),
    ]
    m = validate_stream(stream)
    (call,) = m.messages[0].tool_calls  # type: ignore[union-attr]
    assert call.function.arguments == "".join(deltas)


def _retained(history: bool, deltas: int, size: int) -> tuple[int, int]:
    """Bytes a machine holds after a call of ``deltas`` deltas of ``size`` characters."""
    gc.collect()
    tracemalloc.start()
    try:
        m = StreamMachine(history=history)
        m.feed(run_started())
        m.feed(start("c1"))
        piece = "x" * size
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(deltas):
            m.feed(args("c1", piece))
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    return held, deltas * size


def test_a_machine_without_history_holds_no_argument_text() -> None:
    held, text_size = _retained(False, 20_000, 20)
    assert held < text_size // 10, (held, text_size)


def test_the_history_holds_the_argument_text_not_a_string_per_delta() -> None:
    # a str per 20-character delta would be 49 + 20 + 8 bytes: 77 per delta, 3.85x the text
    held, text_size = _retained(True, 20_000, 20)
    assert held < text_size * 1.5, (held, text_size)


def test_a_result_of_a_machine_without_history_still_answers_its_call() -> None:
    m = StreamMachine(history=False)
    for e in [run_started(), start("c1"), end("c1"), result("c1")]:
        (ev,) = m.feed(e)
    assert isinstance(ev, ToolCallResultEvent)
    assert m.pending_tool_call_ids == []
