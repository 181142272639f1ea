"""The gateway side by side: ``toolwire serve`` and Pydantic AI's AG-UI app under load.

Run: ``python -m benchmarks.bench_gateway [--quick] [--vendor V] [--levels 1 16 64]
[--workers 2]`` (``./dev bench`` runs it after the tables).

Both gateways answer ``POST /agents/<vendor>`` with the run's AG-UI SSE, over the same vendor
SDK, for the same recorded turn (``bench_<vendor>.build("text", N)``: text deltas with a few
thought summaries, then a call of a frontend tool), which one fake vendor process on
127.0.0.1 (``benchmarks/gateway_vendor.py``) serves to both (each vendor under its own path
prefix). ``toolwire serve`` runs as a user runs it (``toolwire serve --config ... [--workers
N]``, its vendor providers); Pydantic AI's ``AGUIAdapter.dispatch_request`` behind uvicorn runs
in the peers' environment (``benchmarks/peers/gateway_app.py``). A client in this process
(httpx, asyncio) keeps ``C`` runs open at a time, for C in the levels, and reads each run to
its end; a run counts when it ends with ``RUN_FINISHED``.

Reported per gateway, vendor and level: the server's CPU seconds per run (user + system of
the server's processes, from ``/proc``, over the level), runs per second (wall clock: on a
shared machine, read it as a lower bound), runs per CPU-second, and p50/p99 of the time to
the first AG-UI event and to the last. Bounded: every level has a run count and a time limit,
every server a start-up limit, the fake vendor an answer count and a lifetime; every process
started here is stopped here.

The large-input level sends, beside ``C`` = 16 ordinary runs, runs whose ``RunAgentInput``
holds a long history (about 0.9 MB, under the server's 1 MiB body limit) and reports the
ordinary runs' first-event p99 beside the same level without them: a big input must not
freeze the other streams.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.suite import VENDORS
from toolwire import adapters

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: events of the served turn (a short agent turn: text, then a call)
TURN_EVENTS = 200
TOOLS = ("get_weather", "get_time", "search_docs")
START_LIMIT = 90.0  # seconds a server may take to start listening
#: toolwire serve's run cap in this benchmark (above every level it runs)
MAX_RUNS = 256
TOOLWIRE, PYDANTIC_AI = "toolwire serve", "Pydantic AI AGUIAdapter"
FLOOR, FLOOR_CLIENT = "floor (relay)", "floor (CLIENT)"
KEY = "bench-key-not-a-secret"
BIG = "large inputs beside"


def run_input(messages: int = 1) -> dict[str, Any]:
    """The request both gateways get (``messages`` > 1: a long history of text turns)."""
    schema = {"type": "object", "additionalProperties": True}
    history: list[dict[str, Any]] = []
    for i in range(messages - 1):
        role = "user" if i % 2 == 0 else "assistant"
        history.append({"id": f"h{i}", "role": role, "content": f"message {i} " + "x" * 400})
    history.append({"id": "u1", "role": "user", "content": "hi"})
    return {
        "threadId": "t-bench",
        "runId": "r-bench",
        "protocolVersion": "1.0",  # a current AG-UI client
        "state": None,
        "messages": history,
        "tools": [{"name": n, "description": n, "parameters": schema} for n in TOOLS],
        "context": [],
        "forwardedProps": {},
    }


# ---------------------------------------------------------------------------- processes


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_listening(port: int, proc: subprocess.Popen[Any], what: str) -> None:
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} ended before listening (exit {proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen within {START_LIMIT:.0f} s")


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it (a server's workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its descendants, now."""
    total = 0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, ValueError, IndexError):
            continue
    return total / _TICK


@dataclass
class Gateway:
    name: str
    workers: int
    proc: subprocess.Popen[Any]
    port: int

    def url(self, vendor: str) -> str:
        return f"http://127.0.0.1:{self.port}/agents/{vendor}"


def start_vendor(bodies: dict[str, tuple[bytes, str]], tmp: Path, seconds: float) -> Any:
    """One fake vendor process for every vendor (each under ``/<vendor>``)."""
    spec = {}
    for vendor, (body, media_type) in bodies.items():
        path = tmp / f"{vendor}.body"
        path.write_bytes(body)
        spec[vendor] = [str(path), media_type]
    spec_file = tmp / "vendor.json"
    spec_file.write_text(json.dumps(spec))
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "gateway_vendor.py"), str(spec_file), "100000", str(seconds)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}"


def agent_env(vendors: Sequence[str]) -> dict[str, str]:
    """The environment a gateway process gets: each vendor's key where a server reads it."""
    env = dict(os.environ)
    for vendor in vendors:
        env[adapters.client(vendor).key_env[0]] = KEY
    return env


def start_toolwire(vendors: Sequence[str], base: str, tmp: Path, workers: int) -> Gateway:
    agents = []
    env = agent_env(vendors)
    for vendor in vendors:
        prefix = f"{base}/{vendor}"
        agents.append(
            {
                "name": vendor,
                "provider": vendor,
                "model": VENDORS[vendor].MODEL,
                "base_url": prefix,
            }
        )
    config = tmp / "toolwire.json"
    # the run cap above the highest level (with the large-input streams): the server's
    # default (16 streaming at once, 503 "busy" beyond) would turn a level's runs into
    # refusals as soon as a vendor's turns last long enough to overlap (Mistral's SDK
    # parse: about 0.15 s of CPU a turn), and Pydantic AI's app has no such cap
    limits = {"max_runs": MAX_RUNS, "max_connections": MAX_RUNS + 16}
    config.write_text(json.dumps({"agents": agents, "inspector": False, **limits}))
    port = _free_port()
    tool = Path(sys.executable).with_name("toolwire")
    proc = subprocess.Popen(
        [str(tool), "serve", "--config", str(config), "--port", str(port),
         "--workers", str(workers)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    _wait_listening(port, proc, "toolwire serve")
    return Gateway(TOOLWIRE, workers, proc, port)


def run_frames(vendor: str, body: bytes) -> list[str]:
    """The AG-UI SSE frames toolwire makes of the turn, one string each (the floor's run)."""
    from benchmarks import paths

    adapter = adapters.get(vendor)
    text = paths.sse(adapter, paths.read(adapter, body)).decode()
    return [frame + "\n\n" for frame in text.split("\n\n") if frame]


def start_floor(
    bodies: dict[str, tuple[bytes, str]], base: str, tmp: Path, mode: str = "relay"
) -> Gateway:
    """A floor gateway (``gateway_floor.py``): the same HTTP server, no work of toolwire's;
    ``mode`` ``client`` calls the vendor through the adapter's ``CLIENT`` (the SDK's cost)."""
    spec = {}
    for vendor, (body, _) in bodies.items():
        spec[vendor] = {
            "frames": run_frames(vendor, body),
            "input": run_input(),
            "model": VENDORS[vendor].MODEL,
            "key": KEY,
            "chunks": sum(1 for _ in adapters.get(vendor).FRAMING.read(body)),
        }
    frames = tmp / f"frames-{mode}.json"
    frames.write_text(json.dumps(spec))
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "gateway_floor.py"), str(frames), base, str(port), mode],
        env=agent_env(list(bodies)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_listening(port, proc, f"the floor gateway ({mode})")
    return Gateway(FLOOR if mode == "relay" else FLOOR_CLIENT, 1, proc, port)


def start_pydantic_ai(vendors: Sequence[str], base: str) -> Gateway:
    from benchmarks.peers import ensure_venv

    port = _free_port()
    proc = subprocess.Popen(
        [str(ensure_venv()), str(HERE / "peers" / "gateway_app.py"), base, str(port), *vendors],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_listening(port, proc, "Pydantic AI's app")
    return Gateway(PYDANTIC_AI, 1, proc, port)


# ---------------------------------------------------------------------------- the load


@dataclass
class Level:
    gateway: str
    workers: int
    vendor: str
    concurrency: int
    label: str = ""
    runs: int = 0
    failed: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    first: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)
    error: str | None = None


def _pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def _one(client: Any, url: str, payload: bytes) -> tuple[float | None, float, str | None]:
    """One run: the time to its first event and to its end, and why it failed (``None``:
    it ended with ``RUN_FINISHED``), its status and the end of what it sent, for the page."""
    began = time.perf_counter()
    first: float | None = None
    tail = b""
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    async with client.stream("POST", url, content=payload, headers=headers) as response:
        async for piece in response.aiter_bytes():
            if first is None and b"data:" in piece:
                first = time.perf_counter() - began
            tail = (tail + piece)[-2048:]
        ok = response.status_code == 200 and b'"RUN_FINISHED"' in tail
    took = time.perf_counter() - began
    ending = tail[-160:]
    why = None if ok else f"status {response.status_code} after {took:.1f} s, ending {ending!r}"
    return first, took, why


async def _load(
    url: str, concurrency: int, runs: int, seconds: float, level: Level, big: int = 0
) -> None:
    """``runs`` ordinary runs, ``concurrency`` at a time (no new one after ``seconds``);
    ``big`` more streams meanwhile send large inputs, one after another (not counted)."""
    import httpx

    payload = json.dumps(run_input()).encode()
    large = json.dumps(run_input(2000)).encode() if big else b""
    limits = httpx.Limits(max_connections=concurrency + big, max_keepalive_connections=0)
    deadline = time.monotonic() + seconds
    left = [runs]
    done = asyncio.Event()
    async with httpx.AsyncClient(limits=limits, timeout=120) as client:

        async def ordinary() -> None:
            while left[0] > 0 and time.monotonic() < deadline:
                left[0] -= 1
                try:
                    first, last, why = await _one(client, url, payload)
                except Exception as exc:  # counted and shown, never hidden
                    level.failed += 1
                    level.error = f"{type(exc).__name__}: {exc}"
                    continue
                if why is not None or first is None:
                    level.failed += 1
                    level.error = why or "no event before the end"
                    continue
                level.runs += 1
                level.first.append(first)
                level.last.append(last)

        async def heavy() -> None:
            while not done.is_set():
                try:
                    await _one(client, url, large)
                except Exception:
                    await asyncio.sleep(0.05)

        extra = [asyncio.create_task(heavy()) for _ in range(big)]
        await asyncio.gather(*(ordinary() for _ in range(concurrency)))
        done.set()
        for task in extra:
            task.cancel()
        await asyncio.gather(*extra, return_exceptions=True)


def measure(
    gw: Gateway, vendor: str, concurrency: int, runs: int, seconds: float, big: int = 0
) -> Level:
    level = Level(gw.name, gw.workers, vendor, concurrency, BIG if big else "")
    url = gw.url(vendor)
    # warm every worker (imports, the SDK client, its connections) before measuring
    warm = max(concurrency, 4) * gw.workers
    asyncio.run(_load(url, min(warm, 64), warm, seconds, Level("", 0, "", 0)))
    cpu0, t0 = cpu_seconds(gw.proc.pid), time.perf_counter()
    try:
        asyncio.run(_load(url, concurrency, runs, seconds, level, big))
    except Exception as exc:
        level.error = f"{type(exc).__name__}: {exc}"
    level.wall = time.perf_counter() - t0
    level.cpu = cpu_seconds(gw.proc.pid) - cpu0
    return level


# ---------------------------------------------------------------------------- report


def _ms(x: float | None) -> str:
    return f"{x * 1e3:.0f}" if x is not None else "—"


def rows(levels: list[Level]) -> list[str]:
    out = [
        f"{'vendor':16} {'gateway':24} {'w':>2} {'C':>3} {'runs':>5} {'fail':>4} "
        f"{'CPU ms/run':>10} {'runs/s':>7} {'runs/CPU-s':>10} "
        f"{'first p50':>9} {'p99':>5} {'last p50':>8} {'p99':>5}  note"
    ]
    for lv in levels:
        per_cpu = lv.runs / lv.cpu if lv.cpu > 0 else None
        cpu_run = lv.cpu / lv.runs if lv.runs else None
        rate = lv.runs / lv.wall if lv.wall else 0.0
        note = lv.label + (f" ERROR {lv.error[:400]}" if lv.error else "")
        out.append(
            f"{lv.vendor:16} {lv.gateway:24} {lv.workers:>2} {lv.concurrency:>3} {lv.runs:>5} "
            f"{lv.failed:>4} {_ms(cpu_run):>10} {rate:7.1f} "
            f"{(f'{per_cpu:.1f}' if per_cpu else '—'):>10} "
            f"{_ms(_pct(lv.first, 0.5)):>9} {_ms(_pct(lv.first, 0.99)):>5} "
            f"{_ms(_pct(lv.last, 0.5)):>8} {_ms(_pct(lv.last, 0.99)):>5}  {note}"
        )
    return out


def goals(levels: list[Level], vendors: Sequence[str], levels_c: Sequence[int]) -> list[str]:
    """The issue's three gateway goals per vendor, from the levels above."""

    def find(gateway: str, vendor: str, c: int, workers: int = 1, label: str = "") -> Level | None:
        for lv in levels:
            if (lv.gateway, lv.vendor, lv.concurrency, lv.workers, lv.label) == (
                gateway, vendor, c, workers, label
            ):  # fmt: skip
                return lv
        return None

    out = ["", "goals (toolwire serve, 1 worker unless said; the floor gateway beside):"]
    tw, pyd = TOOLWIRE, PYDANTIC_AI
    top, mid = max(levels_c), sorted(levels_c)[len(levels_c) // 2]
    many = max((lv.workers for lv in levels if lv.gateway == tw), default=1)

    def per_cpu(gateway: str, vendor: str) -> float | None:
        lv = find(gateway, vendor, mid)
        return lv.runs / lv.cpu if lv and lv.cpu and lv.runs else None

    def first_ratio(gateway: str, vendor: str, big: bool = False) -> float | None:
        if big:
            lo, hi = find(gateway, vendor, mid), find(gateway, vendor, mid, 1, BIG)
        else:
            lo, hi = find(gateway, vendor, min(levels_c)), find(gateway, vendor, top)
        if lo and hi and lo.first and hi.first:
            return (_pct(hi.first, 0.99) or 0) / (_pct(lo.first, 0.99) or 1)
        return None

    def beside(value: float | None) -> str:
        return f" (floor {value:.2f}×)" if value is not None else ""

    for vendor in vendors:
        cells = []
        a, b = per_cpu(tw, vendor), per_cpu(pyd, vendor)
        f, fc = per_cpu(FLOOR, vendor), per_cpu(FLOOR_CLIENT, vendor)
        if a and b:
            most = [
                f"{label} {x / b:.1f}×"
                for label, x in (("floor", f), ("floor over CLIENT", fc))
                if x
            ]
            cells.append(
                f"runs per CPU-second at C={mid}: {a / b:.1f}× Pydantic AI's (goal ≥ 5×)"
                + (f" ({', '.join(most)}: the most a gateway reaches)" if most else "")
            )
        elif a and fc:
            cells.append(
                f"runs per CPU-second at C={mid}: {a:.0f}, the floor over CLIENT's {fc:.0f}"
            )
        r = first_ratio(tw, vendor)
        if r is not None:
            cells.append(
                f"p99 first event at C={top} ÷ C={min(levels_c)}: {r:.2f}× (goal ≤ 2×)"
                + beside(first_ratio(FLOOR, vendor))
            )
        one, more = find(tw, vendor, top), find(tw, vendor, top, many)
        if many > 1 and one and more and one.wall and more.wall:
            r = (more.runs / more.wall) / (one.runs / one.wall)
            cells.append(f"runs/s with {many} workers ÷ 1 at C={top}: {r:.2f}×")
        r = first_ratio(tw, vendor, big=True)
        if r is not None:
            cells.append(
                f"p99 first event with large inputs beside ÷ without: {r:.2f}×"
                + beside(first_ratio(FLOOR, vendor, big=True))
            )
        out.append(f"  {vendor}: " + "; ".join(cells))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_gateway")
    ap.add_argument("--quick", action="store_true", help="a few runs per level: does it run")
    ap.add_argument("--vendor", action="append", choices=sorted(VENDORS))
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 16, 64])
    ap.add_argument("--workers", type=int, default=2, help="toolwire serve's extra worker run")
    ap.add_argument("--seconds", type=float, default=10.0, help="time limit per level")
    ap.add_argument("--no-peers", action="store_true", help="leave out Pydantic AI")
    ap.add_argument("--no-floor", action="store_true", help="leave out the floor gateway")
    args = ap.parse_args(argv)
    from benchmarks.peers.gateway_app import MODELS as PEER_MODELS

    vendors = list(args.vendor or VENDORS)
    # Pydantic AI serves the vendors its app has a model for; the others are said so
    apart = sorted(set(vendors) - set(PEER_MODELS))
    if apart and not args.no_peers:
        print(f"gateway: Pydantic AI not measured (no model in peers/gateway_app.py): {apart}")
    quick = args.quick
    levels_c = [1, 4] if quick else args.levels
    events = 20 if quick else TURN_EVENTS
    seconds = 5.0 if quick else args.seconds

    def runs_at(c: int) -> int:
        return c if quick else min(max(4 * c, 24), 128)

    print(
        f"gateway: {events}-event turns, levels {levels_c}, runs per level 4×C (24..128) "
        f"bounded by {seconds:.0f} s; CPU from /proc over each level"
    )
    levels: list[Level] = []
    with tempfile.TemporaryDirectory(prefix="toolwire-gateway-") as name:
        tmp = Path(name)
        bodies = {}
        for vendor in vendors:
            body = VENDORS[vendor].build("text", events)
            bodies[vendor] = (body, adapters.get(vendor).FRAMING.media_type)
        # the fake vendor's lifetime grows with the vendors it serves (each one's levels run
        # one after another; a vendor gone mid-benchmark would fail the later levels)
        per_vendor = 40.0 if quick else 240.0
        fake, base = start_vendor(bodies, tmp, max(120.0, per_vendor * len(vendors)))
        try:
            plans: list[tuple[str, int]] = [("toolwire", 1)]
            if not args.no_peers and set(vendors) & set(PEER_MODELS):
                plans.append(("pydantic_ai", 1))
            if not args.no_floor:
                plans += [("floor", 1), ("floor-client", 1)]
            if args.workers > 1:
                plans.append(("toolwire", args.workers))
            for kind, workers in plans:
                if kind == "toolwire":
                    gw = start_toolwire(vendors, base, tmp, workers)
                elif kind == "floor":
                    gw = start_floor(bodies, base, tmp)
                elif kind == "floor-client":
                    gw = start_floor(bodies, base, tmp, "client")
                else:
                    gw = start_pydantic_ai([v for v in vendors if v in PEER_MODELS], base)
                try:
                    for vendor in vendors:
                        if kind == "pydantic_ai" and vendor not in PEER_MODELS:
                            continue
                        for c in levels_c:
                            if workers > 1 and c != max(levels_c):
                                continue
                            levels.append(measure(gw, vendor, c, runs_at(c), seconds))
                        if kind != "pydantic_ai" and workers == 1:
                            mid = sorted(levels_c)[len(levels_c) // 2]
                            levels.append(measure(gw, vendor, mid, runs_at(mid), seconds, big=2))
                finally:
                    _stop(gw.proc)
        finally:
            assert fake.stdin is not None
            fake.stdin.close()
            _stop(fake)
    for line in rows(levels) + goals(levels, vendors, levels_c):
        print(line)
    bad = [lv for lv in levels if lv.runs == 0]
    if bad:
        raise RuntimeError(
            f"{len(bad)} levels completed no run: "
            + "; ".join(f"{lv.gateway}/{lv.vendor}/C={lv.concurrency}: {lv.error}" for lv in bad)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
