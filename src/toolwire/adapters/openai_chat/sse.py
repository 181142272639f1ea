"""Chat Completions SSE framing: body bytes -> chunk dicts, chunk dicts -> body bytes.

The stream is plain ``data:`` lines (no ``event:`` names) ending in
``data: [DONE]``. Like the SDK, reading stops at ``[DONE]``; whether the
completion really ended is the decoder's call (a ``finish_reason`` per
choice), so a body cut before it still reads as truncated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from toolwire.errors import VendorDataError
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.sse import SSEEvent, SSEParser, frame_sse

from .wire import VENDOR

DONE = "[DONE]"


def _events(body: bytes | str | Iterable[bytes | str]) -> Iterator[SSEEvent]:
    """Parse lazily, a line at a time.

    The shared parser returns every event of a piece at once, so a whole body
    fed in one go would hold all its events before the first is decoded;
    feeding lines keeps memory flat and hands each event over as soon as its
    bytes are in. Any split gives the same events, so this changes nothing else.
    """
    parser = SSEParser()
    pieces: Iterable[bytes | str] = [body] if isinstance(body, (bytes, str)) else body
    for piece in pieces:
        for line in piece.splitlines(keepends=True):
            yield from parser.feed(line)
    yield from parser.close()


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """The chunk dicts of an SSE body (whole, or as byte pieces split anywhere).

    Stops at ``data: [DONE]`` (anything after it is ignored, as the SDK does).
    A ``data`` payload that is not a JSON object raises ``VendorDataError``
    naming the SSE event.
    """
    for n, ev in enumerate(_events(body)):
        if ev.data.startswith(DONE):
            return
        try:
            value = json.loads(ev.data)
        except ValueError as exc:
            raise VendorDataError(VENDOR, f"SSE event {n}: data", f"not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise VendorDataError(
                VENDOR,
                f"SSE event {n}: data",
                f"expected a JSON object, got {type(value).__name__}",
            )
        yield value


def to_sse(chunks: Iterable[Any]) -> bytes:
    """Chunks (dicts or SDK objects) as the API frames them: ``data: {...}`` blocks, then
    ``data: [DONE]``."""
    return frame_sse((as_dict(c, VENDOR) for c in chunks), done=DONE)


__all__ = ["DONE", "sse_chunks", "to_sse"]
