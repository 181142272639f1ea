"""The AWS event stream (``application/vnd.amazon.eventstream``): binary frames, read and written.

AWS streams some responses (Bedrock's ``ConverseStream``, ``InvokeModelWithResponseStream``)
as a sequence of frames, not SSE. A frame is::

    total length (uint32) | headers length (uint32) | prelude CRC32 (of the 8 bytes before)
    headers: name length (uint8), name (UTF-8), value type (uint8), value ...
    payload (total - headers - 16 bytes)
    message CRC32 (of every byte of the frame before it)

all integers big-endian. :class:`FrameReader` reads frames push-style (``feed`` pieces split
anywhere, ``close`` at the end); a bad CRC, an impossible length or a stream that ends inside
a frame raises a ``toolwire.errors`` exception, never a short success. A piece's frames are
cut in one loop (``struct`` and ``zlib``'s C CRC32, each distinct header block read once),
each frame checked once and copied once, so reading is linear in the stream. The frame's
size is bounded by ``limits().max_event_chars``. :meth:`FrameReader.feed_items` makes each
frame its reader's chunk in that loop, and hands the payloads of one kind of frame (a
vendor's content deltas) to a delta form's expression of its data alone
(``DeltaForm.payload``), or a piece's at once to a form's payloads reader (``read_all``,
``DeltaForm.payloads_reader``): the fused reading of ``protocol._fastpath``, for frames;
the piece's other frames may be made together (``together``: their payloads parsed in one
batch, as an SSE reader parses a piece's events), and one whose chunk may warn or fail left
to be made when it is reached (``_fastpath.Later``: its warning or error then comes after
the frames before it are handed on, never after an earlier frame's error). A frame that
fails comes after the frames before it, however the body is cut: they are handed on, the
error raised next.
:func:`write_frame` builds the same layout (:func:`header_block` and :func:`frame_bytes`
for a writer of many frames).
Sans-I/O, no AWS word beyond the frame format: the vendor meaning of the headers
(``:event-type`` ...) is the adapter's.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from operator import itemgetter
from re import Match, Pattern
from typing import Any, Generic, TypeVar, cast

from toolwire.errors import TruncatedStream, VendorDataError
from toolwire.protocol._fastpath import Later, later_in
from toolwire.protocol.limits import check, limits

#: prelude (two lengths and the prelude CRC) + the message CRC
_PRELUDE = 12
_OVERHEAD = 16
#: the format's own bound on a frame's headers (AWS documents 128 KiB)
MAX_HEADERS_BYTES = 128 * 1024

_U32 = struct.Struct(">I")
_PRELUDE_FMT = struct.Struct(">III")
_LENGTHS = struct.Struct(">II")
#: a frame's message CRC and the next frame's prelude
_QUAD = struct.Struct(">IIII")

# header value types (the format's numbering)
_TRUE, _FALSE, _BYTE, _SHORT, _INT, _LONG, _BYTES, _STRING, _TIMESTAMP, _UUID = range(10)
_FIXED: dict[int, struct.Struct] = {
    _BYTE: struct.Struct(">b"),
    _SHORT: struct.Struct(">h"),
    _INT: struct.Struct(">i"),
    _LONG: struct.Struct(">q"),
    _TIMESTAMP: struct.Struct(">q"),
}
_U16 = struct.Struct(">H")

HeaderValue = bool | int | bytes | str | uuid.UUID
#: what a reader makes of a frame's headers, and of a frame (``FrameReader.feed_items``)
M = TypeVar("M")
T = TypeVar("T")


@dataclass(frozen=True)
class Frame:
    """One frame: its headers (name -> value; a timestamp is its milliseconds) and payload."""

    headers: dict[str, HeaderValue]
    payload: bytes


#: headers already read, by their bytes: a stream repeats a handful of header blocks (one
#: per event type), so most frames' headers are a lookup; bounded, cleared when full
_SEEN: dict[bytes, dict[str, HeaderValue]] = {}
_SEEN_MAX = 256
#: what each reader keeps of the header blocks it met (bounded the same way)
_KNOWN_MAX = 256
_MISSING: Any = object()


def _parsed_headers(raw: bytes, vendor: str, where: str) -> dict[str, HeaderValue]:
    """The headers of a block, read once per distinct block (shared: never changed)."""
    found = _SEEN.get(raw)
    if found is None:
        found = _headers(raw, 0, len(raw), vendor, where)
        if len(_SEEN) >= _SEEN_MAX:
            _SEEN.clear()
        _SEEN[raw] = found
    return found


def _same(headers: dict[str, HeaderValue]) -> Any:
    return headers


def _never(text: str) -> None:
    return None


def _alone(chunk: Callable[[Any, bytes, int], T]) -> Callable[[list[Any], list[T]], None]:
    """A ``together`` that makes each frame alone, in order."""

    def made(frames: list[Any], out: list[T]) -> None:
        for frame in frames:
            out.append(chunk(*frame))

    return made


def _frame(headers: dict[str, HeaderValue], payload: bytes, n: int) -> Frame:
    return Frame(dict(headers), payload)  # (the caller's own copy of the headers)


#: a meaning no reader's headers have (``feed_items`` with no ``kind``)
_NONE: Any = object()
#: what a reading of a piece makes of its frames: the header blocks known, their meaning,
#: the meaning whose payloads ``read`` takes, and the ``chunk`` of every other frame
_Plan = tuple[
    dict[bytes, Any], Callable[[dict[str, HeaderValue]], Any], Any, Callable[[str], Any],
    Callable[[Any, bytes, int], Any],
]  # fmt: skip


def _headers(data: bytes, start: int, end: int, vendor: str, where: str) -> dict[str, HeaderValue]:
    out: dict[str, HeaderValue] = {}
    at = start
    try:
        while at < end:
            size = data[at]
            name = data[at + 1 : at + 1 + size].decode("utf-8")
            at += 1 + size
            if at >= end:
                raise IndexError
            kind = data[at]
            at += 1
            value: HeaderValue
            if kind == _TRUE or kind == _FALSE:
                value = kind == _TRUE
            elif kind in _FIXED:
                fmt = _FIXED[kind]
                if at + fmt.size > end:
                    raise IndexError
                value = fmt.unpack_from(data, at)[0]
                at += fmt.size
            elif kind == _BYTES or kind == _STRING:
                if at + 2 > end:
                    raise IndexError
                (length,) = _U16.unpack_from(data, at)
                at += 2
                if at + length > end:
                    raise IndexError
                raw = bytes(data[at : at + length])
                value = raw.decode("utf-8") if kind == _STRING else raw
                at += length
            elif kind == _UUID:
                if at + 16 > end:
                    raise IndexError
                value = uuid.UUID(bytes=bytes(data[at : at + 16]))
                at += 16
            else:
                raise VendorDataError(vendor, where, f"header {name!r}: unknown value type {kind}")
            out[name] = value
    except (IndexError, struct.error):
        raise VendorDataError(
            vendor, where, "a header runs past the headers' stated length"
        ) from None
    except UnicodeDecodeError:
        raise VendorDataError(vendor, where, "a header name or string is not UTF-8") from None
    return out


class FrameReader(Generic[M]):
    """Push-style reader of an event stream: ``feed(piece)`` -> the frames it completed.

    ``close()`` raises ``TruncatedStream`` when the stream ended inside a frame.
    ``vendor`` names the stream in every error. ``meaning``: what a reader of
    :meth:`feed_items` makes of a frame's headers (an event type, say), worked out once per
    distinct header block; it must not raise (a frame's errors are its reader's to name).

    A piece is cut into frames in one loop: per frame two ``struct`` reads, the two CRC32s
    (``zlib``), a lookup of its header block and two slices; the bytes of a piece are not
    copied but for the frame a piece ends inside (kept, and completed by the next pieces).
    """

    def __init__(
        self,
        vendor: str = "eventstream",
        meaning: Callable[[dict[str, HeaderValue]], M] = _same,
    ) -> None:
        self.vendor = vendor
        self._meaning = meaning
        self._buf = bytearray()  # a frame begun in an earlier piece
        self._need = 0  # its total length once its prelude is read and checked
        self._frames: dict[bytes, Any] = {}  # header block -> its headers
        self._meant: dict[bytes, Any] = {}  # header block -> its meaning
        self.count = 0  # frames read so far
        self.closed = False
        #: an error met after frames handed on before it: raised by the next call
        self._failed: Exception | None = None
        #: the last ``feed_items`` returned a :class:`~toolwire.protocol._fastpath.Later`
        #: (a frame whose chunk is made when it is reached)
        self.later = False

    def _where(self) -> str:
        return f"event-stream frame {self.count}"

    def feed(self, piece: bytes | bytearray | memoryview) -> list[Frame]:
        """The frames ``piece`` completed, each with its own copy of its headers (an error
        after some: those, and the error raised by the next call, as ``feed_items``)."""
        out: list[Frame] = []
        try:
            self._cut(piece, self._frames, _same, _NONE, _never, _frame, out)
        except Exception as exc:
            return self._failing(out, exc)
        return out

    def feed_items(
        self,
        piece: bytes | bytearray | memoryview,
        chunk: Callable[[M, bytes, int], T],
        kind: M | None = None,
        read: Callable[[str], T | None] = _never,
        together: Callable[[list[tuple[M, bytes, int]], list[T]], object] | None = None,
        *,
        read_all: Callable[[list[Any]], list[int]] | None = None,
    ) -> list[T]:
        """What ``piece`` completed, a frame each: ``chunk(meaning, payload, n)`` of frame
        ``n``, or, for a frame whose headers mean ``kind`` (``None``: none), what ``read``
        makes of its payload's UTF-8 text (a match of a delta form), unless it is ``None``
        or the payload no UTF-8 (then ``chunk``'s, which names what is wrong).

        ``read_all``: in place of ``read``, the piece's items are handed over at once, each
        frame of ``kind`` standing as its payload's text; it makes each text what ``read``
        would make of it (in place), and returns the places of those it takes not (then
        ``chunk``'s, as for ``read``), in order.

        ``together``: the piece's frames ``read`` did not take are made at once instead,
        ``together([(meaning, payload, n), ...], made)`` appending their items to ``made``
        in that order (so their payloads may be parsed in one batch), raising the first
        error of them once the items before it are appended; an item may be a ``Later``,
        a chunk its consumer makes when it reaches it (``later`` says the piece has one).

        An error (a frame's own, or its framing's) comes after the frames before it, as
        when the body is cut just before that frame: those are returned, and the error is
        raised by the next ``feed``, ``feed_items`` or ``close`` (at once when no frame
        came before it in this piece)."""
        mark = _NONE if kind is None else kind
        out: list[Any] = []
        self.later = False
        if together is None and read_all is None:
            try:
                self._cut(piece, self._meant, self._meaning, mark, read, chunk, out)
            except Exception as exc:
                out = self._failing(out, exc)
            self.later = later_in(out)
            return out
        held: list[tuple[int, M, bytes, int]] = []

        def hold(meaning: M, payload: bytes, n: int) -> Any:
            held.append((len(out), meaning, payload, n))
            return None

        first = self.count  # (the number of the piece's first frame: out's first item)
        error: Exception | None = None
        try:
            self._cut(
                piece, self._meant, self._meaning, mark, read if read_all is None else str,
                hold, out,
            )  # fmt: skip
        except Exception as exc:
            error = exc
        if read_all is not None and out:
            missed = read_all(out)  # (a text taken not: its chunk made with the others')
            if missed:
                meant = cast(M, kind)
                texts = [(at, meant, out[at].encode(), first + at) for at in missed]
                held = sorted(held + texts, key=itemgetter(0)) if held else texts
        if held:
            made: list[Any] = []
            try:
                (together or _alone(chunk))([frame[1:] for frame in held], made)
            except Exception as exc:  # (a frame's before the later frame's: it comes first)
                error = exc
                del out[held[len(made)][0] :]
            self.later = later_in(made)
            if error is None and len(held) == len(out):  # (every frame held: no match)
                return made
            for (place, *_), item in zip(held, made, strict=False):
                out[place] = item
        if error is not None:
            return self._failing(out, error)
        return out

    def _failing(self, out: list[Any], error: Exception) -> list[Any]:
        """``error`` after the items ``out`` holds: raised now when there are none, else
        kept for the next call and the items returned (as a body cut before the frame that
        failed is read)."""
        if not out or self._failed is not None:
            raise error
        self._failed = error
        return out

    def _cut(
        self,
        piece: bytes | bytearray | memoryview,
        known: dict[bytes, Any],
        make: Callable[[dict[str, HeaderValue]], Any],
        kind: Any,
        read: Callable[[str], Any],
        chunk: Callable[[Any, bytes, int], Any],
        out: list[Any],
    ) -> None:
        """``piece``'s frames made into ``out`` as the plan says (:meth:`_scan`); what it
        ends inside kept for the next."""
        if self._failed is not None:
            raise self._failed
        if self.closed:
            raise VendorDataError(self.vendor, self._where(), "bytes after the stream was closed")
        if type(piece) is not bytes:
            if not isinstance(piece, (bytearray, memoryview)):
                raise VendorDataError(
                    self.vendor, self._where(), f"expected bytes, got {type(piece).__name__}"
                )
            piece = bytes(piece)
        plan = (known, make, kind, read, chunk)
        start = 0
        if self._buf:
            start = self._complete(piece, out, plan)
            if start < 0:
                return
        at = self._scan(piece, start, out, plan)
        if at < len(piece):
            self._buf += memoryview(piece)[at:]  # the frame this piece ends inside

    def _complete(self, piece: bytes, out: list[Any], plan: _Plan) -> int:
        """The held frame, completed from the start of ``piece``: where the piece goes on
        after it, or -1 when the piece ends inside it too (each byte appended once)."""
        buf = self._buf
        start = 0
        if not self._need:
            start = _PRELUDE - len(buf)
            buf += piece[:start]
            if len(buf) < _PRELUDE:
                return -1
            total, hlen, crc = _PRELUDE_FMT.unpack_from(buf, 0)
            self._check_prelude(buf, 0, total, hlen, crc)
            self._need = total
        take = self._need - len(buf)
        buf += memoryview(piece)[start : start + take]
        if len(buf) < self._need:
            return -1
        data = bytes(buf)
        buf.clear()
        self._need = 0
        self._scan(data, 0, out, plan)  # (exactly one frame)
        return start + take

    def _scan(self, data: bytes, at: int, out: list[Any], plan: _Plan) -> int:
        """The whole frames of ``data`` from ``at`` on, made into ``out`` as ``plan`` says
        (an item each: frame ``n`` is ``self.count`` plus the items added before it):
        where the first frame ``data`` does not hold whole begins (its total kept when its
        prelude is read). A frame with the header block of the frame before it (most are:
        a run of deltas) takes that one's meaning, the block compared in place. A frame's
        message CRC and the next frame's prelude are read in one ``struct`` call."""
        known, make, kind, read, chunk = plan
        size = len(data)
        if size - at < _PRELUDE:
            return at
        reads = read is not str
        cap = limits().max_event_chars
        quad, word, crc32 = _QUAD.unpack_from, _U32.unpack_from, zlib.crc32
        starts = data.startswith
        append = out.append
        base = self.count - len(out)  # (frame n is base + its item's place in out)
        # the header block of the frame before (where its payload begins, the block's
        # bytes), its meaning and whether that is ``kind``
        ends, block, value, ours = -1, b"", None, False
        total, hlen, crc = _PRELUDE_FMT.unpack_from(data, at)
        while True:
            if (
                crc32(data[at : at + 8]) != crc
                or not hlen + _OVERHEAD <= total <= cap
                or hlen > MAX_HEADERS_BYTES
            ):
                self.count = base + len(out)
                self._check_prelude(data, at, total, hlen, crc)  # raises, naming it
            end = at + total
            if end > size:
                self._need = total
                break
            last = end - 4
            frame = data[at:last]  # (the frame but its CRC, copied once: its parts cut from it)
            if end + _PRELUDE <= size:  # (the next frame's prelude with this one's CRC)
                message, total, more, crc = quad(data, last)
            else:
                message, more = word(data, last)[0], -1
            if crc32(frame) != message:
                self.count = base + len(out)
                raise VendorDataError(self.vendor, self._where(), "message CRC32 does not match")
            hlen += _PRELUDE
            if hlen != ends or not starts(block, at + _PRELUDE):
                ends, block = hlen, frame[_PRELUDE:hlen]
                value = known.get(block, _MISSING)
                if value is _MISSING:
                    self.count = base + len(out)
                    value = make(_parsed_headers(block, self.vendor, self._where()))
                    if len(known) >= _KNOWN_MAX:
                        known.clear()
                    known[block] = value
                ours = value is kind or value == kind
            if ours:
                try:
                    text = frame[hlen:].decode()
                except UnicodeDecodeError:
                    item = None
                else:  # (with no ``read``: the text itself, ``read_all``'s to read)
                    item = read(text) if reads else text
                if item is None:
                    self.count = base + len(out)
                    item = chunk(value, frame[hlen:], self.count)
                append(item)
            else:
                self.count = base + len(out)
                append(chunk(value, frame[hlen:], self.count))
            at = end
            if more < 0:
                break
            hlen = more
        self.count = base + len(out)
        return at

    def _check_prelude(
        self, data: bytes | bytearray, at: int, total: int, hlen: int, crc: int
    ) -> None:
        """A prelude's CRC and lengths: a ``toolwire.errors`` exception naming the first
        that is wrong."""
        if zlib.crc32(data[at : at + 8]) != crc:
            raise VendorDataError(self.vendor, self._where(), "prelude CRC32 does not match")
        if total < _OVERHEAD or hlen > total - _OVERHEAD:
            raise VendorDataError(
                self.vendor,
                self._where(),
                f"impossible lengths: total {total}, headers {hlen}",
            )
        if hlen > MAX_HEADERS_BYTES:
            raise VendorDataError(
                self.vendor,
                self._where(),
                f"headers of {hlen} bytes (the format allows {MAX_HEADERS_BYTES})",
            )
        check("max_event_chars", total, self._where)

    def close(self) -> list[Frame]:
        """End of input: nothing, or ``TruncatedStream`` when a frame was cut."""
        if self._failed is not None:
            raise self._failed
        if self.closed:
            return []
        self.closed = True
        if self._buf:
            need = f" of {self._need}" if self._need else ""
            raise TruncatedStream(
                self.vendor,
                f"the stream ended inside event-stream frame {self.count} "
                f"({len(self._buf)} bytes{need} read)",
            )
        return []

    @property
    def pending(self) -> bool:
        """Bytes of an unfinished frame are held."""
        return bool(self._buf)


class FramePushReader(Generic[M]):
    """Push-style: event-stream bytes in pieces -> a framing's chunk dicts (the contract's
    ``ChunkReader``), a frame each: ``chunk(meaning, payload, n)``, a piece's frames made
    ``together`` (``FrameReader.feed_items``). The push readings of ``protocol.pushed``
    (the driver's pieces) read it with :meth:`feed_later` and its fused feeds:
    :meth:`feed_fused` leaves the frames whose headers mean ``kind`` and whose payload a
    delta form's expression of its data alone (``DeltaForm.payload``) matches as that
    match, and :meth:`feed_all` those a form's payloads reader takes as what it made of
    them (a match, or a tuple of the fields' values); ``matched`` makes the chunk
    ``chunk`` makes of such a frame (``matched(match, n)``, ``n`` the frame's number when
    it is of the last piece fed, ``None`` else): the reading the whole-body path's
    ``feed_items`` does, so both paths give the same chunks and errors. In those three, a
    frame whose chunk ``together`` leaves to be made when it is reached
    (``_fastpath.Later``: its making may warn or fail) stays so; :meth:`feed` makes it.
    ``done`` is never set early: every frame is read, and a stream cut inside a frame is
    ``TruncatedStream`` at ``close()``."""

    __slots__ = (
        "_base", "_chunk", "_frames", "_items", "_kind", "_matched", "_payload", "_seen",
        "_together", "done",
    )  # fmt: skip

    def __init__(
        self,
        vendor: str,
        meaning: Callable[[dict[str, HeaderValue]], M],
        chunk: Callable[[M, bytes, int], Any],
        kind: M,
        matched: Callable[[Match[str], int | None], dict[str, Any]],
        together: Callable[[list[tuple[M, bytes, int]], list[Any]], object] | None = None,
    ) -> None:
        self._frames: FrameReader[M] = FrameReader(vendor, meaning)
        self._chunk = chunk
        self._kind = kind
        self._matched = matched
        self._together = together
        #: the last piece's items (a frame each), the number of its first, where the last
        #: match made again was found in it
        self._items: list[Any] = []
        self._base = 0
        self._seen = 0
        #: the expression a tuple of :meth:`feed_all` stands for a match of
        self._payload: Pattern[str] | None = None
        self.done = False

    def feed(self, piece: bytes | bytearray | memoryview) -> list[dict[str, Any]]:
        """The chunks of the frames ``piece`` completed, every one made (one that fails:
        the chunks before it, its error raised by the next call, as ``feed_items``)."""
        frames = self._frames
        items = frames.feed_items(piece, self._chunk, together=self._together)
        if not frames.later:
            return items
        for at, item in enumerate(items):
            if type(item) is Later:
                try:
                    items[at] = item.made()
                except Exception as exc:
                    del items[at:]
                    if None in items:
                        items = [item for item in items if item is not None]
                    if not items:
                        raise
                    frames._failed = exc  # (it comes before any error kept for a later frame)
                    return items
        return items if None not in items else [item for item in items if item is not None]

    def feed_later(self, piece: bytes | bytearray | memoryview) -> list[Any]:
        """``feed``, each frame whose chunk is made when it is reached left as its
        ``Later`` (:meth:`later`: whether the piece held one)."""
        base = self._frames.count
        items = self._frames.feed_items(piece, self._chunk, together=self._together)
        self._items, self._base, self._seen = items, base, 0
        return items

    def feed_fused(self, piece: bytes | bytearray | memoryview, fast: Pattern[str]) -> list[Any]:
        """:meth:`feed_later`, with each frame of ``kind`` whose payload ``fast`` (a delta
        form's ``payload``) matches whole left in place as its match."""
        base = self._frames.count
        items = self._frames.feed_items(
            piece, self._chunk, self._kind, fast.fullmatch, self._together
        )
        self._items, self._base, self._seen = items, base, 0
        return items

    def feed_all(
        self,
        piece: bytes | bytearray | memoryview,
        read_all: Callable[[list[Any]], list[int]],
        payload: Pattern[str] | None = None,
    ) -> list[Any]:
        """:meth:`feed_later`, with each frame of ``kind`` whose payload ``read_all`` (a
        delta form's ``payloads_reader()``) takes left in place as what it made of it (a
        match of ``payload``, the form's expression of a payload, or a tuple ``(text,
        *values)`` standing for its match: :meth:`matched_chunk` takes either)."""
        base = self._frames.count
        items = self._frames.feed_items(
            piece, self._chunk, self._kind, together=self._together, read_all=read_all
        )
        self._items, self._base, self._seen = items, base, 0
        self._payload = payload
        return items

    @property
    def later(self) -> bool:
        """The last piece's items hold a ``Later`` (a chunk made when it is reached)."""
        return self._frames.later

    def matched_chunk(self, match: Match[str] | tuple[Any, ...]) -> dict[str, Any]:
        """The chunk of a matched frame (or of a tuple :meth:`feed_all` made), as ``feed``
        makes it (its errors name the frame's number, found in the last piece from where
        the last was: the items are read in order, so a piece is searched once; an equal
        tuple before it is passed by)."""
        items = self._items
        try:
            at = items.index(match, self._seen)
            while items[at] is not match:
                at = items.index(match, at + 1)
        except ValueError:  # (of an earlier piece: no number known)
            n = None
        else:
            self._seen = at + 1
            n = self._base + at
        if isinstance(match, tuple):
            assert self._payload is not None, "a tuple comes from feed_all with its payload"
            found = self._payload.fullmatch(match[0])
            assert found is not None, "a payloads reader's tuple is of a text it matches"
            return self._matched(found, n)
        return self._matched(match, n)

    def close(self) -> list[dict[str, Any]]:
        self._frames.close()
        return []


def read_frames(pieces: Iterable[bytes], vendor: str = "eventstream") -> Iterator[Frame]:
    """Every frame of a stream given as pieces split anywhere (lazily)."""
    reader: FrameReader[Any] = FrameReader(vendor)
    for piece in pieces:
        yield from reader.feed(piece)
    yield from reader.close()


def _header_bytes(name: str, value: Any, vendor: str) -> bytes:
    raw_name = name.encode("utf-8")
    if not 0 < len(raw_name) < 256:
        raise VendorDataError(vendor, f"header {name!r}", "a header name is 1 to 255 bytes")
    head = bytes([len(raw_name)]) + raw_name
    if isinstance(value, bool):
        return head + bytes([_TRUE if value else _FALSE])
    if isinstance(value, int):
        for kind in (_INT, _LONG):
            fmt = _FIXED[kind]
            try:
                return head + bytes([kind]) + fmt.pack(value)
            except struct.error:
                continue
        raise VendorDataError(vendor, f"header {name!r}", "an integer beyond 64 bits")
    if isinstance(value, uuid.UUID):
        return head + bytes([_UUID]) + value.bytes
    if isinstance(value, (bytes, str)):
        kind = _STRING if isinstance(value, str) else _BYTES
        raw = value.encode("utf-8") if isinstance(value, str) else value
        if len(raw) > 0xFFFF:
            raise VendorDataError(vendor, f"header {name!r}", "a value over 65535 bytes")
        return head + bytes([kind]) + _U16.pack(len(raw)) + raw
    raise VendorDataError(
        vendor, f"header {name!r}", f"no header type for a {type(value).__name__}"
    )


#: header blocks written before, by their (name, type, value) items (bounded: cleared when full)
_HEADER_BLOCKS: dict[tuple[tuple[str, type, Any], ...], bytes] = {}
_HEADER_BLOCKS_MAX = 256


def header_block(headers: Mapping[str, Any], vendor: str = "eventstream") -> bytes:
    """The bytes of a frame's ``headers`` (str, bytes, int, bool or UUID values): a writer
    of many frames with a few header sets builds each once and frames with
    :func:`frame_bytes`."""
    # a stream's frames repeat a few header sets: each is written once (the value's type is
    # part of the key, as True and 1 are equal but written differently)
    key = tuple((k, type(v), v) for k, v in headers.items())
    hbytes = _HEADER_BLOCKS.get(key)
    if hbytes is None:
        hbytes = b"".join(_header_bytes(k, v, vendor) for k, v in headers.items())
        if len(_HEADER_BLOCKS) >= _HEADER_BLOCKS_MAX:
            _HEADER_BLOCKS.clear()
        _HEADER_BLOCKS[key] = hbytes
    if len(hbytes) > MAX_HEADERS_BYTES:
        raise VendorDataError(vendor, "frame headers", f"{len(hbytes)} bytes of headers")
    return hbytes


def frame_bytes(head: bytes, payload: bytes = b"") -> bytes:
    """One frame of a header block (:func:`header_block`) and ``payload``."""
    total = len(head) + len(payload) + _OVERHEAD
    if total > limits().max_event_chars:
        check("max_event_chars", total, "an event-stream frame written")
    prelude = _LENGTHS.pack(total, len(head))
    body = prelude + _U32.pack(zlib.crc32(prelude)) + head + payload
    return body + _U32.pack(zlib.crc32(body))


def write_frame(
    headers: Mapping[str, Any], payload: bytes = b"", vendor: str = "eventstream"
) -> bytes:
    """One frame with ``headers`` (str, bytes, int, bool or UUID values) and ``payload``."""
    return frame_bytes(header_block(headers, vendor), payload)


__all__ = [
    "MAX_HEADERS_BYTES",
    "Frame",
    "FramePushReader",
    "FrameReader",
    "frame_bytes",
    "header_block",
    "read_frames",
    "write_frame",
]
