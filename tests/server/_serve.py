"""Helpers of the server tests: the app over httpx (ASGI or a real uvicorn), runs as event dicts."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import yaml
from starlette.applications import Starlette

from toolwire.protocol.sse import parse_sse
from toolwire.server.running import Server, make_server

REPO = Path(__file__).resolve().parents[2]
CASSETTES = REPO / "cassettes"
DEMO = CASSETTES / "anthropic" / "thinking_tool_use_signature.yaml"
FRONTEND = CASSETTES / "anthropic" / "frontend_tool_conversation.yaml"


def events_of(text: str) -> list[dict[str, Any]]:
    """The AG-UI events of an SSE body, as JSON objects."""
    return [json.loads(e.data) for e in parse_sse(text)]


def recorded_requests(path: Path) -> list[dict[str, Any]]:
    doc = yaml.safe_load(path.read_text("utf-8"))
    return [json.loads(i["request"]["body"]) for i in doc["interactions"]]


def recorded_sse_events(path: Path) -> list[list[dict[str, Any]]]:
    """Each interaction's streamed vendor events (the recording, read as plain SSE)."""
    doc = yaml.safe_load(path.read_text("utf-8"))
    return [
        [json.loads(e.data) for e in parse_sse(i["response"]["body"]["string"])]
        for i in doc["interactions"]
    ]


def run_input(
    messages: list[dict[str, Any]], *, thread: str = "t1", run: str = "r1"
) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": run,
        "messages": messages,
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def live_server(app: Starlette) -> Iterator[tuple[Server, str]]:
    """The app under uvicorn on 127.0.0.1 in a thread; stopped (gracefully) on exit."""
    port = free_port()
    server = make_server(app, "127.0.0.1", port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield server, f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)


def asgi_client(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://toolwire")
