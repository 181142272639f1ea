"""``toolwire.run`` / ``toolwire.arun``: one AG-UI run over a vendor SDK client.

Thin I/O over the sans-I/O core: the adapter encodes the request, the SDK sends it
(see ``_vendors``), toolwire's parser and the adapter's ``Decoder`` read the answer,
:class:`~toolwire.protocol.runs.RunFramer` frames and checks the run.

Retries (tenacity, :class:`~toolwire.driver._policy.RetryPolicy`) happen only while
nothing of the model's turn has been sent: the driver reads until the decoder gives
its first event inside the retried attempt, and streams the rest outside it. So a
consumer never sees an event twice; a failure after that ends the run with
``RUN_ERROR``. Every failure becomes ``RUN_ERROR`` (code = the vendor's error type,
``metadata`` with the HTTP status, whether it was retryable and how many attempts were
made), with the client's credentials removed from every text.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterator,
    Sequence,
)
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, Protocol, TypeVar, cast

from ag_ui.core import BaseEvent, CustomEvent

from toolwire.clients import TICK
from toolwire.driver._args import TurnArgs, losses_list
from toolwire.driver._policy import DEFAULT_POLICY, RetryPolicy
from toolwire.driver._tool_loop import ToolRun, tool_options
from toolwire.driver._vendors import Plan, plan
from toolwire.errors import ToolwireError, UnsupportedInput
from toolwire.failures import Failure, classify, metadata_of
from toolwire.losses import Loss, announce, held, unseen
from toolwire.protocol.downgrade import downgrade_event
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.pushed import Piece, PushReading
from toolwire.protocol.redact import redact
from toolwire.protocol.runs import RunFramer

if TYPE_CHECKING:
    from toolwire.telemetry import RunTrace

log = logging.getLogger("toolwire.driver")

#: The name of the ``CUSTOM`` event that forwards losses (``forward_losses=True``).
LOSSES_EVENT = "toolwire.losses"

OnCancel = Literal["close", "finish"]

P = ParamSpec("P")
R = TypeVar("R")


class _Expired(Exception):
    """The run's deadline passed (ends the run with ``RUN_ERROR`` code ``deadline``)."""


def loss_record(loss: Loss) -> dict[str, Any]:
    """A loss as the JSON value of the ``toolwire.losses`` event (camelCase, no nulls)."""
    out: dict[str, Any] = {}
    for key, value in asdict(loss).items():
        if value is not None:
            head, *rest = key.split("_")
            out[head + "".join(w.title() for w in rest)] = value
    out["message"] = loss.message
    return out


#: the most events one step of :meth:`_Run._read_piece` gathers (a large piece is read in
#: several): a list is handed on, written and dropped while the rest waits, so a body
#: that came in one piece is not held as events all at once
PIECE_EVENTS = 256


class _Run:
    """What one run's sync and async loops share: setup, retries, failures, losses.

    Losses are read as values (the request's ``Encoded.losses``, the decoder's
    ``losses``, a legacy downgrade's) and warned about here, once each, pointing at
    the caller of ``run``/``arun`` or of the loop over its events.
    """

    def __init__(
        self,
        client: Any,
        run_input: Any,
        args: TurnArgs,
        losses: list[Loss] | None,
        *,
        sync: bool,
    ) -> None:
        model, on_cancel, retry = args.model, args.on_cancel, args.retry
        deadline = args.deadline
        if on_cancel not in ("close", "finish"):
            raise UnsupportedInput(
                f"toolwire.run: on_cancel must be 'close' or 'finish', not {on_cancel!r}"
            )
        if retry is not None and not isinstance(retry, RetryPolicy):
            raise UnsupportedInput(
                f"toolwire.run: retry must be a toolwire.RetryPolicy, not {type(retry).__name__}"
            )
        self.losses: list[Loss] = losses_list(losses)
        if not isinstance(model, str) or not model:
            raise UnsupportedInput("toolwire.run: model must be a non-empty string")
        if deadline is not None and (
            isinstance(deadline, bool)
            or not isinstance(deadline, (int, float))
            or not math.isfinite(deadline)
            or deadline <= 0
        ):
            raise UnsupportedInput(
                f"toolwire.run: deadline must be a positive number of seconds, not {deadline!r}"
            )
        self.deadline = deadline
        self._deadline_at: float | None = None
        self.policy = retry or DEFAULT_POLICY
        self.trace: RunTrace | None = None  # OpenTelemetry, once the run starts
        #: a tool loop's run telemetry: this turn is one model call of that run
        self.shared_trace: RunTrace | None = None
        self.on_cancel = on_cancel
        self.forward_losses = args.forward_losses
        self.input = as_run_input(run_input, "toolwire.run")
        self._failure: tuple[BaseException, Failure] | None = None
        with held() as quiet:
            self.plan: Plan = plan(
                client,
                self.input,
                model=model,
                vendor=args.vendor,
                api=args.api,
                params=args.vendor_params,
            )
        self.secrets = self.plan.adapter.CLIENT.secrets(client)
        lost = self.plan.body.losses
        self._report([*lost, *unseen(quiet, lost)])
        _check_client(client, self.plan, sync)
        legacy = self.input.protocol_version is None
        self.framer = RunFramer(
            self.plan.adapter.Decoder(),
            thread_id=self.input.thread_id,
            run_id=self.input.run_id,
            run_input=self.input,
            reshape=self._downgrade if legacy else None,
        )
        self._decoder_losses = 0  # how many of the decoder's losses are in self.losses
        #: the decoder's reading of the body's pieces (made at the first piece)
        self._reading: PushReading | None = None
        #: the rest of the piece whose chunk gave the turn's first events
        self._rest: Iterator[list[BaseEvent]] | None = None
        #: what a step announced (``losses.held``): one holder for every step of the run
        self._holding = held()
        #: read a body piece in one step (the events of all its chunks at once): for a
        #: consumer that takes a list at a time (``batches_async``), never mid-list
        self._whole_pieces = False
        self.attempts = 0
        self.cancel_requested = False
        self._client = client
        self.model = model

    # -- losses ----------------------------------------------------------------------------

    def _report(self, lost: list[Loss]) -> None:
        """Keep losses (``losses=``, ``forward_losses``) and warn about each, once."""
        if lost:
            self.losses.extend(lost)
            announce(lost)
            if self.trace is not None:
                for loss in lost:
                    self.trace.loss(loss)

    # -- telemetry -------------------------------------------------------------------------

    def new_trace(self) -> RunTrace | None:
        """A run's telemetry (``toolwire.telemetry``) for this client and input; None when
        nothing records."""
        from toolwire.telemetry import start_run

        sdk = self.plan.adapter.CLIENT
        return start_run(
            provider=sdk.telemetry_provider(self._client),
            model=self.model,
            thread_id=self.input.thread_id,
            run_id=self.input.run_id,
            base_url=sdk.base_url(self._client),
            secrets=self.secrets,
            messages=self.input.messages,
        )

    def _trace_start(self) -> None:
        """This turn's model call span, under the run's (its own, or a tool loop's)."""
        self.trace = self.shared_trace if self.shared_trace is not None else self.new_trace()
        if self.trace is not None:
            headers = self.trace.start_call().headers()
            if headers:  # the trace context, in the vendor request the SDK sends
                self.plan.adapter.CLIENT.add_headers(self.plan.body, headers)
            for loss in self.losses:  # the request's, reported before the run began
                self.trace.loss(loss)

    def end_trace(self, error_type: str | None = None) -> None:
        """End the model call's span, and the run's when this turn owns it (once)."""
        trace = self.trace
        if trace is None:
            return
        self.trace = None
        decoder = self.framer.decoder
        if trace.call is not None:
            trace.call.end(
                usage=decoder.usage,
                response_id=decoder.response_id,
                finish_reason=stated_finish_reason(decoder.run_metadata),
                error_type=error_type,
            )
        if trace is not self.shared_trace:
            trace.end(error_type)

    def _take_decoder_losses(self) -> None:
        decoder = self.framer.decoder
        self.losses.extend(decoder.losses[self._decoder_losses :])
        self._decoder_losses = len(decoder.losses)

    def _step(
        self, step: Callable[P, list[BaseEvent]], *args: P.args, **kwargs: P.kwargs
    ) -> list[BaseEvent]:
        """One framer step; what it lost is kept and warned about here, after it."""
        start = len(self.losses)
        quiet: list[Loss] = []
        try:
            with self._holding as quiet:  # steps do not nest: one holder, empty between steps
                return step(*args, **kwargs)
        finally:
            if (
                quiet
                or len(self.framer.decoder.losses) != self._decoder_losses
                or len(self.losses) != start  # the usual step lost nothing
            ):
                self._settle(start, quiet)

    # -- events ----------------------------------------------------------------------------

    def _downgrade(self, event: BaseEvent) -> BaseEvent:
        out, lost = downgrade_event(event)
        self.losses.extend(lost)  # inside a step: reported at its end
        return out

    def start(self) -> list[BaseEvent]:
        if self.deadline is not None:
            self._deadline_at = time.monotonic() + self.deadline
        self._trace_start()
        return self._step(self.framer.start)

    # -- the deadline ----------------------------------------------------------------------

    def _left(self) -> float | None:
        """Seconds left before the deadline (None: no deadline); raises once it passed."""
        if self._deadline_at is None:
            return None
        left = self._deadline_at - time.monotonic()
        if left <= 0:
            raise _Expired
        return left

    def expired(self) -> list[BaseEvent]:
        """``RUN_ERROR`` code ``deadline``: the run took longer than it was given."""
        meta = {"toolwire.vendor": self.plan.vendor, "toolwire.attempts": self.attempts}
        message = f"the run took longer than its deadline of {self.deadline:g} s"
        try:
            return self._step(
                self.framer.error, message, "deadline", metadata=meta, before_end=self.loss_events
            )
        finally:
            self.end_trace("deadline")

    def chunks_sync(self, stream: Iterator[Any]) -> Iterator[Any]:
        """The stream's chunks, the deadline checked at each; keep-alive ticks come through
        (:meth:`feed` skips them). With no deadline, the stream itself: nothing to check."""
        if self._deadline_at is None:
            return stream
        return self._chunks_by_deadline(stream)

    def _chunks_by_deadline(self, stream: Iterator[Any]) -> Iterator[Any]:
        for chunk in stream:
            self._left()
            yield chunk

    def chunks_async(self, stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """The stream's chunks, each awaited no longer than the time left; keep-alive ticks
        come through (:meth:`feed` skips them). With no deadline, the stream itself: a
        wrapper would cost an async step per chunk and check nothing."""
        if self._deadline_at is None:
            return stream
        return self._achunks_by_deadline(stream)

    async def _achunks_by_deadline(self, stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
        while True:
            left = self._left()
            try:
                chunk = await asyncio.wait_for(stream.__anext__(), left)
            except StopAsyncIteration:
                return
            except asyncio.TimeoutError:
                raise _Expired from None
            yield chunk

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """The events of one chunk (none for a keep-alive tick)."""
        if chunk is TICK:
            return []
        return self._step(self.framer.feed, chunk)

    def units(self, chunk: Any) -> Iterator[list[BaseEvent]]:
        """The events of what the stream gave, a list per step: a chunk's (none for a
        keep-alive tick), or for a piece of the body (``protocol.pushed.Piece``) the events
        of its chunks up to each that gives any, read with the decoder's delta form, one
        step each, so what a consumer sees between them (cancelling, the deadline, an
        error) falls where it fell chunk by chunk. With a deadline, a chunk a step: it is
        checked before each."""
        if type(chunk) is not Piece:
            if chunk is not TICK:
                yield self._step(self.framer.feed, chunk)
            return
        reading = self._reading
        if reading is None or reading.decoder is not self.framer.decoder:
            reading = self._reading = PushReading(self.framer.decoder)
        one = self._deadline_at is not None
        if self._whole_pieces and not one:
            failed: list[Exception] = []
            while True:
                yield self._step(self._read_piece, reading, chunk, failed)
                if failed:  # after the events of the chunks before it, as chunk by chunk
                    raise failed[0]
                if chunk.at >= len(chunk.items):
                    return
        while True:
            yield self._step(self._read_unit, reading, chunk, one)
            if chunk.at >= len(chunk.items):
                return
            if one:
                self._left()

    def _read_unit(self, reading: PushReading, piece: Piece, one: bool) -> list[BaseEvent]:
        """One step of a piece: its next chunks' events, up to the first chunk giving any."""
        return self.framer.feed_events(reading.events(piece, one))

    def _read_piece(
        self, reading: PushReading, piece: Piece, failed: list[Exception]
    ) -> list[BaseEvent]:
        """A piece's next chunks in one step (up to :data:`PIECE_EVENTS` events): the events
        of each, checked as they come. A chunk that fails ends the reading; its error goes
        in ``failed``, raised once the events before it are handed on (what a step per
        chunk would have sent). Where the events go out as checked, the machine's lazy
        check pulls them all in one pass (``gather_checked``), not a step per chunk."""
        framer = self.framer
        if framer.reshapes:  # (each event rewritten after its check: a chunk at a time)
            return reading.gather(piece, framer.feed_events, PIECE_EVENTS, failed)
        out = reading.gather_checked(piece, framer.machine.checked, PIECE_EVENTS, failed)
        framer.turn_events += len(out)
        return out

    def _settle(self, start: int, quiet: list[Loss]) -> None:
        """What a step lost (the decoder's new losses, what was announced inside it), kept
        and warned about: ``_step``'s end, for a step that lost something."""
        if len(self.framer.decoder.losses) != self._decoder_losses:
            self._take_decoder_losses()
        if quiet or len(self.losses) != start:
            new = self.losses[start:]
            del self.losses[start:]
            announced = quiet[:]
            quiet.clear()
            self._report([*new, *unseen(announced, new)])

    def loss_events(self) -> list[BaseEvent]:
        self._take_decoder_losses()  # the closing chunk's, too
        if not (self.forward_losses and self.losses):
            return []
        value = [loss_record(x) for x in self.losses]
        return [CustomEvent(name=LOSSES_EVENT, value=value)]

    def finish(self) -> list[BaseEvent]:
        try:
            return self._step(self.framer.finish, before_end=self.loss_events)
        finally:
            self.end_trace()

    def cancelled(self) -> list[BaseEvent]:
        try:
            return self._step(self.framer.cancel, before_end=self.loss_events)
        finally:
            self.end_trace()

    def failed(self, exc: BaseException) -> list[BaseEvent]:
        try:
            return self._step(self._failed, exc)
        finally:
            self.end_trace(self._classify(exc).code)

    def _failed(self, exc: BaseException) -> list[BaseEvent]:
        f = self._classify(exc)
        if not isinstance(exc, ToolwireError):
            # no exc_info: an SDK's exception may quote the key (OpenAI's 401 does)
            reason = redact(f"{type(exc).__name__}: {exc}", self.secrets)
            log.debug("toolwire.run: %s failed: %s", self.plan.vendor, reason)
        meta: dict[str, Any] = {
            **metadata_of(f),
            "toolwire.vendor": self.plan.vendor,
            "toolwire.attempts": self.attempts,
        }
        message = redact(f.message, self.secrets)
        return self.framer.error(
            message,
            redact(f.code, self.secrets),
            metadata=redact(meta, self.secrets),
            before_end=self.loss_events,
        )

    # -- retries ---------------------------------------------------------------------------

    def _classify(self, exc: BaseException) -> Failure:
        """``failures.classify`` once per failed attempt: whether to retry, how long to wait,
        the log line and ``RUN_ERROR`` all read the same verdict."""
        if self._failure is None or self._failure[0] is not exc:
            self._failure = (exc, classify(exc, self.policy.retryable_status))
        return self._failure[1]

    def _should_retry(self, exc: BaseException) -> bool:
        if not isinstance(exc, Exception) or self.framer.turn_events or self.cancel_requested:
            return False
        return self._classify(exc).retryable

    def _retry_kwargs(self) -> dict[str, Any]:
        import tenacity

        p = self.policy
        backoff = tenacity.wait_random_exponential(multiplier=p.initial_backoff, max=p.max_backoff)

        def failure(state: Any) -> Failure | None:
            exc = state.outcome.exception() if state.outcome is not None else None
            return self._classify(exc) if exc is not None else None

        def wait(state: Any) -> float:
            f = failure(state)
            if f is not None and f.retry_after is not None:
                return min(f.retry_after, p.max_retry_after)
            return float(backoff(state))

        def before_sleep(state: Any) -> None:
            f = failure(state)
            code = f.code if f is not None else "?"
            wait_s = state.next_action.sleep if state.next_action is not None else 0.0
            if self.trace is not None and self.trace.call is not None:
                self.trace.call.retry(
                    redact(code, self.secrets), state.attempt_number, float(wait_s)
                )
            log.info(
                "toolwire.run: %s attempt %d failed (%s); retrying in %.3fs",
                self.plan.vendor,
                state.attempt_number,
                redact(code, self.secrets),
                wait_s,
            )

        return {
            "stop": tenacity.stop_after_attempt(p.attempts)
            | tenacity.stop_before_delay(p.max_elapsed),
            "wait": wait,
            "retry": tenacity.retry_if_exception(self._should_retry),
            "reraise": True,
            "before_sleep": before_sleep,
        }

    def _new_attempt(self) -> None:
        if self.attempts:
            self._take_decoder_losses()
            self.framer.use_decoder(self.plan.adapter.Decoder())
            self._decoder_losses = 0
        self.attempts += 1

    # -- sync ------------------------------------------------------------------------------

    def _in_call(self) -> AbstractContextManager[Any]:
        """The model call's span made current while the SDK is called (telemetry on)."""
        trace = self.trace
        if trace is None or trace.call is None:
            return nullcontext()
        return trace.call.current()

    def _prime_sync(self) -> tuple[Iterator[Any] | None, list[BaseEvent]]:
        """One attempt: read until the turn's first events (or its end, when it has none)."""
        with self._in_call():
            return self._prime_sync_attempt()

    def _prime_sync_attempt(self) -> tuple[Iterator[Any] | None, list[BaseEvent]]:
        self._new_attempt()
        stream = self.plan.open_sync()
        self._rest = None
        try:
            for chunk in self.chunks_sync(stream):
                units = self.units(chunk)
                for events in units:
                    if events:
                        self._rest = units
                        return stream, events
            end = self.finish()
        except BaseException:
            _close(stream)
            raise
        _close(stream)
        return None, end

    def first_sync(self) -> tuple[Iterator[Any] | None, list[BaseEvent]]:
        import tenacity

        for attempt in tenacity.Retrying(**self._retry_kwargs()):
            with attempt:
                return self._prime_sync()
        raise ToolwireError("toolwire.run: no attempt was made")  # pragma: no cover

    def events_sync(self) -> Generator[BaseEvent, None, None]:
        yield from self.start()
        try:
            stream, first = self.first_sync()
        except _Expired:
            yield from self.expired()
            return
        except Exception as exc:
            yield from self.failed(exc)
            return
        try:
            yield from first
            if stream is None:
                return
            try:
                rest, self._rest = self._rest, None
                if rest is not None:  # the first events' piece, read on
                    for events in rest:
                        yield from events
                        if self.cancel_requested:
                            break
                if not self.cancel_requested:
                    for chunk in self.chunks_sync(stream):
                        if self.cancel_requested:
                            break
                        for events in self.units(chunk):
                            yield from events
                            if self.cancel_requested:
                                break
                        if self.cancel_requested:
                            break
                    else:
                        end = self.finish()
            except _Expired:
                yield from self.expired()
                return
            except Exception as exc:
                if not self.cancel_requested:
                    yield from self.failed(exc)
                    return
            if self.cancel_requested:
                _close(stream)
                if self.on_cancel == "finish":
                    yield from self.cancelled()
                return
            yield from end
        finally:
            if stream is not None:
                _close(stream)
            self.end_trace()

    # -- async -----------------------------------------------------------------------------

    async def _prime_async(self) -> tuple[AsyncIterator[Any] | None, list[BaseEvent]]:
        with self._in_call():
            return await self._prime_async_attempt()

    async def _prime_async_attempt(self) -> tuple[AsyncIterator[Any] | None, list[BaseEvent]]:
        self._new_attempt()
        stream = self.plan.open_async()
        self._rest = None
        try:
            async for chunk in self.chunks_async(stream):
                units = self.units(chunk)
                for events in units:
                    if events:
                        self._rest = units
                        return stream, events
            end = self.finish()
        except BaseException:
            await _aclose(stream)
            raise
        await _aclose(stream)
        return None, end

    async def first_async(self) -> tuple[AsyncIterator[Any] | None, list[BaseEvent]]:
        import tenacity

        async for attempt in tenacity.AsyncRetrying(**self._retry_kwargs()):
            with attempt:
                return await self._prime_async()
        raise ToolwireError("toolwire.arun: no attempt was made")  # pragma: no cover

    async def events_async(self) -> AsyncGenerator[BaseEvent, None]:
        lists = self._lists_async()
        try:
            async for events in lists:
                for ev in events:
                    yield ev
        finally:
            await lists.aclose()

    async def batches_async(self) -> AsyncGenerator[list[BaseEvent], None]:
        """The run's events a list at a time: a body piece's at once (one step each), for a
        consumer that hands on what is ready together (the server writes it at once)."""
        self._whole_pieces = True
        lists = self._lists_async()
        try:
            async for events in lists:
                if events:
                    yield events
        finally:
            await lists.aclose()

    async def _lists_async(self) -> AsyncGenerator[list[BaseEvent], None]:
        """The run, a list of events per step (:meth:`events_async` hands them on one by one:
        a cancel asked between two of them takes effect at the next step, not mid-list)."""
        yield self.start()
        stream: AsyncIterator[Any] | None = None
        cancel: asyncio.CancelledError | None = None
        try:
            try:
                stream, first = await self.first_async()
            except asyncio.CancelledError as exc:
                cancel = exc
                first = []
            except _Expired:
                yield self.expired()
                return
            except Exception as exc:
                yield self.failed(exc)
                return
            yield first
            if stream is not None and cancel is None:
                end: list[BaseEvent] = []
                try:
                    rest, self._rest = self._rest, None
                    if rest is not None:  # the first events' piece, read on
                        for events in rest:
                            yield events
                            if self.cancel_requested:
                                break
                    if not self.cancel_requested:
                        async for chunk in self.chunks_async(stream):
                            if self.cancel_requested:
                                break
                            for events in self.units(chunk):
                                yield events
                                if self.cancel_requested:
                                    break
                            if self.cancel_requested:
                                break
                        else:
                            end = self.finish()
                except asyncio.CancelledError as exc:
                    cancel = exc
                except _Expired:
                    yield self.expired()
                    return
                except Exception as exc:
                    if not self.cancel_requested:
                        yield self.failed(exc)
                        return
                if cancel is None and not self.cancel_requested:
                    yield end
                    return
            elif stream is None and cancel is None:
                return
            if stream is not None:
                await _aclose(stream)
            if self.on_cancel == "finish":
                yield self.cancelled()
            if cancel is not None:
                raise cancel  # the task's cancellation goes on once the run is ended
        finally:
            if stream is not None:
                await _aclose(stream)
            self.end_trace()


def _close(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()


async def _aclose(stream: Any) -> None:
    aclose = getattr(stream, "aclose", None)
    if callable(aclose):
        await aclose()


async def _one_each(events: AsyncIterator[BaseEvent]) -> AsyncGenerator[list[BaseEvent], None]:
    """Events as lists of one (a run whose steps give events one by one)."""
    async for event in events:
        yield [event]


class _Drives(Protocol):
    """What the event iterators drive: one turn (``_Run``) or a tool loop (``ToolRun``)."""

    cancel_requested: bool

    def events_sync(self) -> Generator[BaseEvent, None, None]: ...

    def events_async(self) -> AsyncGenerator[BaseEvent, None]: ...

    #: end the run's telemetry spans, if still open (a consumer closed the run early)
    def end_trace(self, error_type: str | None = None) -> None: ...


class RunEvents(Iterator[BaseEvent]):
    """The events of one run (an iterator); ``close()`` stops it and closes the SDK response.

    ``cancel()`` stops the vendor's turn at the next chunk: with ``on_cancel="finish"`` the
    iteration then gives the events that close what is open and ``RUN_FINISHED`` with the
    cancelled outcome; with ``"close"`` it just ends.
    """

    def __init__(self, state: _Drives) -> None:
        self._state = state
        self._events = state.events_sync()

    def __iter__(self) -> RunEvents:
        return self

    def __next__(self) -> BaseEvent:
        return next(self._events)

    def close(self) -> None:
        self._events.close()
        self._state.end_trace()  # closed before it began: the spans end all the same

    def cancel(self) -> None:
        self._state.cancel_requested = True

    def __enter__(self) -> RunEvents:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncRunEvents(AsyncIterator[BaseEvent]):
    """The async twin of :class:`RunEvents` (``aclose()``, ``cancel()``).

    Cancelling the consuming task closes the SDK response; with ``on_cancel="finish"``
    the iteration first gives the events that end the run with the cancelled outcome,
    then the cancellation goes on (``CancelledError`` from the next ``__anext__``).
    """

    def __init__(self, state: _Drives) -> None:
        self._state = state
        self._events = state.events_async()
        self._batches: AsyncGenerator[list[BaseEvent], None] | None = None

    def __aiter__(self) -> AsyncRunEvents:
        return self

    def __anext__(self) -> Awaitable[BaseEvent]:
        # the generator's own awaitable: a coroutine around it would be one more step per event
        return self._events.__anext__()

    def batches(self) -> AsyncIterator[list[BaseEvent]]:
        """The events as lists of those ready together (a body piece's, read in one step):
        what a consumer that writes them together (the server) iterates instead of the
        events, one async step per list rather than per event. Iterate one or the other."""
        if self._batches is None:
            whole = getattr(self._state, "batches_async", None)
            self._batches = whole() if whole is not None else _one_each(self._events)
        return self._batches

    async def aclose(self) -> None:
        if self._batches is not None:
            await self._batches.aclose()
        await self._events.aclose()
        self._state.end_trace()

    def cancel(self) -> None:
        self._state.cancel_requested = True

    async def __aenter__(self) -> AsyncRunEvents:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _check_client(client: Any, plan: Plan, sync: bool) -> None:
    """``run`` takes a sync client, ``arun`` one it can drive (``CLIENT.drives_async``)."""
    if sync and plan.is_async:
        raise UnsupportedInput(
            f"toolwire.run: {type(client).__name__} is an async client; use toolwire.arun"
        )
    if not sync and not plan.drives_async:
        raise UnsupportedInput(
            f"toolwire.arun: {type(client).__name__} is a sync client; use toolwire.run"
        )


def run(
    client: Any,
    run_input: Any,
    *,
    model: str,
    vendor: str | None = None,
    api: str | None = None,
    retry: RetryPolicy | None = None,
    losses: list[Loss] | None = None,
    on_cancel: OnCancel = "close",
    forward_losses: bool = False,
    tools: Sequence[Any] | None = None,
    max_steps: int | None = None,
    tool_timeout: float | None = None,
    tool_concurrency: int | None = None,
    tool_tracebacks: bool | None = None,
    deadline: float | None = None,
    **vendor_params: Any,
) -> RunEvents:
    """One AG-UI run for ``run_input`` (a ``RunAgentInput`` or its JSON dict) over ``client``.

    ``client`` is the vendor's sync SDK client; its type picks the adapter, ``vendor=``
    overrides, ``api="chat"|"responses"`` picks the OpenAI API. ``vendor_params`` go to the
    adapter's ``encode_request`` where it names them, else into the request. Losses are
    warned about and appended to ``losses``; ``forward_losses=True`` also sends them to the
    UI as a ``CUSTOM`` event named ``toolwire.losses`` just before the terminal event.
    ``tools`` (functions or ``toolwire.Tool``) are backend tools, run inside the run until
    a turn calls none of them (at most ``max_steps`` turns; docs/guide/agents.md).
    ``deadline`` (seconds) bounds the whole run, retries, backend tools and a vendor
    trickling keep-alive bytes included: past it the run ends with ``RUN_ERROR`` code
    ``deadline``.
    Bad arguments raise ``UnsupportedInput`` here; everything after is events.
    """
    args = TurnArgs(model, vendor, api, retry, on_cancel, forward_losses, vendor_params, deadline)
    loop = tool_options(tools, max_steps, tool_timeout, tool_concurrency, tool_tracebacks)
    if loop is not None:
        return RunEvents(ToolRun(client, run_input, args, losses, loop, sync=True, turn=_Run))
    return RunEvents(_Run(client, run_input, args, losses, sync=True))


def _options_of(template: Callable[P, object]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Give a function ``template``'s parameters, for callers, the docs and mypy alike."""

    def use(fn: Callable[..., R]) -> Callable[P, R]:
        returns = inspect.signature(fn).return_annotation
        fn.__signature__ = inspect.signature(template).replace(  # type: ignore[attr-defined]
            return_annotation=returns
        )
        return cast(Callable[P, R], fn)

    return use


@_options_of(run)
def arun(*args: Any, **options: Any) -> AsyncRunEvents:
    """:func:`run` over an async client (``AsyncAnthropic``, ``AsyncOpenAI``,
    ``genai.Client(...).aio`` or a ``genai.Client``, whose ``.aio`` is used); the same
    parameters as :func:`run`."""
    bound = inspect.signature(run).bind(*args, **options)
    bound.apply_defaults()
    given = bound.arguments
    names = ("tools", "max_steps", "tool_timeout", "tool_concurrency", "tool_tracebacks")
    loop = tool_options(*(given.pop(n) for n in names))
    turn_args = TurnArgs.take(given)  # what is left: client, run_input, losses
    if loop is not None:
        return AsyncRunEvents(ToolRun(**given, args=turn_args, options=loop, sync=False, turn=_Run))
    return AsyncRunEvents(_Run(**given, args=turn_args, sync=False))


__all__ = ["LOSSES_EVENT", "AsyncRunEvents", "RunEvents", "arun", "loss_record", "run"]
