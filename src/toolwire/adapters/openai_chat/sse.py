"""Chat Completions SSE framing: body bytes -> chunk dicts, chunk dicts -> body bytes.

The stream is plain ``data:`` lines (no ``event:`` names) ending in
``data: [DONE]``. Like the SDK, reading stops at ``[DONE]``; whether the
completion really ended is the decoder's call (a ``finish_reason`` per
choice), so a body cut before it still reads as truncated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from toolwire.protocol.decoding import as_dict
from toolwire.protocol.sse import frame_sse, sse_json_objects

from .wire import VENDOR

DONE = "[DONE]"


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """The chunk dicts of an SSE body (whole, or as byte pieces split anywhere).

    Stops at ``data: [DONE]`` (anything after it is ignored, as the SDK does).
    A ``data`` payload that is not a JSON object raises ``VendorDataError``
    naming the SSE event.
    """
    for _, value in sse_json_objects(body, VENDOR, stop_at=DONE):
        yield value


def to_sse(chunks: Iterable[Any]) -> bytes:
    """Chunks (dicts or SDK objects) as the API frames them: ``data: {...}`` blocks, then
    ``data: [DONE]``."""
    return frame_sse((as_dict(c, VENDOR) for c in chunks), done=DONE)


__all__ = ["DONE", "sse_chunks", "to_sse"]
