"""A stream framed as one JSON array (Gemini's ``streamGenerateContent`` without
``alt=sse``), read as it arrives.

REST clients and several CLIs call the streaming method without ``alt=sse``; Gemini then
streams a single JSON array, ``[{...}`` then ``,\\r\\n{...}`` ... ``]``, cut into network
chunks at any byte. :class:`JsonArrayReader` hands out each element as soon as its
closing brace arrives: one pass over the bytes (the scanner jumps between structural
characters with a regular expression, never re-reading what it passed), and only the
element being read is held. UTF-8 needs no care: no byte of a multi-byte character is a
quote, a backslash or a bracket.

Most pieces start between elements and hold many whole ones: such a piece is read by json's
own C parser element after element (``raw_decode`` from each opening brace), and only from
an element it cannot finish (cut by the piece's end, or not JSON) does the byte scanner take
over, so an element is read the same way and fails with the same error either way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from toolwire.errors import TruncatedStream, VendorDataError
from toolwire.protocol.fields import Fields
from toolwire.protocol.jsontext import CheckedObject, text_is_clean

_OUTSIDE = re.compile(rb'["{}\[\]]')  # what changes the depth, outside a string
_INSIDE = re.compile(rb'["\\]')  # what ends a string, or escapes the next byte
_SPACE = b" \t\r\n"
_DECODER = json.JSONDecoder()


class JsonArrayReader:
    """Incremental, sans-I/O: ``feed(bytes)`` -> the elements completed by those bytes.

    ``fields`` is the vendor's field reader (``wire.FIELDS``): it names the vendor in
    every error and checks each element is an object.
    """

    def __init__(self, fields: Fields) -> None:
        self._fields = fields
        self._buf = bytearray()  # the element being read, from its opening brace
        self._state = "start"  # start | between | element | end
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._count = 0

    def feed(self, piece: bytes) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while piece:
            if self._state in ("start", "between"):  # no element under way: the C parser
                piece = self._fast(piece, out)
                if not piece:
                    break
            piece = self._bytes(piece, out)
        return out

    def _fast(self, piece: bytes, out: list[dict[str, Any]]) -> bytes:
        """Whole elements from the start of ``piece`` by json's parser; the rest of it."""
        try:
            text, rest = piece.decode("utf-8"), b""
        except UnicodeDecodeError as exc:  # a character cut by the piece's end, or bad bytes
            text, rest = piece[: exc.start].decode("utf-8"), piece[exc.start :]
        stop = self._whole_elements(text, out)
        return rest if stop == len(text) else text[stop:].encode("utf-8") + rest

    def _bytes(self, piece: bytes, out: list[dict[str, Any]]) -> bytes:
        """The byte scanner over ``piece`` until an element ends in it (the rest is returned
        to the C parser) or the piece does."""
        at, n = 0, len(piece)
        while at < n:
            if self._state == "element":
                at = self._scan(piece, at, out)
                if self._state == "between":
                    return piece[at:]
                continue
            byte = piece[at : at + 1]
            if byte in _SPACE:  # one byte: at < n
                at += 1
            elif self._state == "start":
                if byte != b"[":
                    self._fail(f"expected '[' to open the stream, got {byte!r}")
                self._state, at = "between", at + 1
            elif self._state == "between":
                if byte == b"," and self._count:
                    at += 1
                elif byte == b"]":
                    self._state, at = "end", at + 1
                elif byte == b"{":
                    self._state, self._depth = "element", 0
                else:
                    self._fail(f"expected an object, ',' or ']', got {byte!r}")
            else:  # end
                self._fail(f"text after the closing ']': {piece[at : at + 16]!r}")
        return b""

    def close(self) -> None:
        """End of the bytes: a stream without its closing ``]`` was cut short."""
        if self._state == "end":
            return
        where = "inside element" if self._state == "element" else "after element"
        raise TruncatedStream(
            self._fields.vendor,
            f"the JSON array stream ended {where} {self._count} without its closing ']'",
        )

    @property
    def done(self) -> bool:
        return self._state == "end"

    def _whole_elements(self, text: str, out: list[dict[str, Any]]) -> int:
        """Read whole elements from ``text`` with json's C parser; return where it stopped
        (an element it could not read whole, text after the closing ``]``, or the end)."""
        at, n = 0, len(text)
        while at < n:
            ch = text[at]
            if ch in " \t\r\n":
                at += 1
            elif self._state == "start":
                if ch != "[":
                    return at  # the byte scanner names the error
                self._state, at = "between", at + 1
            elif self._state == "end":
                return at
            elif ch == "," and self._count:
                at += 1
            elif ch == "]":
                self._state, at = "end", at + 1
            elif ch == "{":
                try:
                    value, end = _DECODER.raw_decode(text, at)
                except (ValueError, RecursionError):
                    return at  # cut short, or not JSON: the byte scanner reads it
                value = self._fields.obj(value, f"body[{self._count}]")
                # (an element whose text shows it breaks no rule is handed on as checked, as
                # an SSE reader's: the decoder does not walk it again)
                out.append(CheckedObject.made(value) if text_is_clean(text[at:end]) else value)
                self._count += 1
                at = end
            else:
                return at
        return at

    # ----------------------------------------------------------------- scanning

    def _scan(self, piece: bytes, at: int, out: list[dict[str, Any]]) -> int:
        """Read element bytes from ``at``; return where the element ended (or ``len``)."""
        n = len(piece)
        start = at
        while at < n:
            if self._escaped:
                self._escaped = False
                at += 1
                continue
            if self._in_string:
                m = _INSIDE.search(piece, at)
                if m is None:
                    at = n
                    break
                at = m.end()
                if m.group() == b"\\":
                    self._escaped = True
                else:
                    self._in_string = False
                continue
            m = _OUTSIDE.search(piece, at)
            if m is None:
                at = n
                break
            at = m.end()
            ch = m.group()
            if ch == b'"':
                self._in_string = True
            elif ch in (b"{", b"["):
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    self._buf += piece[start:at]
                    out.append(self._element())
                    return at
        self._buf += piece[start:at]
        return at

    def _element(self) -> dict[str, Any]:
        where = f"body[{self._count}]"
        try:
            value = json.loads(bytes(self._buf))
        except ValueError as exc:
            raise VendorDataError(self._fields.vendor, where, f"not JSON: {exc}") from None
        self._buf = bytearray()
        self._state = "between"
        self._count += 1
        return self._fields.obj(value, where)

    def _fail(self, reason: str) -> None:
        raise VendorDataError(
            self._fields.vendor, f"JSON array stream, after element {self._count}", reason
        )


def json_array_chunks(pieces: Iterable[bytes], fields: Fields) -> Iterator[dict[str, Any]]:
    """The elements of a JSON-array stream arriving in any pieces, lazily."""
    reader = JsonArrayReader(fields)
    for piece in pieces:
        yield from reader.feed(piece)
    reader.close()


def json_array_bytes(payloads: Iterable[Any], *, vendor: str = "output") -> bytes:
    """Chunk dicts as one JSON array, an element a line (``[{...},\\r\\n{...}]``, as Gemini
    streams it without ``alt=sse``). Each payload is checked as the SSE writer checks it
    (``sse.frame_sse``: a value JSON cannot hold, too deep, not an object is a
    ``VendorDataError`` naming ``vendor`` and the payload)."""
    from toolwire.protocol.sse import frame_sse

    framed = frame_sse(payloads, vendor=vendor)  # "data: <compact json>\n\n" each
    items = [frame[6:] for frame in framed.split(b"\n\n") if frame]
    return b"[" + b",\r\n".join(items) + b"]"


class JsonArrayPush:
    """:class:`JsonArrayReader` as a framing's push reader (``close`` returns the rest)."""

    def __init__(self, fields: Fields) -> None:
        self._reader = JsonArrayReader(fields)

    @property
    def done(self) -> bool:
        return self._reader.done

    def feed(self, piece: bytes) -> list[dict[str, Any]]:
        return self._reader.feed(piece)

    def close(self) -> list[dict[str, Any]]:
        self._reader.close()
        return []


def is_json_array(head: bytes) -> bool:
    """Whether a body (its first bytes) is the JSON-array framing, not SSE."""
    return head.lstrip(_SPACE)[:1] == b"["


__all__ = [
    "JsonArrayPush",
    "JsonArrayReader",
    "is_json_array",
    "json_array_bytes",
    "json_array_chunks",
]
