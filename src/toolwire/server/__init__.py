"""``toolwire serve``: an AG-UI endpoint in front of any vendor, and the inspector page.

Needs the ``server`` extra (``pip install "toolwire[server]"``); ``import toolwire`` never
imports it. ``create_app(config)`` gives a Starlette app to run or mount.
"""

from toolwire.server.app import ServerState, close_streams, create_app
from toolwire.server.config import (
    AgentConfig,
    ConfigError,
    ServerConfig,
    config_from_mapping,
    load_config,
)

__all__ = [
    "AgentConfig",
    "ConfigError",
    "ServerConfig",
    "ServerState",
    "close_streams",
    "config_from_mapping",
    "create_app",
    "load_config",
]
