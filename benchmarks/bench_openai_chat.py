"""Benchmark (not a test): decoding a long Chat Completions stream, next to the openai SDK.

Run: ``.venv/bin/python benchmarks/bench_openai_chat.py [chunks]``

The stream has the recorded shape (role chunk, text deltas, three parallel calls
whose argument fragments interleave, finish, usage, ``[DONE]``). Reported:

* the SDK's own parse of the bytes (``chat.completions.create(stream=True)``
  over an in-memory transport handing over 16 KB reads, every chunk
  materialised);
* toolwire from the same bytes (``sse_chunks`` + ``Decoder``), as a ratio to it;
* toolwire over the SDK's chunk objects (what a framework holding the SDK
  stream adds), and over already-parsed dicts;
* peak traced memory of the byte-to-events decode at two stream lengths
  (events are consumed as they come, as a streaming caller would).
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

from toolwire.adapters import openai_chat

CID = "chatcmpl-benchLongStream"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    body = {
        "id": CID,
        "object": "chat.completion.chunk",
        "created": 1764400000,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_bench",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        "usage": None,
    }
    return "data: " + json.dumps(body, separators=(",", ":")) + "\n\n"


def build_stream(chunks: int) -> bytes:
    """About ``chunks`` SSE events: a tenth text, the rest argument fragments of 3 calls."""
    out = [_chunk({"role": "assistant", "content": "", "refusal": None})]
    text = chunks // 10
    out += [_chunk({"content": f"word{i} "}) for i in range(text)]
    names = ("get_weather", "get_time", "search_docs")
    for k, name in enumerate(names):
        call = {"index": k, "id": f"call_bench_{k}", "type": "function"}
        call["function"] = {"name": name, "arguments": ""}
        out.append(_chunk({"tool_calls": [call]}))
    out.append(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"items": ['}}]}))
    out.append(_chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"items": ['}}]}))
    out.append(_chunk({"tool_calls": [{"index": 2, "function": {"arguments": '{"items": ['}}]}))
    for i in range(chunks - text - 10):
        frag = {"index": i % 3, "function": {"arguments": f'"v{i}", '}}
        out.append(_chunk({"tool_calls": [frag]}))
    for k in range(3):
        out.append(_chunk({"tool_calls": [{"index": k, "function": {"arguments": '"end"]}'}}]}))
    out.append(_chunk({}, "tool_calls"))
    usage = {"prompt_tokens": 100, "completion_tokens": chunks, "total_tokens": 100 + chunks}
    tail = {"id": CID, "object": "chat.completion.chunk", "created": 1764400000}
    tail.update(model="gpt-4o-2024-08-06", choices=[], usage=usage)
    out.append("data: " + json.dumps(tail, separators=(",", ":")) + "\n\n")
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


#: Bytes per read, as a socket would hand them over; both parsers get the same pieces.
PIECE = 16 * 1024


def pieces(body: bytes) -> Iterator[bytes]:
    return (body[i : i + PIECE] for i in range(0, len(body), PIECE))


def sdk_chunks(body: bytes) -> list[Any]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        stream = pieces(body)
        return httpx2.Response(200, content=stream, headers={"content-type": "text/event-stream"})

    client = OpenAI(
        api_key="bench", http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )
    return list(client.chat.completions.create(model="gpt-4o", messages=[], stream=True))


def decode_bytes(body: bytes) -> int:
    dec = openai_chat.Decoder()
    n = 0
    for chunk in openai_chat.sse_chunks(pieces(body)):
        n += len(dec.feed(chunk))
    return n + len(dec.close())


def decode_objects(chunks: list[Any]) -> int:
    return sum(1 for _ in openai_chat.decode_stream(chunks))


def best(fn: Callable[[], Any], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def peak(fn: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    fn()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40_000
    body = build_stream(n)
    objects = sdk_chunks(body)
    dicts = list(openai_chat.sse_chunks(body))
    events = decode_bytes(body)
    print(f"stream: {len(objects)} chunks, {len(body) / 1e6:.1f} MB, {events} AG-UI events")

    t_sdk = best(lambda: sdk_chunks(body))
    t_bytes = best(lambda: decode_bytes(body))
    t_objects = best(lambda: decode_objects(objects))
    t_dicts = best(lambda: decode_objects(dicts))
    print(f"openai SDK parse (bytes -> ChatCompletionChunk): {t_sdk * 1e3:8.1f} ms  (1.00x)")
    print(
        f"toolwire bytes -> events (sse_chunks+Decoder):   {t_bytes * 1e3:8.1f} ms  "
        f"({t_bytes / t_sdk:.2f}x the SDK parse)"
    )
    print(
        f"toolwire over the SDK's chunk objects:           {t_objects * 1e3:8.1f} ms  "
        f"(adds {t_objects / t_sdk:.2f}x the SDK parse)"
    )
    print(
        f"toolwire over parsed dicts (Decoder only):       {t_dicts * 1e3:8.1f} ms  "
        f"(adds {t_dicts / t_sdk:.2f}x the SDK parse)"
    )

    for length in (n // 4, n):
        small = build_stream(length)
        print(
            f"peak traced memory, bytes -> events, {length:>6} chunks: "
            f"{peak(lambda b=small: decode_bytes(b)) / 1e3:8.1f} kB "
            f"(body itself {len(small) / 1e3:.0f} kB, not counted)"
        )


if __name__ == "__main__":
    main()
