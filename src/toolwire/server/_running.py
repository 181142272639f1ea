"""Running the app with uvicorn, so that stopping the server ends open runs properly.

uvicorn waits for open responses before it sends the app its lifespan shutdown, and an SSE
run may never end by itself; so the server's own shutdown ends every open stream with
``RUN_ERROR`` first, then uvicorn's usual graceful shutdown follows.

``serve_workers`` runs several worker processes behind one port (``toolwire serve
--workers N``): the parent binds the socket, each worker builds the app from the same
config and serves it with this module's :class:`Server` (so a stop still ends each
worker's open runs with ``RUN_ERROR``), and the kernel spreads new connections over them.
The parent only waits, passes a stop on to the workers, and ends when they have ended.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
from typing import Any

import uvicorn
from starlette.applications import Starlette

from toolwire.server._app import ServerState, close_streams, create_app
from toolwire.server._config import ConfigError, ServerConfig
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


def _log_runs() -> None:
    runs = logging.getLogger("toolwire.server")
    if not runs.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
        runs.addHandler(handler)
        runs.setLevel(logging.INFO)


def _announce(config: ServerConfig, host: str, port: int, workers: int = 1) -> None:
    shown = f"[{host}]" if ":" in host else host
    where = f"http://{shown}:{port}"
    if config.inspector:
        sys.stderr.write(
            f"toolwire serve: open {where}{config.inspector.rstrip('/')}/ in a browser\n"
        )
    many = f" ({workers} worker processes)" if workers > 1 else ""
    sys.stderr.write(
        f"toolwire serve: AG-UI endpoints at {where}/agents/NAME (GET /agents){many}\n"
    )


def serve(app: Starlette, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve until interrupted; says on stderr where to open the page."""
    server = make_server(app, host, port)
    _log_runs()
    _announce(app.state.toolwire.config, host, port)
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled: a normal stop
        pass
    sys.stderr.write("toolwire serve: stopped\n")


def _worker(config: ServerConfig, sock: socket.socket, host: str, port: int) -> None:
    """One worker process: the app built from ``config``, served on the parent's socket
    with the same checks, waits and caps as a single server (``make_server``)."""
    _log_runs()
    server = make_server(create_app(config), host, port)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass


def serve_workers(
    config: ServerConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 2,
) -> None:
    """Serve ``config`` with ``workers`` processes behind one port, until interrupted.

    Each worker builds its own app (providers, SDK clients) from ``config``; a run lives in
    one worker from its request to its end. A stop (Ctrl-C, SIGTERM) is passed on to every
    worker, which ends its open runs with ``RUN_ERROR`` as a single server does.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(
            f"--workers: expected a whole number of processes, at least 1, not {workers!r}"
        )
    # a config that cannot be served (a wide bind without a token...) fails here, once
    checked = make_server(create_app(config), host, port)
    sock = checked.config.bind_socket()
    _announce(config, host, port, workers)
    context = multiprocessing.get_context("spawn")
    procs = [
        context.Process(target=_worker, args=(config, sock, host, port), daemon=False)
        for _ in range(workers)
    ]
    stopping: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        stopping.append(signum)
        for proc in procs:
            if proc.pid is not None and proc.is_alive():
                os.kill(proc.pid, signal.SIGTERM)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for proc in procs:  # a worker that outlived its grace (or a stop before start)
            if proc.is_alive():
                proc.join(timeout=15)
            if proc.is_alive():
                proc.kill()
        sock.close()
    sys.stderr.write("toolwire serve: stopped\n")


__all__ = ["Server", "make_server", "serve", "serve_workers"]
