"""One run as a ``text/event-stream`` response that ends cleanly whatever happens.

The provider's events go out as AG-UI SSE while two watchers wait beside them: the client
going away (the vendor call is cancelled and closed at once, not at the next event) and the
server shutting down (the open run ends with ``RUN_ERROR`` so a UI never waits on a dead
stream). A failure after the stream started is a ``RUN_ERROR`` too. Every event sent goes
through a :class:`StreamRedactor` (the agent's key values masked across deltas, never inside
JSON syntax) and every log line through its ``text``, so a key an SDK quoted (OpenAI's 401
message does) or a model streamed in pieces never reaches the client or the log. A run
longer than its deadline ends with ``RUN_ERROR`` code ``deadline``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import anyio
from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    EventType,
    RunAgentInput,
    RunErrorEvent,
    RunStartedEvent,
)
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from toolwire.errors import ToolwireError
from toolwire.losses import Loss, held
from toolwire.protocol.runs import error_code
from toolwire.protocol.sse import agui_frames
from toolwire.protocol.stream_redact import StreamRedactor
from toolwire.server._offload import OFFLOAD
from toolwire.server._ready import ready_groups

log = logging.getLogger("toolwire.server")

_TERMINAL = (EventType.RUN_FINISHED, EventType.RUN_ERROR)
_STARTED = EventType.RUN_STARTED
#: the longest one run sends events without letting the event loop run others (seconds)
SLICE = 0.002


class StreamHub:
    """The open streams of one app, so a shutdown can end each with ``RUN_ERROR``."""

    def __init__(self) -> None:
        self._open: set[anyio.Event] = set()
        self.closing = False

    @property
    def open_streams(self) -> int:
        return len(self._open)

    def add(self, event: anyio.Event) -> None:
        self._open.add(event)
        if self.closing:
            event.set()

    def discard(self, event: anyio.Event) -> None:
        self._open.discard(event)

    def close(self) -> None:
        """End every open stream with ``RUN_ERROR`` (call from the server's event loop)."""
        self.closing = True
        for event in list(self._open):
            event.set()


def _events_in(item: BaseEvent | list[BaseEvent]) -> int:
    """How many events a provider's item is (an event, or a list of those ready together)."""
    return len(item) if type(item) is list else 1


class EventStreamResponse(Response):
    """AG-UI events as SSE, for one run of one agent."""

    media_type = "text/event-stream"

    def __init__(
        self,
        events: AsyncIterator[BaseEvent | list[BaseEvent]],
        *,
        run_input: RunAgentInput,
        hub: StreamHub,
        agent: str,
        redactor: StreamRedactor,
        deadline: float | None = None,
    ) -> None:
        # no super().__init__: a body-less Response would declare content-length: 0
        self.status_code = 200
        self.background = None
        self.init_headers({"cache-control": "no-cache", "x-accel-buffering": "no"})
        self.events = events
        self.run_input = run_input
        self.hub = hub
        self.agent = agent
        self.redactor = redactor
        self.deadline = deadline
        self.started = False
        self.ended = False

    def _error(self, code: str, message: str) -> list[BaseEvent]:
        """A ``RUN_ERROR`` that ends this run, opened first if it never was."""
        out: list[BaseEvent] = []
        if not self.started:
            out.append(
                RunStartedEvent(
                    thread_id=self.run_input.thread_id,
                    run_id=self.run_input.run_id,
                    protocol_version=PROTOCOL_VERSION,
                )
            )
        out.append(RunErrorEvent(message=message, code=code))  # redacted as it is sent
        return out

    async def _send_events(self, send: Send, items: Sequence[BaseEvent | list[BaseEvent]]) -> None:
        """``items`` (events, or lists of events) framed and sent in one write (they are
        ready at the same moment)."""
        written = self.redactor.texts_of
        texts: list[str] = []
        for item in items:
            events = item if isinstance(item, list) else [item]
            if not events:
                continue
            if events[0].type == _STARTED:
                # the one event that restates the whole input (a large one takes a while to
                # mask and write): framed in a worker thread, the other streams go on
                texts += await OFFLOAD.run(written, events)
            else:
                texts += written(events)
            if not (self.started and self.ended):
                # (the mask sends each event's type as it came, and makes none of these)
                seen = {event.type for event in events}
                if _STARTED in seen:
                    self.started = True
                if not seen.isdisjoint(_TERMINAL):
                    self.ended = True
        if texts:
            body = agui_frames(texts).encode()
            await send({"type": "http.response.body", "body": body, "more_body": True})

    def _report(self, lost: list[Loss]) -> None:
        """What the run lost on the way is the server's to report: once each in its log here
        (the UI gets them as the run's ``toolwire.losses`` event), not as Python warnings
        pointing into the event loop."""
        for loss in lost:
            log.warning(
                "agent %s: run %s: %s",
                self.agent,
                self.run_input.run_id,
                self.redactor.text(loss.message),
            )
        lost.clear()

    async def _pump(self, send: Send) -> None:
        """Send the provider's events; a provider failure ends the run with RUN_ERROR.

        The provider's losses are held (``losses.held``) for the whole run, in this task's
        context, and logged after each group of events sent (:meth:`_report`).

        A vendor body arrives in large pieces, and every event of a piece is ready at once:
        those go out in one write (``ready_groups``: nothing waits for a later event), and
        as sending them never waits, one run could hold the event loop for all of its
        pieces. It lets the loop serve the other runs (a new request's first event, a
        disconnect) at least every :data:`SLICE` seconds."""
        groups = ready_groups(self.events.__anext__, weight=_events_in)
        try:
            await self._pump_groups(send, groups)
        finally:  # a stop while the provider waits: its wait cancelled, its clean-up run
            with anyio.CancelScope(shield=True):
                await groups.aclose()

    async def _pump_groups(self, send: Send, groups: Any) -> None:
        clock = time.perf_counter
        since = clock()
        following = groups.__anext__
        with held() as lost:
            while True:
                try:
                    group = await following()
                except StopAsyncIteration:
                    break
                except ToolwireError as exc:
                    self._report(lost)
                    await self._send_events(send, self._error(error_code(exc), str(exc)))
                    return
                except Exception as exc:  # an SDK's own error type: the run ends, the server stays
                    self._report(lost)
                    reason = self.redactor.text(f"{type(exc).__name__}: {exc}")
                    log.warning(
                        "agent %s: run %s failed: %s", self.agent, self.run_input.run_id, reason
                    )
                    await self._send_events(send, self._error("provider_error", reason))
                    return
                finally:
                    if lost:
                        self._report(lost)
                await self._send_events(send, group)
                if clock() - since > SLICE:
                    await anyio.lowlevel.checkpoint()
                    since = clock()
        if not self.ended:
            await self._send_events(
                send, self._error("incomplete", "the provider ended without finishing the run")
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        stop: dict[str, str] = {}
        closing = anyio.Event()
        self.hub.add(closing)
        try:
            async with anyio.create_task_group() as tg:

                async def on_disconnect() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    stop.setdefault("why", "disconnect")
                    tg.cancel_scope.cancel()

                async def on_shutdown() -> None:
                    await closing.wait()
                    stop.setdefault("why", "shutdown")
                    tg.cancel_scope.cancel()

                async def on_deadline(seconds: float) -> None:
                    await anyio.sleep(seconds)
                    stop.setdefault("why", "deadline")
                    tg.cancel_scope.cancel()

                tg.start_soon(on_disconnect)
                tg.start_soon(on_shutdown)
                if self.deadline is not None:
                    tg.start_soon(on_deadline, self.deadline)
                try:
                    await self._pump(send)
                except OSError:
                    stop.setdefault("why", "disconnect")
                finally:
                    with anyio.CancelScope(shield=True):
                        await _close(self.events)
                tg.cancel_scope.cancel()
        finally:
            self.hub.discard(closing)
        why = stop.get("why", "done")
        log.info("agent %s: run %s: %s", self.agent, self.run_input.run_id, why)
        if why == "disconnect":
            return
        if why == "shutdown" and not self.ended:
            await self._send_events(
                send, self._error("server_shutdown", "the server is shutting down")
            )
        elif why == "deadline" and not self.ended:
            reason = f"the run took longer than its deadline of {self.deadline:g} s"
            await self._send_events(send, self._error("deadline", reason))
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _close(events: Any) -> None:
    """Close the provider's iterator, which closes its vendor call."""
    aclose = getattr(events, "aclose", None)
    if aclose is not None:
        try:
            await aclose()
        except Exception as exc:  # closing a broken SDK stream must not hide the run's end
            log.debug("closing a provider stream failed: %s", type(exc).__name__)


__all__ = ["EventStreamResponse", "StreamHub"]
