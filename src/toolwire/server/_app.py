"""The Starlette app: one AG-UI endpoint per agent, the agent list, the inspector page.

Everything a request can get wrong before its stream starts is answered with a 4xx and a JSON
``{"error": ..., "reason": ...}``; after that the run itself carries the error
(``RUN_ERROR``). Events go out as ``text/event-stream`` whatever the ``Accept`` header says
(the AG-UI protobuf encoding is not offered).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from ag_ui.core import RunAgentInput
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from toolwire.errors import LimitExceeded, ToolwireError
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.jsontext import JSONTextError, load_json
from toolwire.protocol.stream_redact import StreamRedactor
from toolwire.server._agents import own_providers
from toolwire.server._config import (
    DEFAULT_BODY_LIMIT,
    DEFAULT_LIMITS,
    ServerConfig,
    checked,
    config_from_mapping,
)
from toolwire.server._guard import RequestGuard
from toolwire.server._offload import OFFLOAD, weigh
from toolwire.server._providers import Provider, build_provider
from toolwire.server._streaming import EventStreamResponse, StreamHub

log = logging.getLogger("toolwire.server")


class _BadRequest(Exception):
    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason


@dataclass
class ServerState:
    """What the app's routes share: ``app.state.toolwire``."""

    config: ServerConfig
    agents: dict[str, Provider]
    hub: StreamHub
    #: the bearer token every agent request needs (from ``config.token_env``), or None
    token: str | None = None
    #: Host names accepted besides loopback (the config's, and the address ``serve`` binds)
    hosts: set[str] = field(default_factory=set)


class _ClientLeft(Exception):
    """The client went away while sending its body: nobody to answer."""


async def _read_body(request: Request, limit: int, seconds: float) -> bytes:
    """The body, at most ``limit`` bytes, all of it within ``seconds`` of the headers."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _BadRequest(413, "too_large", f"the body is {declared} bytes; the limit is {limit}")
    chunks: list[bytes] = []
    size = 0
    try:
        with anyio.fail_after(seconds):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise _BadRequest(
                        413, "too_large", f"the body is over the limit of {limit} bytes"
                    )
                chunks.append(chunk)
    except TimeoutError:
        raise _BadRequest(
            408, "timeout", f"the body did not arrive within {seconds:g} s (body_timeout)"
        ) from None
    except ClientDisconnect:
        raise _ClientLeft from None
    return b"".join(chunks)


def _parse_run_input(raw: bytes) -> RunAgentInput:
    """The body as a RunAgentInput, every toolwire error as a 4xx (runs in a worker thread)."""
    try:
        value = load_json(raw, "request", "body")
    except JSONTextError as exc:
        raise _BadRequest(400, "not_json", str(exc)) from None
    try:
        return as_run_input(value, "body")
    except LimitExceeded as exc:
        raise _BadRequest(413, "too_large", str(exc)) from None
    except ToolwireError as exc:
        raise _BadRequest(422, "not_run_agent_input", str(exc)) from None
    except RecursionError:
        raise _BadRequest(422, "not_run_agent_input", "the body nests too deeply") from None


async def _run_input(request: Request, limit: int, seconds: float) -> RunAgentInput:
    raw = await _read_body(request, limit, seconds)
    weigh(len(raw))  # the run's later steps are as heavy as its input
    return await OFFLOAD.run(_parse_run_input, raw)


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
        _check_capacity(state)
        cfg = state.config
        run_input = await _run_input(request, cfg.body_limit, cfg.body_timeout)
        _check_capacity(state)  # other runs may have started while this body arrived
    except _BadRequest as bad:
        log.info("agent %s: refused (%s): %s", name, bad.status, bad.reason)
        headers = {"connection": "close"} if bad.status == 408 else None
        return JSONResponse(
            {"error": bad.error, "reason": bad.reason}, status_code=bad.status, headers=headers
        )
    except _ClientLeft:
        log.info("agent %s: the client left while sending its body", name)
        return Response(status_code=400)  # never delivered: the connection is gone
    log.info("agent %s: run %s starts", name, run_input.run_id)
    return EventStreamResponse(
        provider.events(run_input),
        run_input=run_input,
        hub=state.hub,
        agent=name,
        redactor=StreamRedactor(provider.secret_values()),
        deadline=state.config.run_deadline,
    )


def _check_capacity(state: ServerState) -> None:
    cap = state.config.max_runs
    if state.hub.open_streams >= cap:
        raise _BadRequest(503, "busy", f"{cap} runs are streaming (max_runs); try again later")


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
        Agent(
            id=name,
            url=f"{up}agents/{name}",
            name=f"{name} ({p.config.provider}, {p.model})",
            # what the agent can answer, one click away (the replay agent: its recordings)
            preset={"quickMessages": prompts} if (prompts := p.prompts()) else None,
        )
        for name, p in agents.items()
    ]
    mount_inspector(app, agents=page_agents, enabled=True, path=path)

    async def home(request: Request) -> Response:
        prefix = request.scope.get("root_path", "").rstrip("/")
        return RedirectResponse(f"{prefix}{path.rstrip('/')}/", status_code=307)

    app.add_route("/", home, methods=["GET", "HEAD"])


def _warm(agents: Mapping[str, Provider]) -> None:
    for provider in agents.values():
        provider.warm()


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
        # the providers import their SDKs before the server takes requests, so the first
        # run streams at once instead of waiting seconds on an import
        await asyncio.to_thread(_warm, providers)
        yield
        hub.close()
        for provider in providers.values():  # the SDK clients providers built, reused till now
            await provider.aclose()

    OFFLOAD.at_least(cfg.max_encoding_threads)
    token = os.environ.get(cfg.token_env) or None
    hosts = set(cfg.allowed_hosts)
    public = (cfg.inspector.rstrip("/"),) if cfg.inspector else ()
    middleware = [
        Middleware(
            RequestGuard,
            hosts=hosts,
            origins=cfg.allowed_origins,
            token=token,
            public_prefixes=public,
        )
    ]
    if cfg.allowed_origins:  # a configured page elsewhere: answer its preflights
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(cfg.allowed_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["authorization", "content-type", "accept"],
            )
        )
    app = Starlette(
        routes=[
            Route("/agents", list_agents, methods=["GET"]),
            Route("/agents/{name}", run_agent, methods=["POST"]),
        ],
        middleware=middleware,
        lifespan=lifespan,
    )
    app.state.toolwire = ServerState(
        config=cfg, agents=providers, hub=hub, token=token, hosts=hosts
    )
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
        headers = {"connection": "close"} if self.status == 408 else None
        return JSONResponse(
            {"error": self.error, "reason": self.reason}, status_code=self.status, headers=headers
        )


async def read_run_input(
    request: Request,
    *,
    body_limit: int = DEFAULT_BODY_LIMIT,
    body_timeout: float = DEFAULT_LIMITS["body_timeout"],
) -> RunAgentInput:
    """The request's ``RunAgentInput``, checked as the server checks it (size, time, JSON,
    shape; the parse in a worker thread); :class:`BadRunInput` otherwise."""
    try:
        return await _run_input(request, body_limit, body_timeout)
    except _BadRequest as bad:
        raise BadRunInput(bad.status, bad.error, bad.reason) from None
    except _ClientLeft:
        raise BadRunInput(400, "client_left", "the client left while sending its body") from None


__all__ = ["BadRunInput", "ServerState", "close_streams", "create_app", "read_run_input"]
