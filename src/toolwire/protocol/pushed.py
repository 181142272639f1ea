"""The fused reading in push form: a network piece in, its vendor chunks read in one go.

A driver that is handed the vendor's body a network piece at a time (``toolwire.arun``,
``toolwire serve``) reads it through the adapter's push reader (``FRAMING.reader()``),
which makes a dict of every SSE event. :func:`pieces` wraps such a reader so that each
piece comes out as one :class:`Piece`: its chunks in order, and once a decoder with a delta
form (``protocol._fastpath.DeltaForm``) reads it, the events that form matches left as the
regular expression's matches, no dict made. :class:`PushReading` reads a piece with that
decoder: each match goes to the decoder's rule (the one its ``events`` loop uses), every
other chunk, and a match the rule passes (made the dict the general reader makes), to its
``feed``. The decoder stays open between pieces, and an event a piece cuts is kept by the
SSE parser for the next, as before. A decoder with no form reads the piece's dicts with
``feed``, as it always did.

One mechanism for every vendor: the form and the rule are the adapter's data, asked of the
decoder itself (``FormProbe``); nothing here names a vendor. The NDJSON push reader
(``protocol.ndjson.NDJSONReader``) and the event-stream one
(``protocol.eventstream.FramePushReader``: a frame's payload matched by the form's
expression of its data alone) read a fused piece themselves, what the form matches left as
matches the same way. A reader that is none of these is wrapped too, its chunks handed on
in pieces as it reads them (the general way).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from re import Match, Pattern
from typing import Any, Protocol, cast

from ag_ui.core import BaseEvent

from toolwire.protocol._fastpath import PASS, DeltaForm, FormProbe, scan_string
from toolwire.protocol.eventstream import FramePushReader
from toolwire.protocol.framing import PushReader, SSEReader
from toolwire.protocol.limits import limits
from toolwire.protocol.ndjson import NDJSONReader


class _Fusing(Protocol):
    """A push reader that reads a fused piece itself."""

    def feed_fused(self, piece: bytes, fast: Pattern[str], /) -> list[Any]: ...

    def matched_chunk(self, match: Match[str], /) -> dict[str, Any]: ...


#: the push readers that read a fused piece themselves (``feed_fused``, ``matched_chunk``):
#: these classes exactly (a subclass may read otherwise), each with the delta form's
#: expression its fused feed takes: of a whole SSE event or NDJSON line (``pattern``), or
#: of the data alone, for a framing whose frames carry nothing else (``payload``)
_FUSING: dict[type, str] = {
    SSEReader: "pattern",
    NDJSONReader: "pattern",
    FramePushReader: "payload",
}


class Piece:
    """The chunks of one network piece (a chunk dict, or a match of the reader's delta
    form), read from ``at`` on; ``reader`` makes the dict of a match."""

    __slots__ = ("at", "items", "reader")

    def __init__(self, items: list[Any], reader: PieceReader) -> None:
        self.items = items
        self.at = 0
        self.reader = reader

    @property
    def left(self) -> bool:
        """Whether chunks of this piece are still to be read."""
        return self.at < len(self.items)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """The piece's chunks as dicts (a match made the dict the wrapped reader makes of
        it): what a reader of a client's stream other than the driver reads."""
        for item in self.items:
            yield self.reader.chunk(item) if type(item) is Match else item


class PieceReader:
    """A push reader whose ``feed`` and ``close`` give one :class:`Piece` per piece that
    completed a chunk (``[]`` otherwise, as the reader it wraps: the driver's keep-alive
    tick). Fused (:meth:`fuse`), the SSE events the form's expression matches are kept as
    matches; every other event becomes the chunk the wrapped reader makes of it, counted,
    its end marker (``done``) and everything after it read as the wrapped reader reads
    them."""

    __slots__ = ("_depth", "_expression", "_fast", "_fusing", "_inner", "form")

    def __init__(self, inner: PushReader, form: DeltaForm | None = None) -> None:
        self._inner = inner
        #: a reader of :data:`_FUSING`, which reads a fused piece itself (``feed_fused``)
        #: and makes a matched event's chunk (``matched_chunk``), and the form's
        #: expression it takes
        self._expression = _FUSING.get(type(inner), "")  # (not a subclass: its own reading)
        self._fusing = cast("_Fusing", inner) if self._expression else None
        self.form: DeltaForm | None = None
        self._fast: Pattern[str] | None = None
        self._depth = 0
        if form is not None:
            self.fuse(form)

    @property
    def done(self) -> bool:
        return self._inner.done

    def fuse(self, form: DeltaForm | None) -> None:
        """Keep the events ``form`` matches as matches, from the next piece on (``None``:
        none; a reader not of :data:`_FUSING` stays as it is)."""
        self.form = form
        if self._fusing is not None:
            self._fast = None if form is None else getattr(form, self._expression)
            self._depth = 0 if form is None else form.depth

    def feed(self, piece: bytes) -> list[Piece]:
        fast = self._fast
        if fast is None or limits().max_json_depth <= self._depth:
            items: list[Any] = self._inner.feed(piece)
        else:
            assert self._fusing is not None
            items = self._fusing.feed_fused(piece, fast)
        return [Piece(items, self)] if items else []

    def close(self) -> list[Piece]:
        items: list[Any] = self._inner.close()
        return [Piece(items, self)] if items else []

    def chunk(self, match: Match[str]) -> dict[str, Any]:
        """The chunk dict the wrapped reader makes of a matched event (its text is one
        whole event, a clean JSON object: read again, alone, it gives the same chunk)."""
        assert self._fusing is not None
        return self._fusing.matched_chunk(match)


def pieces(reader: PushReader, form: DeltaForm | None = None) -> PieceReader:
    """``reader`` (an adapter's ``FRAMING.reader()``) handing on a :class:`Piece` per
    piece: what a driver reads with :class:`PushReading`; fused with ``form`` (the one its
    decoder reads: :func:`form_of`) from the first piece on, or once a decoder reads it."""
    return PieceReader(reader, form)


def form_of(decoder: Any) -> DeltaForm | None:
    """The delta form ``decoder`` reads (``None``: it reads none), asked of it without
    reading anything."""
    return _probe(decoder).form


def _probe(decoder: Any) -> FormProbe:
    """``decoder``'s delta form and rule, asked of it: its ``events`` handed a probe (a
    generator, never started: nothing is read)."""
    probe = FormProbe()
    decoder.events(probe)
    return probe


#: a form's reading of a piece's chunks from where it stopped: each chunk that gives
#: events handed to ``sink`` (the driver's check), what it returns gathered, until ``most``
#: are or the piece's ``end``; where it stopped is kept in the piece, however it ends. A
#: chunk that fails after others gave events ends the reading: its error goes in ``failed``
#: (``None``: raised as it is) and what was gathered is returned, so it comes first. The
#: fields' values are made in place, as in ``_fastpath``'s loop.
_UNIT = """
def unit(decoder, piece, rule, end, sink, most, failed, Match=Match, PASS=PASS, scan=scan):
    items = piece.items
    at = piece.at
    gathered = []
    try:
        while at < end:
            m = items[at]
            at += 1
            if type(m) is Match:
                {grab}
                out = rule({values})
                if out is not PASS:
                    decoder.chunk_index += 1
                    if out{taken}:
                        gathered += sink({emit})
                        if len(gathered) >= most:
                            break
                    continue
                m = piece.reader.chunk(m)
            events = decoder.feed(m)
            if events:
                gathered += sink(events)
                if len(gathered) >= most:
                    break
    except Exception as exc:
        if failed is None or not gathered:
            raise
        failed.append(exc)
    finally:
        piece.at = at
    return gathered
"""

#: the same reading as a generator of the events, for a check that pulls them
#: (``StreamMachine.checked``) into ``out``: a chunk is read only once the events before
#: it are checked (a violation stops before the next chunk is read, as chunk by chunk),
#: and ``mark[0]`` is how many were in ``out`` when the chunk being read began (a chunk
#: whose event fails its check sends none of its events). It stops, before a chunk, once
#: ``out`` holds ``most``; where it stopped is kept in the piece, however it ends (the
#: caller closes it).
_LAZY = """
def lazy(decoder, piece, rule, out, most, mark, Match=Match, PASS=PASS, scan=scan):
    items = piece.items
    end = len(items)
    at = piece.at
    try:
        while at < end and len(out) < most:
            mark[0] = len(out)
            m = items[at]
            at += 1
            if type(m) is Match:
                {grab}
                got = rule({values})
                if got is not PASS:
                    decoder.chunk_index += 1
                    if got{taken}:
                        {emit}
                    continue
                m = piece.reader.chunk(m)
            yield from decoder.feed(m)
    finally:
        piece.at = at
"""

#: a reading of a piece: ``unit(decoder, piece, rule, end, sink, most, failed)``
Unit = Callable[
    [Any, Piece, Callable[..., Any], int, Callable[[list[BaseEvent]], list[BaseEvent]], int, Any],
    list[BaseEvent],
]
_UNITS: dict[DeltaForm | None, Unit] = {}


def _unit_of(form: DeltaForm | None) -> Unit:
    """The reading of ``form`` (``None``: of a decoder that reads none, whose pieces hold
    chunk dicts only: the same loop, no match in it)."""
    unit: Unit = _generated(_UNIT, "unit", _UNITS, form, many="out", one="[out]")
    return unit


def _generated(
    source: str, name: str, made: dict[Any, Any], form: DeltaForm | None, *, many: str, one: str
) -> Any:
    """``source``'s function ``name`` for ``form``, written once (kept in ``made``): its
    fields' grab and values, and what a rule's output is handed on as (``many``: the list
    a rule of several events gives; ``one``: a rule's one event)."""
    function = made.get(form)
    if function is None:
        if form is None:
            grab, values, taken, emit = "_data = m.groups()", "", "", many
        else:
            grab, values = form.grab, form.values
            taken, emit = ("", many) if form.many else (" is not None", one)
        text = source.format(grab=grab, values=values, taken=taken, emit=emit)
        scope: dict[str, Any] = {"Match": Match, "PASS": PASS, "scan": scan_string}
        exec(text, scope)
        function = made[form] = scope[name]
    return function


#: a lazy reading of a piece: ``lazy(decoder, piece, rule, out, most, mark)``
Lazy = Callable[
    [Any, Piece, Callable[..., Any], list[BaseEvent], int, list[int]],
    Generator[BaseEvent, None, None],
]
_LAZIES: dict[DeltaForm | None, Lazy] = {}


def _lazy_of(form: DeltaForm | None) -> Lazy:
    """:func:`_unit_of`'s reading as a generator (:data:`_LAZY`)."""
    lazy: Lazy = _generated(_LAZY, "lazy", _LAZIES, form, many="yield from got", one="yield got")
    return lazy


def _same(events: list[BaseEvent]) -> list[BaseEvent]:
    return events


def _no_rule(*fields: Any) -> Any:  # a decoder that reads no form has no rule
    return PASS


def _unmatched(piece: Piece) -> None:
    """A piece read with another decoder's form: its matches made the chunks they are."""
    chunk = piece.reader.chunk
    piece.items[piece.at :] = [chunk(x) if type(x) is Match else x for x in piece.items[piece.at :]]


class PushReading:
    """One decoder reading pieces (:class:`Piece`): its delta form and rule asked of it
    once (``decoder.events(FormProbe())`` reads nothing), each piece's reader fused with
    that form (from its next piece on)."""

    __slots__ = ("_lazy", "_rule", "_unit", "decoder", "form")

    _rule: Callable[..., Any]

    def __init__(self, decoder: Any) -> None:
        probe = _probe(decoder)
        self.decoder = decoder
        self.form = probe.form
        self._rule = probe.rule or _no_rule
        self._unit = _unit_of(probe.form)
        self._lazy = _lazy_of(probe.form)

    def _fused(self, piece: Piece) -> None:
        form = self.form
        if piece.reader.form is not form:  # read with another form (or none) so far
            _unmatched(piece)
            piece.reader.fuse(form)

    def events(self, piece: Piece, one: bool = False) -> list[BaseEvent]:
        """The decoder's events of ``piece``'s next chunks, up to the first chunk that gives
        any (``one``: of its next chunk only); ``[]`` when none of them gives one."""
        self._fused(piece)
        end = piece.at + 1 if one else len(piece.items)
        return self._unit(self.decoder, piece, self._rule, end, _same, 1, None)

    def gather(
        self,
        piece: Piece,
        sink: Callable[[list[BaseEvent]], list[BaseEvent]],
        most: int,
        failed: list[Exception],
    ) -> list[BaseEvent]:
        """``piece``'s next chunks, each one's events handed to ``sink`` as it gives them
        (a step per chunk, in one loop), until ``sink`` has returned ``most`` events or the
        piece ends: what ``sink`` returned. A chunk failing after others gave events ends
        it, its error put in ``failed`` (raised by the caller once those are handed on)."""
        self._fused(piece)
        return self._unit(self.decoder, piece, self._rule, len(piece.items), sink, most, failed)

    def gather_checked(
        self,
        piece: Piece,
        check: Callable[[Iterator[BaseEvent]], Iterator[BaseEvent]],
        most: int,
        failed: list[Exception],
    ) -> list[BaseEvent]:
        """:meth:`gather` with ``check`` a lazy check of a stream of events (the machine's
        ``checked``: each event handed on once its check passed), given the piece's
        events as the chunks give them: one pass over them all, not a step per chunk.
        The same events, and the same failures, as :meth:`gather` with a sink that checks
        a chunk's events in one go: a chunk is read only once the events before it passed
        their check, and a chunk one of whose events fails its check sends none of them."""
        self._fused(piece)
        out: list[BaseEvent] = []
        mark = [0]
        events = self._lazy(self.decoder, piece, self._rule, out, most, mark)
        try:
            out.extend(check(events))  # (what passed is in ``out`` when one fails)
        except Exception as exc:
            del out[mark[0] :]  # the failing chunk's events (a violation's): none sent
            if not out:
                raise
            failed.append(exc)
        finally:
            events.close()
        return out


__all__ = ["Piece", "PieceReader", "PushReading", "pieces"]
