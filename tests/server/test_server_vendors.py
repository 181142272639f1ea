"""Real providers: the vendors' own SDKs, pointed at FakeVendor on 127.0.0.1, behind the server.

Each provider's agent runs through the official TypeScript client (its verifier accepts the
stream) and carries the calls the vendor's SDK parses from the same recording. Also: keys
never leave the server, a client that goes away stops the vendor call, and a shutdown ends
an open run with RUN_ERROR.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from _serve import (
    CASSETTES,
    CONFORMANCE,
    FRONTEND,
    asgi_client,
    events_of,
    live_server,
    recorded_requests,
    run_input,
)
from _vendor_sdk import sdk_calls
from local_tls import fake_vendor

from toolwire.losses import ToolwireWarning
from toolwire.protocol.machine import StreamMachine
from toolwire.server import create_app
from toolwire.testing.calls import calls_from_events
from toolwire.testing.fake_vendor import FakeVendor, Reply, replies_from_cassette

KEY_ENV = "TW_FAKE_VENDOR_KEY"
KEY = "sk-fake-7f3a9c1e5b2d8046aa11"

RECORDINGS = {
    "anthropic": CASSETTES / "anthropic" / "parallel_four_tool_use.yaml",
    # a real recording (the project's own Responses cassettes with calls are malformed on purpose)
    "openai": CONFORMANCE
    / "openai_responses"
    / "Mirascope+mirascope__test_call_with_tools__openai_gpt_4o_responses__stream.yaml",
    "openai_chat": CASSETTES / "openai_chat" / "parallel_three_interleaved.yaml",
    "gemini": CASSETTES / "gemini" / "gemini3_parallel_calls_signature.yaml",
    "bedrock": CASSETTES / "bedrock" / "parallel_three_tool_use.yaml",
    "ollama": CASSETTES / "ollama" / "parallel_three_calls.yaml",
    "mistral": CASSETTES / "mistral" / "parallel_three_calls.yaml",
    "cohere": CASSETTES / "cohere" / "parallel_three_calls.yaml",
}

Client = Callable[[dict[str, Any], Path], dict[str, Any]]


@pytest.fixture(autouse=True)
def fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def _app(provider: str, base_url: str, **extra: Any) -> Any:
    agent = {"provider": provider, "base_url": base_url, "key_env": KEY_ENV, **extra}
    return create_app({"agents": [agent]})


def _event_calls(events: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(c.id, c.name, json.loads(c.arguments)) for c in calls_from_events(events)]


@pytest.mark.parametrize("provider", sorted(RECORDINGS))
async def test_every_provider_through_the_official_client(
    provider: str, ag_ui_client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette = RECORDINGS[provider]
    expected = await sdk_calls(provider, cassette)
    assert expected, f"{cassette.name} holds no tool call for the SDK"
    replies = replies_from_cassette(cassette)[:1]
    with fake_vendor(provider, replies, tmp_path, monkeypatch) as vendor:
        with live_server(_app(provider, vendor.base_url)) as (_, base):
            out = ag_ui_client(
                {
                    "url": f"{base}/agents/{provider}",
                    "threadId": f"t-{provider}",
                    "messages": [{"id": "u1", "role": "user", "content": "hi"}],
                },
                tmp_path,
            )
        assert vendor.requests and vendor.requests[0].method == "POST"
    assert out["exit"] == 0, [r["error"] for r in out["runs"]]
    (run,) = out["runs"]
    events = run["events"]
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    got = _event_calls(events)
    assert [(n, a) for _, n, a in got] == [(n, a) for _, n, a in expected]
    assert [i for i, _, _ in got if i] and all(
        mine == theirs for (mine, _, _), (theirs, _, _) in zip(got, expected, strict=True) if theirs
    )
    assert KEY not in json.dumps(out)


async def test_a_frontend_tool_round_trip_through_the_anthropic_sdk(
    ag_ui_client: Client, tmp_path: Path
) -> None:
    """Turn 2 goes to the vendor holding turn 1's call and the UI's result, as recorded."""
    recorded = recorded_requests(FRONTEND)
    with FakeVendor(replies_from_cassette(FRONTEND)) as vendor:
        app = _app("anthropic", vendor.base_url, params={"max_tokens": 1024})
        with live_server(app) as (_, base):
            out = ag_ui_client(
                {
                    "url": f"{base}/agents/anthropic",
                    "threadId": "t-ui",
                    "messages": [
                        {
                            "id": "u1",
                            "role": "user",
                            "content": recorded[0]["messages"][0]["content"],
                        }
                    ],
                    "answers": {
                        "change_background": recorded[1]["messages"][2]["content"][0]["content"]
                    },
                },
                tmp_path,
            )
        sent = [json.loads(r.body) for r in vendor.requests]
    assert out["exit"] == 0 and len(out["runs"]) == 2
    assert len(sent) == 2
    assert sent[1]["messages"][1:] == recorded[1]["messages"][1:]
    assert sent[1]["max_tokens"] == 1024


async def test_keys_are_never_logged_or_echoed(caplog: pytest.LogCaptureFixture) -> None:
    """The vendor quotes the key in its 401 (as OpenAI does); nothing of ours repeats it."""
    body = {
        "error": {
            "message": f"Incorrect API key provided: {KEY}.",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }
    reply = Reply(
        status=401, headers={"content-type": "application/json"}, chunks=[json.dumps(body).encode()]
    )
    caplog.set_level(logging.DEBUG)
    with FakeVendor([reply]) as vendor:
        app = _app("openai_chat", vendor.base_url)
        async with asgi_client(app) as client:
            listed = await client.get("/agents")
            page = await client.get("/inspector/config.json")
            r = await client.post(
                "/agents/openai_chat",
                json=run_input([{"id": "u1", "role": "user", "content": "hi"}]),
            )
        assert vendor.requests[0].headers["authorization"] == f"Bearer {KEY}"  # the key was used
    events = events_of(r.text)
    assert events[-1]["type"] == "RUN_ERROR"
    # the vendor's own message and error type, from the error body the fake vendor sent
    assert "Incorrect API key provided" in events[-1]["message"]
    assert events[-1]["code"] == "invalid_request_error"
    everything = listed.text + page.text + r.text + caplog.text
    assert KEY not in everything
    assert KEY[:12] not in everything


def _slow_reply(cassette: Path, delay: float) -> Reply:
    """The recording's first event at once (the run is under way), then a slow trickle."""
    first = replies_from_cassette(cassette)[0]
    return Reply(
        status=first.status, headers=first.headers, chunks=first.chunks, delay=delay, eager=1
    )


def _read_until(
    lines: Iterator[str], stop: Callable[[dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    """AG-UI events from an SSE line iterator, up to the first one ``stop`` accepts."""
    seen: list[dict[str, Any]] = []
    for line in lines:
        if line.startswith("data:"):
            seen.append(json.loads(line[5:]))
            if stop(seen[-1]):
                break
    return seen


def _from_the_vendor(event: dict[str, Any]) -> bool:
    return event["type"] != "RUN_STARTED"  # the vendor's stream is under way


@contextmanager
def _slow_run(delay: float) -> Iterator[tuple[FakeVendor, Any, Reply, httpx.Response]]:
    """A run over a vendor that trickles its recording: (vendor, server, reply, response)."""
    reply = _slow_reply(RECORDINGS["anthropic"], delay=delay)
    body = run_input([{"id": "u1", "role": "user", "content": "hi"}])
    with (
        FakeVendor([reply]) as vendor,
        live_server(_app("anthropic", vendor.base_url)) as (server, base),
        httpx.Client(timeout=30) as client,
        client.stream("POST", f"{base}/agents/anthropic", json=body) as response,
    ):
        yield vendor, server, reply, response


def _vendor_outcome(vendor: FakeVendor) -> str:
    """How the vendor's one reply ended, once it has (FakeVendor notes it as it happens)."""
    deadline = time.monotonic() + 10
    while vendor.requests[0].outcome == "pending" and time.monotonic() < deadline:
        time.sleep(0.05)
    return vendor.requests[0].outcome


def test_a_client_that_goes_away_stops_the_vendor_call() -> None:
    with _slow_run(delay=0.3) as (vendor, _, reply, response):
        seen = _read_until(response.iter_lines(), _from_the_vendor)
        assert seen[0]["type"] == "RUN_STARTED" and len(seen) == 2
        response.close()  # the client goes away; both servers are still up
        outcome = _vendor_outcome(vendor)
    assert outcome == "client_gone"
    assert vendor.requests[0].chunks_sent < len(reply.chunks)


def test_shutdown_ends_an_open_run_with_run_error() -> None:
    with _slow_run(delay=0.5) as (vendor, server, _, response):
        lines = response.iter_lines()
        first = _read_until(lines, _from_the_vendor)
        stopper = threading.Timer(0.2, lambda: setattr(server, "should_exit", True))
        stopper.start()
        rest = _read_until(lines, lambda e: e["type"] in ("RUN_FINISHED", "RUN_ERROR"))
        tail = list(lines)
        stopper.join()
        outcome = _vendor_outcome(vendor)
    events = first + rest
    assert events[0]["type"] == "RUN_STARTED"
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "server_shutdown"
    StreamMachine().feed_all(events)  # a run ended by RUN_ERROR mid-stream is still valid AG-UI
    assert not [line for line in tail if line.startswith("data:")]
    assert outcome == "client_gone"


async def test_what_the_vendor_cannot_take_reaches_the_ui_as_a_loss_event(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A file handle of another provider in a tool result: dropped, and the UI is told; the
    server logs each loss once (its surface), and raises no Python warning from its loop."""
    image = {"type": "image", "source": {"type": "file", "value": "file-x", "provider": "gemini"}}
    messages = [
        {"id": "u1", "role": "user", "content": "look"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "snap", "arguments": "{}"}}
            ],
        },
        {
            "id": "t1",
            "role": "tool",
            "toolCallId": "c1",
            "content": [{"type": "text", "text": "ok"}, image],
        },
    ]
    with FakeVendor(replies_from_cassette(RECORDINGS["openai_chat"])[:1]) as vendor:
        async with asgi_client(_app("openai_chat", vendor.base_url)) as client:
            caplog.set_level(logging.WARNING, logger="toolwire.server")
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                r = await client.post("/agents/openai_chat", json=run_input(messages))
        sent = json.loads(vendor.requests[0].body)
    assert not [w for w in seen if issubclass(w.category, ToolwireWarning)]
    events = events_of(r.text)
    (loss,) = [e for e in events if e["type"] == "CUSTOM" and e["name"] == "toolwire.losses"]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-2] is loss
    assert "file-x" not in json.dumps(sent)
    dropped = [x for x in loss["value"] if x["kind"] == "part-dropped"]
    # dropped twice, each named: for the vendor (OpenAI Chat takes no image in a tool result,
    # and the handle is another provider's), and for this UI, which sent no protocolVersion
    # (RUN_STARTED.input is flattened for a peer from before content parts)
    assert [(x["toolCallId"], x["partIndex"], x["partKind"]) for x in dropped] == [
        ("c1", 1, "image"),
        ("c1", 1, "image"),
    ]
    assert dropped[0]["target"].startswith("openai_chat")
    assert "without protocolVersion" in dropped[1]["target"]
    logged = [r.getMessage() for r in caplog.records if r.name == "toolwire.server"]
    lines = [m for m in logged if "dropped image part" in m]
    assert len(lines) == len(dropped) and all("agent openai_chat" in m for m in lines)
