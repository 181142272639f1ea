"""``toolwire serve``: an AG-UI endpoint in front of any vendor, and the inspector page.

Needs the ``server`` extra (``pip install "toolwire[server]"``); ``import toolwire`` never
imports it. ``create_app(config, agents=...)`` gives a Starlette app to run or mount, with
agents of your own (``Agent``: any callable from a ``RunAgentInput`` to AG-UI events) beside
the configured providers; ``read_run_input`` and ``event_stream`` serve a run from a route of
yours the same way. ``serve`` / ``make_server`` / ``Server`` run the app with uvicorn
(imported when first used), ending open runs as shutdown starts; ``serve_workers`` runs a
config with several worker processes behind one port. The modules behind this package
(``_agents``, ``_app``, ``_config``, ``_guard``, ``_http``, ``_offload``, ``_providers``,
``_replay``, ``_streaming``,
``_running``) are internal.
"""

from typing import TYPE_CHECKING, Any

from toolwire.server._agents import Agent, event_stream
from toolwire.server._app import (
    BadRunInput,
    ServerState,
    close_streams,
    create_app,
    read_run_input,
)
from toolwire.server._config import (
    AgentConfig,
    ConfigError,
    ServerConfig,
    config_from_mapping,
    load_config,
)
from toolwire.server._streaming import StreamHub

if TYPE_CHECKING:
    from toolwire.server._running import Server, make_server, serve, serve_workers

_RUNNING = ("Server", "make_server", "serve", "serve_workers")


def __getattr__(name: str) -> Any:
    if name in _RUNNING:
        from toolwire.server import _running

        return getattr(_running, name)
    raise AttributeError(f"module 'toolwire.server' has no attribute {name!r}")


__all__ = [
    "Agent",
    "AgentConfig",
    "BadRunInput",
    "ConfigError",
    "Server",
    "ServerConfig",
    "ServerState",
    "StreamHub",
    "close_streams",
    "config_from_mapping",
    "create_app",
    "event_stream",
    "load_config",
    "make_server",
    "read_run_input",
    "serve",
    "serve_workers",
]
