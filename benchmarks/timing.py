"""Interleaved repetitions, medians and peak memory: what every benchmark in the suite shares.

Each repetition runs every case once, in the same order, so a burst of load from another
process on this shared machine hits all of them alike; what the suite reports are ratios
between the medians of one run. Time is the process's CPU time (``time.process_time``), not
the wall clock: on a machine whose two cores are shared with other work, the wall clock also
counts the time this process waited for a core, which has nothing to do with the code measured.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field

#: whether to collect garbage before each measurement; ``--quick`` measures nothing and turns
#: it off (the collections were most of a quick run's CPU)
COLLECT = True


@dataclass
class Case:
    """One timed thing: ``run()`` does the work once and returns its own duration or None."""

    name: str
    run: Callable[[], float | None]
    times: list[float] = field(default_factory=list)
    error: str | None = None
    #: at most this many timed repetitions (slow peers); None: as many as the others
    limit: int | None = None
    #: run in the warm-up round too (False for a case that warms itself up elsewhere)
    warm: bool = True

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times and self.error is None else None

    @property
    def spread(self) -> float | None:
        """(max - min) / median of the repetitions: how noisy this case was."""
        m = self.median
        return (max(self.times) - min(self.times)) / m if m else None


def timed(fn: Callable[[], object], calls: int = 1) -> Callable[[], float]:
    """A case body that times ``fn()`` (CPU seconds per call) with a collection beforehand;
    ``calls`` runs it that many times in a row per repetition, for a case of a few
    milliseconds, whose single runs the machine's noise would swamp."""

    def run() -> float:
        if COLLECT:
            gc.collect()
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        return (time.process_time() - t0) / calls

    return run


def interleave(cases: list[Case], repetitions: int, warmup: bool = True) -> None:
    """Run every case ``repetitions`` times, round-robin; an exception marks the case failed."""
    rounds = repetitions + (1 if warmup else 0)
    # what exists now (modules, the SDKs' types, the streams) is kept out of the collections
    # each case starts with: they then cost what the case's own garbage costs, not 0.25 s
    if COLLECT:
        gc.collect()
    gc.freeze()
    try:
        _rounds(cases, rounds, warmup)
    finally:
        gc.unfreeze()


def _rounds(cases: list[Case], rounds: int, warmup: bool) -> None:
    for r in range(rounds):
        for case in cases:
            if case.error is not None:
                continue
            if r == 0 and warmup and not case.warm:
                continue
            if case.limit is not None and len(case.times) >= case.limit:
                continue
            try:
                took = case.run()
            except Exception as exc:  # a failed benchmark is reported, never hidden
                case.error = f"{type(exc).__name__}: {exc}"
                continue
            if took is None:
                continue
            if r > 0 or not warmup:
                case.times.append(took)


def peak_bytes(fn: Callable[[], object]) -> int:
    """Peak traced allocation while ``fn()`` runs (what it held at its fullest)."""
    if COLLECT:
        gc.collect()
    tracemalloc.start()
    try:
        fn()
        _, top = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return top
