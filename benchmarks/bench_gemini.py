"""Gemini streams for the benchmark suite, and google-genai's own parse of them.

The streams have the recorded shape (``cassettes/gemini``: CRLF ``data:`` events, each a whole
GenerateContentResponse with ``usageMetadata``, ``modelVersion`` and ``responseId``; the last
one carries ``finishReason``). Gemini sends a call whole, in one part. Shapes:

* ``tool``     - one functionCall part per chunk (the first with a ``thoughtSignature``)
* ``text``     - text parts with a few thought summaries, one call at the end
* ``parallel`` - three functionCall parts per chunk, as ``gemini3_parallel_calls_signature.yaml``

``extra_cases`` adds the framing Gemini uses without ``alt=sse`` (one JSON array) read by
``iter_chunks`` from 64 KiB pieces, beside the SSE framing read the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

VENDOR = "gemini"
MODEL = "gemini-3-pro-preview"
#: a functionCall's ``args`` is an object: the encoder parses each call's argument text
ARGUMENTS_AS_OBJECTS = True


def _call(i: int, signed: bool) -> dict[str, Any]:
    part: dict[str, Any] = {
        "functionCall": {
            "id": f"fc-{i}",
            "name": "get_weather",
            "args": {"city": f"City {i}", "days": [1, 2, 3], "units": "celsius"},
        }
    }
    if signed:
        part["thoughtSignature"] = "c2lnbmF0dXJlLWJ5dGVz"
    return part


def _chunk(i: int, parts: list[dict[str, Any]], last: bool) -> str:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if last:
        candidate["finishReason"] = "STOP"
    chunk = {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": 100, "candidatesTokenCount": i, "totalTokenCount": 100 + i,
        },
        "modelVersion": MODEL,
        "responseId": "bench-001",
    }  # fmt: skip
    return "data: " + json.dumps(chunk, separators=(",", ":")) + "\r\n\r\n"


def build(shape: str, events: int) -> bytes:
    """``events`` SSE events of the recorded shape."""
    out: list[str] = []
    for i in range(events):
        last = i == events - 1
        parts: list[dict[str, Any]]
        if shape == "tool":
            parts = [_call(i, i == 0)]
        elif shape == "text":
            if last:
                parts = [_call(i, True)]
            elif i % 10 == 9:
                parts = [{"text": f"thinking about step {i}", "thought": True}]
            else:
                parts = [{"text": f"word {i} and some more text to look real. "}]
        elif shape == "parallel":
            parts = [_call(3 * i + k, i == 0 and k == 0) for k in range(3)]
        else:
            raise ValueError(shape)
        out.append(_chunk(i, parts, last))
    return "".join(out).encode("utf-8")


def sdk_objects(body: bytes) -> list[Any]:
    """google-genai's own parse (``generate_content_stream``, real client, in memory)."""
    import httpx2
    from google import genai
    from google.genai import types

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = genai.Client(api_key="bench", http_options=types.HttpOptions(httpx_client=http))
    return list(client.models.generate_content_stream(model=MODEL, contents="x"))


def as_json_array(sse: bytes) -> bytes:
    """The same stream in the framing Gemini uses without ``alt=sse``: one JSON array."""
    events = sse.decode("utf-8").split("\r\n\r\n")
    return ("[" + ",\r\n".join(x[6:] for x in events if x.startswith("data: ")) + "]").encode()


def _iter_chunks(body: bytes, size: int = 65536) -> int:
    from toolwire.adapters import gemini

    pieces = (body[i : i + size] for i in range(0, len(body), size))
    return sum(1 for _ in gemini.decode_stream(gemini.iter_chunks(pieces)))


def extra_cases(body: bytes) -> dict[str, Callable[[], object]]:
    """Gemini-only paths: ``iter_chunks`` over either framing (the first is the base)."""
    array = as_json_array(body)
    return {
        "iter_chunks, SSE framing": lambda: _iter_chunks(body),
        "iter_chunks, JSON-array framing": lambda: _iter_chunks(array),
    }
