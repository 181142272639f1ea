"""What the rules keep of each tool call (issue 38, peak memory): a closed call is a shape
shared with the calls alike, and a run's started calls are the ledger's own, so a stream
of many whole calls holds little more than their ids; every rule still sees the same."""

from __future__ import annotations

import gc
import tracemalloc
from dataclasses import asdict
from typing import Any

import pytest
from _agui_builders import args, end, result, run_finished, run_started, start

from toolwire.errors import LimitExceeded, ProtocolViolation
from toolwire.protocol.limits import configure
from toolwire.protocol.machine import StreamMachine

HISTORY = pytest.mark.parametrize("history", [False, True], ids=["plain", "history"])


def _fed(events: list[dict[str, Any]], history: bool) -> StreamMachine:
    m = StreamMachine(history=history)
    for e in events:
        m.feed(e)
    return m


def _input(*messages: dict[str, Any]) -> dict[str, Any]:
    return {
        "threadId": "t1",
        "runId": "r1",
        "messages": list(messages),
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }


@HISTORY
def test_a_reopened_call_counts_its_earlier_arguments_against_the_limit(history: bool) -> None:
    previous = configure(max_argument_chars=10)
    try:
        head = [run_started(), start("c1", "f", parent="m1"), args("c1", "123456"), end("c1")]
        again = start("c1", "f", parent="m1")
        _fed([*head, again, args("c1", "1234")], history)  # 10 in all: at the cap
        with pytest.raises(LimitExceeded):
            _fed([*head, again, args("c1", "12345")], history)  # 11
    finally:
        configure(**asdict(previous))


@HISTORY
@pytest.mark.parametrize(
    "reopen", [start("c1", "g", parent="m1"), start("c1", "f", parent="m2")], ids=["name", "parent"]
)
def test_a_closed_call_still_refuses_a_reopening_that_disagrees(
    history: bool, reopen: dict[str, Any]
) -> None:
    with pytest.raises(ProtocolViolation) as info:
        _fed([run_started(), start("c1", "f", parent="m1"), end("c1"), reopen], history)
    assert info.value.code == "tool-call-reopen-disagrees"


@HISTORY
def test_a_reopened_call_is_open_again_and_closes_again(history: bool) -> None:
    head = [run_started(), start("c1", "f", parent="m1"), end("c1")]
    m = _fed([*head, start("c1", "f"), args("c1", "x")], history)
    m.feed(end("c1"))
    with pytest.raises(ProtocolViolation) as info:
        m.feed(args("c1", "y"))
    assert info.value.code == "tool-call-not-open"


@HISTORY
def test_pending_calls_are_in_the_order_the_run_started_them(history: bool) -> None:
    calls = [start("a"), end("a"), start("b"), end("b"), start("a"), end("a"), start("c"), end("c")]
    m = _fed([run_started(), *calls], history)
    assert m.pending_tool_call_ids == ["a", "b", "c"]  # a reopening within the run: once


@HISTORY
def test_a_call_of_an_earlier_run_reopened_is_pending_where_it_was_reopened(history: bool) -> None:
    first = [run_started(), start("a"), end("a"), run_finished()]
    second = [run_started("r2"), start("b"), end("b"), start("a"), end("a"), start("c"), end("c")]
    m = _fed([*first, *second], history)
    assert m.pending_tool_call_ids == ["b", "a", "c"]
    m.feed(result("b"))
    assert m.pending_tool_call_ids == ["a", "c"]
    m.feed(run_finished("r2"))
    m.feed(run_started("r3"))
    assert m.pending_tool_call_ids == []


@HISTORY
def test_a_snapshot_keeps_the_calls_the_run_started_pending(history: bool) -> None:
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {
                "id": "m9",
                "role": "assistant",
                "toolCalls": [
                    {"id": "h1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
        ],
    }
    m = _fed([run_started(), start("a"), end("a"), start("o"), snapshot], history)
    assert m.call_ids == {"o", "h1"}  # the thread is the snapshot's, and what is open
    m.feed(end("o"))
    m.feed(start("b"))
    m.feed(end("b"))
    m.feed(start("a"))  # dropped by the snapshot: a new call, started before in this run
    m.feed(end("a"))
    assert m.pending_tool_call_ids == ["a", "o", "b"]
    answered = {"id": "t1", "role": "tool", "toolCallId": "o", "content": "ok"}
    m.feed({**snapshot, "messages": [*snapshot["messages"], answered]})
    assert m.pending_tool_call_ids == ["a", "b"]


@HISTORY
def test_calls_of_the_run_input_are_not_the_runs_own(history: bool) -> None:
    earlier = {
        "id": "m0",
        "role": "assistant",
        "toolCalls": [{"id": "h1", "type": "function", "function": {"name": "f", "arguments": ""}}],
    }
    m = _fed([run_started(input=_input(earlier)), start("x"), end("x")], history)
    assert m.pending_tool_call_ids == ["x"]
    assert m.call_ids == {"h1", "x"}
    with pytest.raises(ProtocolViolation) as info:
        m.feed(start("h1", "g"))  # the input's call, closed: a reopening must agree
    assert info.value.code == "tool-call-reopen-disagrees"
    m.feed(start("h1", "f"))
    m.feed(end("h1"))
    assert m.pending_tool_call_ids == ["x", "h1"]


def _held_per_call(calls: int) -> float:
    """Bytes a machine without history holds per closed call, its id's string aside."""
    ids = [f"call_{i:08d}" for i in range(calls)]
    gc.collect()
    tracemalloc.start()
    try:
        m = StreamMachine(history=False)
        m.feed(run_started())
        base = tracemalloc.get_traced_memory()[0]
        for i, cid in enumerate(ids):
            m.feed(start(cid, "get_weather", parent="m1"))
            m.feed(args(cid, f'{{"i": {i % 50}}}'))
            m.feed(end(cid))
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    return held / calls


def test_a_closed_call_costs_a_table_entry_not_a_record() -> None:
    # a record of its own (72 B) and a second table of the run's calls were ~115 B a call;
    # one entry of one str-keyed table is 16-43 B (by how full the table is)
    assert _held_per_call(20_000) < 50
