"""``toolwire.run(..., tools=[...])``: backend tools run inside ONE AG-UI run.

Each model turn is a plain ``toolwire.run`` turn (its retries, cancellation, losses), given
the conversation so far and both kinds of tools: the run input's frontend tools and the
backend ones. A :class:`~toolwire.driver._compose.RunComposer` makes the turns and the
results one run. After a turn, each call of a backend tool is executed and answered with
``TOOL_CALL_RESULT``; the model is called again with the results; the run ends when a turn
makes no backend call, when it also made frontend calls (they are left pending for the UI,
which answers them in the next run), or after ``max_steps`` turns.

A call to a tool that is neither a backend nor a frontend tool is answered with an error
result (the model is told), not left pending for a UI that does not know it.

``max_steps``: the last allowed turn's backend calls are still executed and answered, then
the run finishes (success, the frontend calls pending as usual) with ``toolwire.stopped:
"max_steps"`` in its ``RUN_FINISHED`` metadata; the history is whole, so the next run goes on
from there.

Under ``arun`` the backend calls of a turn run concurrently (at most ``tool_concurrency`` at a
time) and their results are sent in call order; cancelling the run cancels the running tools
(an async tool is cancelled; a sync one runs in a worker thread, which cannot be stopped:
its result is dropped). Under ``run`` they run one after another in the calling thread, or
in a worker thread when a timeout is set.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
import time
import traceback
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, Protocol

from ag_ui.core import BaseEvent, ContentPart, EventType

from toolwire.driver._args import TurnArgs, losses_list
from toolwire.driver._compose import RunComposer, TurnCall
from toolwire.driver._tools import Tool, as_tools, tool_content
from toolwire.errors import ToolwireError, UnsupportedInput
from toolwire.failures import classify
from toolwire.losses import Loss, announce, held
from toolwire.protocol.downgrade import downgrade_event
from toolwire.protocol.ids import mint_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.redact import redact

if TYPE_CHECKING:
    from toolwire.telemetry import RunTrace, ToolSpan

#: ``RUN_FINISHED`` metadata key saying why the loop stopped early (``"max_steps"``).
STOPPED_KEY = "toolwire.stopped"

DEFAULT_MAX_STEPS = 10
DEFAULT_TOOL_TIMEOUT = 60.0
DEFAULT_TOOL_CONCURRENCY = 4

Result = tuple[str, "str | list[ContentPart]", "str | None"]  # call id, content, error
_Prepared = tuple[Tool, list[Any], dict[str, Any]]  # the tool, its args and kwargs


class Turn(Protocol):
    """One model turn as the driver runs it (``_runner._Run``, given by ``run``/``arun``)."""

    cancel_requested: bool
    secrets: list[str]
    losses: list[Loss]
    #: seconds the turn may take (read when it starts; the loop gives each what is left)
    deadline: float | None
    #: the loop's run telemetry, which the turn adds its model call's span to
    shared_trace: RunTrace | None

    def new_trace(self) -> RunTrace | None: ...

    def events_sync(self) -> Generator[BaseEvent, None, None]: ...

    def events_async(self) -> AsyncGenerator[BaseEvent, None]: ...


def tool_options(
    tools: Any,
    max_steps: int | None,
    tool_timeout: float | None,
    tool_concurrency: int | None,
    tool_tracebacks: bool | None,
) -> dict[str, Any] | None:
    """The loop's options checked (None: no ``tools=``, a plain one-turn run)."""
    if tools is None:
        given = [
            n
            for n, v in (
                ("max_steps", max_steps),
                ("tool_timeout", tool_timeout),
                ("tool_concurrency", tool_concurrency),
                ("tool_tracebacks", tool_tracebacks),
            )
            if v is not None
        ]
        if given:
            raise UnsupportedInput(f"toolwire.run: {given[0]}= needs tools=")
        return None
    steps = DEFAULT_MAX_STEPS if max_steps is None else max_steps
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise UnsupportedInput(f"toolwire.run: max_steps must be a positive int, not {steps!r}")
    timeout = DEFAULT_TOOL_TIMEOUT if tool_timeout is None else tool_timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise UnsupportedInput(f"toolwire.run: tool_timeout must be seconds > 0, not {timeout!r}")
    width = DEFAULT_TOOL_CONCURRENCY if tool_concurrency is None else tool_concurrency
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise UnsupportedInput(
            f"toolwire.run: tool_concurrency must be a positive int, not {width!r}"
        )
    return {
        "tools": as_tools(tools, "toolwire.run"),
        "max_steps": steps,
        "timeout": float(timeout),
        "concurrency": width,
        "tracebacks": bool(tool_tracebacks),
    }


class ToolRun:
    """What ``RunEvents``/``AsyncRunEvents`` drive for a run with backend tools."""

    def __init__(
        self,
        client: Any,
        run_input: Any,
        args: TurnArgs,
        losses: list[Loss] | None,
        options: dict[str, Any],
        *,
        sync: bool,
        turn: Callable[..., Turn],
    ) -> None:
        self.losses: list[Loss] = losses_list(losses)
        self.input = as_run_input(run_input, "toolwire.run")
        self.tools: dict[str, Tool] = options["tools"]
        frontend = {t.name for t in self.input.tools or ()}
        clash = sorted(frontend & set(self.tools))
        if clash:
            raise UnsupportedInput(
                f"toolwire.run: {clash[0]!r} is both a backend tool (tools=) and a frontend "
                "tool of the run input; rename one"
            )
        self.frontend = frontend
        self.turn_tools = [*(self.input.tools or ()), *(t.as_agui() for t in self.tools.values())]
        self.max_steps: int = options["max_steps"]
        self.timeout: float = options["timeout"]
        self.concurrency: int = options["concurrency"]
        self.tracebacks: bool = options["tracebacks"]
        self.on_cancel = args.on_cancel
        self._seen: set[Loss] = set()
        self._turn_losses: list[Loss] = []
        self._turn_taken = 0
        self._turn_args = args
        self.deadline = args.deadline
        self._ends_at: float | None = None  # the run's deadline, once it starts
        self._client = client
        self._sync = sync
        self._make_turn = turn
        self._legacy = self.input.protocol_version is None
        self.composer = RunComposer(self.input)
        # the first turn is planned now: bad arguments raise at the call, as without tools
        self._current: Turn = self._turn(self.input.model_copy(update={"tools": self.turn_tools}))
        self.secrets = self._current.secrets
        self._cancel = False
        self._tasks: list[asyncio.Future[Result]] = []
        #: OpenTelemetry: the run's span (made by the first turn), each turn's model call and
        #: each tool's execution under it
        self.trace: RunTrace | None = None
        self._tool_errors: dict[str, str] = {}  # call id -> the error type, for its span

    # -- cancel() --------------------------------------------------------------------------

    @property
    def cancel_requested(self) -> bool:
        return self._cancel

    @cancel_requested.setter
    def cancel_requested(self, value: bool) -> None:
        self._cancel = value
        if value:
            self._current.cancel_requested = True
            for task in self._tasks:  # the running tools stop now (async tools)
                task.cancel()

    # -- turns -----------------------------------------------------------------------------

    def _turn(self, turn_input: Any) -> Turn:
        kept: list[Loss] = []
        with held() as quiet:
            turn = self._make_turn(self._client, turn_input, self._turn_args, kept, sync=self._sync)
        self._report([*kept, *quiet])
        # the turn keeps its whole list (it forwards it); what is new is taken from its end
        self._turn_losses = kept
        self._turn_taken = len(kept)
        return turn

    def _take_turn_losses(self, quiet: list[Loss]) -> None:
        """What the turn kept since last asked (its list stays whole: it forwards it)."""
        kept = self._turn_losses
        new, self._turn_taken = kept[self._turn_taken :], len(kept)
        if new or quiet:
            self._report([*new, *quiet])

    def _next_turn(self) -> Turn:
        c = self.composer
        run_id = mint_id("run", c.run_id, c.steps + 1)
        turn = self._turn(c.next_input(tools=self.turn_tools, run_id=run_id))
        turn.shared_trace = self.trace
        return turn

    # -- telemetry -------------------------------------------------------------------------

    def _trace_start(self) -> None:
        self.trace = self._current.new_trace()
        self._current.shared_trace = self.trace
        if self.deadline is not None:
            self._ends_at = time.monotonic() + self.deadline

    def _time_left(self, turn: Turn) -> Turn:
        """``turn`` given what is left of the run's deadline (a run past it ends at once,
        with the turn's ``RUN_ERROR`` code ``deadline``)."""
        if self._ends_at is not None:
            turn.deadline = max(self._ends_at - time.monotonic(), 1e-9)
        return turn

    def end_trace(self, error_type: str | None = None) -> None:
        trace, self.trace = self.trace, None
        if trace is not None:
            trace.end(error_type)

    def _watched(self, events: list[BaseEvent]) -> list[BaseEvent]:
        """The run's end seen on the way out: its telemetry ends with it."""
        for ev in events:
            if ev.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR):
                self.end_trace(
                    getattr(ev, "code", None) if ev.type == EventType.RUN_ERROR else None
                )
        return events

    def _tool_span(self, call: TurnCall) -> AbstractContextManager[ToolSpan | None]:
        if self.trace is None:
            return nullcontext()
        return self.trace.tool(call.name, call.id, call.arguments)

    def _traced(self, span: ToolSpan | None, result: Result) -> Result:
        if span is not None:
            call_id, content, error = result
            if error is not None:
                span.failed(self._tool_errors.pop(call_id, "tool_error"))
            else:
                span.result(content)
        return result

    def _report(self, lost: list[Loss]) -> None:
        """Each loss once over the whole run: every turn re-encodes the history, so a turn
        finds again what an earlier one lost."""
        new = []
        for loss in lost:
            if loss not in self._seen:
                self._seen.add(loss)
                new.append(loss)
        if new:
            self.losses.extend(new)
            announce(new)

    def _own(self, events: list[BaseEvent]) -> list[BaseEvent]:
        """The composer's own events, downgraded for a legacy peer (the turns' already are)."""
        self._watched(events)
        if not self._legacy:
            return events
        out = []
        lost: list[Loss] = []
        for ev in events:
            down, gone = downgrade_event(ev)
            out.append(down)
            lost.extend(gone)
        self._report(lost)
        return out

    def _backend_calls(self) -> list[TurnCall] | None:
        """The last turn's calls this loop answers, or None when the run is to end."""
        c = self.composer
        if c.turn_outcome is not None:
            return None
        return [call for call in c.turn_calls if call.name not in self.frontend]

    def _stops_after(self, answered: int) -> dict[str, Any] | None:
        """After the results: None to go on, else the finish's metadata."""
        c = self.composer
        if answered < len(c.turn_calls):
            return {}  # frontend calls are pending: the UI answers them in the next run
        if c.steps >= self.max_steps:
            return {STOPPED_KEY: "max_steps"}
        return None

    # -- one call --------------------------------------------------------------------------

    def _prepare(self, call: TurnCall) -> _Prepared | Result:
        tool = self.tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            text = f"there is no tool named {call.name!r} (backend tools: {known})"
            return (call.id, text, text)
        try:
            parsed = json.loads(call.arguments) if call.arguments.strip() else {}
            args, kwargs = tool.call_arguments(parsed)
        except ValueError as exc:
            text = f"{call.name}: {exc}"
            return (call.id, text, text)
        return tool, args, kwargs

    def _failed(self, call: TurnCall, exc: BaseException) -> Result:
        self._tool_errors[call.id] = type(exc).__name__
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)):
            text = f"{call.name} timed out after {self.timeout:g} s"
        elif self.tracebacks:
            text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            text = f"{call.name} failed: {text}"
        else:
            text = f"{call.name} failed: {type(exc).__name__}: {exc}"
        text = redact(text, self.secrets)
        return (call.id, text, text)

    def _done(self, call: TurnCall, value: Any) -> Result:
        try:
            return (call.id, tool_content(value), None)
        except (TypeError, ValueError) as exc:
            return self._failed(call, exc)

    def _call_sync(self, call: TurnCall) -> Result:
        with self._tool_span(call) as span:
            return self._traced(span, self._run_sync(call))

    def _run_sync(self, call: TurnCall) -> Result:
        ready = self._prepare(call)
        if not isinstance(ready[0], Tool):
            return ready
        tool, args, kwargs = ready

        def target() -> Any:
            value = tool.function(*args, **kwargs)
            if inspect.isawaitable(value):
                value = asyncio.run(_awaited(value))
            return value

        # a thread per call: one that times out keeps its thread, never the next call's
        pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="toolwire-tool")
        try:
            value = pool.submit(target).result(timeout=self.timeout)
        except Exception as exc:
            return self._failed(call, exc)
        finally:
            pool.shutdown(wait=False)
        return self._done(call, value)

    async def _call_async(self, call: TurnCall, gate: asyncio.Semaphore) -> Result:
        with self._tool_span(call) as span:
            return self._traced(span, await self._run_async(call, gate))

    async def _run_async(self, call: TurnCall, gate: asyncio.Semaphore) -> Result:
        ready = self._prepare(call)
        if not isinstance(ready[0], Tool):
            return ready
        tool, args, kwargs = ready

        async def target() -> Any:
            if inspect.iscoroutinefunction(tool.function):
                value = await tool.function(*args, **kwargs)
            else:
                value = await asyncio.to_thread(tool.function, *args, **kwargs)
            if inspect.isawaitable(value):
                value = await value
            return value

        async with gate:
            try:
                value = await asyncio.wait_for(target(), self.timeout)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                return self._failed(call, exc)
        return self._done(call, value)

    # -- sync ------------------------------------------------------------------------------

    def _turn_events_sync(self, turn: Turn) -> Generator[BaseEvent, None, None]:
        c = self.composer
        events = self._time_left(turn).events_sync()
        try:
            while True:
                with held() as quiet:
                    ev = next(events, None)
                self._take_turn_losses(quiet)
                if ev is None:
                    break
                yield from self._watched(c.feed(ev))
                if c.ended:
                    return
        finally:
            events.close()

    def events_sync(self) -> Generator[BaseEvent, None, None]:
        try:
            yield from self._events_sync()
        finally:
            self.end_trace()

    def _events_sync(self) -> Generator[BaseEvent, None, None]:
        c = self.composer
        self._trace_start()
        yield from self._own(c.start())
        while True:
            yield from self._turn_events_sync(self._current)
            if c.ended:
                return
            if self._cancel:
                if self.on_cancel == "finish":
                    yield from self._own(c.cancel())
                return
            calls = self._backend_calls()
            if not calls:
                yield from self._own(c.finish())
                return
            for call in calls:
                if self._cancel:
                    break
                yield from self._own(c.result(*self._call_sync(call)))
            if self._cancel:
                if self.on_cancel == "finish":
                    yield from self._own(c.cancel())
                return
            stop = self._stops_after(len(calls))
            if stop is not None:
                yield from self._own(c.finish(metadata=stop))
                return
            try:
                self._current = self._next_turn()
            except ToolwireError as exc:
                yield from self._own(c.error(str(exc), classify(exc).code))
                return

    # -- async -----------------------------------------------------------------------------

    async def _results_async(self, calls: list[TurnCall]) -> AsyncGenerator[Result, None]:
        """Each call's result in call order, the calls running concurrently (bounded)."""
        gate = asyncio.Semaphore(self.concurrency)
        self._tasks = [asyncio.ensure_future(self._call_async(call, gate)) for call in calls]
        try:
            for task in self._tasks:
                yield await task
        finally:
            pending = [t for t in self._tasks if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
            self._tasks = []

    async def events_async(self) -> AsyncGenerator[BaseEvent, None]:
        events = self._events_async()
        try:
            async for ev in events:
                yield ev
        finally:
            await events.aclose()
            self.end_trace()

    async def _events_async(self) -> AsyncGenerator[BaseEvent, None]:
        c = self.composer
        self._trace_start()
        for ev in self._own(c.start()):
            yield ev
        cancel: asyncio.CancelledError | None = None
        while cancel is None:
            events = self._time_left(self._current).events_async()
            try:
                while True:
                    with held() as quiet:
                        try:
                            got: BaseEvent | None = await events.__anext__()
                        except StopAsyncIteration:
                            got = None
                    self._take_turn_losses(quiet)
                    if got is None:
                        break
                    for out in self._watched(c.feed(got)):
                        yield out
                    if c.ended:
                        return
            except asyncio.CancelledError as exc:
                cancel = exc  # the turn was ended (on_cancel="finish") or closed
                break
            finally:
                await events.aclose()
            if self._cancel:
                break
            calls = self._backend_calls()
            if not calls:
                for ev in self._own(c.finish()):
                    yield ev
                return
            results = self._results_async(calls)
            try:
                async for result in results:
                    for ev in self._own(c.result(*result)):
                        yield ev
            except asyncio.CancelledError as exc:
                if not self._cancel:
                    cancel = exc  # the task iterating the run was cancelled
                break
            finally:
                await results.aclose()
            stop = self._stops_after(len(calls))
            if stop is not None:
                for ev in self._own(c.finish(metadata=stop)):
                    yield ev
                return
            try:
                self._current = self._next_turn()
            except ToolwireError as exc:
                for ev in self._own(c.error(str(exc), classify(exc).code)):
                    yield ev
                return
        if self.on_cancel == "finish" and not c.ended:
            for ev in self._own(c.cancel()):
                yield ev
        if cancel is not None:
            raise cancel


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


__all__ = [
    "DEFAULT_MAX_STEPS",
    "DEFAULT_TOOL_CONCURRENCY",
    "DEFAULT_TOOL_TIMEOUT",
    "STOPPED_KEY",
    "ToolRun",
    "tool_options",
]
