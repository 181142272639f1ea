"""Newline-delimited JSON streams (NDJSON): one JSON object a line, read and written.

Ollama's ``/api/chat`` streams this way (and other local servers do too). Reading is
push-style and sans-I/O (:class:`NDJSONReader`: ``feed`` byte pieces split anywhere,
``close`` at the end), linear in the input however it is split: a piece's complete lines
come from one ``split``, the line it leaves unended is kept as a list of pieces and
joined once when its ``\\n`` arrives. Lines end at ``\\n`` only (a ``\\r`` before it is
JSON whitespace): U+2028, U+2029 and U+0085 are characters of a JSON string, never line
ends, whatever ``str.splitlines`` thinks. A line (or the unended tail) past
``limits().max_event_chars`` is a ``LimitExceeded``; a body that ends inside a line that
is not a whole JSON value is a ``TruncatedStream``.

Read fused (``protocol._fastpath``): ``feed_items`` takes a vendor's line form (a
``DeltaForm`` declared ``lines``) and hands on each complete line it matches as the match,
for the decoder's rule to read without a dict; every other line is read as ``feed`` reads
it, and the lines are counted and bounded the same. ``ndjson_objects`` is an ``SSEChunks``,
so a decoder with a line form reads a whole body fused; ``protocol.pushed`` does the same
with the push reader. A line that is not a clean JSON object (it may warn or fail) is read
when it is reached (a ``_fastpath.Later``: ``feed_later``, ``feed_items``; ``feed`` makes
each in order), so its warning or error comes after the objects before it, as when each
line comes alone.

Writing (:func:`frame_ndjson`) escapes those three characters (``\\u2028`` ...) so that a
reader splitting the Python way (httpx's ``iter_lines``, which the vendor SDKs use) reads
every line whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from re import Match, Pattern
from typing import Any

from toolwire.errors import TruncatedStream, VendorDataError
from toolwire.protocol._compact_json import compact
from toolwire.protocol._fastpath import Later, SSEChunks, later_in, reached
from toolwire.protocol._written import Written
from toolwire.protocol.decoding import as_dict, written_chunks
from toolwire.protocol.framing import Body, StreamFraming
from toolwire.protocol.jsontext import (
    CheckedObject,
    JSONTextError,
    check_depth,
    clean_object,
    escape_surrogates,
    load_json,
)
from toolwire.protocol.limits import check, limits

#: characters Python's ``splitlines`` (and so httpx's line reader) ends a line at that JSON
#: lets a string hold unescaped: written escaped
_LINE_BREAKERS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})

#: ``terminal(obj)``: whether an object is the vendor's last one (Ollama: ``done: true``)
Terminal = Callable[[dict[str, Any]], bool]


class NDJSONReader:
    """Byte (or text) pieces in, the JSON objects of their complete lines out.

    ``done`` turns true once an object ``terminal`` accepts was read; objects after it
    are still handed on (the decoder reports them as material after the end, rather than
    have them vanish). Blank lines are skipped.
    """

    def __init__(self, vendor: str, terminal: Terminal | None = None) -> None:
        self.vendor = vendor
        self.done = False
        self._terminal = terminal
        self._parts: list[bytes] = []  # the line not yet ended
        self._size = 0
        self._line = 0  # lines read so far (for error messages)
        self._closed = False
        #: a line's error kept for the next call (the objects before it handed on first)
        self._failed: Exception | None = None

    def feed(self, piece: bytes | str) -> list[dict[str, Any]]:
        """The objects of the lines ``piece`` completed, every one made in order (one that
        fails: the objects before it returned, its error raised by the next call, as when
        the body is cut just before it)."""
        items = self.feed_items(piece, None)
        if not later_in(items):
            return items
        out: list[dict[str, Any]] = []
        for item in items:
            if type(item) is not Later:
                out.append(item)
                continue
            try:
                out.append(item.made())
            except Exception as exc:
                self.done = False  # (a kept error is raised by the next call: never hidden)
                if not out:
                    raise
                self._failed = exc
                return out
        return out

    def feed_later(self, piece: bytes | str) -> list[Any]:
        """``feed``, each line that is not a clean JSON object (it may warn or fail) left as
        a ``Later``, made by its consumer in its turn: its warning or error after the
        objects before it (and ``done`` set then, when it is the last one)."""
        return self.feed_items(piece, None)

    def feed_items(self, piece: bytes | str, fast: Pattern[str] | None) -> list[Any]:
        """``feed_later``, with each complete line that ``fast`` (a delta form declared
        ``lines``) matches handed on as that match instead of its object: the reader of a
        vendor's common lines takes their fields from it. The lines are counted, and their
        size checked, as ``feed`` does; a piece that is not UTF-8 is read as ``feed`` reads
        it. An error of the piece after some of its lines (a line too long) is raised by
        the next call, those lines handed on first."""
        if self._failed is not None:
            raise self._failed
        out: list[Any] = []
        try:
            self._items(piece, fast, out)
        except Exception as exc:
            if not out:
                raise
            self._failed = exc
        return out

    def _items(self, piece: bytes | str, fast: Pattern[str] | None, out: list[Any]) -> None:
        if isinstance(piece, str):
            piece = piece.encode("utf-8", "surrogatepass")
        elif not isinstance(piece, bytes):
            piece = bytes(piece)
        if not piece:
            return
        if b"\n" not in piece:
            self._keep(piece)
            return
        if fast is not None:
            self._fused(piece, fast, out)
            return
        lines = piece.split(b"\n")
        tail = lines.pop()
        if self._parts:
            self._parts.append(lines[0])
            self._size += len(lines[0])
            self._check_size()
            lines[0] = b"".join(self._parts)
            self._parts, self._size = [], 0
        for line in lines:
            self._one(line, out)
        if tail:
            self._keep(tail)

    def _fused(self, piece: bytes, fast: Pattern[str], out: list[Any]) -> None:
        """A piece holding a line end: its complete lines (the held start of the first one
        joined to it, as ``feed`` does) decoded once and read with ``fast`` where it matches,
        each other line by :meth:`_one` as ``feed`` reads it; the unended rest kept."""
        end = piece.rfind(b"\n") + 1
        if self._parts:
            self._size += piece.find(b"\n")
            self._check_size()
            self._parts.append(piece[:end])
            block = b"".join(self._parts)
            self._parts, self._size = [], 0
        else:
            block = piece if end == len(piece) else piece[:end]
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:  # (the line's error, named as ``feed`` names it)
            for line in block.split(b"\n")[:-1]:
                self._one(line, out)
        else:
            self._lines(text, fast, out)
        if end < len(piece):
            self._keep(piece[end:])

    def _lines(self, text: str, fast: Pattern[str], out: list[Any]) -> None:
        """Complete lines of text, each ended by its ``\\n``: a match handed on as it is
        (counted, its UTF-8 size checked only when it may pass the cap), any other line
        read by :meth:`_one`."""
        match = fast.match
        add = out.append
        quarter = limits().max_event_chars // 4
        at = 0
        size = len(text)
        line = self._line  # (kept in a local while lines match, put back before any other)
        while at < size:
            found = match(text, at)
            if found is not None:
                line += 1
                end = found.end()
                if end - at > quarter:  # (its UTF-8 may pass the cap, as ``_one`` counts)
                    self._line = line
                    length = len(text[at : end - 1].encode("utf-8"))
                    check("max_event_chars", length, self._where)
                add(found)
                at = end
                continue
            self._line = line
            end = text.index("\n", at)
            self._one(text[at:end].encode("utf-8"), out)
            line = self._line
            at = end + 1
        self._line = line

    def feed_fused(self, piece: bytes | str, fast: Pattern[str]) -> list[Any]:
        """``feed``, with each line ``fast`` matches left in place as its match: the push
        readers' fused feed (``SSEReader.feed_fused``; ``protocol.pushed`` reads either)."""
        return self.feed_items(piece, fast)

    def matched_chunk(self, match: Match[str]) -> dict[str, Any]:
        """The object of a matched line, as ``feed`` reads it (its text is one clean JSON
        object: the line number names nothing)."""
        value = load_json(match.group("data"), self.vendor, "NDJSON line")
        return CheckedObject.made(value)

    def _where(self) -> str:
        return f"{self.vendor}: NDJSON line {self._line}"

    def close(self) -> list[dict[str, Any]]:
        """The last line (one without its ``\\n``); a cut inside a value is truncation."""
        if self._failed is not None:
            raise self._failed
        out: list[Any] = []
        if self._closed:
            return out
        self._closed = True
        if self._parts:
            line = b"".join(self._parts)
            self._parts, self._size = [], 0
            try:
                self._one(line, out)
                if out and type(out[0]) is Later:  # (the last line: nothing after it)
                    out[0] = out[0].made()
            except JSONTextError as exc:
                raise TruncatedStream(
                    self.vendor, f"the NDJSON stream ended inside line {self._line} ({exc})"
                ) from None
        return out

    @property
    def pending(self) -> bool:
        """Bytes of an unended line are held."""
        return bool(self._parts)

    def _keep(self, piece: bytes) -> None:
        self._parts.append(piece)
        self._size += len(piece)
        self._check_size()

    def _check_size(self) -> None:
        check("max_event_chars", self._size, self._where)

    def _one(self, line: bytes, out: list[Any]) -> None:
        """A complete line's object (a blank line: none): made now when the line alone
        shows it is a clean JSON object (``clean_object``: what ``load_json`` returns
        without a warning), else a ``Later`` that reads it when it is reached."""
        self._line += 1
        if not line.strip():
            return
        check("max_event_chars", len(line), self._where)
        try:
            value = clean_object(line.decode("utf-8-sig"))
        except UnicodeDecodeError:
            value = None
        if value is None:
            out.append(Later(self._object, line, self._line))
            return
        obj = CheckedObject.made(value)
        if self._terminal is not None and not self.done and self._terminal(obj):
            self.done = True
        out.append(obj)

    def _object(self, line: bytes, number: int) -> dict[str, Any]:
        """Line ``number``'s object, read alone (its warning, or its error, named)."""
        where = f"NDJSON line {number}"
        value = load_json(line, self.vendor, where)
        if not isinstance(value, dict):
            got = type(value).__name__
            raise VendorDataError(self.vendor, where, f"expected a JSON object, got {got}")
        obj = CheckedObject.made(value)
        if self._terminal is not None and not self.done and self._terminal(obj):
            self.done = True
        return obj


def ndjson_objects(
    body: bytes | str | Iterable[bytes | str], vendor: str, terminal: Terminal | None = None
) -> Iterator[dict[str, Any]]:
    """The objects of an NDJSON body (whole, or pieces split anywhere), lazily: an
    :class:`~toolwire.protocol._fastpath.SSEChunks` a decoder with a line form reads fused
    (each piece read with its expression, ``NDJSONReader.feed_items``)."""
    reader = NDJSONReader(vendor, terminal)

    def lists(chunks: SSEChunks) -> Iterator[list[Any]]:
        pieces: Iterable[bytes | str]
        pieces = [body] if isinstance(body, (bytes, bytearray, str)) else body
        for piece in pieces:
            items = reader.feed_items(piece, chunks.pattern())
            if later_in(items):  # (a line read once the objects before it are)
                yield from reached(items)
            else:
                yield items
        yield reader.close()

    return SSEChunks(lists, reader.matched_chunk)


def frame_ndjson(chunks: Iterable[Any], vendor: str = "output", *, objects: bool = False) -> bytes:
    """JSON objects as NDJSON bytes: compact, one a line, each line ended by ``\\n``;
    ``objects``: a chunk that is no dict is an SDK object, made its dict (``as_dict``).

    A chunk that is not a dict, or one JSON cannot hold (another type, nesting deeper than
    ``limits().max_json_depth``), is a ``VendorDataError`` naming it, never a bare
    ``TypeError``.
    """
    out: list[str] = []
    cap = limits().max_json_depth
    for chunk in written_chunks(chunks):  # (a chunk's number is len(out): named only on a fail)
        if type(chunk) is Written:  # already written (its dict when it needs more)
            text = chunk.text
            if len(text) < cap or text.count("{") + text.count("[") < cap:
                out.append(text)
                continue
            chunk = chunk.make()
        if type(chunk) is not dict and objects:
            chunk = as_dict(chunk, vendor, f"payload {len(out)}")
        if type(chunk) is not dict and not isinstance(chunk, dict):
            what = f"expected a JSON object, got {type(chunk).__name__}"
            raise VendorDataError(vendor, f"payload {len(out)}", what)
        try:
            text = compact(chunk)
        except (TypeError, ValueError, RecursionError) as exc:
            where = f"payload {len(out)}"
            if isinstance(exc, RecursionError):  # (a circular reference nests without end)
                what = f"JSON nested deeper than {cap} levels, or circular"
                raise JSONTextError(vendor, where, what) from None
            check_depth(chunk, vendor, where)
            raise VendorDataError(vendor, where, f"cannot be written as JSON: {exc}") from None
        if len(text) >= cap and text.count("{") + text.count("[") >= cap:
            check_depth(chunk, vendor, f"payload {len(out)}")
        out.append(text)
    if not out:
        return b""
    text = "\n".join(out) + "\n"
    if not text.isascii():  # (the line breakers are not ASCII: escaped in one pass)
        text = text.translate(_LINE_BREAKERS)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: its escape reads back the same
        return escape_surrogates(text).encode("utf-8")


def ndjson_framing(vendor: str, terminal: Terminal | None = None) -> StreamFraming:
    """A vendor's NDJSON framing as the contract's ``Framing`` (``terminal``: its last
    object, which sets the push reader's ``done``)."""

    def read(body: Body) -> Iterator[dict[str, Any]]:
        return ndjson_objects(body, vendor, terminal)

    def write(chunks: Iterable[Any]) -> bytes:
        return frame_ndjson(chunks, vendor, objects=True)

    return StreamFraming(
        "ndjson", "application/x-ndjson", read, write, lambda: NDJSONReader(vendor, terminal)
    )


__all__ = ["NDJSONReader", "Terminal", "frame_ndjson", "ndjson_framing", "ndjson_objects"]
