"""Running the app with uvicorn, so that stopping the server ends open runs properly.

uvicorn waits for open responses before it sends the app its lifespan shutdown, and an SSE
run may never end by itself; so the server's own shutdown ends every open stream with
``RUN_ERROR`` first, then uvicorn's usual graceful shutdown follows.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import uvicorn
from starlette.applications import Starlette

from toolwire.server._app import ServerState, close_streams
from toolwire.server._config import ConfigError
from toolwire.server._guard import host_name, is_loopback
from toolwire.server._http import protocol_with

#: bind addresses meaning "every interface": no Host name to accept follows from them
_ANY_ADDRESS = ("", "0.0.0.0", "::")


class Server(uvicorn.Server):
    """uvicorn's server, ending the app's open runs as shutdown starts."""

    def __init__(self, app: Starlette, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.toolwire_app = app

    async def shutdown(self, sockets: Any = None) -> None:
        close_streams(self.toolwire_app)
        await super().shutdown(sockets=sockets)


def make_server(app: Starlette, host: str = "127.0.0.1", port: int = 8000) -> Server:
    """uvicorn over ``app`` with the config's waits and caps.

    Binding beyond the loopback interface needs a bearer token (``token_env``): anyone on the
    network could otherwise spend the keys. The bound address becomes an accepted ``Host``.
    """
    state: ServerState = app.state.toolwire
    cfg = state.config
    if not is_loopback(host) and state.token is None:
        raise ConfigError(
            f"config: binding {host!r} serves beyond this machine: set a bearer token in "
            f"${cfg.token_env} first (every client then sends Authorization: Bearer <token>)"
        )
    if host_name(host) not in _ANY_ADDRESS:
        state.hosts.add(host_name(host))
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        timeout_graceful_shutdown=10,
        http=protocol_with(cfg.header_timeout),
        limit_concurrency=cfg.max_connections,
        timeout_keep_alive=5,
    )
    return Server(app, config)


def serve(app: Starlette, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve until interrupted; says on stderr where to open the page."""
    server = make_server(app, host, port)
    runs = logging.getLogger("toolwire.server")
    if not runs.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
        runs.addHandler(handler)
        runs.setLevel(logging.INFO)
    page = app.state.toolwire.config.inspector
    shown = f"[{host}]" if ":" in host else host
    where = f"http://{shown}:{port}"
    if page:
        sys.stderr.write(f"toolwire serve: open {where}{page.rstrip('/')}/ in a browser\n")
    sys.stderr.write(f"toolwire serve: AG-UI endpoints at {where}/agents/NAME (GET /agents)\n")
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled: a normal stop
        pass
    sys.stderr.write("toolwire serve: stopped\n")


__all__ = ["Server", "make_server", "serve"]
