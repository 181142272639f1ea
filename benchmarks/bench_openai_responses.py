"""Benchmark (not a test): decoding a long Responses stream, next to the openai SDK.

Run: ``.venv/bin/python benchmarks/bench_openai_responses.py [events]``

The stream has the recorded shape (``event:`` + ``data:`` per event): created,
a reasoning item with summary deltas, a message with text deltas, then three
parallel ``function_call`` items whose argument deltas interleave, each closed
by ``arguments.done`` + ``output_item.done``, and ``response.completed`` with
usage. Reported:

* the SDK's own parse of the bytes (``responses.create(stream=True)`` over an
  in-memory transport, every event materialised as its typed model);
* toolwire from the same bytes (``sse_chunks`` + ``Decoder``), as a ratio;
* toolwire over the SDK's event objects (what a framework holding the SDK
  stream adds on top of the SDK), and over already-parsed dicts;
* peak traced memory of a byte-to-events decode fed in network-sized pieces,
  at two stream lengths (events consumed as they come).
"""

from __future__ import annotations

import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
from openai import OpenAI

from toolwire.adapters import openai_responses
from toolwire.protocol import SSEParser

RID = "resp_benchLongStream"


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.seq = 0

    def __call__(self, kind: str, **fields: Any) -> None:
        ev = {"type": kind, "sequence_number": self.seq, **fields}
        self.seq += 1
        self.parts.append(f"event: {kind}\ndata: {json.dumps(ev, separators=(',', ':'))}\n\n")


def _response(status: str, usage: Any = None) -> dict[str, Any]:
    return {
        "id": RID, "object": "response", "created_at": 1764400000, "status": status,
        "error": None, "incomplete_details": None, "instructions": None, "model": "gpt-5",
        "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": usage, "metadata": {},
    }  # fmt: skip


def build_stream(events: int) -> bytes:
    """About ``events`` SSE events: a tenth reasoning, a tenth text, the rest call arguments."""
    w = _Writer()
    w("response.created", response=_response("in_progress"))
    rs = {"id": "rs_bench", "type": "reasoning", "summary": []}
    w("response.output_item.added", output_index=0, item=rs)
    where = {"item_id": "rs_bench", "output_index": 0, "summary_index": 0}
    w("response.reasoning_summary_part.added", **where, part={"type": "summary_text", "text": ""})
    for i in range(events // 10):
        w("response.reasoning_summary_text.delta", **where, delta=f"thought {i} ")
    w("response.reasoning_summary_part.done", **where, part={"type": "summary_text", "text": ""})
    w("response.output_item.done", output_index=0, item={**rs, "encrypted_content": "gAAAA"})
    msg = {"id": "msg_bench", "type": "message", "status": "in_progress", "content": [],
           "role": "assistant"}  # fmt: skip
    w("response.output_item.added", output_index=1, item=msg)
    where = {"item_id": "msg_bench", "output_index": 1, "content_index": 0}
    for i in range(events // 10):
        w("response.output_text.delta", **where, delta=f"word{i} ", logprobs=[])
    w("response.output_item.done", output_index=1, item={**msg, "status": "completed"})
    names = ("get_weather", "get_time", "search_docs")
    for k, name in enumerate(names):
        item = {"id": f"fc_bench_{k}", "type": "function_call", "status": "in_progress",
                "arguments": "", "call_id": f"call_bench_{k}", "name": name}  # fmt: skip
        w("response.output_item.added", output_index=2 + k, item=item)
    rest = max(0, events - w.seq - 10)
    for i in range(rest):
        k = i % 3
        w("response.function_call_arguments.delta", item_id=f"fc_bench_{k}",
          output_index=2 + k, delta=f'"v{i}", ')  # fmt: skip
    for k, name in enumerate(names):
        w("response.function_call_arguments.done", item_id=f"fc_bench_{k}", output_index=2 + k,
          arguments="")  # fmt: skip
        done = {"id": f"fc_bench_{k}", "type": "function_call", "status": "completed",
                "arguments": "", "call_id": f"call_bench_{k}", "name": name}  # fmt: skip
        w("response.output_item.done", output_index=2 + k, item=done)
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": events, "output_tokens_details": {"reasoning_tokens": 10},
             "total_tokens": 100 + events}  # fmt: skip
    w("response.completed", response=_response("completed", usage))
    return "".join(w.parts).encode("utf-8")


def sdk_events(body: bytes) -> list[Any]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = OpenAI(
        api_key="sk-bench", http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )
    return list(client.responses.create(model="gpt-5", input="bench", stream=True))


def best(fn: Callable[[], Any], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def decode_bytes(body: bytes) -> int:
    return sum(1 for _ in openai_responses.decode_stream(openai_responses.sse_chunks(body)))


def pieces(body: bytes, size: int = 1400) -> Iterator[bytes]:
    for i in range(0, len(body), size):
        yield body[i : i + size]


def streaming_peak(body: bytes) -> int:
    """Peak traced bytes while decoding ``body`` fed in network-sized pieces."""
    gc.collect()
    tracemalloc.start()
    parser = SSEParser()
    decoder = openai_responses.Decoder()
    for piece in pieces(body):
        for ev in parser.feed(piece):
            decoder.feed(json.loads(ev.data))
    for ev in parser.close():
        decoder.feed(json.loads(ev.data))
    decoder.close()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30_000
    body = build_stream(n)
    objs = sdk_events(body)
    dicts = [
        json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: ")
    ]
    print(f"stream: {len(objs)} events, {len(body) / 1e6:.1f} MB")
    t_sdk = best(lambda: sdk_events(body))
    t_bytes = best(lambda: decode_bytes(body))
    t_objs = best(lambda: sum(1 for _ in openai_responses.decode_stream(objs)))
    t_dicts = best(lambda: sum(1 for _ in openai_responses.decode_stream(dicts)))
    rows = [
        ("openai SDK parse (bytes -> typed events)", t_sdk),
        ("toolwire bytes -> AG-UI events", t_bytes),
        ("toolwire SDK events -> AG-UI (added)", t_objs),
        ("toolwire dicts -> AG-UI", t_dicts),
    ]
    for label, t in rows:
        print(f"{label:42} {t * 1e3:8.1f} ms  ({t / t_sdk:.2f}x)")
    small, large = build_stream(n // 4), body
    p_small, p_large = streaming_peak(small), streaming_peak(large)
    kib = f"{n // 4} events: {p_small / 1024:.0f} KiB; {n} events: {p_large / 1024:.0f} KiB"
    print(f"peak memory of a streaming decode, {kib}")


if __name__ == "__main__":
    main()
