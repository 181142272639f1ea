"""Class 4 of issue 12: the hot paths are linear (n vs 10n, a generous bound).

A ratio, not a timing: a linear path takes about 10x as long for 10x the input, a quadratic
one about 100x. The bound (``BOUND``) leaves room for a loaded machine. Inputs are built
outside the timed part, which runs with the garbage collector off (as ``timeit`` does) and
is timed as the best of three runs.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    RunStartedEvent,
    ToolCall,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)

from toolwire.protocol import SSEParser, StreamMachine, pair_history

BOUND = 35.0


def ratio(build: Callable[[int], Any], run: Callable[[Any], object], n: int) -> float:
    def best(size: int) -> float:
        data = build(size)
        times = []
        for _ in range(3):
            gc.disable()
            try:
                start = time.perf_counter()
                run(data)
                times.append(time.perf_counter() - start)
            finally:
                gc.enable()
        return min(times)

    best(n)  # warm up
    return best(10 * n) / max(best(n), 1e-6)


def test_the_machine_is_linear_in_started_calls() -> None:
    def build(n: int) -> list[Any]:
        events: list[Any] = [RunStartedEvent(thread_id="t", run_id="r")]
        for i in range(n):
            events.append(ToolCallStartEvent(tool_call_id=f"c{i}", tool_call_name="f"))
            events.append(ToolCallEndEvent(tool_call_id=f"c{i}"))
        return events

    def run(events: list[Any]) -> None:
        machine = StreamMachine()
        machine.feed_all(events)
        assert len(machine.pending_tool_call_ids) == len(events) // 2

    assert ratio(build, run, 1000) < BOUND


def test_the_sse_parser_is_linear_in_a_long_data_line() -> None:
    def run(n: int) -> None:
        parser = SSEParser()
        parser.feed(b"data: ")
        piece = b"x" * 64
        for _ in range(n):
            parser.feed(piece)
        (event,) = parser.feed(b"\n\n")
        assert len(event.data) == 64 * n

    assert ratio(lambda n: n, run, 4000) < BOUND


def test_pairing_is_linear_in_parallel_calls() -> None:
    def build(n: int) -> list[Any]:
        fn = FunctionCall(name="f", arguments="{}")
        calls = [ToolCall(id=f"c{i}", function=fn) for i in range(n)]
        history: list[Any] = [UserMessage(id="u", content="go")]
        history.append(AssistantMessage(id="a", tool_calls=calls))
        history += [ToolMessage(id=f"r{i}", tool_call_id=f"c{i}", content="ok") for i in range(n)]
        return history

    def run(history: list[Any]) -> None:
        paired = pair_history(history, target="t")
        assert paired.turns[1].results[-1] is history[-1]

    assert ratio(build, run, 2000) < BOUND
