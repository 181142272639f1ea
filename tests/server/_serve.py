"""Helpers of the server tests: the app over httpx (ASGI or a real uvicorn), runs as event dicts."""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any

import httpx
import yaml
from starlette.applications import Starlette

from toolwire import cli
from toolwire.protocol.sse import parse_sse
from toolwire.server import Server, make_server
from toolwire.testing.calls import calls_from_events

REPO = Path(__file__).resolve().parents[2]
CASSETTES = REPO / "cassettes"
CONFORMANCE = REPO.parent / "shared" / "conformance" / "cassettes"  # read-only, never copied
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
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1")


def recorded_calls(vendor_events: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """(id, name, input) of each tool_use block of a recorded Anthropic stream."""
    calls: dict[int, list[Any]] = {}
    for e in vendor_events:
        if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use":
            block = e["content_block"]
            calls[e["index"]] = [block["id"], block["name"], ""]
        elif e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta":
            calls[e["index"]][2] += e["delta"]["partial_json"]
    return [(i, n, json.loads(a)) for i, n, a in calls.values()]


def recorded_text(vendor_events: list[dict[str, Any]]) -> str:
    return "".join(
        e["delta"]["text"]
        for e in vendor_events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "text_delta"
    )


def calls(events: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """(id, name, parsed arguments) of each call in a stream."""
    return [(c.id, c.name, json.loads(c.arguments)) for c in calls_from_events(events)]


def text(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def demo_input() -> dict[str, Any]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["decode", "--from", "anthropic", str(DEMO)]) == 0
    first = json.loads(out.getvalue().splitlines()[0])
    assert first["type"] == "RUN_STARTED"
    return dict(first["input"])
