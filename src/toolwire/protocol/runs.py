"""Framing a decoded vendor turn as one complete AG-UI run.

``RUN_STARTED`` (with the protocol version this stream speaks), the turn's
events, then ``RUN_FINISHED`` with the outcome — cancelled or interrupt when
the decoder says so, else success with the calls left pending — and usage; or
``RUN_ERROR`` when decoding failed (a vendor error, a truncated stream). The
machine checks every event on the way out.

:class:`RunFramer` holds that logic as steps (start, feed, finish, fail,
cancel) so the sync :func:`frame_run`, the async :func:`aframe_run` and the
run driver (which retries before the turn's first event) drive the same code.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
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

from toolwire.errors import ToolwireError, TruncatedStream, VendorStreamError
from toolwire.failures import classify, metadata_of
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.machine import StreamMachine

#: What a decoder raises for a turn that failed: the run ends with ``RUN_ERROR``.
DECODING_FAILURES = (VendorStreamError, TruncatedStream)

#: Events to send just before the terminal one, or a function giving them then.
BeforeEnd = Sequence[BaseEvent] | Callable[[], Sequence[BaseEvent]]


class _ReadFailed(Exception):
    """The chunk source itself failed (an SDK or transport exception), not the decoder."""

    def __init__(self, cause: Exception) -> None:
        self.cause = cause


def _reading(chunks: Iterable[Any]) -> Iterator[Any]:
    it = iter(chunks)
    while True:
        try:
            chunk = next(it)
        except StopIteration:
            return
        except ToolwireError:
            raise
        except Exception as exc:
            raise _ReadFailed(exc) from exc
        yield chunk


async def _areading(chunks: AsyncIterable[Any]) -> AsyncIterator[Any]:
    it = aiter(chunks)
    while True:
        try:
            chunk = await anext(it)
        except StopAsyncIteration:
            return
        except ToolwireError:
            raise
        except Exception as exc:
            raise _ReadFailed(exc) from exc
        yield chunk


def error_code(exc: ToolwireError) -> str:
    """A stable ``RUN_ERROR.code`` for a decoding failure (``failures.classify``'s)."""
    return classify(exc).code


class RunFramer:
    """One run being framed: each step returns the verified events to send, in order.

    ``turn_events`` counts the events of the turn sent so far (``RUN_STARTED``
    excluded): while it is 0 the turn may be restarted with a fresh decoder
    (:meth:`use_decoder`) without the consumer seeing anything twice. ``reshape``
    rewrites each event after the machine checked it (e.g. a downgrade for a legacy peer).
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
    ) -> None:
        self.machine = machine or StreamMachine()
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

    def _send(self, events: Iterable[BaseEvent]) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        for ev in events:
            out.extend(self.machine.feed(ev))
        return self._out(out)

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
        return self._send([started])

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """One vendor chunk; raises what the decoder raises (see ``DECODING_FAILURES``)."""
        out = self._send(self.decoder.feed(chunk))
        self.turn_events += len(out)
        return out

    def feed_response(self, response: Any) -> list[BaseEvent]:
        out = self._send(self.decoder.feed_response(response))
        self.turn_events += len(out)
        return out

    def finish(self, *, before_end: BeforeEnd = ()) -> list[BaseEvent]:
        """End of the vendor stream: the decoder's last events, ``before_end``, ``RUN_FINISHED``.

        Raises what ``decoder.close()`` raises (a truncated stream) before sending anything.
        """
        d = self.decoder
        closing = list(d.close())
        outcome: Any
        if d.cancelled:
            outcome = RunFinishedCancelledOutcome()
        elif d.interrupts:
            outcome = RunFinishedInterruptOutcome(interrupts=d.interrupts)
        else:
            outcome = None  # success: pending calls are known once the closing events are in
        out = self._send(closing)
        self.turn_events += len(out)
        out.extend(self._extra(before_end))
        if outcome is None:
            pending = self.machine.pending_tool_call_ids
            outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=pending or None)
        out.extend(self._send([self._finished(outcome)]))
        return out

    def cancel(self, *, before_end: BeforeEnd = ()) -> list[BaseEvent]:
        """The consumer stopped the turn: close what is open, end with the cancelled outcome."""
        out = self._out(self.machine.open_item_ends())  # already taken by the machine
        self.turn_events += len(out)
        out.extend(self._extra(before_end))
        out.extend(self._send([self._finished(RunFinishedCancelledOutcome())]))
        return out

    def _finished(self, outcome: Any) -> RunFinishedEvent:
        d = self.decoder
        kw: dict[str, Any] = {}
        if d.usage:
            kw["usage"] = d.usage
        if d.result is not None:
            kw["result"] = d.result
        if d.run_metadata:
            kw["metadata"] = dict(d.run_metadata)
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


def frame_run(
    decoder: BaseDecoder,
    chunks: Iterable[Any],
    *,
    thread_id: str,
    run_id: str,
    run_input: RunAgentInput | None = None,
    whole_response: Any = None,
    machine: StreamMachine | None = None,
) -> Iterator[BaseEvent]:
    """Yield one complete, verified AG-UI run for one vendor turn.

    A failure of ``chunks`` itself (an SDK stream raising for an in-stream vendor error,
    a dropped connection) ends the run with ``RUN_ERROR`` too, coded as the vendor's
    error type (``toolwire.failures``); a toolwire error from it is raised as it is.
    """
    run = RunFramer(
        decoder, thread_id=thread_id, run_id=run_id, run_input=run_input, machine=machine
    )
    yield from run.start()
    try:
        if whole_response is not None:
            yield from run.feed_response(whole_response)
        else:
            for chunk in _reading(chunks):
                yield from run.feed(chunk)
        end = run.finish()
    except DECODING_FAILURES as exc:
        yield from run.fail(exc)
        return
    except _ReadFailed as exc:
        yield from run.fail_reading(exc.cause)
        return
    yield from end


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
        decoder, thread_id=thread_id, run_id=run_id, run_input=run_input, machine=machine
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


__all__ = ["DECODING_FAILURES", "RunFramer", "aframe_run", "error_code", "frame_run"]
