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
``feed``, as it always did. The reader's general feed (``feed_later``) leaves an event
whose chunk may warn or fail as a ``Later``, which the reading makes in its turn.

One mechanism for every vendor: the form and the rule are the adapter's data, asked of the
decoder itself (``FormProbe``); nothing here names a vendor. The NDJSON push reader
(``protocol.ndjson.NDJSONReader``) and the event-stream one
(``protocol.eventstream.FramePushReader``: a frame's payload read by the form's payloads
reader, a match of its expression of the data alone or, for a delta that begins as the
last one did, the tuple of its fields' values, handed to the rule as a match's are) read a
fused piece themselves, what the form takes left in place the same way. A chunk a reader
leaves to be made when it is reached (``_fastpath.Later``: one whose making may warn or
fail) is made in its turn, so its warning or error comes after the chunks before it are
read, as chunk by chunk. A reader that is none of these is wrapped too, its chunks handed
on in pieces as it reads them (the general way).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from re import Match, Pattern
from typing import Any, Protocol, cast

from ag_ui.core import BaseEvent

from toolwire.protocol._fastpath import PASS, DeltaForm, FormProbe, Later, scan_string
from toolwire.protocol.eventstream import FramePushReader
from toolwire.protocol.framing import PushReader, SSEReader
from toolwire.protocol.limits import limits
from toolwire.protocol.ndjson import NDJSONReader


class _Fusing(Protocol):
    """A push reader that reads a fused piece itself."""

    def matched_chunk(self, match: Any, /) -> dict[str, Any]: ...


#: A piece's reading, fed a piece: its items.
Feed = Callable[[bytes], list[Any]]


def _by_pattern(reader: Any, form: DeltaForm) -> Feed:
    """An SSE or NDJSON reader's fused feed: each whole event (or line) the form's
    ``pattern`` matches left as its match."""
    fast = form.pattern
    feed: Callable[[bytes, Pattern[str]], list[Any]] = reader.feed_fused
    return lambda piece: feed(piece, fast)


def _by_payloads(reader: Any, form: DeltaForm) -> Feed:
    """A frame reader's fused feed: each frame's payload read by the form's payloads reader
    (one per stream: it learns the deltas' common beginning), left as its match of the
    form's ``payload`` or the tuple of its fields' values."""
    read_all, payload = form.payloads_reader(), form.payload
    feed: Callable[[bytes, Any, Pattern[str]], list[Any]] = reader.feed_all
    return lambda piece: feed(piece, read_all, payload)


#: the push readers that read a fused piece themselves (and make a matched event's chunk:
#: ``matched_chunk``): these classes exactly (a subclass may read otherwise), each with
#: its fused feed made of a delta form, and the name of its general feed (each leaves an
#: event, line or frame whose chunk may warn or fail to be made when it is reached)
_FUSING: dict[type, tuple[Callable[[Any, DeltaForm], Feed], str]] = {
    SSEReader: (_by_pattern, "feed_later"),
    NDJSONReader: (_by_pattern, "feed_later"),
    FramePushReader: (_by_payloads, "feed_later"),
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
        """The piece's chunks as dicts (a match, or a payload reader's tuple, made the dict
        the wrapped reader makes of it; a ``Later`` made as it is reached): what a reader
        of a client's stream other than the driver reads."""
        for item in self.items:
            kind = type(item)
            if kind is Match or kind is tuple:
                yield self.reader.chunk(item)
            elif kind is Later:
                chunk = item.made()
                if chunk is not None:
                    yield chunk
            else:
                yield item


class PieceReader:
    """A push reader whose ``feed`` and ``close`` give one :class:`Piece` per piece that
    completed a chunk (``[]`` otherwise, as the reader it wraps: the driver's keep-alive
    tick). Fused (:meth:`fuse`), the events the form takes are kept as matches (or, for
    frames, as the tuples of its payloads reader); every other event becomes the chunk the
    wrapped reader makes of it, counted, its end marker (``done``) and everything after it
    read as the wrapped reader reads them. A chunk the wrapped reader leaves to be made
    when it is reached (a ``Later``) is made by whoever reads the piece, in its turn."""

    __slots__ = ("_depth", "_fused", "_fusing", "_inner", "_maker", "_plain", "form")

    def __init__(self, inner: PushReader, form: DeltaForm | None = None) -> None:
        self._inner = inner
        #: a reader of :data:`_FUSING` (not a subclass: its own reading), which reads a
        #: fused piece itself and makes a matched event's chunk (``matched_chunk``); how
        #: its fused feed is made of a form, and its general feed
        fusing = _FUSING.get(type(inner))
        self._fusing = cast("_Fusing", inner) if fusing is not None else None
        self._maker = fusing[0] if fusing is not None else None
        #: the general feed: a reader of :data:`_FUSING`'s, else its own ``feed_later`` when
        #: it has one (a chunk that may warn or fail left a ``Later``), else its ``feed``
        plain = fusing[1] if fusing is not None else "feed_later"
        self._plain: Feed = getattr(inner, plain, inner.feed)
        self.form: DeltaForm | None = None
        self._fused: Feed | None = None
        self._depth = 0
        if form is not None:
            self.fuse(form)

    @property
    def done(self) -> bool:
        return self._inner.done

    def fuse(self, form: DeltaForm | None) -> None:
        """Keep the events ``form`` takes as matches, from the next piece on (``None``:
        none; a reader not of :data:`_FUSING` stays as it is)."""
        self.form = form
        if self._maker is not None:
            self._fused = None if form is None else self._maker(self._inner, form)
            self._depth = 0 if form is None else form.depth

    def feed(self, piece: bytes) -> list[Piece]:
        fused = self._fused
        if fused is None or limits().max_json_depth <= self._depth:
            items = self._plain(piece)
        else:
            items = fused(piece)
        return [Piece(items, self)] if items else []

    def close(self) -> list[Piece]:
        items: list[Any] = self._inner.close()
        return [Piece(items, self)] if items else []

    def chunk(self, match: Match[str] | tuple[Any, ...]) -> dict[str, Any]:
        """The chunk dict the wrapped reader makes of a matched event (its text is one
        whole event, a clean JSON object: read again, alone, it gives the same chunk), or
        of a payload reader's tuple (the match it stands for)."""
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
#: fields' values are made in place, as in ``_fastpath``'s loop; a frame reader's tuple
#: holds them made (``{tuple}``); a ``Later`` is made here, in its turn.
_UNIT = """
def unit(decoder, piece, rule, end, sink, most, failed, Match=Match, PASS=PASS, scan=scan,
         Later=Later):
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
            {tuple}elif type(m) is Later:
                m = m.made()
                if m is None:
                    continue
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
def lazy(decoder, piece, rule, out, most, mark, Match=Match, PASS=PASS, scan=scan,
         Later=Later):
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
            {tuple}elif type(m) is Later:
                m = m.made()
                if m is None:
                    continue
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


#: the step of a tuple a frame reader's payloads reader made (``{tuple}`` in the loops):
#: the fields' values, made, handed to the rule as a match's are
_TUPLE_UNIT = """elif type(m) is tuple:
                _t, {names} = m
                out = rule({names})
                if out is not PASS:
                    decoder.chunk_index += 1
                    if out{taken}:
                        gathered += sink({emit})
                        if len(gathered) >= most:
                            break
                    continue
                m = piece.reader.chunk(m)
            """
_TUPLE_LAZY = """elif type(m) is tuple:
                _t, {names} = m
                got = rule({names})
                if got is not PASS:
                    decoder.chunk_index += 1
                    if got{taken}:
                        {emit}
                    continue
                m = piece.reader.chunk(m)
            """


def _unit_of(form: DeltaForm | None) -> Unit:
    """The reading of ``form`` (``None``: of a decoder that reads none, whose pieces hold
    chunk dicts only: the same loop, no match in it)."""
    unit: Unit = _generated(
        _UNIT, "unit", _UNITS, form, many="out", one="[out]", tuples=_TUPLE_UNIT
    )
    return unit


def _generated(
    source: str,
    name: str,
    made: dict[Any, Any],
    form: DeltaForm | None,
    *,
    many: str,
    one: str,
    tuples: str,
) -> Any:
    """``source``'s function ``name`` for ``form``, written once (kept in ``made``): its
    fields' grab and values, and what a rule's output is handed on as (``many``: the list
    a rule of several events gives; ``one``: a rule's one event); ``tuples``: the step of
    a payloads reader's tuple, for a form whose reader makes them."""
    function = made.get(form)
    if function is None:
        tuple_step = ""
        if form is None:
            grab, values, taken, emit = "_data = m.groups()", "", "", many
        else:
            grab, values = form.grab, form.values
            taken, emit = ("", many) if form.many else (" is not None", one)
            if form.makes_tuples:
                names = ", ".join(f"_{i}" for i in range(len(form.fields)))
                tuple_step = tuples.format(names=names, taken=taken, emit=emit)
        text = source.format(grab=grab, values=values, taken=taken, emit=emit, tuple=tuple_step)
        scope: dict[str, Any] = {"Match": Match, "PASS": PASS, "scan": scan_string, "Later": Later}
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
    lazy: Lazy = _generated(
        _LAZY, "lazy", _LAZIES, form, many="yield from got", one="yield got", tuples=_TUPLE_LAZY
    )
    return lazy


def _same(events: list[BaseEvent]) -> list[BaseEvent]:
    return events


def _no_rule(*fields: Any) -> Any:  # a decoder that reads no form has no rule
    return PASS


def _unmatched(piece: Piece) -> None:
    """A piece read with another decoder's form: its matches (and tuples) made the chunks
    they are."""
    chunk = piece.reader.chunk
    piece.items[piece.at :] = [
        chunk(x) if type(x) is Match or type(x) is tuple else x for x in piece.items[piece.at :]
    ]


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
