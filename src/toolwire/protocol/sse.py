"""Server-sent events: an incremental parser for any split of the bytes, and framing.

One parser serves AG-UI and vendor streams: it handles LF, CRLF and CR line
ends (also when a CRLF is split across two pieces), comment lines, ``event:``
and ``id:`` fields and multi-line ``data:``.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ag_ui.core import BaseEvent

from toolwire.errors import VendorDataError
from toolwire.protocol.event_json import event_json

_EOL = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched SSE event."""

    data: str
    event: str | None = None
    id: str | None = None

    def json(self) -> Any:
        return json.loads(self.data)


class SSEParser:
    """Feed byte (or text) pieces, get complete events back; sans-I/O."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._buffer = ""
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self._has_fields = False
        self._first = True

    def feed(self, piece: bytes | str) -> list[SSEEvent]:
        text = self._decoder.decode(piece) if isinstance(piece, bytes) else piece
        if self._first and text:
            if text.startswith("\ufeff"):
                text = text[1:]
            self._first = False
        self._buffer += text
        return self._drain(final=False)

    def close(self, *, flush_incomplete: bool = False) -> list[SSEEvent]:
        """End of input. An event not ended by a blank line is dropped (the SSE rule)
        unless ``flush_incomplete`` (Gemini's SDK flushes it)."""
        self._buffer += self._decoder.decode(b"", final=True)
        out = self._drain(final=True)
        if self._buffer:
            self._line(self._buffer, out)
            self._buffer = ""
        if flush_incomplete and self._has_fields:
            out.extend(self._dispatch())
        self._reset()
        return out

    @property
    def pending(self) -> bool:
        """True when an event has begun but has not been dispatched."""
        return self._has_fields or bool(self._buffer.strip())

    def _drain(self, *, final: bool) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        buf = self._buffer
        start = 0
        n = len(buf)
        while start < n:
            m = _EOL.search(buf, start)
            if m is None:
                break
            if m.end() == n and m.group() == "\r" and not final:
                break  # a CR at the end may be the first half of CRLF
            self._line(buf[start : m.start()], out)
            start = m.end()
        self._buffer = buf[start:]
        return out

    def _line(self, line: str, out: list[SSEEvent]) -> None:
        if line == "":
            out.extend(self._dispatch())
            return
        if line.startswith(":"):
            return
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_fields = True
        elif name == "event":
            self._event = value
            self._has_fields = True
        elif name == "id":
            if "\x00" not in value:
                self._id = value
            self._has_fields = True

    def _dispatch(self) -> list[SSEEvent]:
        if not self._data:
            self._reset()
            return []
        ev = SSEEvent("\n".join(self._data), self._event or None, self._id)
        self._reset()
        return [ev]

    def _reset(self) -> None:
        self._data = []
        self._event = None
        self._has_fields = False


def parse_sse(data: bytes | str, *, flush_incomplete: bool = False) -> list[SSEEvent]:
    """Parse a whole SSE body at once."""
    parser = SSEParser()
    out = parser.feed(data)
    out.extend(parser.close(flush_incomplete=flush_incomplete))
    return out


def iter_sse(pieces: Iterable[bytes | str]) -> Iterator[SSEEvent]:
    """Parse an iterable of byte pieces lazily."""
    parser = SSEParser()
    for piece in pieces:
        yield from parser.feed(piece)
    yield from parser.close()


def sse_json_objects(
    body: bytes | str | Iterable[bytes | str],
    vendor: str,
    *,
    stop_at: str | None = None,
    flush_incomplete: bool = False,
) -> Iterator[tuple[SSEEvent, dict[str, Any]]]:
    """Each SSE event of a vendor body with its ``data`` parsed as a JSON object, lazily.

    ``body`` is the whole body or an iterable of byte pieces (memory stays flat
    either way). Stops at a ``data`` line starting with ``stop_at`` (OpenAI's
    ``[DONE]``). A payload that is not a JSON object raises ``VendorDataError``
    naming the event.
    """
    pieces: Iterable[bytes | str]
    if isinstance(body, (bytes, str)):
        pieces = (body[i : i + _PIECE] for i in range(0, len(body), _PIECE))
    else:
        pieces = body
    parser = SSEParser()
    n = 0

    def events() -> Iterator[SSEEvent]:
        for piece in pieces:
            yield from parser.feed(piece)
        yield from parser.close(flush_incomplete=flush_incomplete)

    for ev in events():
        if stop_at is not None and ev.data.startswith(stop_at):
            return
        value = json_object(ev, vendor, n)
        n += 1
        yield ev, value


def json_object(ev: SSEEvent, vendor: str, n: int) -> dict[str, Any]:
    """Event ``n``'s ``data`` as a JSON object, or a ``VendorDataError`` naming the event."""
    try:
        value = json.loads(ev.data)
    except ValueError as exc:
        raise VendorDataError(vendor, f"SSE event {n}: data", f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        got = type(value).__name__
        raise VendorDataError(vendor, f"SSE event {n}: data", f"expected a JSON object, got {got}")
    return value


_PIECE = 1 << 16


def encode_agui_event(event: BaseEvent) -> str:
    """One AG-UI event as an SSE frame, the one ``ag_ui.encoder`` writes (LF line ends);
    the JSON comes from :func:`event_json` (pydantic's text, without its per-event cost)."""
    return f"data: {event_json(event)}\n\n"


def encode_agui_sse(events: Iterable[BaseEvent]) -> bytes:
    """AG-UI events as SSE bytes."""
    return "".join([f"data: {event_json(e)}\n\n" for e in events]).encode("utf-8")


#: ``json.dumps(separators=(",", ":"), ensure_ascii=False)`` without building an encoder per call
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def frame_sse(
    payloads: Iterable[Any], *, event_of: Any = None, line_end: str = "\n", done: str | None = None
) -> bytes:
    """Frame JSON payloads as vendor SSE (``event:`` lines when ``event_of`` names them).

    ``event_of(payload) -> str | None``; ``done`` is a last ``data:`` line
    (``[DONE]`` for OpenAI Chat).
    """
    out: list[str] = []
    encode = _COMPACT.encode
    end = line_end + line_end
    for payload in payloads:
        name = event_of(payload) if event_of is not None else None
        if name:
            out.append(f"event: {name}{line_end}data: {encode(payload)}{end}")
        else:
            out.append(f"data: {encode(payload)}{end}")
    if done is not None:
        out.append(f"data: {done}{line_end}{line_end}")
    return "".join(out).encode("utf-8")


__all__ = [
    "SSEEvent",
    "SSEParser",
    "encode_agui_event",
    "encode_agui_sse",
    "frame_sse",
    "iter_sse",
    "json_object",
    "parse_sse",
    "sse_json_objects",
]
