"""How long a large Bedrock request holds the event loop: toolwire's call against the SDK's own.

Run: ``python -m benchmarks.bench_bedrock_off_loop [--reps N] [--messages N]``.

The gateway's large input (``bench_gateway.run_input(2000)``, encoded for Bedrock) is sent
through an aiobotocore client to the gateway's fake vendor (``gateway_vendor.py``, its own
process on 127.0.0.1, bounded), once by toolwire's client (``CLIENT.astream``: the request
built in worker threads) and once by the SDK's own call of the same parameters (what
toolwire's client did before: ``client.converse_stream(**to_boto3(body))``, validated and
serialized on the loop), interleaved, ``--reps`` times each. A ticking task on the same loop
(a 1 ms sleep, again and again) measures how late the loop ran it.

Reported per path, medians over the reps: the event loop thread's CPU time during the call
(``time.thread_time``: what the loop itself worked, load-independent), the longest and the
p99 lateness of the ticking task (what every other stream waits), the call's wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from ag_ui.core import RunAgentInput

from benchmarks.bench_gateway import _stop, run_input
from benchmarks.suite import VENDORS
from toolwire import adapters
from toolwire.adapters.bedrock import encode_request
from toolwire.adapters.bedrock.client import CLIENT
from toolwire.adapters.bedrock.wire import to_boto3

HERE = Path(__file__).resolve().parent
TICK = 0.001  # the ticking task's sleep


async def _ticked(call: Callable[[], Awaitable[None]]) -> tuple[float, float, float, float]:
    """``call()`` beside a ticking task: (loop thread CPU, longest lateness, p99 lateness,
    wall), seconds."""
    late: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            t0 = time.perf_counter()
            await asyncio.sleep(TICK)
            late.append(time.perf_counter() - t0 - TICK)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    cpu0, t0 = time.thread_time(), time.perf_counter()
    await call()
    cpu, wall = time.thread_time() - cpu0, time.perf_counter() - t0
    running = False
    await task
    late.sort()
    return cpu, late[-1], late[min(len(late) - 1, int(0.99 * len(late)))], wall


async def _measure(url: str, body: dict[str, Any], reps: int) -> dict[str, list[tuple[float, ...]]]:
    from aiobotocore.session import get_session

    async with get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="AKIAFAKEFAKEFAKEFAKE",
        aws_secret_access_key="fake",
    ) as client:

        async def toolwire() -> None:
            async for _ in CLIENT.astream(client, body):
                pass

        async def sdk() -> None:
            response = await client.converse_stream(**to_boto3(body))
            async for _ in response["stream"]:
                pass

        await toolwire()  # warm both (imports, the connection, botocore's caches)
        await sdk()
        out: dict[str, list[tuple[float, ...]]] = {"toolwire": [], "sdk": []}
        for _ in range(reps):
            out["sdk"].append(await _ticked(sdk))
            out["toolwire"].append(await _ticked(toolwire))
        return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_bedrock_off_loop")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--messages", type=int, default=2000)
    args = ap.parse_args(argv)
    model = VENDORS["bedrock"].MODEL
    ri = RunAgentInput.model_validate(run_input(args.messages))
    body = encode_request(ri, model=model)
    turn = VENDORS["bedrock"].build("text", 20)
    with tempfile.TemporaryDirectory(prefix="toolwire-offloop-") as name:
        tmp = Path(name)
        (tmp / "bedrock.body").write_bytes(turn)
        media = adapters.get("bedrock").FRAMING.media_type
        (tmp / "vendor.json").write_text(
            json.dumps({"bedrock": [str(tmp / "bedrock.body"), media]})
        )
        limit = 2 * args.reps + 4
        proc = subprocess.Popen(
            [sys.executable, str(HERE / "gateway_vendor.py"), str(tmp / "vendor.json"),
             str(limit), "600"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert proc.stdout is not None
            port = int(proc.stdout.readline())
            got = asyncio.run(_measure(f"http://127.0.0.1:{port}/bedrock", body, args.reps))
        finally:
            _stop(proc)
    print(
        f"bedrock off-loop: {len(body['messages'])} messages, "
        f"{len(json.dumps(body)) / 1e6:.2f} MB of JSON, {args.reps} reps each, medians (ms)"
    )
    print(f"{'path':10} {'loop CPU':>9} {'max late':>9} {'p99 late':>9} {'wall':>7}")
    med: dict[str, list[float]] = {}
    for path, rows in got.items():
        med[path] = [statistics.median(r[i] for r in rows) * 1e3 for i in range(4)]
        cpu, most, p99, wall = med[path]
        spread = [r[1] * 1e3 for r in rows]
        print(
            f"{path:10} {cpu:9.1f} {most:9.1f} {p99:9.1f} {wall:7.1f}"
            f"   (max late over reps {min(spread):.1f}–{max(spread):.1f})"
        )
    print(
        f"sdk ÷ toolwire: loop CPU {med['sdk'][0] / med['toolwire'][0]:.2f}×, "
        f"max late {med['sdk'][1] / med['toolwire'][1]:.2f}×"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
