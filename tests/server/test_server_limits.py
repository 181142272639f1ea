"""Every wait of the server is bounded (issue 35, item 2 and the run deadline).

Slow headers and bodies get a 408, connections and runs are capped, a client that leaves
mid-body is a log line (never an ASGI traceback), and a run that never ends meets its
deadline as ``RUN_ERROR`` code ``deadline``. The socket tests speak raw HTTP to a real
uvicorn; the app-level ones drive the ASGI app directly, so their timing is the app's own.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from _serve import asgi_client, events_of, live_server, run_input
from ag_ui.core import BaseEvent, EventType, RunAgentInput, RunStartedEvent

from toolwire.server import create_app

HELLO = json.dumps(run_input([{"id": "u1", "role": "user", "content": "hello"}])).encode()


def _recv_all(sock: socket.socket, within: float) -> bytes:
    """What the server sends until it closes the connection (or ``within`` s pass)."""
    sock.settimeout(within)
    out = b""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            piece = sock.recv(65536)
        except TimeoutError:
            break
        if not piece:
            return out
        out += piece
    raise AssertionError(f"the server did not close the connection within {within} s: {out!r}")


def _address(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def test_headers_that_stop_arriving_get_a_408_and_the_connection_closes() -> None:
    app = create_app({"header_timeout": 0.5})
    with live_server(app) as (_, base):
        started = time.monotonic()
        with (
            socket.create_connection(_address(base)) as half,
            socket.create_connection(_address(base)) as silent,
        ):
            half.sendall(b"POST /agents/replay HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            answer = _recv_all(half, 10)
            assert _recv_all(silent, 10).startswith(b"HTTP/1.1 408")  # nothing sent at all
        took = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408")
    assert json.loads(body)["error"] == "timeout"
    assert 0.4 < took < 8


def test_a_kept_alive_connection_gets_the_header_deadline_again() -> None:
    app = create_app({"header_timeout": 0.5})
    with live_server(app) as (_, base), socket.create_connection(_address(base)) as sock:
        sock.sendall(b"GET /agents HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(5)
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /agents HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the next, half sent
        rest = _recv_all(sock, 10)  # the first answer's body, then the 408
        assert b"HTTP/1.1 408 Request Timeout" in first + rest


def test_an_idle_kept_alive_connection_is_closed_without_an_answer() -> None:
    """Past the header deadline and the keep-alive wait, a kept-alive connection on which no
    next request began is closed with nothing written: a ``408`` there would answer a request
    never made, and a client sending its next one just then could take it as that one's
    answer (RFC 9112, section 9.6: a server closes an idle connection)."""
    app = create_app({"header_timeout": 0.3})
    with live_server(app) as (server, base):
        server.config.timeout_keep_alive = 1  # read by each new connection
        with socket.create_connection(_address(base)) as sock:
            sock.sendall(b"GET /agents HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            sock.settimeout(5)
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += sock.recv(65536)
            head, _, body = answer.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
            while len(body) < length:
                body += sock.recv(65536)
            assert head.startswith(b"HTTP/1.1 200") and len(body) == length
            # the header deadline (0.3 s) passes first, then the keep-alive wait (1 s)
            assert _recv_all(sock, 10) == b""  # closed, nothing sent


def test_connections_beyond_the_cap_get_503() -> None:
    app = create_app({"max_connections": 3, "header_timeout": 30})
    with live_server(app) as (_, base):
        idle = [socket.create_connection(_address(base)) for _ in range(3)]
        try:
            for s in idle:
                s.sendall(b"GET /agents HTTP/1.1\r\n")  # half-sent requests hold their sockets
            time.sleep(0.2)
            with socket.create_connection(_address(base)) as extra:
                extra.sendall(b"GET /agents HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                extra.settimeout(5)
                assert extra.recv(65536).startswith(b"HTTP/1.1 503")
        finally:
            for s in idle:
                s.close()


def _scope(headers: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/agents/replay",
        "raw_path": b"/agents/replay",
        "root_path": "",
        "query_string": b"",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }


HEADERS = {"host": "127.0.0.1:8000", "content-type": "application/json", "content-length": "500"}


async def _call(app: Any, receive: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    with anyio.fail_after(20):
        await app(_scope(HEADERS), receive, send)
    return sent


async def test_a_body_that_stops_arriving_gets_a_408() -> None:
    app = create_app({"body_timeout": 0.3})
    calls = 0

    async def receive() -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls == 1:
            return {"type": "http.request", "body": b'{"threadId": ', "more_body": True}
        await anyio.sleep(3600)  # the rest never comes
        raise AssertionError("unreachable")

    started = time.monotonic()
    sent = await _call(app, receive)
    assert time.monotonic() - started < 10
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]
    assert json.loads(sent[1]["body"])["error"] == "timeout"
    assert "body_timeout" in json.loads(sent[1]["body"])["reason"]


async def test_a_client_leaving_mid_body_is_a_log_line_not_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    messages = iter(
        [
            {"type": "http.request", "body": b'{"threadId": "t', "more_body": True},
            {"type": "http.disconnect"},
        ]
    )

    async def receive() -> dict[str, Any]:
        return next(messages)

    caplog.set_level("INFO", logger="toolwire.server")
    await _call(create_app(), receive)  # raises nothing
    assert "left while sending its body" in caplog.text


class _Endless:
    """A provider whose run starts and then trickles nothing forever (a keep-alive trickle)."""

    def __init__(self) -> None:
        self.config = type("C", (), {"provider": "endless", "key_names": (), "base_url": None})()
        self.model = "none"

    def unavailable(self) -> str | None:
        return None

    def secret_values(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None

    async def events(self, run_input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id)
        while True:
            await anyio.sleep(0.05)


async def test_a_run_that_never_ends_meets_the_deadline() -> None:
    app = create_app({"run_deadline": 0.5})
    app.state.toolwire.agents["replay"] = _Endless()
    started = time.monotonic()
    async with asgi_client(app) as client:
        with anyio.fail_after(20):
            r = await client.post(
                "/agents/replay", content=HELLO, headers={"content-type": "application/json"}
            )
    events = events_of(r.text)
    assert [e["type"] for e in events] == [EventType.RUN_STARTED.value, "RUN_ERROR"]
    assert events[-1]["code"] == "deadline" and "0.5 s" in events[-1]["message"]
    assert 0.4 < time.monotonic() - started < 15


async def test_runs_beyond_the_cap_get_503_busy() -> None:
    app = create_app({"max_runs": 1, "run_deadline": 5})
    app.state.toolwire.agents["replay"] = _Endless()
    headers = {**HEADERS, "content-length": str(len(HELLO))}
    busy: list[dict[str, Any]] = []
    first_sent: list[dict[str, Any]] = []

    def receiver() -> Any:
        given = False

        async def receive() -> dict[str, Any]:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": HELLO, "more_body": False}
            await anyio.sleep(3600)  # the client stays
            raise AssertionError("unreachable")

        return receive

    async def keep(sent: list[dict[str, Any]]) -> Any:
        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        return send

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(app, _scope(headers), receiver(), await keep(first_sent))
            while not app.state.toolwire.hub.open_streams:
                await anyio.sleep(0.01)
            await app(_scope(headers), receiver(), await keep(busy))
            tg.cancel_scope.cancel()
    assert first_sent[0]["status"] == 200
    assert busy[0]["status"] == 503
    reason = json.loads(busy[1]["body"])
    assert reason["error"] == "busy" and "max_runs" in reason["reason"]


def test_limits_are_settings_checked_at_start() -> None:
    from toolwire.server import ConfigError, config_from_mapping

    for name, bad in [
        ("header_timeout", 0),
        ("body_timeout", -1),
        ("run_deadline", "soon"),
        ("max_runs", 1.5),
        ("max_connections", True),
    ]:
        with pytest.raises(ConfigError, match=name):
            config_from_mapping({name: bad})
