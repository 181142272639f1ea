"""A large input never freezes the other streams (issue 35, item 3).

A large ``RunAgentInput`` costs seconds of CPU to read, match against recordings and
convert into a vendor request. Those steps run in worker threads: a paced stream measured
meanwhile keeps its rhythm (its largest gap between events stays well under the big input's
time on the server, where the loop-bound code stalled it for all of that time).

The input is several MiB (under a raised body limit) so that its time on the server is many
paces long: a stall on the loop is then the whole of that time, while the cost of sharing the
interpreter with the worker (a few switch intervals per event, more on a loaded machine) stays
a fraction of it. With a 1 MiB input the two were close enough to confuse on a busy CI box.
"""

from __future__ import annotations

import itertools
import json
import threading
import time

import httpx
from _serve import demo_input, live_server, run_input

from toolwire.server import create_app

PACE = 0.2


BODY_LIMIT = 8 << 20


def _big_input() -> bytes:
    messages = []
    for i in range(12_000):
        messages.append({"id": f"u{i}", "role": "user", "content": "hello world " * 20})
        messages.append({"id": f"a{i}", "role": "assistant", "content": "an answer " * 14})
    body = json.dumps(run_input(messages)).encode()
    assert 5 << 20 < len(body) < BODY_LIMIT
    return body


def test_a_large_input_does_not_stall_another_stream() -> None:
    app = create_app(
        {
            "agents": [
                {"name": "paced", "provider": "replay", "pace": PACE},
                {"provider": "replay"},
            ],
            "body_limit": BODY_LIMIT,
        }
    )
    big = _big_input()
    arrivals: list[float] = []
    first = threading.Event()
    json_headers = {"content-type": "application/json"}

    with live_server(app) as (_, base):

        def measure() -> None:
            with (
                httpx.Client(timeout=60) as client,
                client.stream("POST", f"{base}/agents/paced", json=demo_input()) as r,
            ):
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        arrivals.append(time.monotonic())
                        first.set()

        watcher = threading.Thread(target=measure)
        watcher.start()
        assert first.wait(30), "the paced stream never started"
        started = time.monotonic()
        with httpx.Client(timeout=120) as client:
            answer = client.post(f"{base}/agents/replay", content=big, headers=json_headers)
        finished = time.monotonic()
        watcher.join(60)

    assert answer.status_code == 200
    assert '"replay_no_match"' in answer.text  # the whole input was read and matched
    # every gap between two events that overlaps the big input's time on the server (a stall
    # shows even when the stream ends first: its next event waits for the loop)
    gaps = [b - a for a, b in itertools.pairwise(arrivals) if started <= b and a <= finished]
    assert gaps, len(arrivals)
    took = finished - started
    # the measurement only tells the two apart when the input's time spans several paces
    assert took > 5 * PACE, f"the big input took only {took:.2f} s: too small to show a stall"
    # on the loop, the stream stood still for the whole conversion (its gap ~ took); off it,
    # a gap is the pace plus what sharing the interpreter with the worker costs
    assert max(gaps) < 0.5 * took, (
        f"the paced stream stalled {max(gaps):.2f} s (pace {PACE} s) while a "
        f"{len(big) >> 20} MiB input took {took:.2f} s"
    )
