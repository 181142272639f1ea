"""Where the time of each toolwire path goes: cProfile, functions ranked by their own time.

``python -m benchmarks.profile [--vendor V] [--path P] [--events N] [--top K]`` prints, for each
path the issue's table has a target for, the functions with the largest share of the path's
own time (``tottime``), grouped by where they live (toolwire, pydantic, json, the SDK, ...).
cProfile (on CPU time) inflates the cost of many small calls, so read the shares, not seconds.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks import paths
from benchmarks.history import history
from benchmarks.served import Served
from benchmarks.suite import VENDORS
from toolwire import adapters

PATHS = (
    "sdk.events", "sdk.sse", "bytes.events", "bytes.sse", "encode", "encode_request", "served"
)  # fmt: skip


def _work(vendor: str, path: str, events: int) -> Callable[[], Any]:
    bench = VENDORS[vendor]
    adapter = adapters.get(vendor)
    if path == "encode_request":
        run_input = history(1000)

        def request() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return adapter.encode_request(run_input, model=bench.MODEL, media="relocate")

        return request
    body = bench.build("tool", events)
    if path == "served":  # the server's own streaming path (``benchmarks/served.py``)
        return Served(vendor, body, adapter.FRAMING.media_type)
    if path.startswith("sdk."):
        objects = bench.sdk_objects(body)
        if path == "sdk.events":
            return lambda: paths.events(adapter, objects)
        return lambda: paths.sse(adapter, objects)
    if path == "bytes.events":
        return lambda: paths.events(adapter, paths.read(adapter, body))
    if path == "bytes.sse":
        return lambda: paths.sse(adapter, paths.read(adapter, body))
    run_events = list(paths.run(adapter, paths.read(adapter, body)))
    return lambda: paths.encode(adapter, run_events)


def _where(filename: str) -> str:
    for mark in ("toolwire", "pydantic_core", "pydantic", "ag_ui", "json", "anthropic", "openai",
                 "google", "httpx2", "re", "codecs", "asyncio", "anyio", "starlette"):  # fmt: skip
        if f"/{mark}/" in filename or filename.endswith(f"/{mark}.py"):
            return mark
    return "builtin" if filename == "~" else filename.rsplit("/", 1)[-1]


def profile(fn: Callable[[], Any], top: int) -> list[str]:
    fn()  # warm caches (pydantic schemas, regexes) so they do not count
    prof = cProfile.Profile(time.process_time)  # CPU time: being preempted is not a cost
    prof.enable()
    fn()
    prof.disable()
    stats: Any = pstats.Stats(prof)
    total = stats.total_tt
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)
    out = []
    for (filename, line, name), (_cc, calls, tottime, cumtime, _callers) in rows[:top]:
        label = name if filename == "~" else f"{_where(filename)}: {name}"
        out.append(
            f"{tottime / total * 100:5.1f}%  own  {cumtime / total * 100:5.1f}% cum  "
            f"{calls:>8} calls  {label} ({filename.rsplit('/', 1)[-1]}:{line})"
        )
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.profile")
    ap.add_argument("--vendor", action="append", choices=sorted(VENDORS))
    ap.add_argument("--path", action="append", choices=PATHS)
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args(argv)
    for vendor in args.vendor or ["anthropic", "openai_chat"]:
        for path in args.path or PATHS:
            what = "1,000 messages" if path == "encode_request" else f"{args.events} events, tool"
            print(f"\n## {vendor} {path} ({what})")
            for line in profile(_work(vendor, path, args.events), args.top):
                print(line)


if __name__ == "__main__":
    main()
