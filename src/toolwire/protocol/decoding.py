"""What every adapter's Decoder shares: feed/close, usage and outcome bookkeeping.

An adapter subclasses :class:`BaseDecoder` and implements ``_feed`` (one vendor
chunk, as a dict) and ``_close`` (end of stream). Chunks may be SDK objects or
plain dicts; :func:`as_dict` turns the former into the latter so both give the
same events.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from itertools import chain
from typing import Any

from ag_ui.core import BaseEvent, Interrupt, TokenUsage
from pydantic import BaseModel

from toolwire.errors import UnsupportedInput, VendorDataError
from toolwire.losses import Loss
from toolwire.protocol._model_json import Unclean, model_json
from toolwire.protocol.encoding import BaseEncoder
from toolwire.protocol.jsontext import CheckedObject, checked
from toolwire.protocol.translator import Translator


def as_dict(chunk: Any, vendor: str, where: str = "chunk") -> dict[str, Any]:
    """A vendor chunk as a plain JSON dict (SDK pydantic objects as their
    ``model_dump(mode="json", by_alias=True, exclude_unset=True)``, built by
    :func:`~toolwire.protocol._model_json.model_json`).

    Its nesting is bounded and a lone surrogate in it repaired
    (:func:`~toolwire.protocol.jsontext.checked`), so no decoder meets either.
    """
    if type(chunk) is CheckedObject and chunk.trusted():  # checked by toolwire's own reader
        return chunk
    if isinstance(chunk, BaseModel):  # every SDK's objects: their dump, checked as it is built
        try:
            value = model_json(chunk)
        except Unclean:  # a surrogate to repair or nesting to refuse: checked says which
            value = None
        if isinstance(value, dict):
            return value
    return checked(_plain_dict(chunk, vendor, where), vendor, where)  # type: ignore[no-any-return]


def _plain_dict(chunk: Any, vendor: str, where: str) -> dict[str, Any]:
    if isinstance(chunk, dict):
        return chunk
    dump = getattr(chunk, "model_dump", None)
    if callable(dump):
        try:
            try:
                value = dump(mode="json", by_alias=True, exclude_unset=True)
            except TypeError:  # a model_dump without pydantic's keywords
                value = dump()
        except (ValueError, RecursionError) as exc:
            # pydantic's serializer refuses an object nested past its own depth limit, or
            # holding a value JSON has no form for (its message is not passed on: it may
            # quote the value)
            why = "nested too deep to dump, or holding a value JSON has no form for"
            raise VendorDataError(
                vendor, where, f"the object's model_dump failed ({type(exc).__name__}: {why})"
            ) from None
        if isinstance(value, dict):
            return value
    to_dict = getattr(chunk, "to_dict", None)
    if callable(to_dict):
        value = to_dict()
        if isinstance(value, dict):
            return value
    raise VendorDataError(vendor, where, f"expected a JSON object, got {type(chunk).__name__}")


class BaseDecoder(Translator):
    """Sans-I/O base: subclasses translate vendor chunks to AG-UI events.

    After :meth:`close`, ``usage`` holds the run's token usage and
    ``interrupts`` any interrupt the vendor asked for (the run framer puts both
    on ``RUN_FINISHED``); ``cancelled`` says the vendor cancelled the turn.
    ``result`` is an optional run result.
    """

    def __init__(self) -> None:
        super().__init__()
        self.usage: list[TokenUsage] = []
        self.interrupts: list[Interrupt] = []
        self.result: Any = None
        #: the vendor says the turn was cancelled: the run ends with the cancelled outcome
        self.cancelled = False
        #: vendor facts about how the turn ended (e.g. a stop reason), vendor-prefixed keys;
        #: the run framer puts them on ``RUN_FINISHED.metadata``
        self.run_metadata: dict[str, Any] = {}
        #: vendor facts about a failure (the run framer puts them on ``RUN_ERROR.metadata``)
        self.error_metadata: dict[str, Any] = {}
        #: tool call ids the thread already holds (earlier runs); a decoder that derives ids
        #: from vendor fields that may repeat (Asgard, Dialogflow) must not reuse one
        self.known_call_ids: frozenset[str] = frozenset()
        #: the vendor's own id of the response, when it gives one (telemetry reports it)
        self.response_id: str | None = None
        #: calls the vendor runs itself (server tools): answered in its stream or in a
        #: later response, never by the application; one still unanswered at the end is
        #: left out of the run's pending calls (``finish.VENDOR_PENDING_KEY``)
        self.vendor_calls: set[str] = set()
        self.chunk_index = -1
        self.closed = False
        self._after_end = 0

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """One vendor chunk (SDK object or dict) -> AG-UI events."""
        self.chunk_index += 1
        events = self._feed(as_dict(chunk, self.vendor, f"chunk {self.chunk_index}"))
        self.warn_new()
        return events

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """A whole stream's events: each chunk's ``feed``, then ``close()``'s. A decoder may
        read its commonest chunks here in a loop of its own; the events are the same."""
        # the loop runs in C (map, chain): only the decoder's feed is Python, per chunk
        yield from chain.from_iterable(map(self.feed, chunks))
        yield from self.close()

    def after_end(self, terminal: str) -> list[BaseEvent]:
        """A chunk after the vendor's terminal event (``terminal`` names it): nothing reads
        it, so it is dropped, and the first such chunk of a stream is a loss, warned about."""
        self._after_end += 1
        if self._after_end == 1:
            loss = Loss(
                kind="material-after-end",
                target="AG-UI",
                reason=f"{self.vendor}: chunk {self.chunk_index} and any later ones came after "
                f"{terminal}, which ends the stream; they are dropped",
            )
            self.losses.append(loss)  # feed warns about it, at the surface
        return []

    def close(self) -> list[BaseEvent]:
        """End of stream: close what is open; raise ``TruncatedStream`` when cut short."""
        if self.closed:
            return []
        self.closed = True
        events = self._close()
        self.warn_new()
        return events

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """One whole non-streamed vendor response -> AG-UI events."""
        raise UnsupportedInput(f"{self.vendor}: this decoder takes no whole responses")

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        raise NotImplementedError

    def _close(self) -> list[BaseEvent]:
        return []

    def where(self, field: str) -> str:
        """``chunk N: field`` for error messages."""
        return f"chunk {self.chunk_index}: {field}"


def decode_iter(decoder: BaseDecoder, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
    """Drive a decoder over an iterable (the body of every ``decode_stream``): its
    ``events``, which start when the first event is asked for."""
    return decoder.events(chunks)


async def adecode_iter(
    decoder: BaseDecoder, chunks: AsyncIterable[Any]
) -> AsyncIterator[BaseEvent]:
    """Drive a decoder over an async iterable (the body of every ``adecode_stream``)."""
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.close():
        yield event


#: events an encoder takes at a time from a list (``feed_into``): enough to make the loop's
#: own cost small, few enough that the chunks are handed on soon
ENCODE_BATCH = 256


def encode_iter(encoder: Any, events: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """Drive an encoder (``feed``/``close`` returning chunk dicts) over events.

    A list (every event already there) goes to a toolwire encoder's ``feed_into`` a slice
    at a time: the same chunks, losses and errors, the chunks made before an error handed
    on before it is raised. Any other iterable is fed an event at a time, as it comes.
    A framing's writer given this iterator untouched may take its chunks with
    :func:`written_chunks` instead (some then already written as their text)."""
    return EncodedChunks(encoder, events)


class EncodedChunks(Iterator[dict[str, Any]]):
    """The chunks of :func:`encode_iter`, made as they are taken."""

    __slots__ = ("_encoder", "_events", "_run")

    def __init__(self, encoder: Any, events: Iterable[Any]) -> None:
        self._encoder = encoder
        self._events = events
        self._run: Iterator[Any] | None = None

    def __iter__(self) -> EncodedChunks:
        return self

    def __next__(self) -> dict[str, Any]:
        if self._run is None:
            self._run = _drive(self._encoder, self._events)
        return next(self._run)

    def written(self) -> Iterator[Any] | None:
        """The chunks with those the encoder can write as text as
        :class:`~toolwire.protocol._written.Written`, or ``None`` once some were taken."""
        if self._run is not None:
            return None
        self._run = iter(())  # (taken: the chunks go one way only)
        encoder = self._encoder
        if getattr(encoder, "writes_text", None) is False:
            encoder.writes_text = True
        return _drive(encoder, self._events)


def written_chunks(chunks: Iterable[Any]) -> Iterable[Any]:
    """What a writer of a stream's bytes takes from ``chunks``: an untouched
    :func:`encode_iter` result's chunks with some as ``Written``, else ``chunks``."""
    if type(chunks) is EncodedChunks:
        got = chunks.written()
        if got is not None:
            return got
    return chunks


def _drive(encoder: Any, events: Iterable[Any]) -> Iterator[Any]:
    if type(events) is list and _takes_lists(encoder):
        out: list[dict[str, Any]] = []
        for at in range(0, len(events), ENCODE_BATCH):
            try:
                encoder.feed_into(events[at : at + ENCODE_BATCH], out)
            except BaseException:
                yield from out  # what the events before the failing one made
                raise
            yield from out
            out.clear()
    else:
        for event in events:
            yield from encoder.feed(event)
    yield from encoder.close()


def _takes_lists(encoder: Any) -> bool:
    """A toolwire encoder whose ``feed`` is the base's (so ``feed_into`` does what it does)."""
    return isinstance(encoder, BaseEncoder) and type(encoder).feed is BaseEncoder.feed


Factory = Callable[[], BaseDecoder]

__all__ = [
    "BaseDecoder",
    "Factory",
    "adecode_iter",
    "as_dict",
    "decode_iter",
    "encode_iter",
    "written_chunks",
]
