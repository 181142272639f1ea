"""The Starlette app: one AG-UI endpoint per agent, the agent list, the inspector page.

Everything a request can get wrong before its stream starts is answered with a 4xx and a JSON
``{"error": ..., "reason": ...}``; after that the run itself carries the error
(``RUN_ERROR``). Events go out as ``text/event-stream`` whatever the ``Accept`` header says
(the AG-UI protobuf encoding is not offered).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from ag_ui.core import RunAgentInput
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from toolwire.errors import ToolwireError, UnsupportedInput
from toolwire.protocol.inputs import as_run_input
from toolwire.redaction import masker
from toolwire.server._agents import own_providers
from toolwire.server._config import DEFAULT_BODY_LIMIT, ServerConfig, checked, config_from_mapping
from toolwire.server._providers import Provider, build_provider, secrets
from toolwire.server._streaming import EventStreamResponse, StreamHub

log = logging.getLogger("toolwire.server")


class _BadRequest(Exception):
    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason


def _redactor(provider: Provider) -> Callable[[str], str]:
    own = getattr(provider, "secret_values", None)  # an agent of the caller's: its clients' keys
    values = own() if own is not None else secrets(provider.config)
    # the agent's own key values only: an event's text about tokens is the model's
    return masker(values, shapes=False)


@dataclass
class ServerState:
    """What the app's routes share: ``app.state.toolwire``."""

    config: ServerConfig
    agents: dict[str, Provider]
    hub: StreamHub


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _BadRequest(413, "too_large", f"the body is {declared} bytes; the limit is {limit}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _BadRequest(413, "too_large", f"the body is over the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


#: a body at least this large is parsed and checked in a worker thread: a RunAgentInput near
#: the body limit takes tens of milliseconds to read, and the event loop keeps sending the
#: other runs' events meanwhile (the thread gives the interpreter up every few milliseconds)
THREADED_BODY = 64 * 1024


async def _run_input(request: Request, limit: int) -> RunAgentInput:
    raw = await _read_body(request, limit)
    if len(raw) >= THREADED_BODY:
        import anyio

        return await anyio.to_thread.run_sync(_parsed, raw)
    return _parsed(raw)


def _parsed(raw: bytes) -> RunAgentInput:
    """The body as a ``RunAgentInput``, or the 4xx it deserves."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise _BadRequest(400, "not_json", f"the body is not JSON: {exc}") from None
    try:
        return as_run_input(value, "body")
    except UnsupportedInput as exc:
        raise _BadRequest(422, "not_run_agent_input", str(exc)) from None


def _state(request: Request) -> ServerState:
    state: ServerState = request.app.state.toolwire
    return state


async def run_agent(request: Request) -> Response:
    """``POST /agents/{name}``: a RunAgentInput in, the run's AG-UI events out."""
    state = _state(request)
    name = request.path_params["name"]
    try:
        provider = state.agents.get(name)
        if provider is None:
            known = ", ".join(state.agents)
            raise _BadRequest(404, "unknown_agent", f"no agent {name!r}; agents: {known}")
        if state.hub.closing:
            raise _BadRequest(409, "shutting_down", "the server is shutting down")
        missing = provider.unavailable()
        if missing is not None:
            raise _BadRequest(409, "unavailable", f"agent {name!r} cannot run: {missing}")
        run_input = await _run_input(request, state.config.body_limit)
    except _BadRequest as bad:
        log.info("agent %s: refused (%s): %s", name, bad.status, bad.reason)
        return JSONResponse({"error": bad.error, "reason": bad.reason}, status_code=bad.status)
    log.info("agent %s: run %s starts", name, run_input.run_id)
    return EventStreamResponse(
        provider.events(run_input),
        run_input=run_input,
        hub=state.hub,
        agent=name,
        redact=_redactor(provider),
    )


async def list_agents(request: Request) -> Response:
    """``GET /agents``: each agent's name, provider, model, and whether it can run now."""
    out = []
    for name, provider in _state(request).agents.items():
        missing = provider.unavailable()
        entry: dict[str, Any] = {
            "name": name,
            "provider": provider.config.provider,
            "model": provider.model,
            "available": missing is None,
        }
        if missing is not None:
            entry["reason"] = missing
        out.append(entry)
    return JSONResponse(out)


def _as_config(config: ServerConfig | Mapping[str, Any] | None) -> ServerConfig:
    if config is None:
        return ServerConfig()
    if isinstance(config, ServerConfig):
        return checked(config)
    return config_from_mapping(config)


def _mount_inspector(app: Starlette, config: ServerConfig, agents: dict[str, Provider]) -> None:
    from agui_inspector import Agent, mount_inspector  # type: ignore[import-untyped]

    path = config.inspector or "/inspector"
    up = "../" * len([p for p in path.split("/") if p])  # the page is at <path>/
    page_agents = [
        Agent(id=name, url=f"{up}agents/{name}", name=f"{name} ({p.config.provider}, {p.model})")
        for name, p in agents.items()
    ]
    mount_inspector(app, agents=page_agents, enabled=True, path=path)

    async def home(request: Request) -> Response:
        prefix = request.scope.get("root_path", "").rstrip("/")
        return RedirectResponse(f"{prefix}{path.rstrip('/')}/", status_code=307)

    app.add_route("/", home, methods=["GET", "HEAD"])


def create_app(
    config: ServerConfig | Mapping[str, Any] | None = None,
    *,
    agents: Mapping[str, Any] | None = None,
) -> Starlette:
    """The AG-UI server as a Starlette app (run it, or mount it in yours).

    ``agents`` adds agents of your own beside the configured ones: name -> a callable from
    a ``RunAgentInput`` to AG-UI events, or a ``toolwire.server.Agent`` (docs/guide/agents.md).
    With ``agents`` and no ``config``, only those are served.
    """
    if config is None and agents:
        config = ServerConfig(agents=())
    cfg = _as_config(config)
    providers: dict[str, Provider] = {a.name: build_provider(a) for a in cfg.agents}
    # -- agents of the caller's own (toolwire.server._agents) --
    if agents:
        providers.update(own_providers(agents, taken=set(providers)))
    hub = StreamHub()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        hub.close()
        for provider in providers.values():  # the SDK clients providers built, reused till now
            closing = getattr(provider, "aclose", None)
            if closing is not None:
                await closing()

    app = Starlette(
        routes=[
            Route("/agents", list_agents, methods=["GET"]),
            Route("/agents/{name}", run_agent, methods=["POST"]),
        ],
        lifespan=lifespan,
    )
    app.state.toolwire = ServerState(config=cfg, agents=providers, hub=hub)
    if cfg.inspector is not None:
        _mount_inspector(app, cfg, providers)
    return app


def close_streams(app: Starlette) -> None:
    """End the app's open runs with ``RUN_ERROR`` (a host's graceful shutdown calls this)."""
    state: ServerState = app.state.toolwire
    state.hub.close()


# -- a route of your own: the request checks above, public (docs/guide/agents.md) --


class BadRunInput(ToolwireError):
    """A request that is not a run: ``status``, ``error`` and ``reason``; :meth:`response`
    is the server's own 4xx answer for it."""

    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason

    def response(self) -> Response:
        return JSONResponse({"error": self.error, "reason": self.reason}, status_code=self.status)


async def read_run_input(
    request: Request, *, body_limit: int = DEFAULT_BODY_LIMIT
) -> RunAgentInput:
    """The request's ``RunAgentInput``, checked as the server checks it (size, JSON, shape);
    :class:`BadRunInput` otherwise."""
    try:
        return await _run_input(request, body_limit)
    except _BadRequest as bad:
        raise BadRunInput(bad.status, bad.error, bad.reason) from None


__all__ = ["BadRunInput", "ServerState", "close_streams", "create_app", "read_run_input"]
