"""``toolwire serve``: an AG-UI endpoint in front of any vendor, and the inspector page.

Needs the ``server`` extra (``pip install "toolwire[server]"``); ``import toolwire`` never
imports it. ``create_app(config)`` gives a Starlette app to run or mount; ``serve`` /
``make_server`` / ``Server`` run it with uvicorn (imported when first used), ending open
runs as shutdown starts. The modules behind this package (``_app``, ``_config``,
``_guard``, ``_http``, ``_offload``, ``_providers``, ``_replay``, ``_streaming``,
``_running``) are internal.
"""

from typing import TYPE_CHECKING, Any

from toolwire.server._app import ServerState, close_streams, create_app
from toolwire.server._config import (
    AgentConfig,
    ConfigError,
    ServerConfig,
    config_from_mapping,
    load_config,
)

if TYPE_CHECKING:
    from toolwire.server._running import Server, make_server, serve

_RUNNING = ("Server", "make_server", "serve")


def __getattr__(name: str) -> Any:
    if name in _RUNNING:
        from toolwire.server import _running

        return getattr(_running, name)
    raise AttributeError(f"module 'toolwire.server' has no attribute {name!r}")


__all__ = [
    "AgentConfig",
    "ConfigError",
    "Server",
    "ServerConfig",
    "ServerState",
    "close_streams",
    "config_from_mapping",
    "create_app",
    "load_config",
    "make_server",
    "serve",
]
