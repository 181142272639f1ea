"""Framing a decoded vendor turn as one complete AG-UI run.

``RUN_STARTED`` (with the protocol version this stream speaks), the turn's
events, then ``RUN_FINISHED`` with the outcome — cancelled or interrupt when
the decoder says so, else success with the calls left pending — and usage; or
``RUN_ERROR`` when decoding failed (a vendor error, a truncated stream). The
machine checks every event on the way out.

:class:`RunFramer` holds that logic as steps (start, feed, finish, fail,
cancel) so the sync :func:`frame_run`, the async :func:`aframe_run` and the
run driver (which retries before the turn's first event) drive the same code;
:func:`frame_runs` frames several turns as the runs of one thread. A framer's own
machine checks every rule and keeps no history (nobody reads it on a pass-through).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
)

from toolwire.errors import ToolwireError, TruncatedStream, UnsupportedInput, VendorStreamError
from toolwire.failures import classify, metadata_of
from toolwire.protocol._fastpath import SSEChunks
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.finish import FINISH_REASON_KEY, VENDOR_PENDING_KEY
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import StreamMachine

#: What a decoder raises for a turn that failed: the run ends with ``RUN_ERROR``.
DECODING_FAILURES = (VendorStreamError, TruncatedStream)

#: Events to send just before the terminal one, or a function giving them then.
BeforeEnd = Sequence[BaseEvent] | Callable[[], Sequence[BaseEvent]]


class _ReadFailed(Exception):
    """The chunk source itself failed (an SDK or transport exception), not the decoder."""

    def __init__(self, cause: Exception) -> None:
        self.cause = cause


#: what a chunk source may raise through the framer as it is
_PASSING = (ToolwireError, StopIteration, StopAsyncIteration)


class _Guard:
    """Around a read of the chunk source: its own failure becomes :class:`_ReadFailed`
    (a toolwire error, and the end of the source, pass as they are)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, Exception) and not isinstance(exc, _PASSING):
            raise _ReadFailed(exc) from exc


_GUARD = _Guard()
_END = object()  # the end of a chunk source


def _read(it: Iterator[Any]) -> Any:
    """The next chunk, or ``_END`` (``_GUARD``'s rule in a ``try``: this runs per chunk)."""
    try:
        return next(it, _END)
    except _PASSING:
        raise
    except Exception as exc:
        raise _ReadFailed(exc) from exc


def _reading(chunks: Iterable[Any]) -> Iterator[Any]:
    """The chunks of a source whose own failure is raised as :class:`_ReadFailed`; toolwire's
    own SSE reader stays itself (its items guarded), so the decoder may read it fused."""
    if type(chunks) is SSEChunks:
        return chunks.guarded(_guarded)
    return _guarded(chunks)


def _guarded(chunks: Iterable[Any]) -> Iterator[Any]:
    """:func:`_reading`'s guard. Only the source runs inside the ``try``: what the consumer
    does with a chunk happens in the consumer's frame, outside this generator (``yield
    from`` hands each chunk on without a Python step per chunk here)."""
    try:
        yield from chunks
    except _PASSING:
        raise
    except Exception as exc:
        raise _ReadFailed(exc) from exc


async def _areading(chunks: AsyncIterable[Any]) -> AsyncIterator[Any]:
    it = aiter(chunks)
    with _GUARD:
        chunk = await anext(it, _END)
    while chunk is not _END:
        yield chunk
        with _GUARD:
            chunk = await anext(it, _END)


def turn_outcome(
    decoder: BaseDecoder,
) -> RunFinishedCancelledOutcome | RunFinishedInterruptOutcome | None:
    """The outcome a decoded turn states itself (its ``close()`` called): cancelled by the
    vendor, or interrupted; ``None`` for a success, whose pending calls the run knows."""
    if decoder.cancelled:
        return RunFinishedCancelledOutcome()
    if decoder.interrupts:
        return RunFinishedInterruptOutcome(interrupts=decoder.interrupts)
    return None


def error_code(exc: ToolwireError) -> str:
    """A stable ``RUN_ERROR.code`` for a decoding failure (``failures.classify``'s)."""
    return classify(exc).code


class RunFramer:
    """One run being framed: each step returns the verified events to send, in order.

    ``turn_events`` counts the events of the turn sent so far (``RUN_STARTED``
    excluded): while it is 0 the turn may be restarted with a fresh decoder
    (:meth:`use_decoder`) without the consumer seeing anything twice. ``reshape``
    rewrites each event after the machine checked it (e.g. a downgrade for a legacy peer).
    Without a ``machine``, the run is checked by one that keeps no history unless
    ``history=True`` (read it as ``framer.machine.messages``).
    """

    def __init__(
        self,
        decoder: BaseDecoder,
        *,
        thread_id: str,
        run_id: str,
        run_input: RunAgentInput | None = None,
        machine: StreamMachine | None = None,
        reshape: Callable[[BaseEvent], BaseEvent] | None = None,
        history: bool = False,
    ) -> None:
        self.machine = machine or StreamMachine(history=history)
        self._reshape = reshape
        self.thread_id = thread_id
        self.run_id = run_id
        self.run_input = run_input
        self.turn_events = 0
        self.use_decoder(decoder)

    def use_decoder(self, decoder: BaseDecoder) -> None:
        """Decode the turn with ``decoder`` (a new one for a retried turn)."""
        if self.turn_events:
            raise ToolwireError("a turn whose events were sent cannot restart")
        decoder.known_call_ids = decoder.known_call_ids | self.machine.call_ids
        self.decoder = decoder

    @property
    def reshapes(self) -> bool:
        """Whether each event is rewritten after its check (else sent as the machine gives
        it: a caller may check a stream with ``machine.checked`` and count what it sent in
        ``turn_events``)."""
        return self._reshape is not None

    def _send(self, events: Iterable[BaseEvent]) -> list[BaseEvent]:
        if type(events) is list and len(events) == 1 and self._reshape is None:
            # the usual step (a chunk's one delta): the machine's list as it is
            return self.machine.feed(events[0])
        out = self.machine.feed_many(events)  # (a turn's whole calls: one loop)
        return out if self._reshape is None else self._out(out)

    def _out(self, events: list[BaseEvent]) -> list[BaseEvent]:
        reshape = self._reshape
        return events if reshape is None else [reshape(ev) for ev in events]

    def _extra(self, before_end: BeforeEnd) -> list[BaseEvent]:
        return self._send(before_end() if callable(before_end) else before_end)

    def start(self) -> list[BaseEvent]:
        kw: dict[str, Any] = {"input": self.run_input} if self.run_input is not None else {}
        started = RunStartedEvent(
            thread_id=self.thread_id,
            run_id=self.run_id,
            protocol_version=PROTOCOL_VERSION,
            **kw,
        )
        out = self._send([started])
        # the thread's call ids (the input's history) are known now: the decoder gets them
        # before its first chunk, so a vendor id equal to one of them is minted apart on
        # the first attempt as on any retry (use_decoder adds them to a new decoder)
        self.decoder.known_call_ids = self.decoder.known_call_ids | self.machine.call_ids
        return out

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """One vendor chunk; raises what the decoder raises (see ``DECODING_FAILURES``)."""
        return self.feed_events(self.decoder.feed(chunk))

    def feed_events(self, events: Iterable[BaseEvent]) -> list[BaseEvent]:
        """The decoder's events of the turn, however they were read (a chunk, a whole
        response, a body piece read with its delta form): checked, counted, sent on."""
        out = self._send(events)
        self.turn_events += len(out)
        return out

    def stream(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The events of a whole stream of chunks, each checked as it comes (the decoder's
        ``events``: its ``close()`` included, so ``finish`` next ends the run)."""
        reshape = self._reshape
        checked = self.machine.checked(self.decoder.events(chunks))
        if reshape is None:
            for ev in checked:
                self.turn_events += 1
                yield ev
            return
        for ev in checked:
            self.turn_events += 1
            yield reshape(ev)

    def feed_response(self, response: Any) -> list[BaseEvent]:
        return self.feed_events(self.decoder.feed_response(response))

    def finish(self, *, before_end: BeforeEnd = ()) -> list[BaseEvent]:
        """End of the vendor stream: the decoder's last events, ``before_end``, ``RUN_FINISHED``.

        Raises what ``decoder.close()`` raises (a truncated stream) before sending anything.
        """
        d = self.decoder
        closing = list(d.close())
        # None, success: pending calls are known once the closing events are in
        outcome: Any = turn_outcome(d)
        out = self._send(closing)
        self.turn_events += len(out)
        out.extend(self._extra(before_end))
        waiting: list[str] = []
        if outcome is None:
            pending = self.machine.pending_tool_call_ids
            waiting = [c for c in pending if c in d.vendor_calls]  # the vendor answers them
            app = [c for c in pending if c not in d.vendor_calls]
            outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=app or None)
        out.extend(self._send([self._finished(outcome, waiting)]))
        return out

    def cancel(self, *, before_end: BeforeEnd = ()) -> list[BaseEvent]:
        """The consumer stopped the turn: close what is open, end with the cancelled outcome."""
        out = self._out(self.machine.open_item_ends())  # already taken by the machine
        self.turn_events += len(out)
        out.extend(self._extra(before_end))
        out.extend(self._send([self._finished(RunFinishedCancelledOutcome())]))
        return out

    def _finished(self, outcome: Any, waiting: list[str] | None = None) -> RunFinishedEvent:
        d = self.decoder
        kw: dict[str, Any] = {}
        if d.usage:
            kw["usage"] = d.usage
        if d.result is not None:
            kw["result"] = d.result
        if d.run_metadata or waiting:
            kw["metadata"] = dict(d.run_metadata)
            if waiting:
                kw["metadata"][VENDOR_PENDING_KEY] = list(waiting)
        return RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id, outcome=outcome, **kw)

    def fail_reading(self, exc: BaseException) -> list[BaseEvent]:
        """``RUN_ERROR`` for a failure of the stream being read (e.g. an SDK stream that
        raised for an in-stream vendor error, or a dropped connection)."""
        f = classify(exc)
        return self.error(f.message, f.code, metadata=metadata_of(f))

    def fail(self, exc: ToolwireError, *, before_end: BeforeEnd = ()) -> list[BaseEvent]:
        """``RUN_ERROR`` for a decoding failure, with the decoder's usage and error metadata."""
        f = classify(exc)
        return self.error(f.message, f.code, before_end=before_end)

    def error(
        self,
        message: str,
        code: str,
        *,
        metadata: dict[str, Any] | None = None,
        before_end: BeforeEnd = (),
    ) -> list[BaseEvent]:
        """``RUN_ERROR`` (open items are closed by it, as the protocol says)."""
        d = self.decoder
        kw: dict[str, Any] = {"usage": d.usage} if d.usage else {}
        meta = {FINISH_REASON_KEY: "error", **d.error_metadata, **(metadata or {})}
        if meta:
            kw["metadata"] = meta
        out = self._extra(before_end)
        out.extend(self._send([RunErrorEvent(message=message, code=code, **kw)]))
        return out


#: Reads a run's ``(thread id, run id)`` from its first chunk (``None``: not there).
IdsFrom = Callable[[Any], tuple[str | None, str | None]]


def _first_ids(
    chunks: Iterable[Any], ids_from: IdsFrom, thread_id: str | None, run_id: str | None
) -> tuple[Iterable[Any], str | None, str | None, _ReadFailed | None]:
    """The ids found in the first chunk (given ones win), and the chunks from it on."""
    it = iter(chunks)
    try:
        first = _read(it)
    except _ReadFailed as exc:
        return (), thread_id, run_id, exc
    if first is _END:
        return (), thread_id, run_id, None
    found_thread, found_run = ids_from(first)
    return chain([first], it), thread_id or found_thread, run_id or found_run, None


def frame_run(
    decoder: BaseDecoder,
    chunks: Iterable[Any],
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    run_input: RunAgentInput | None = None,
    whole_response: Any = None,
    machine: StreamMachine | None = None,
    ids_from: IdsFrom | None = None,
) -> Iterator[BaseEvent]:
    """Yield one complete, verified AG-UI run for one vendor turn.

    A failure of ``chunks`` itself (an SDK stream raising for an in-stream vendor error,
    a dropped connection) ends the run with ``RUN_ERROR`` too, coded as the vendor's
    error type (``toolwire.failures``); a toolwire error from it is raised as it is.

    ``ids_from`` reads the ids from the first chunk where a vendor names the thread and
    run there (Asgard): given ids win, and an id neither given nor found is minted from
    the other one. Without ``ids_from`` both ids must be given.
    Without a ``machine`` the run is checked by one that keeps no history (pass
    ``machine=StreamMachine()`` to read ``machine.messages`` afterwards).
    """
    if ids_from is None and (thread_id is None or run_id is None):
        raise UnsupportedInput("frame_run needs thread_id and run_id, or ids_from to read them")
    failed: _ReadFailed | None = None
    if ids_from is not None and whole_response is None:
        chunks, thread_id, run_id, failed = _first_ids(chunks, ids_from, thread_id, run_id)
    run = RunFramer(
        decoder,
        thread_id=thread_id or mint_id("thread", run_id or ""),
        run_id=run_id or mint_id("run", thread_id or ""),
        run_input=run_input,
        machine=machine,
    )
    yield from run.start()
    try:
        if failed is not None:
            raise failed
        if whole_response is not None:
            yield from run.feed_response(whole_response)
        else:
            yield from run.stream(_reading(chunks))
        end = run.finish()
    except DECODING_FAILURES as exc:
        yield from run.fail(exc)
        return
    except _ReadFailed as exc:
        yield from run.fail_reading(exc.cause)
        return
    yield from end


@dataclass(frozen=True)
class VendorTurn:
    """One vendor turn for :func:`frame_runs`: its decoder and its chunks (or whole
    response); ``run_id`` defaults to one minted from the thread id and the turn's place."""

    decoder: BaseDecoder
    chunks: Iterable[Any] = ()
    whole_response: Any = None
    run_input: RunAgentInput | None = None
    run_id: str | None = None


def frame_runs(
    turns: Iterable[VendorTurn],
    *,
    thread_id: str,
    machine: StreamMachine | None = None,
) -> Iterator[BaseEvent]:
    """Several vendor turns as consecutive runs of one thread (e.g. a recording's
    exchanges), checked by one machine: no call or message id repeats across them.
    Without a ``machine``, that one keeps no history."""
    machine = machine or StreamMachine(history=False)
    for n, turn in enumerate(turns):
        yield from frame_run(
            turn.decoder,
            turn.chunks,
            thread_id=thread_id,
            run_id=turn.run_id or mint_id("run", thread_id, n),
            run_input=turn.run_input,
            whole_response=turn.whole_response,
            machine=machine,
        )


async def aframe_run(
    decoder: BaseDecoder,
    chunks: AsyncIterable[Any],
    *,
    thread_id: str,
    run_id: str,
    run_input: RunAgentInput | None = None,
    machine: StreamMachine | None = None,
) -> AsyncIterator[BaseEvent]:
    """:func:`frame_run` over an async iterable of chunks (e.g. an async SDK stream)."""
    run = RunFramer(
        decoder,
        thread_id=thread_id,
        run_id=run_id,
        run_input=run_input,
        machine=machine,
    )
    for ev in run.start():
        yield ev
    try:
        async for chunk in _areading(chunks):
            for ev in run.feed(chunk):
                yield ev
        end = run.finish()
    except DECODING_FAILURES as exc:
        for ev in run.fail(exc):
            yield ev
        return
    except _ReadFailed as exc:
        for ev in run.fail_reading(exc.cause):
            yield ev
        return
    for ev in end:
        yield ev


__all__ = [
    "DECODING_FAILURES",
    "IdsFrom",
    "RunFramer",
    "VendorTurn",
    "aframe_run",
    "error_code",
    "frame_run",
    "frame_runs",
    "turn_outcome",
]
