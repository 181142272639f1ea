"""Benchmark (not a test): decoding a long Gemini stream, next to google-genai's own parse.

The stream has the recorded shape (vendor-wire-formats.md §5A: CRLF ``data:`` events, each a
whole GenerateContentResponse): text deltas, thought summaries and function calls with ids and
signatures, ending with ``finishReason``. google-genai parses the bytes through its real
streaming path (an in-memory httpx2 transport serves them; no network). toolwire's time is the
SSE split, JSON parse and decode of the same bytes. Peak memory (tracemalloc) is measured at two
stream lengths: it must not grow with the stream beyond the argument text held.

    .venv/bin/python benchmarks/bench_gemini.py [chunks]
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from toolwire.adapters import gemini


def make_stream(n: int) -> bytes:
    out: list[str] = []
    for i in range(n):
        kind = i % 10
        if kind < 6:
            part: dict[str, Any] = {"text": f"word {i} and some more text to look real. "}
        elif kind < 8:
            part = {"text": f"thinking about step {i}", "thought": True}
        else:
            part = {
                "functionCall": {
                    "id": f"fc-{i}",
                    "name": "get_weather",
                    "args": {"city": f"City {i}", "days": [1, 2, 3]},
                },
                "thoughtSignature": "c2lnbmF0dXJlLWJ5dGVz",
            }
        chunk: dict[str, Any] = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
            "usageMetadata": {
                "promptTokenCount": 100,
                "candidatesTokenCount": i,
                "totalTokenCount": 100 + i,
            },
            "modelVersion": "gemini-3-pro-preview",
            "responseId": "bench-001",
        }
        if i == n - 1:
            chunk["candidates"][0]["finishReason"] = "STOP"
        out.append("data: " + json.dumps(chunk, separators=(",", ":")) + "\r\n\r\n")
    return "".join(out).encode("utf-8")


def as_json_array(sse: bytes) -> bytes:
    """The same stream in the framing Gemini uses without ``alt=sse``: one JSON array."""
    lines = sse.decode("utf-8").split("\r\n\r\n")
    return ("[" + ",\r\n".join(x[6:] for x in lines if x.startswith("data: ")) + "]").encode()


def toolwire_decode_framing(body: bytes, size: int = 65536) -> int:
    """Either framing from a raw byte iterator (``iter_chunks``), in 64 KiB pieces."""
    pieces = (body[i : i + size] for i in range(0, len(body), size))
    count = 0
    for _ in gemini.decode_stream(gemini.iter_chunks(pieces)):
        count += 1
    return count


def toolwire_decode(body: bytes) -> int:
    count = 0
    for _ in gemini.decode_stream(gemini.sse_chunks(body)):
        count += 1
    return count


def toolwire_decode_pieces(body: bytes, size: int = 65536) -> int:
    """Streaming form: bytes arrive in pieces; nothing but the decoder state is kept."""
    from toolwire.protocol import SSEParser

    parser = SSEParser()
    decoder = gemini.Decoder()
    count = 0
    for start in range(0, len(body), size):
        for ev in parser.feed(body[start : start + size]):
            count += len(decoder.feed(json.loads(ev.data)))
    for ev in parser.close(flush_incomplete=True):
        count += len(decoder.feed(json.loads(ev.data)))
    return count + len(decoder.close())


def sdk_objects(body: bytes) -> list[Any]:
    import httpx2
    from google import genai
    from google.genai import types

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = genai.Client(api_key="bench", http_options=types.HttpOptions(httpx_client=http))
    return list(client.models.generate_content_stream(model="gemini-3-pro-preview", contents="x"))


def sdk_parse(body: bytes) -> int:
    import httpx2
    from google import genai
    from google.genai import types

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = genai.Client(api_key="bench", http_options=types.HttpOptions(httpx_client=http))
    count = 0
    for _ in client.models.generate_content_stream(model="gemini-3-pro-preview", contents="x"):
        count += 1
    return count


def best_of(fn: Callable[[bytes], int], body: bytes, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(body)
        best = min(best, time.perf_counter() - t0)
    return best


def peak_kib(fn: Callable[[bytes], int], body: bytes) -> float:
    tracemalloc.start()
    fn(body)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30_000
    body = make_stream(n)
    print(f"stream: {n} chunks, {len(body) / 1e6:.1f} MB")
    ours = best_of(toolwire_decode, body)
    try:
        sdk = best_of(sdk_parse, body)
    except ImportError as exc:  # the SDK is an extra
        print(f"google-genai not available ({exc}); toolwire alone: {ours:.3f}s")
        sdk = None
    if sdk is not None:
        print(f"google-genai parse: {sdk:.3f}s")
        print(f"toolwire decode (SSE + JSON + decoder): {ours:.3f}s = {ours / sdk:.2f}x the SDK")
        objects = sdk_objects(body)
        t0 = time.perf_counter()
        for _ in gemini.decode_stream(objects):
            pass
        on_top = time.perf_counter() - t0
        print(
            f"toolwire decode of the SDK's own objects (added on top of the SDK): "
            f"{on_top:.3f}s = {on_top / sdk:.2f}x the SDK"
        )
    # the JSON-array framing (no alt=sse) next to SSE, and its growth with the stream
    array, quarter = as_json_array(body), as_json_array(make_stream(n // 4))
    sse_t, arr_t = best_of(toolwire_decode_framing, body), best_of(toolwire_decode_framing, array)
    arr_q = best_of(toolwire_decode_framing, quarter)
    print(
        f"JSON-array framing: {arr_t:.3f}s = {arr_t / sse_t:.2f}x the SSE framing; "
        f"4x the stream takes {arr_t / arr_q:.2f}x the time"
    )
    a, b = peak_kib(toolwire_decode_framing, quarter), peak_kib(toolwire_decode_framing, array)
    print(f"peak memory, JSON array in 64 KiB pieces: ratio {b / a:.2f} for 4x the stream")
    # memory: the streaming form, excluding the input bytes themselves
    small, large = make_stream(n // 4), body
    a, b = peak_kib(toolwire_decode_pieces, small), peak_kib(toolwire_decode_pieces, large)
    print(
        f"peak memory, streamed in 64 KiB pieces: {n // 4} chunks {a:.0f} KiB, "
        f"{n} chunks {b:.0f} KiB (ratio {b / a:.2f} for 4x the stream)"
    )


if __name__ == "__main__":
    main()
