"""How a vendor frames its stream on the wire, as one object an adapter exposes (``FRAMING``).

Not every vendor streams SSE (AWS Bedrock's event stream, Ollama's NDJSON, Gemini's JSON
array without ``alt=sse``), so the adapter contract names a framing, not SSE: ``read``
(a whole body, or its pieces -> chunk dicts), ``reader()`` (push-style, what a driver
feeds the HTTP body to) and ``write`` (chunks -> the bytes the vendor's SDK parses back).
The shared readers and writers live in ``toolwire.protocol`` (``sse``, ``json_array``,
one module per framing); an adapter binds one with its own options here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from re import Match, Pattern
from typing import Any, Protocol

from toolwire.protocol._fastpath import Later, later_in
from toolwire.protocol.fields import Fields
from toolwire.protocol.json_array import JsonArrayPush, json_array_bytes, json_array_chunks
from toolwire.protocol.jsontext import CheckedObject
from toolwire.protocol.sse import SSEEvent, SSEParser, event_places, json_object, piece_objects

Body = bytes | str | Iterable[bytes | str]


class ChunkOf(Protocol):
    """One SSE event -> the vendor's chunk dict (or ``None`` to skip it): the event, its
    index in the stream, and its data when already parsed with the rest of its piece."""

    def __call__(
        self, ev: SSEEvent, n: int, fine: CheckedObject | None, /
    ) -> dict[str, Any] | None: ...


class ReadBody(Protocol):
    """A whole body (bytes, text or pieces split anywhere) -> the chunk dicts, lazily."""

    def __call__(self, body: Body, /) -> Iterator[dict[str, Any]]: ...


class WriteChunks(Protocol):
    """Chunks (dicts or SDK objects) -> the bytes the vendor's SDK parses back."""

    def __call__(self, chunks: Iterable[Any], /) -> bytes: ...


class PushReader(Protocol):
    """What ``Framing.reader()`` returns (``toolwire.adapters.contract.ChunkReader``)."""

    @property
    def done(self) -> bool: ...

    def feed(self, piece: bytes) -> list[dict[str, Any]]: ...

    def close(self) -> list[dict[str, Any]]: ...


class SSEReader:
    """Push-style SSE: byte pieces in, the vendor's chunk dicts out (sync and async alike).

    ``stop_at`` is the vendor's own end marker (an ``[DONE]`` event): once read, ``done``
    is set and the rest is ignored, as the vendor's SDK does. ``flush_incomplete``: a
    last event cut before its blank line still counts (as some vendors' SDKs read it).

    An event whose chunk may warn (a lone surrogate replaced) or fail (its data, or the
    rule refusing it) is made when it is reached, so its warning or error comes after the
    chunks before it, as when each event comes alone: ``feed_later`` and ``feed_fused``
    leave it a ``_fastpath.Later`` (the driver's pieces make it in their turn), ``feed``
    makes every one in order and keeps an error for its next call. The events a piece's
    batch parse vouched for (almost all) are made at once, as before.
    """

    def __init__(
        self,
        chunk_of: ChunkOf,
        stop_at: str | None = None,
        *,
        flush_incomplete: bool = False,
        vendor: str = "sse",
    ) -> None:
        self._parser = SSEParser(vendor)  # (names the vendor in a body's errors, as reading
        # the whole body does: bytes not UTF-8, an event past the cap)
        self._chunk_of = chunk_of
        self._stop_at = stop_at
        self._flush = flush_incomplete  # a last event without its blank line still counts
        self._n = 0
        self.done = False
        #: an event's error kept for the next call (the chunks before it handed on first)
        self._failed: Exception | None = None

    def feed(self, piece: bytes) -> list[dict[str, Any]]:
        """The chunks of the events ``piece`` completed, every one made in order (one that
        fails: the chunks before it returned, its error raised by the next call, as when
        the body is cut just before it)."""
        return self._made(self._take(self._parser.feed(piece)))

    def feed_later(self, piece: bytes) -> list[Any]:
        """``feed``, each event whose chunk may warn or fail (its data not a clean object
        by the piece's batch parse, or its rule refusing it) left as a ``Later``, made by
        its consumer in its turn: its warning or error after the chunks before it."""
        return self._take(self._parser.feed(piece))

    def close(self) -> list[dict[str, Any]]:
        return self._made(self._take(self._parser.close(flush_incomplete=self._flush)))

    def feed_fused(self, piece: bytes, fast: Pattern[str]) -> list[Any]:
        """``feed_later``, with each event ``fast`` matches (``SSEParser.feed_items``) left
        in its place as the match, counted as an event, no chunk made: the push form of
        the fused reading (``protocol.pushed``). The other events are read as
        ``feed_later`` reads them, the end marker and all; only they take a Python step."""
        if self._failed is not None:
            raise self._failed
        items: list[Any] = self._parser.feed_items(piece, fast)
        if self.done:
            return []
        rule = self._chunk_of
        at = event_places(items)
        if not at:  # all deltas: nothing to make
            self._n += len(items)
            return items
        plain: list[SSEEvent] = [items[i] for i in at]
        out: list[Any] = []
        last = 0  # the items before it are handed on
        for i, ev, fine in zip(at, plain, piece_objects(plain), strict=True):
            out += items[last:i]
            self._n += i - last
            last = i + 1
            if self._stop_at is not None and ev.data.startswith(self._stop_at):
                self.done = True
                return out
            chunk = self._chunk_or_later(rule, ev, fine)
            if chunk is not None:
                out.append(chunk)
        out += items[last:]
        self._n += len(items) - last
        return out

    def matched_chunk(self, match: Match[str]) -> dict[str, Any]:
        """The chunk this reader makes of a matched event (its text is one whole event, a
        clean JSON object: read again, alone, it gives the same chunk)."""
        (event,) = SSEParser().feed(match.group(0))
        chunk = self._chunk_of(event, 0, piece_objects([event])[0])
        assert chunk is not None, "a matched event is a chunk"
        return chunk

    def _take(self, events: list[SSEEvent]) -> list[Any]:
        """The chunks of ``events``: each made now when its data is a clean object (the
        piece's batch parse vouched for it: no warning) and the rule takes it, else a
        ``Later`` that makes it (again) when it is reached, its warning or error then."""
        if self._failed is not None:
            raise self._failed
        out: list[Any] = []
        if not events or self.done:
            return out
        rule = self._chunk_of
        for ev, fine in zip(events, piece_objects(events), strict=True):
            if self._stop_at is not None and ev.data.startswith(self._stop_at):
                self.done = True
                break
            chunk = self._chunk_or_later(rule, ev, fine)
            if chunk is not None:
                out.append(chunk)
        return out

    def _chunk_or_later(self, rule: ChunkOf, ev: SSEEvent, fine: CheckedObject | None) -> Any:
        """The next event's chunk (``None``: the rule gives none) when its data is a clean
        object and the rule takes it, else a ``Later`` that makes it (again) when it is
        reached, its warning or error then."""
        n = self._n
        self._n = n + 1
        if fine is None:
            return Later(rule, ev, n, None)
        try:
            return rule(ev, n, fine)
        except Exception:  # (the rule's error, raised again in its turn)
            return Later(rule, ev, n, fine)

    def _made(self, items: list[Any]) -> list[dict[str, Any]]:
        """``items`` with each ``Later`` made, in order; one that fails ends them: the
        chunks before it returned and its error kept for the next call (raised now when
        there are none)."""
        if not later_in(items):
            return items
        out: list[dict[str, Any]] = []
        for item in items:
            if type(item) is not Later:
                out.append(item)
                continue
            try:
                chunk = item.made()
            except Exception as exc:
                self.done = False  # (a kept error is raised by the next call: an end marker after
                # it, in the piece, is never read)
                if not out:
                    raise
                self._failed = exc
                return out
            if chunk is not None:
                out.append(chunk)
        return out


def json_chunk(vendor: str) -> ChunkOf:
    """The plain rule: each event's ``data`` is one JSON object (a ``VendorDataError``
    naming the vendor and the event otherwise)."""

    def chunk_of(ev: SSEEvent, n: int, fine: CheckedObject | None) -> dict[str, Any] | None:
        return fine if fine is not None else json_object(ev, vendor, n)

    return chunk_of


@dataclass(frozen=True)
class StreamFraming:
    """A vendor's framing as data: its name, content type, and the three operations.

    Meets ``toolwire.adapters.contract.Framing``; build one with :func:`sse_framing` or
    directly for another framing (``reader`` builds a fresh push reader per stream).
    """

    name: str
    media_type: str
    read_body: ReadBody
    write_chunks: WriteChunks
    new_reader: Callable[[], PushReader]

    def read(self, body: Body) -> Iterator[dict[str, Any]]:
        return self.read_body(body)

    def reader(self) -> PushReader:
        return self.new_reader()

    def write(self, chunks: Iterable[Any]) -> bytes:
        return self.write_chunks(chunks)


def sse_framing(
    vendor: str,
    read: ReadBody,
    write: WriteChunks,
    *,
    chunk_of: ChunkOf | None = None,
    stop_at: str | None = None,
) -> StreamFraming:
    """SSE as a vendor writes it: ``read``/``write`` are the adapter's whole-body reader
    and writer; the push reader parses events with :class:`SSEReader` (``chunk_of``: the
    vendor's event rule, else each ``data`` a JSON object; ``stop_at``: its end marker)."""
    rule = chunk_of if chunk_of is not None else json_chunk(vendor)
    return StreamFraming(
        "sse",
        "text/event-stream",
        read,
        write,
        lambda: SSEReader(rule, stop_at=stop_at, vendor=vendor),
    )


def json_array_framing(fields: Fields) -> StreamFraming:
    """A stream framed as one JSON array (``protocol.json_array``): ``fields`` is the
    vendor's field reader, which names the vendor in every error."""

    def read(body: Body) -> Iterator[dict[str, Any]]:
        if isinstance(body, (bytes, str)):
            body = [body]
        pieces = (p.encode("utf-8") if isinstance(p, str) else p for p in body)
        return json_array_chunks(pieces, fields)

    def write(chunks: Iterable[Any]) -> bytes:
        return json_array_bytes(chunks, vendor=fields.vendor)

    return StreamFraming(
        "json-array", "application/json", read, write, lambda: JsonArrayPush(fields)
    )


__all__ = [
    "Body",
    "ChunkOf",
    "PushReader",
    "ReadBody",
    "SSEReader",
    "StreamFraming",
    "WriteChunks",
    "json_array_framing",
    "json_chunk",
    "sse_framing",
]
