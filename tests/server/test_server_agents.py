"""Agents of one's own behind the server (``create_app(agents=...)``), the SSE helper for
one's own route, and vendor SDK clients built once and reused across runs."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from _agent_support import hanging_tool
from _serve import asgi_client, events_of, live_server, run_input
from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from toolwire import adapters
from toolwire.errors import UnsupportedInput
from toolwire.protocol import validate_stream
from toolwire.server import (
    Agent,
    BadRunInput,
    ConfigError,
    StreamHub,
    create_app,
    event_stream,
    read_run_input,
)
from toolwire.testing.fake_vendor import FakeVendor, reply_of_turn

SECRET = "sk-agent-secret-3f9a0c7d1e"


def _say(ri: RunAgentInput, text: str) -> list[BaseEvent]:
    return [
        RunStartedEvent(
            thread_id=ri.thread_id, run_id=ri.run_id, protocol_version=PROTOCOL_VERSION
        ),
        TextMessageStartEvent(message_id=f"m-{ri.run_id}", role="assistant"),
        TextMessageContentEvent(message_id=f"m-{ri.run_id}", delta=text),
        TextMessageEndEvent(message_id=f"m-{ri.run_id}"),
        RunFinishedEvent(thread_id=ri.thread_id, run_id=ri.run_id),
    ]


def _body(run: str = "r1") -> dict[str, Any]:
    return run_input([{"id": "u1", "role": "user", "content": "hi"}], run=run)


async def test_async_sync_and_dict_agents_are_served_as_checked_runs() -> None:
    async def echo(ri: RunAgentInput) -> AsyncIterator[BaseEvent]:
        for ev in _say(ri, f"async: {ri.messages[-1].content}"):
            yield ev

    def listing(ri: RunAgentInput) -> list[dict[str, Any]]:  # sync, as JSON dicts
        return [
            e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in _say(ri, "sync")
        ]

    app = create_app(agents={"echo": echo, "listing": listing})
    async with asgi_client(app) as client:
        listed = (await client.get("/agents")).json()
        one = await client.post("/agents/echo", json=_body())
        two = await client.post("/agents/listing", json=_body())
        missing = await client.post("/agents/replay", json=_body())
        bad = await client.post(
            "/agents/echo", content=b"{not json", headers={"content-type": "application/json"}
        )
    assert [(a["name"], a["provider"], a["available"]) for a in listed] == [
        ("echo", "agent", True),
        ("listing", "agent", True),
    ]
    assert missing.status_code == 404  # only the given agents, no default replay agent
    assert bad.status_code == 400 and bad.json()["error"] == "not_json"
    for response, text in ((one, "async: hi"), (two, "sync")):
        assert response.headers["content-type"].startswith("text/event-stream")
        events = events_of(response.text)
        validate_stream(events)
        assert [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"] == [text]


async def test_an_agents_mistake_or_failure_ends_its_run_with_run_error() -> None:
    def wrong(ri: RunAgentInput) -> list[BaseEvent]:
        events = _say(ri, "x")
        return [events[0], events[2]]  # content for a message never started

    async def failing(ri: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield _say(ri, "x")[0]
        raise RuntimeError(f"vendor said: bad key {SECRET}")

    app = create_app(agents={"wrong": wrong, "failing": Agent(failing, secrets=(SECRET,))})
    async with asgi_client(app) as client:
        wrong_run = events_of((await client.post("/agents/wrong", json=_body())).text)
        failed_run = events_of((await client.post("/agents/failing", json=_body())).text)
    assert [e["type"] for e in wrong_run] == ["RUN_STARTED", "RUN_ERROR"]
    assert "message-not-open" in wrong_run[-1]["message"]
    assert [e["type"] for e in failed_run] == ["RUN_STARTED", "RUN_ERROR"]
    assert SECRET not in json.dumps(failed_run) and "[REDACTED]" in failed_run[-1]["message"]


@contextmanager
def _client_gone_once_started(app: Any, agent: str, started: threading.Event) -> Iterator[None]:
    """A run of ``agent`` on a live server whose client reads the first event, waits until
    the agent has ``started``, then goes away (closes the response); the server stays up
    inside the block."""
    with (
        live_server(app) as (_, base),
        httpx.Client(timeout=30) as http,
        http.stream("POST", f"{base}/agents/{agent}", json=_body()) as response,
    ):
        lines = response.iter_lines()
        assert any(line.startswith("data:") for line in lines)
        assert started.wait(10)
        response.close()
        yield


def test_a_client_that_goes_away_cancels_the_agent() -> None:
    started = threading.Event()
    stopped = threading.Event()

    async def slow(ri: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield _say(ri, "x")[0]
        started.set()
        try:
            await asyncio.sleep(30)
        finally:
            stopped.set()

    with _client_gone_once_started(create_app(agents={"slow": slow}), "slow", started):
        assert stopped.wait(10)  # cancelled at once, not after its 30 s


def test_a_client_that_goes_away_cancels_a_running_backend_tool() -> None:
    import anthropic

    import toolwire

    started = threading.Event()
    cancelled = threading.Event()
    get_weather = hanging_tool(started, cancelled)

    ri = RunAgentInput.model_validate(_body())
    call = [
        *_say(ri, "looking")[:4],
        ToolCallStartEvent(
            tool_call_id="c1", tool_call_name="get_weather", parent_message_id="m-r1"
        ),
        ToolCallArgsEvent(tool_call_id="c1", delta='{"city": "Oslo"}'),
        ToolCallEndEvent(tool_call_id="c1"),
        _say(ri, "")[-1],
    ]
    with FakeVendor([reply_of_turn("anthropic", call)]) as fv:
        client = anthropic.AsyncAnthropic(api_key=SECRET, base_url=fv.base_url)

        def agent(run_input: RunAgentInput) -> Any:
            return toolwire.arun(client, run_input, model="m", tools=[get_weather])

        app = create_app(agents={"hybrid": Agent(agent, clients=(client,))})
        with _client_gone_once_started(app, "hybrid", started):
            assert cancelled.wait(10)  # the tool was cancelled, not left to run its 30 s


def test_shutdown_ends_an_agents_open_run_with_run_error() -> None:
    async def slow(ri: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield _say(ri, "x")[0]
        await asyncio.sleep(30)

    with (
        live_server(create_app(agents={"slow": slow})) as (server, base),
        httpx.Client(timeout=30) as client,
        client.stream("POST", f"{base}/agents/slow", json=_body()) as response,
    ):
        lines = response.iter_lines()
        stopper = threading.Timer(0.3, lambda: setattr(server, "should_exit", True))
        stopper.start()
        events = [json.loads(line[5:]) for line in lines if line.startswith("data:")]
        stopper.join()
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == "server_shutdown"


async def test_ones_own_route_streams_with_the_same_helper() -> None:
    hub = StreamHub()

    async def endpoint(request: Request) -> Response:
        try:
            ri = await read_run_input(request, body_limit=10_000)
        except BadRunInput as bad:
            return bad.response()
        return event_stream(_say(ri, f"key {SECRET}"), ri, hub=hub, secrets=[SECRET])

    app = Starlette(routes=[Route("/my/agent", endpoint, methods=["POST"])])
    async with asgi_client(app) as client:
        ok = await client.post("/my/agent", json=_body())
        big = await client.post("/my/agent", content=b"x" * 20_000)
        shape = await client.post("/my/agent", json={"threadId": 1})
    events = events_of(ok.text)
    validate_stream(events)
    assert SECRET not in ok.text and "key [REDACTED]" in ok.text
    assert big.status_code == 413 and big.json()["error"] == "too_large"
    assert shape.status_code == 422


def test_agent_names_are_checked() -> None:
    with pytest.raises(ConfigError, match="two agents"):
        create_app({"agents": [{"provider": "replay", "name": "x"}]}, agents={"x": lambda ri: []})
    with pytest.raises(ConfigError, match="without '/'"):
        create_app(agents={"a/b": lambda ri: []})
    with pytest.raises(ConfigError, match="callable"):
        create_app(agents={"a": 3})
    with pytest.raises(UnsupportedInput, match="secrets="):  # whose key would it mask?
        Agent(lambda ri: [], clients=(object(),))


async def test_a_vendor_provider_builds_its_client_once_and_reuses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TW_REUSE_KEY", "sk-reuse-0123456789")
    built: list[Any] = []
    vendor_client = adapters.client("anthropic")
    make = vendor_client.make_client

    def counting(**kw: Any) -> Any:
        client = make(**kw)
        if kw.get("api_key") == "sk-reuse-0123456789":  # not start-up's key-less warm-up
            built.append(client)
        return client

    monkeypatch.setattr(vendor_client, "make_client", counting)
    said = [_say(RunAgentInput.model_validate(_body()), text) for text in ("one", "two")]
    script = [reply_of_turn("anthropic", events) for events in said]
    with FakeVendor(script) as fv:
        agent = {
            "provider": "anthropic",
            "base_url": fv.base_url,
            "key_env": "TW_REUSE_KEY",
            "params": {"max_tokens": 64},
        }
        app = create_app({"agents": [agent], "inspector": False})
        async with app.router.lifespan_context(app), asgi_client(app) as client:
            first = await client.post("/agents/anthropic", json=_body("r1"))
            second = await client.post("/agents/anthropic", json=_body("r2"))
            assert len(built) == 1 and not built[0].is_closed()
        assert built[0].is_closed()  # the app's shutdown closed it
    for response, text in ((first, "one"), (second, "two")):
        events = events_of(response.text)
        assert events[-1]["type"] == "RUN_FINISHED"
        assert [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"] == [text]
    assert len(fv.requests) == 2
