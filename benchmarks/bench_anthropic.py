"""Benchmark (not a test): decoding a long Anthropic stream, against the SDK's own parse.

Run: .venv/bin/python benchmarks/bench_anthropic.py [CHUNKS]

The stream has the recorded shape (vendor-wire-formats.md §4A: message_start, a
thinking block with its signature, a text block, tool_use blocks fed by
input_json_delta, message_delta, message_stop), grown to tens of thousands of
events. Reported:

* sdk      - anthropic's own parse of the bytes (raw stream events, SSE + JSON + models)
* on-sdk   - our Decoder fed the SDK's event objects: the cost toolwire adds on top of the
             SDK (the target is at most 0.25x of the SDK's parse)
* bytes    - toolwire alone from the bytes (own SSE parse + Decoder), no SDK involved
* peak memory of the bytes path at two stream lengths (it must not grow with the stream
  beyond the argument text held; the decoder holds none, it passes deltas through)
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

from toolwire.adapters.anthropic import Decoder, iter_sse_chunks


def _event(payload: dict[str, Any]) -> str:
    return f"event: {payload['type']}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"


def stream(chunks: int) -> bytes:
    """About ``chunks`` SSE events of the recorded shape."""
    out = [
        _event(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_01Bench",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-6",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 900, "output_tokens": 1},
                },
            }
        ),
        _event(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            }
        ),
    ]
    per_block = 2000
    index = 0
    n = 2
    while n < chunks - 4:
        kind = index % 3
        if index > 0:
            block: dict[str, Any]
            if kind == 1:
                block = {"type": "text", "text": ""}
            else:
                block = {"type": "tool_use", "id": f"toolu_{index:08d}", "name": "f", "input": {}}
            out.append(
                _event({"type": "content_block_start", "index": index, "content_block": block})
            )
            n += 1
        for k in range(min(per_block, chunks - 4 - n)):
            if kind == 0 and index == 0:
                delta = {"type": "thinking_delta", "thinking": f"step {k} of the plan. "}
            elif kind == 1:
                delta = {"type": "text_delta", "text": f"word{k} "}
            else:
                piece = '{"items": [' if k == 0 else f'{{"n": {k}, "s": "abcdefgh"}}, '
                delta = {"type": "input_json_delta", "partial_json": piece}
            out.append(_event({"type": "content_block_delta", "index": index, "delta": delta}))
            n += 1
        if index == 0:
            out.append(
                _event(
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "signature_delta", "signature": "EqQBCkYIBxgCKkA" * 8},
                    }
                )
            )
        out.append(_event({"type": "content_block_stop", "index": index}))
        n += 2
        index += 1
    out.append(
        _event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": chunks},
            }
        )
    )
    out.append(_event({"type": "message_stop"}))
    return "".join(out).encode("utf-8")


def pieces(body: bytes, size: int = 4096) -> Iterator[bytes]:
    for i in range(0, len(body), size):
        yield body[i : i + size]


def sdk_events(body: bytes) -> list[Any]:
    import anthropic
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = anthropic.Anthropic(
        api_key="sk-ant-bench",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    return list(
        client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=16,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
        )
    )


def decode_bytes(body: bytes) -> int:
    d = Decoder()
    count = 0
    for chunk in iter_sse_chunks(pieces(body)):
        count += len(d.feed(chunk))
    count += len(d.close())
    return count


def decode_objects(events: list[Any]) -> int:
    d = Decoder()
    count = 0
    for ev in events:
        count += len(d.feed(ev))
    count += len(d.close())
    return count


def best(fn: Any, *args: Any, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return min(times)


def peak(body: bytes) -> int:
    tracemalloc.start()
    decode_bytes(body)
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


def main() -> None:
    chunks = int(sys.argv[1]) if len(sys.argv) > 1 else 40_000
    body = stream(chunks)
    events = sdk_events(body)
    print(f"stream: {len(events)} SDK events, {len(body) / 1e6:.1f} MB of SSE")
    t_sdk = best(sdk_events, body)
    t_on_sdk = best(decode_objects, events)
    t_bytes = best(decode_bytes, body)
    print(f"sdk parse            {t_sdk * 1e3:8.1f} ms")
    print(f"toolwire on SDK objs {t_on_sdk * 1e3:8.1f} ms  = {t_on_sdk / t_sdk:.2f}x the SDK parse")
    print(f"toolwire from bytes  {t_bytes * 1e3:8.1f} ms  = {t_bytes / t_sdk:.2f}x the SDK parse")
    small, large = stream(chunks // 4), body
    p_small, p_large = peak(small), peak(large)
    print(
        f"peak memory (bytes path): {p_small / 1e3:.0f} kB at {chunks // 4} chunks, "
        f"{p_large / 1e3:.0f} kB at {chunks} chunks (input body excluded: it is the caller's)"
    )


if __name__ == "__main__":
    main()
