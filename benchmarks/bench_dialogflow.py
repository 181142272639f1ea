"""Benchmark: decoding a long streamed Dialogflow reactive turn (not a test).

Run: ``.venv/bin/python benchmarks/bench_dialogflow.py [chunks]``

The stream has the recorded shape of ``cassettes/dialogflow/reactive_turn.jsonl``:
``StreamingReactiveCompanionSuggestionsResponse`` JSON lines alternating text
chunks and intermediate tool-call events (each call announced, then restated
with its result), ending with ``isFinal``. Reported:

* the time google-cloud-dialogflow takes to parse the lines
  (``StreamingReactiveCompanionSuggestionsResponse.from_json``);
* toolwire's ``json.loads`` + ``Decoder.feed`` on the same lines, and the
  decoder alone on already-parsed dicts, each as a ratio to the SDK's parse;
* peak traced memory of decoding streams of two lengths (lines are made
  lazily and events dropped as they come, so what grows is the decoder's own
  state: a call waiting for its result is held whole, an answered call only
  by its id, which a reactive turn needs to recognize the call when it is
  restated later in the turn).
"""

from __future__ import annotations

import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

from toolwire.adapters import dialogflow

TURN = "projects/bench/locations/global/conversations/c/messages/q-1"


def _call(n: int) -> dict[str, Any]:
    return {
        "tool": "projects/bench/locations/global/tools/orders",
        "action": "get_order",
        "inputParameters": {"orderId": str(n), "fields": ["status", "shipDate"], "verbose": False},
        "createTime": "2025-05-06T11:00:00.200Z",
        "answerRecord": f"projects/bench/locations/global/answerRecords/ar-{n}",
        "state": "TRIGGERED",
    }


def lines(count: int) -> Iterator[str]:
    """``count`` JSON lines of one reactive turn (the last one final)."""
    calls = 0
    for i in range(count - 1):
        kind = i % 3
        if kind == 0:
            obj: dict[str, Any] = {"textMessageId": TURN, "responseChunk": f"part {i} "}
        elif kind == 1:
            calls += 1
            info = {"toolCallInfo": {"toolCall": _call(calls)}, "textUpdate": "Looking up..."}
            obj = {
                "textMessageId": TURN,
                "intermediateToolCallEvents": {"toolCallSuggestions": [info]},
            }
        else:
            result = {"action": "get_order", "content": '{"status":"shipped"}'}
            info = {"toolCallInfo": {"toolCall": _call(calls), "toolCallResult": result}}
            obj = {
                "textMessageId": TURN,
                "intermediateToolCallEvents": {"toolCallSuggestions": [info]},
            }
        yield json.dumps(obj, separators=(",", ":"))
    yield json.dumps({"textMessageId": TURN, "isFinal": True})


def _best(fn: Any, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _decode(items: Any) -> int:
    decoder = dialogflow.Decoder()
    n = 0
    for item in items:
        n += len(decoder.feed(item))
    return n + len(decoder.close())


def peak_memory(count: int) -> int:
    gc.collect()
    tracemalloc.start()
    _decode(json.loads(x) for x in lines(count))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main(count: int = 30_000) -> None:
    data = list(lines(count))
    size = sum(len(x) + 1 for x in data)
    print(f"stream: {count} chunks, {size / 1e6:.1f} MB of JSON lines")
    try:
        from google.cloud.dialogflow_v2 import StreamingReactiveCompanionSuggestionsResponse as R
    except ImportError:
        R = None
        print("google-cloud-dialogflow not installed: no SDK baseline")
    parsed = [json.loads(x) for x in data]
    ours = _best(lambda: _decode(json.loads(x) for x in data))
    decode_only = _best(lambda: _decode(parsed))
    if R is not None:
        sdk = _best(lambda: [R.from_json(x) for x in data], repeat=1)
        print(f"SDK from_json:                 {sdk * 1e3:8.1f} ms")
        print(f"toolwire json.loads + decode:  {ours * 1e3:8.1f} ms  ({ours / sdk:.2f}x SDK)")
        only = decode_only
        print(f"toolwire decode of dicts only: {only * 1e3:8.1f} ms  ({only / sdk:.2f}x SDK)")
    else:
        print(f"toolwire json.loads + decode:  {ours * 1e3:8.1f} ms")
    for n in (count // 10, count):
        print(f"peak traced memory, {n:6d} chunks: {peak_memory(n) / 1e6:6.2f} MB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30_000)
