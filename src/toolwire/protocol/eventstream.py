"""The AWS event stream (``application/vnd.amazon.eventstream``): binary frames, read and written.

AWS streams some responses (Bedrock's ``ConverseStream``, ``InvokeModelWithResponseStream``)
as a sequence of frames, not SSE. A frame is::

    total length (uint32) | headers length (uint32) | prelude CRC32 (of the 8 bytes before)
    headers: name length (uint8), name (UTF-8), value type (uint8), value ...
    payload (total - headers - 16 bytes)
    message CRC32 (of every byte of the frame before it)

all integers big-endian. :class:`FrameReader` reads frames push-style (``feed`` pieces split
anywhere, ``close`` at the end); a bad CRC, an impossible length or a stream that ends inside
a frame raises a ``toolwire.errors`` exception, never a short success. Each frame is checked
once and every byte is copied at most twice, so reading is linear in the stream. The frame's
size is bounded by ``limits().max_event_chars``. :func:`write_frame` builds the same layout.
Sans-I/O, no AWS word beyond the frame format: the vendor meaning of the headers
(``:event-type`` ...) is the adapter's.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.errors import TruncatedStream, VendorDataError
from toolwire.protocol.limits import check

#: prelude (two lengths and the prelude CRC) + the message CRC
_PRELUDE = 12
_OVERHEAD = 16
#: the format's own bound on a frame's headers (AWS documents 128 KiB)
MAX_HEADERS_BYTES = 128 * 1024

_U32 = struct.Struct(">I")
_PRELUDE_FMT = struct.Struct(">III")

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


@dataclass(frozen=True)
class Frame:
    """One frame: its headers (name -> value; a timestamp is its milliseconds) and payload."""

    headers: dict[str, HeaderValue]
    payload: bytes


#: headers already read, by their bytes: a stream repeats a handful of header blocks (one
#: per event type), so most frames' headers are a lookup; bounded, cleared when full
_SEEN: dict[bytes, dict[str, HeaderValue]] = {}
_SEEN_MAX = 256


def _cached_headers(raw: bytes, vendor: str, where: str) -> dict[str, HeaderValue]:
    found = _SEEN.get(raw)
    if found is None:
        found = _headers(raw, 0, len(raw), vendor, where)
        if len(_SEEN) >= _SEEN_MAX:
            _SEEN.clear()
        _SEEN[raw] = found
    return dict(found)  # the caller's own copy


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


class FrameReader:
    """Push-style reader of an event stream: ``feed(piece)`` -> the frames it completed.

    ``close()`` raises ``TruncatedStream`` when the stream ended inside a frame.
    ``vendor`` names the stream in every error.
    """

    def __init__(self, vendor: str = "eventstream") -> None:
        self.vendor = vendor
        self._buf = bytearray()
        self._need: tuple[int, int] | None = None  # (total, headers) of the frame being read
        self.count = 0  # frames read so far
        self.closed = False

    def _where(self) -> str:
        return f"event-stream frame {self.count}"

    def feed(self, piece: bytes | bytearray | memoryview) -> list[Frame]:
        if self.closed:
            raise VendorDataError(self.vendor, self._where(), "bytes after the stream was closed")
        if not isinstance(piece, (bytes, bytearray, memoryview)):
            raise VendorDataError(
                self.vendor, self._where(), f"expected bytes, got {type(piece).__name__}"
            )
        buf = self._buf
        buf += piece
        out: list[Frame] = []
        at = 0
        while True:
            if self._need is None:
                if len(buf) - at < _PRELUDE:
                    break
                self._need = self._prelude(buf, at)
            total, hlen = self._need
            if len(buf) - at < total:
                break
            out.append(self._frame(buf, at, total, hlen))
            self._need = None
            self.count += 1
            at += total
        if at:
            del buf[:at]  # what is left is one partial frame: moved once per frame at most
        return out

    def _prelude(self, buf: bytearray, at: int) -> tuple[int, int]:
        total, hlen, crc = _PRELUDE_FMT.unpack_from(buf, at)
        if zlib.crc32(buf[at : at + 8]) != crc:
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
        return total, hlen

    def _frame(self, buf: bytearray, at: int, total: int, hlen: int) -> Frame:
        view = memoryview(buf)
        try:
            end = at + total - 4
            (crc,) = _U32.unpack_from(buf, end)
            if zlib.crc32(view[at:end]) != crc:
                raise VendorDataError(self.vendor, self._where(), "message CRC32 does not match")
            hstart = at + _PRELUDE
            data = bytes(view[hstart:end])  # headers + payload, copied once
        finally:
            view.release()  # the buffer is resized after this frame
        headers = _cached_headers(data[:hlen], self.vendor, self._where())
        return Frame(headers, data[hlen:])

    def close(self) -> list[Frame]:
        """End of input: nothing, or ``TruncatedStream`` when a frame was cut."""
        if self.closed:
            return []
        self.closed = True
        if self._buf:
            need = f" of {self._need[0]}" if self._need else ""
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


def read_frames(pieces: Iterable[bytes], vendor: str = "eventstream") -> Iterator[Frame]:
    """Every frame of a stream given as pieces split anywhere (lazily)."""
    reader = FrameReader(vendor)
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


def write_frame(
    headers: Mapping[str, Any], payload: bytes = b"", vendor: str = "eventstream"
) -> bytes:
    """One frame with ``headers`` (str, bytes, int, bool or UUID values) and ``payload``."""
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
    total = len(hbytes) + len(payload) + _OVERHEAD
    check("max_event_chars", total, "an event-stream frame written")
    prelude = struct.pack(">II", total, len(hbytes))
    prelude += _U32.pack(zlib.crc32(prelude))
    body = prelude + hbytes + payload
    return body + _U32.pack(zlib.crc32(body))


__all__ = ["MAX_HEADERS_BYTES", "Frame", "FrameReader", "read_frames", "write_frame"]
