"""Class 4 of issue 12: the hot paths are linear (n vs 10n, a generous bound).

A ratio, not a timing. For 10x the input a linear path takes about 10x as long and a
quadratic one about 100x; but memory effects alone (10x the objects no longer fit a cache)
can stretch a linear path's ratio to 30 or more on a busy machine. So each path's growth is
divided by the growth of a plain walk over the same input (``baseline``): about 1 when the
path is linear (measured 0.8-1.9 here), several times more when it is quadratic (the code
before issue 12 measured 5.4 for the machine, 11 for pairing; its SSE parser did not finish
in minutes); the bound (``BOUND``) sits between. Inputs
are built outside the timed part, which runs with the garbage collector off (as ``timeit``
does) and is measured in CPU time of this thread; each size is timed as its best run.
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

from toolwire.protocol import SSEParser, StreamMachine
from toolwire.protocol.ndjson import NDJSONReader
from toolwire.protocol.pairing import pair_history

BOUND = 3.0


def _best(run: Callable[[Any], object], data: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        gc.disable()
        try:
            start = time.thread_time()  # CPU time: other processes' load does not count
            run(data)
            times.append(time.thread_time() - start)
        finally:
            gc.enable()
    return max(min(times), 1e-7)


def growth(
    build: Callable[[int], Any],
    run: Callable[[Any], object],
    baseline: Callable[[Any], object],
    n: int,
) -> float:
    """How much faster than ``baseline`` the time of ``run`` grows from n to 10n."""
    small, large = build(n), build(10 * n)
    _best(run, small, 1)  # warm up
    run_growth = _best(run, large, 3) / _best(run, small, 7)
    base_growth = _best(baseline, large, 3) / _best(baseline, small, 7)
    return run_growth / base_growth


def _walk(items: list[Any]) -> None:
    """The baseline: touch every item once (what any linear path must do at least)."""
    seen = {}
    for item in items:
        seen[id(item)] = getattr(item, "type", None) or getattr(item, "id", None)


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

    assert growth(build, run, _walk, 2000) < BOUND


def test_the_sse_parser_is_linear_in_a_long_data_line() -> None:
    def build(n: int) -> list[bytes]:
        return [b"data: "] + [b"x" * 64] * n + [b"\n\n"]

    def run(pieces: list[bytes]) -> None:
        parser = SSEParser()
        out = [ev for piece in pieces for ev in parser.feed(piece)]
        assert len(out[0].data) == 64 * (len(pieces) - 2)

    def floor(pieces: list[bytes]) -> None:
        """The parser's own per-piece floor: as many pieces, each a line of its own."""
        parser = SSEParser()
        for _ in pieces:
            parser.feed(b"\n")

    assert growth(build, run, floor, 4000) < BOUND


def test_the_ndjson_reader_is_linear_in_a_long_line_in_one_byte_pieces() -> None:
    def build(n: int) -> list[bytes]:
        body = b'{"t": "' + b"x" * n + b'"}\n'
        return [body[i : i + 1] for i in range(len(body))]

    def run(pieces: list[bytes]) -> None:
        reader = NDJSONReader("v")
        out = [obj for piece in pieces for obj in reader.feed(piece)]
        assert len(out) == 1 and reader.close() == [] and not reader.pending

    def floor(pieces: list[bytes]) -> None:
        """The reader's own per-piece floor: as many pieces, each a line break alone."""
        reader = NDJSONReader("v")
        for _ in pieces:
            reader.feed(b"\n")

    assert growth(build, run, floor, 16000) < BOUND


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

    assert growth(build, run, _walk, 2000) < BOUND
