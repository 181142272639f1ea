"""Agents of your own behind the server: any callable from a ``RunAgentInput`` to AG-UI events.

``create_app(agents={"name": fn})`` serves ``fn`` at ``POST /agents/name`` the way it serves a
configured provider: the same request checks (size, JSON, ``RunAgentInput``), the same SSE
response (the client going away cancels the agent at once; a shutdown ends the run with
``RUN_ERROR``; a failure after the stream started is a ``RUN_ERROR``), the same redaction of
key values. ``fn`` may return an async iterable of events (an ``async def`` generator,
``toolwire.arun(...)``), a sync iterable (``toolwire.run(...)``, read in a worker thread so
the event loop never waits on it), or an awaitable of either; events may be ``ag_ui.core``
events or their JSON dicts. Every event is checked by a stream machine before it is sent, so
an agent's mistake ends its run with ``RUN_ERROR`` instead of reaching a UI.

For a route of your own (Starlette, FastAPI), ``read_run_input`` (in ``_app``, beside the
checks it shares) and :func:`event_stream` are the two halves of that endpoint.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from starlette.responses import Response

from toolwire.errors import ToolwireError, UnsupportedInput
from toolwire.protocol.events import parse_event
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.stream_redact import StreamRedactor
from toolwire.server._config import AgentConfig
from toolwire.server._streaming import EventStreamResponse, StreamHub


def client_secrets(client: Any) -> list[str]:
    """The key values a vendor SDK client holds (its adapter's ``CLIENT.secrets``)."""
    from toolwire import adapters
    from toolwire.driver._vendors import choose_vendor

    try:
        name = choose_vendor(client, None, None)
    except UnsupportedInput:
        raise UnsupportedInput(
            f"toolwire.server: cannot tell whose SDK a {type(client).__name__} is, to keep its "
            "key out of what the server sends; pass its key in secrets= instead"
        ) from None
    return adapters.client(name).secrets(client)


#: What an agent is: a run input in, AG-UI events (or their dicts) out, sync or async.
AgentFn = Callable[[RunAgentInput], Any]

#: ``GET /agents`` and the inspector name an agent's provider this.
AGENT_PROVIDER = "agent"


@dataclass(frozen=True)
class Agent:
    """An agent with what the server must know of it.

    ``run``: the callable. ``clients``: the vendor SDK clients it uses (build them once and
    reuse them across runs); their key values, with ``secrets``, are masked in everything
    the server sends and logs. ``model``: shown by ``GET /agents`` and the inspector.
    """

    run: AgentFn
    clients: tuple[Any, ...] = ()
    secrets: tuple[str, ...] = ()
    model: str | None = None
    _values: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not callable(self.run):
            raise UnsupportedInput("toolwire.server.Agent: run must be callable")
        values = [*self.secrets]
        for client in self.clients:
            values.extend(client_secrets(client))
        self._values.extend(v for v in values if isinstance(v, str) and v)


class AgentProvider:
    """An :class:`Agent` as the app's provider (what ``POST /agents/{name}`` runs)."""

    def __init__(self, name: str, agent: Agent | AgentFn) -> None:
        self.agent = agent if isinstance(agent, Agent) else Agent(agent)
        self.config = AgentConfig(name=name, provider=AGENT_PROVIDER)

    @property
    def model(self) -> str | None:
        return self.agent.model

    def secret_values(self) -> list[str]:
        """The key values to mask (the agent's clients' and its ``secrets``)."""
        return list(self.agent._values)

    def unavailable(self) -> str | None:
        return None

    def warm(self) -> None:
        """Nothing to import ahead: the agent is the application's own code, loaded already."""

    def prompts(self) -> list[str]:
        return []  # nothing recorded to offer: the page's prompt box is the way in

    async def aclose(self) -> None:
        """The agent's clients are the application's to close."""

    def events(self, run_input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        return checked_events(self.agent.run, run_input)


async def checked_events(fn: AgentFn, run_input: RunAgentInput) -> AsyncIterator[BaseEvent]:
    """What ``fn`` gives for ``run_input``, each event checked before it goes on."""
    machine = StreamMachine(history=False)
    produced = fn(run_input)
    if inspect.isawaitable(produced):
        produced = await produced
    source = _as_async(produced)
    try:
        async for item in source:
            event = item if isinstance(item, BaseEvent) else parse_event(item, machine.index + 1)
            if event is None:
                continue
            for ev in machine.feed(event):
                yield ev
    finally:
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            await aclose()


def _as_async(produced: Any) -> AsyncIterator[Any]:
    if hasattr(produced, "__aiter__"):
        return _async_items(produced)
    if isinstance(produced, Iterable) and not isinstance(produced, (str, bytes, dict)):
        return _thread_items(iter(produced))
    raise ToolwireError(
        f"the agent returned a {type(produced).__name__}, not AG-UI events "
        "(an iterable or async iterable of events)"
    )


async def _async_items(produced: Any) -> AsyncIterator[Any]:
    iterator = produced.__aiter__()
    try:
        async for item in iterator:
            yield item
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()


_DONE = object()


async def _thread_items(iterator: Iterator[Any]) -> AsyncIterator[Any]:
    """A sync iterator read in a worker thread, one item at a time; closed in one too."""
    import anyio

    try:
        while True:
            item = await anyio.to_thread.run_sync(next, iterator, _DONE)
            if item is _DONE:
                return
            yield item
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(close)


# ------------------------------------------------------------------ your own route


def event_stream(
    events: Any,
    run_input: RunAgentInput,
    *,
    hub: StreamHub | None = None,
    secrets: Iterable[str] = (),
    clients: Iterable[Any] = (),
    name: str = "agent",
) -> Response:
    """``events`` (what an agent gives: sync or async, events or dicts) as the AG-UI SSE
    response the server sends: checked, key values of ``secrets``/``clients`` masked, the
    agent cancelled when the client goes away, ended with ``RUN_ERROR`` on a failure or when
    ``hub.close()`` is called (keep one :class:`StreamHub` per app and close it as your app
    shuts down)."""
    values = [*secrets]
    for client in clients:
        values.extend(client_secrets(client))
    return EventStreamResponse(
        checked_events(lambda _: events, run_input),
        run_input=run_input,
        hub=hub or StreamHub(),
        agent=name,
        redactor=StreamRedactor(values),
    )


def own_providers(agents: Any, taken: set[str]) -> dict[str, AgentProvider]:
    """``create_app(agents=...)`` as providers: names checked like a config's."""
    from toolwire.server._config import ConfigError

    if not hasattr(agents, "items"):
        raise ConfigError("create_app: agents must be a mapping of name -> agent")
    out: dict[str, AgentProvider] = {}
    for name, agent in agents.items():
        if not isinstance(name, str) or not name or "/" in name:
            raise ConfigError(
                f"create_app: agent name {name!r}: expected a non-empty name without '/'"
            )
        if name in taken:
            raise ConfigError(f"create_app: agent {name!r}: two agents have this name")
        if not isinstance(agent, Agent) and not callable(agent):
            raise ConfigError(
                f"create_app: agent {name!r}: expected a callable or a toolwire.server.Agent, "
                f"not {type(agent).__name__}"
            )
        out[name] = AgentProvider(name, agent)
    return out


__all__ = [
    "AGENT_PROVIDER",
    "Agent",
    "AgentFn",
    "AgentProvider",
    "checked_events",
    "event_stream",
    "own_providers",
]
