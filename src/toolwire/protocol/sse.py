"""Server-sent events: an incremental parser for any split of the bytes, and framing.

One parser serves AG-UI and vendor streams: it handles LF, CRLF and CR line
ends (also when a CRLF is split across two pieces), comment lines, ``event:``
and ``id:`` fields and multi-line ``data:``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from itertools import chain, compress, count, islice, repeat
from operator import attrgetter, is_
from re import Match, Pattern
from typing import Any, NamedTuple

from ag_ui.core import BaseEvent, ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent
from pydantic_core import PydanticSerializationError

from toolwire.errors import ToolwireError, TruncatedStream, VendorDataError
from toolwire.losses import Loss, announce
from toolwire.protocol._compact_json import compact
from toolwire.protocol._event_json import FRAME_GAP, call_json, pair_json
from toolwire.protocol._event_json import event_json as _fast_event_json
from toolwire.protocol._fastpath import SSEChunks
from toolwire.protocol._written import Written
from toolwire.protocol.decoding import as_dict, written_chunks
from toolwire.protocol.jsontext import (
    CheckedObject,
    JSONTextError,
    check_depth,
    clean_object,
    clean_objects,
    dumps_safe,
    escape_surrogates,
    has_lone_surrogate,
    load_json,
)
from toolwire.protocol.limits import check, limits


class SSEEvent(NamedTuple):
    """One dispatched SSE event: immutable, and a tuple, so the reader makes one per event
    at C speed (a frozen dataclass's ``__init__`` cost three times as much)."""

    data: str
    event: str | None = None
    id: str | None = None

    def json(self) -> Any:
        return load_json(self.data, "sse", "SSE event data")


#: an event built without the generated ``__new__``'s frame (fields in order, all three)
_event_tuple = tuple.__new__
#: one whole event of the common shape: an optional ``event:`` line, one ``data:`` line, a
#: blank line (one space after a colon is not part of the value, as SSE says)
_WHOLE_EVENT = re.compile(r"(?:event: ?([^\n]*)\n)?data: ?([^\n]*)\n\n")


def _check_taken(out: list[Any], start: int, cap: int, where: Any) -> None:
    """Each event a fused run took (``out[start:]``, matches) checked against the cap in
    order, as the parser checks an event it reads line by line: its data and line end.
    The one past it and those after it leave ``out`` first: the events before it go out
    ahead of the error (``SSEParser`` holds it for its next call), none after it."""
    for at, taken in enumerate(islice(out, start, None), start):
        if taken.end() - taken.start() > cap:
            size = len(taken.group("data")) + 1
            if size > cap:
                del out[at:]
            check("max_event_chars", size, where)


class SSEParser:
    """Feed byte (or text) pieces, get complete events back; sans-I/O.

    A piece's line ends are made LF first (C-level ``replace``; a CRLF split across two
    pieces included), then its complete lines come from one ``split`` and are read in one
    loop with a fast arm for ``data:`` lines; the line a piece leaves unended is kept as a
    list of pieces and joined once when it ends. So the cost is linear in the input however
    it is split. ``vendor`` names the source in errors: bytes that are not UTF-8 are a
    ``VendorDataError``, a body that ends inside a character a ``TruncatedStream``, an event
    or line past ``limits().max_event_chars`` a ``LimitExceeded``.
    """

    def __init__(self, vendor: str = "sse") -> None:
        self.vendor = vendor
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._line_parts: list[str] = []  # the current line, not yet ended
        self._line_len = 0
        self._skip_lf = False  # the last piece ended in CR: a LF next is its second half
        self._data: list[str] = []
        self._data_len = 0
        self._event: str | None = None
        self._id: str | None = None
        self._has_fields = False
        self._first = True
        self._offset = 0  # bytes fed so far (for error messages)
        #: an error met after some of a piece's events were read: those go out first (as
        #: when the body is cut before the bad byte or line), the error at the next call
        self._failed: ToolwireError | None = None

    def feed(self, piece: bytes | str) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        self._feed(piece, out, None)
        return out

    def feed_items(
        self, piece: bytes | str, fast: Pattern[str] | None
    ) -> list[SSEEvent | Match[str]]:
        """``feed``, with each whole event between others that ``fast`` matches (from an
        event's first line through its blank line) handed on as that match instead of an
        ``SSEEvent``: the reader of a vendor's common deltas takes their fields from it."""
        out: list[SSEEvent | Match[str]] = []
        self._feed(piece, out, fast)
        return out

    def _feed(self, piece: bytes | str, out: list[Any], fast: Pattern[str] | None) -> None:
        if self._failed is not None:
            raise self._failed
        try:
            text = self._text(piece, final=False)
            if self._first and text:
                if text.startswith("\ufeff"):
                    text = text[1:]
                self._first = False
            if text:
                self._scan(text, out, fast)
            if self._failed is not None:  # (bytes not UTF-8 after the text read above)
                raise self._failed
        except ToolwireError as exc:
            self._failed = exc
            if not out:  # (nothing before it: now; else the events read before it first)
                raise

    def close(self, *, flush_incomplete: bool = False) -> list[SSEEvent]:
        """End of input. An event not ended by a blank line is dropped (the SSE rule)
        unless ``flush_incomplete`` (Gemini's SDK flushes it)."""
        if self._failed is not None:
            raise self._failed
        out: list[SSEEvent] = []
        text = self._text(b"", final=True)
        if text:
            self._scan(text, out)
        if self._line_parts:
            self._lines([self._take_line("")], out)
        if flush_incomplete and self._has_fields:
            out.extend(self._dispatch())
        self._reset()
        return out

    @property
    def pending(self) -> bool:
        """True when an event has begun but has not been dispatched."""
        return self._has_fields or any(p.strip() for p in self._line_parts)

    def _text(self, piece: bytes | str, *, final: bool) -> str:
        if isinstance(piece, str):
            return piece
        held = len(self._decoder.getstate()[0])  # bytes of a character begun earlier
        try:
            text: str = self._decoder.decode(piece, final)
        except UnicodeDecodeError as exc:
            at = self._offset - held + exc.start
            if final:
                raise TruncatedStream(
                    self.vendor, f"the body ends inside a UTF-8 character (byte {at})"
                ) from None
            # the text before the bad byte is read first (its events go out before the
            # error, as when the body is cut there); the error is raised after it
            self._failed = VendorDataError(self.vendor, f"SSE body byte {max(at, 0)}", "not UTF-8")
            good: bytes = exc.object[: exc.start]
            return good.decode("utf-8")
        self._offset += len(piece)
        return text

    def _take_line(self, tail: str) -> str:
        self._line_parts.append(tail)
        line = "".join(self._line_parts)
        self._line_parts = []
        self._line_len = 0
        return line

    def _scan(self, text: str, out: list[Any], fast: Pattern[str] | None = None) -> None:
        """One non-empty piece of text: its ended lines read, the unended rest kept."""
        if self._skip_lf:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
                if not text:
                    return
        if "\r" in text:
            self._skip_lf = text[-1] == "\r"  # a CRLF may be split across two pieces
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if self._line_parts or self._has_fields:
            # inside an event an earlier piece began (every piece but the first, as a
            # socket cuts them): its lines up to the blank line that ends it are read line
            # by line, and what follows, between events again, the quick way below
            end = text.find("\n\n")
            if end < 0:
                self._ended_lines(text, out)
                return
            self._ended_lines(text[: end + 2], out)
            text = text[end + 2 :]
            if not text:
                return
        at = self._whole_events(text, out, fast)  # between events: the common shapes
        if at:
            text = text[at:]
            if not text:
                return
        self._ended_lines(text, out)

    def _ended_lines(self, text: str, out: list[SSEEvent]) -> None:
        """The lines ``text`` ends, read in order; the unended rest kept."""
        lines = text.split("\n")
        tail = lines.pop()  # after the last line end: the start of a line not yet ended
        if lines:
            if self._line_parts:
                lines[0] = self._take_line(lines[0])
            self._lines(lines, out)
        if tail:
            self._line_parts.append(tail)
            self._line_len += len(tail)
            check("max_event_chars", self._line_len + self._data_len, self._where)

    def _whole_events(self, text: str, out: list[Any], fast: Pattern[str] | None) -> int:
        """The events at the start of ``text`` that are one ``data:`` line, after an
        ``event:`` line or not, and a blank line (what every vendor sends), each read by one
        regular-expression match; where they end. A run of events ``fast`` takes is read
        in one step (its scanner's successive matches, each begun where the last ended,
        gathered at C speed) and handed on as the matches; anything else is left to
        ``_lines``."""
        match = _WHOLE_EVENT.match
        cap = limits().max_event_chars
        ident = self._id
        at = 0
        while True:
            if fast is not None:
                start = len(out)
                # (``Pattern.scanner``: CPython's, which ``re.Scanner`` uses; typeshed omits it)
                run = fast.scanner(text, at)  # type: ignore[attr-defined]
                out.extend(iter(run.match, None))
                if len(out) > start:
                    end = out[-1].end()
                    if end - at > cap:  # (one of the run's may be past the cap)
                        _check_taken(out, start, cap, self._where)
                    at = end
            found = match(text, at)
            if found is None:
                return at
            name, data = found.group(1, 2)
            if len(data) >= cap:  # (the data and its line end, as ``_lines`` counts)
                check("max_event_chars", len(data) + 1, self._where)
            out.append(_event_tuple(SSEEvent, (data, name or None, ident)))
            at = found.end()

    def _where(self) -> str:
        return f"{self.vendor}: SSE event at byte {self._offset}"

    def _lines(self, lines: list[str], out: list[SSEEvent]) -> None:
        """Ended lines, in order. The event being read lives in locals while the loop
        runs (one Python step per line is the whole per-line cost) and is put back after."""
        data = self._data
        size = self._data_len
        event = self._event
        has = self._has_fields
        cap = limits().max_event_chars
        try:
            for line in lines:
                if not line:
                    if data:
                        text = data[0] if len(data) == 1 else "\n".join(data)
                        out.append(_event_tuple(SSEEvent, (text, event or None, self._id)))
                        data = []
                        size = 0
                    event = None
                    has = False
                    continue
                if line.startswith("data:"):
                    value = line[6:] if line.startswith(" ", 5) else line[5:]
                elif line.startswith("event:"):  # the other line most events have
                    event = line[7:] if line.startswith(" ", 6) else line[6:]
                    has = True
                    continue
                elif line[0] == ":":
                    continue  # a comment
                else:
                    name, sep, value = line.partition(":")
                    if sep and value.startswith(" "):
                        value = value[1:]
                    if name == "event":
                        event = value
                        has = True
                        continue
                    if name == "id":
                        if "\x00" not in value:
                            self._id = value
                        has = True
                        continue
                    if name != "data":
                        continue  # retry, and fields SSE does not know, are ignored
                data.append(value)
                size += len(value) + 1
                has = True
                if size > cap:
                    check("max_event_chars", size, self._where)
        finally:
            self._data = data
            self._data_len = size
            self._event = event
            self._has_fields = has

    def _dispatch(self) -> list[SSEEvent]:
        if not self._data:
            self._reset()
            return []
        ev = SSEEvent("\n".join(self._data), self._event or None, self._id)
        self._reset()
        return [ev]

    def _reset(self) -> None:
        self._data = []
        self._data_len = 0
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
    batches = _json_batches(body, vendor, stop_at, flush_incomplete, None)
    return chain.from_iterable(zip(events, objects, strict=True) for events, objects in batches)


def _json_batches(
    body: bytes | str | Iterable[bytes | str],
    vendor: str,
    stop_at: str | None,
    flush_incomplete: bool,
    reader: SSEChunks | None,
) -> Iterator[tuple[list[Any], list[Any]]]:
    """The events of each piece with their parsed objects: handed on a piece at a time when
    ``clean_objects`` read every payload, else event by event, so an error is raised only
    once the events before it are handed on. With a ``reader`` fused, an event its delta
    expression took comes as that match, in both lists."""
    pieces: Iterable[bytes | str]
    if isinstance(body, (bytes, str)):
        pieces = (body[i : i + _PIECE] for i in range(0, len(body), _PIECE))
    else:
        pieces = body
    n = 0
    batches = sse_event_lists(pieces, SSEParser(vendor), flush_incomplete, reader)
    for events in batches:
        if not events:
            continue
        if reader is None or reader.fast is None:
            objects = clean_objects(list(map(_DATA, events)))
            plain: Iterable[SSEEvent] = events
        else:  # mostly matches: only the events among them are looked at
            at = event_places(events)
            plain = [events[i] for i in at]
            objects = events.copy()
            for i, obj in zip(at, clean_objects([ev.data for ev in plain]), strict=True):
                objects[i] = obj
        if None not in objects and (
            stop_at is None or not any(ev.data.startswith(stop_at) for ev in plain)
        ):
            n += len(events)
            yield events, objects
            continue
        for i, ev in enumerate(events):
            if type(ev) is not SSEEvent:  # a match: its event is whole and one of the deltas
                n += 1
                yield [ev], [ev]
                continue
            if stop_at is not None and ev.data.startswith(stop_at):
                # read on (linear), so the loss can be counted
                extra = len(events) - i - 1 + sum(map(len, batches))
                if extra:
                    loss = Loss(
                        kind="material-after-end",
                        target="AG-UI",
                        reason=f"{vendor}: {extra} SSE event(s) after {stop_at}, which ends "
                        "the stream; they are dropped (the vendor's SDK ignores them too)",
                    )
                    announce([loss])
                return
            value: dict[str, Any] | None = objects[i]
            if value is None:
                value = json_object(ev, vendor, n)
            n += 1
            yield [ev], [value]


_DATA = attrgetter("data")


def sse_event_lists(
    pieces: Iterable[bytes | str],
    parser: SSEParser,
    flush_incomplete: bool = False,
    reader: SSEChunks | None = None,
) -> Iterator[list[Any]]:
    """The events ``parser`` reads from each piece, then its last ones (a list per piece:
    what :func:`piece_objects` parses in batches). With a ``reader``, each piece is read
    with its delta expression while it is fused (``SSEParser.feed_items``)."""
    if reader is None:
        return chain(map(parser.feed, pieces), _closing(parser, flush_incomplete))
    fed = (parser.feed_items(piece, reader.pattern()) for piece in pieces)
    return chain(fed, _closing(parser, flush_incomplete))


def piece_objects(events: list[Any], mixed: bool = False) -> list[Any]:
    """Each event's ``data`` as a checked JSON object, parsed a batch at a time
    (``clean_objects``); ``None`` for an event its reader must read alone. ``mixed``: the
    list may hold delta matches (``SSEParser.feed_items``), each kept in its place."""
    if not mixed:
        return clean_objects(list(map(_DATA, events)))
    at = event_places(events)
    out = events.copy()
    for i, value in zip(at, clean_objects([events[i].data for i in at]), strict=True):
        out[i] = value
    return out


def event_places(items: list[Any]) -> list[int]:
    """Where the ``SSEEvent`` s of a fused piece's items are (the rest are delta matches),
    found without a Python step per item: a piece is mostly matches."""
    return list(compress(count(), map(is_, map(type, items), repeat(SSEEvent))))


def _closing(parser: SSEParser, flush_incomplete: bool) -> Iterator[list[SSEEvent]]:
    """The parser's last events, asked for only once every piece is read."""
    yield parser.close(flush_incomplete=flush_incomplete)


def sse_json_values(
    body: bytes | str | Iterable[bytes | str],
    vendor: str,
    *,
    stop_at: str | None = None,
    flush_incomplete: bool = False,
) -> SSEChunks:
    """The parsed ``data`` objects of :func:`sse_json_objects`, without their events (what
    an adapter's ``sse_chunks`` hands its decoder), as an :class:`SSEChunks` its decoder may
    read fused."""

    def lists(reader: SSEChunks) -> Iterator[list[Any]]:
        for _, objects in _json_batches(body, vendor, stop_at, flush_incomplete, reader):
            yield objects

    def chunk(match: Match[str], n: int) -> dict[str, Any]:
        # (a matched text is one JSON object: what can be wrong with it is a depth cap
        # lowered since its piece was read, named as the general reading names it)
        return json_object(SSEEvent(match.group("data")), vendor, n)

    return SSEChunks(lists, chunk, numbered=True)


def json_object(ev: SSEEvent, vendor: str, n: int) -> dict[str, Any]:
    """Event ``n``'s ``data`` as a JSON object, or a ``VendorDataError`` naming the event."""
    value: Any = clean_object(ev.data)
    if value is not None:
        return CheckedObject.made(value)
    value = load_json(ev.data, vendor, f"SSE event {n}: data")
    if not isinstance(value, dict):
        got = type(value).__name__
        raise VendorDataError(vendor, f"SSE event {n}: data", f"expected a JSON object, got {got}")
    return CheckedObject.made(value)


_PIECE = 1 << 16


def encode_agui_event(event: BaseEvent) -> str:
    """One AG-UI event as an SSE frame, the one ``ag_ui.encoder`` writes (LF line ends)."""
    return f"data: {event_json(event)}\n\n"


def event_json(event: BaseEvent) -> str:
    """One event as compact JSON text (as ``model_dump_json(by_alias=True)``).

    Built without pydantic's per-event serializer where it can be (``protocol._event_json``);
    an event whose strings hold a lone surrogate (a model the caller built) cannot be dumped
    by pydantic, so it is written with ``\\uXXXX`` escapes, which read back the same.
    """
    try:
        return _fast_event_json(event)
    except PydanticSerializationError:
        dumped = event.model_dump(mode="python", by_alias=True)
        return dumps_safe(dumped, separators=(",", ":"), default=_plain)


def _plain(value: Any) -> Any:
    """What ``model_dump(mode="python")`` leaves that JSON cannot hold (enums)."""
    return getattr(value, "value", str(value))


def encode_agui_sse(events: Iterable[BaseEvent]) -> bytes:
    """AG-UI events as SSE bytes."""
    out: list[str] = []
    it = iter(events)
    for e in it:
        if type(e) is ToolCallStartEvent:
            e = _calls(e, it, out)
            if e is _END:
                break
        try:  # event_json written out: one frame less per event
            out.append(_fast_event_json(e))
        except PydanticSerializationError:
            out.append(event_json(e))
    return agui_frames(out).encode("utf-8") if out else b""


def agui_frames(texts: list[str]) -> str:
    """Events' JSON texts (a whole call's three may be one text, its frames joined by
    ``FRAME_GAP``) as SSE frames, each ``data: <json>\n\n``: the texts joined by what lies
    between two frames. ``texts`` is not empty."""
    return "data: " + FRAME_GAP.join(texts) + "\n\n"


_END: Any = object()  # the end of the events


def _calls(start: Any, it: Iterator[BaseEvent], out: list[str]) -> Any:
    """The texts of the calls from ``start`` on (a ``TOOL_CALL_START``) into ``out``: a
    whole call (its start, one arguments event, its end) by one template
    (``_event_json.call_json``), a start and its first arguments whose end comes later by
    another (``pair_json``), anything else event by event; returns the first event
    after them that is not a call's start (``_END`` when there is none). Looking one or
    two events ahead is nothing here: every event is written before any is sent."""
    while type(start) is ToolCallStartEvent:
        args = next(it, _END)
        if type(args) is not ToolCallArgsEvent:
            out.append(event_json(start))
            return args
        end = next(it, _END)
        if type(end) is not ToolCallEndEvent:  # (a call that ends later: its start and
            text = pair_json(start, args)  # first arguments one text where they can be)
            if text is None:
                out.append(event_json(start))
                out.append(event_json(args))
            else:
                out.append(text)
            start = end
            continue
        text = call_json(start, args, end)
        if text is None:
            out.extend((event_json(start), event_json(args), event_json(end)))
        else:
            out.append(text)
        start = next(it, _END)
    return start


def frame_sse(
    payloads: Iterable[Any],
    *,
    event_of: Any = None,
    line_end: str = "\n",
    done: str | None = None,
    vendor: str = "output",
    objects: bool = False,
) -> bytes:
    """Frame JSON payloads as vendor SSE (``event:`` lines when ``event_of`` names them).

    ``event_of`` is the key of the payload's field that names its event (``"type"``), or
    ``event_of(payload) -> str | None``; ``done`` is a last ``data:`` line
    (``[DONE]`` for OpenAI Chat); ``objects``: a payload that is no dict is an SDK object,
    made its dict (``as_dict``), as :func:`~toolwire.protocol.ndjson.frame_ndjson` does
    (a wrapper of its own would hide an ``encode_stream`` from :func:`written_chunks`).
    A payload JSON cannot hold (a value of another type, or
    nesting deeper than ``limits().max_json_depth``) or an event name that is not one line
    is a ``VendorDataError`` naming it and ``vendor``, never a bare ``TypeError`` or
    ``RecursionError``, never a frame split in two.
    """
    # the payloads are taken one at a time and only their text is kept: an encoder's chunks
    # are freed as they are written, and never all held (nor all tracked by the collector)
    text = _frame(payloads, event_of, line_end, done, vendor, objects)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # a lone surrogate in a payload (only a JSON string can hold one): written as its
        # \\uXXXX escape, which reads back the same
        return escape_surrogates(text).encode("utf-8")


def _frame(
    payloads: Iterable[Any],
    event_of: Any,
    line_end: str,
    done: str | None,
    vendor: str,
    objects: bool,
) -> str:
    encode = compact
    out: list[str] = []
    end = line_end + line_end
    cap = limits().max_json_depth
    key = event_of if isinstance(event_of, str) else None
    checked_name: Any = None  # the last event name found to be one line (most repeat it)
    # a payload nests at most as many containers as its text opens, and its text closes
    # each: only a text that long, with that many, is walked (the cap is what every reader
    # of toolwire's takes)
    longest = 2 * cap
    for at, payload in enumerate(written_chunks(payloads)):
        if type(payload) is not dict:
            if type(payload) is Written:  # already written (its dict when it needs more)
                data = payload.text
                if event_of is None and (
                    len(data) < longest or data.count("{") + data.count("[") < cap
                ):
                    out.append(f"data: {data}{end}")
                    continue
                payload = payload.make()
            if type(payload) is not dict and objects:
                payload = as_dict(payload, vendor, f"payload {at}")
            if not isinstance(payload, dict):
                what = f"expected a JSON object, got {type(payload).__name__}"
                raise VendorDataError(vendor, f"payload {at}", what)
        try:
            data = encode(payload)
        except (TypeError, ValueError, RecursionError) as exc:
            raise _unwritable(payload, exc, vendor, f"payload {at}", cap) from None
        if len(data) >= longest and data.count("{") + data.count("[") >= cap:
            check_depth(payload, vendor, f"payload {at}")
        if key is not None:
            name = payload.get(key)
        else:
            name = event_of(payload) if event_of is not None else None
        if not name:
            out.append(f"data: {data}{end}")
            continue
        if name is not checked_name:
            # exactly a str (a subclass may write other text), one line, UTF-8 as it stands
            # (the escape a lone surrogate gets in JSON would change a name)
            if type(name) is not str or "\n" in name or "\r" in name or has_lone_surrogate(name):
                what = "its event name is not a one-line string"
                raise VendorDataError(vendor, f"payload {at}", what)
            checked_name = name
        out.append(f"event: {name}{line_end}data: {data}{end}")
    if done is not None:
        out.append(f"data: {done}{end}")
    return "".join(out)


def _unwritable(payload: Any, exc: Exception, vendor: str, where: str, cap: int) -> Exception:
    if isinstance(exc, RecursionError):  # (a circular reference nests without end)
        return JSONTextError(vendor, where, f"JSON nested deeper than {cap} levels, or circular")
    check_depth(payload, vendor, where)  # a too-deep payload says so first, as a reader would
    # the message names a type or a size (an int too long for text), never the value
    return VendorDataError(vendor, where, f"cannot be written as JSON: {exc}")


__all__ = [
    "SSEEvent",
    "SSEParser",
    "agui_frames",
    "encode_agui_event",
    "encode_agui_sse",
    "event_json",
    "event_places",
    "frame_sse",
    "iter_sse",
    "json_object",
    "parse_sse",
    "piece_objects",
    "sse_event_lists",
    "sse_json_objects",
    "sse_json_values",
]
