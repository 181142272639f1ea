"""What the fixes in modules other people own would gain, measured with stand-ins.

``python -m benchmarks.experiments [--reps N] [--events N]``. Each experiment times the path as
it is against the same path with one cost taken away (a pass-through in place of the stream
machine, a set-backed list, ``model_construct`` in place of validation, a plain split in place
of the SSE parser ...), interleaved, CPU time. The stand-ins are not fixes — they drop checks
the real code must keep — so each gain is an upper bound for the fix listed under "next" in
``docs/performance.md``. Nothing here changes toolwire; every patch is undone after its case.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
)

from benchmarks import paths
from benchmarks.suite import VENDORS
from benchmarks.timing import Case, interleave, timed
from toolwire import adapters
from toolwire.protocol import StreamMachine, encode_agui_sse
from toolwire.protocol.decoding import as_dict


@contextmanager
def _patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    missing = object()
    old = obj.__dict__.get(name, missing)
    setattr(obj, name, value)
    try:
        yield
    finally:
        if old is missing:
            delattr(obj, name)
        else:
            setattr(obj, name, old)


def _under(patch: Callable[[], Any], fn: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        with patch():
            return fn()

    return run


def _pass_through(self: Any, ev: Any) -> list[Any]:
    """A machine that checks nothing: it only counts the event (as the real one does)."""
    self._rules.index += 1
    return [ev]


def _framed_without_machine(adapter: Any, chunks: Any) -> Iterator[BaseEvent]:
    """The decoder's turn between RUN_STARTED and RUN_FINISHED, nothing checked or kept."""
    yield RunStartedEvent(thread_id="t-bench", run_id="r-bench", protocol_version=PROTOCOL_VERSION)
    yield from adapter.decode_stream(chunks)
    yield RunFinishedEvent(
        thread_id="t-bench", run_id="r-bench", outcome=RunFinishedSuccessOutcome()
    )


def _split_sse(body: bytes) -> int:
    """Lower bound of an SSE reader for LF-only bodies: split, take ``data:``, json.loads."""
    n = 0
    for block in body.decode("utf-8").split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data: ") and line != "data: [DONE]":
                json.loads(line[6:])
                n += 1
    return n


def experiments(events: int) -> list[tuple[str, Case, Case]]:
    out: list[tuple[str, Case, Case]] = []

    def pair(label: str, base: Callable[[], Any], variant: Callable[[], Any]) -> None:
        out.append(
            (
                label,
                Case(label + " / now", timed(base)),
                Case(label + " / stand-in", timed(variant)),
            )
        )

    for vendor in ("anthropic", "openai_chat", "gemini"):
        adapter = adapters.get(vendor)
        body = VENDORS[vendor].build("tool", events)
        pair(
            f"{vendor}: bytes → SSE, frame_run's StreamMachine vs none (checks + history)",
            lambda a=adapter, b=body: paths.sse(a, paths.read(a, b)),
            lambda a=adapter, b=body: encode_agui_sse(_framed_without_machine(a, paths.read(a, b))),
        )
    for vendor in ("anthropic", "openai_chat", "openai_responses", "gemini"):
        objects = VENDORS[vendor].sdk_objects(VENDORS[vendor].build("tool", events))
        dumped = [as_dict(x, vendor) for x in objects]
        adapter = adapters.get(vendor)
        pair(
            f"{vendor}: on SDK objects → events, as_dict of each SDK object vs given dicts",
            lambda a=adapter, o=objects: paths.events(a, o),
            lambda a=adapter, d=dumped: paths.events(a, d),
        )
    for vendor in ("anthropic", "openai_chat"):
        adapter = adapters.get(vendor)
        body = VENDORS[vendor].build("tool", events)
        pair(
            f"{vendor}: SSE reading, toolwire's reader + json.loads vs split + json.loads",
            lambda a=adapter, b=body: sum(1 for _ in paths.read(a, b)),
            lambda b=body: _split_sse(b),
        )
        run_events = list(paths.run(adapter, paths.read(adapter, body)))
        fields = [(type(e), dict(e)) for e in run_events]
        pair(
            f"{vendor}: the run's AG-UI events built, validated __init__ vs model_construct",
            lambda f=fields: [cls(**kw) for cls, kw in f],
            lambda f=fields: [cls.model_construct(**kw) for cls, kw in f],
        )
        pair(
            f"{vendor}: encode → vendor SSE, the Encoder's StreamMachine vs a pass-through",
            lambda a=adapter, r=run_events: paths.encode(a, r),
            _under(
                lambda: _patched(StreamMachine, "feed", _pass_through),
                lambda a=adapter, r=run_events: paths.encode(a, r),
            ),
        )
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.experiments")
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    pairs = experiments(args.events)
    interleave([c for _, a, b in pairs for c in (a, b)], args.reps)
    print(f"| experiment ({args.events} events, tool shape unless named) | now ms | stand-in ms "
          "| gain |")  # fmt: skip
    print("|---|---|---|---|")
    for label, now, stand in pairs:
        a, b = now.median, stand.median
        if a is None or b is None:
            print(f"| {label} | {now.error or ''} | {stand.error or ''} | — |")
            continue
        gain = (a - b) / a * 100
        said = f"−{gain:.0f}%" if gain >= 0 else f"+{-gain:.0f}% (the stand-in is slower)"
        print(f"| {label} | {a * 1e3:.1f} | {b * 1e3:.1f} | {said} |")


if __name__ == "__main__":
    main()
