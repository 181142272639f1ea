"""``toolwire serve`` with a ``bedrock`` agent: its aiobotocore client (``CLIENT.make_client``)
pointed at a fake on 127.0.0.1, AWS credentials from the environment, never sent on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from _bedrock_sdk import CASSETTES, FAKE_KEY_ID, FAKE_SECRET, fake_bedrock
from local_tls import self_signed

from toolwire.protocol.sse import parse_sse
from toolwire.recordings import load_recording
from toolwire.server import create_app

STREAM = "application/vnd.amazon.eventstream"


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", FAKE_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", FAKE_SECRET)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv("AWS_REGION", "us-east-1")


def run_input() -> dict[str, Any]:
    return {
        "threadId": "t1",
        "runId": "r1",
        "messages": [{"id": "u1", "role": "user", "content": "Weather in Paris?"}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }


async def post(app: Any) -> str:
    """One run through the app, inside its lifespan (whose end closes the agent's aiobotocore
    client and the aiohttp session under it)."""
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http,
    ):
        response = await http.post("/agents/bedrock", json=run_input(), timeout=30)
        return response.text


def test_a_bedrock_agent_streams_its_turn_and_keeps_the_keys() -> None:
    path = CASSETTES / "parallel_three_tool_use.yaml"
    data = load_recording(path.read_bytes(), path.name)[0].response_body
    with fake_bedrock([(200, STREAM, data)]) as (url, served):
        app = create_app({"agents": [{"provider": "bedrock", "base_url": url}]})
        text = asyncio.run(post(app))
    events = [json.loads(e.data) for e in parse_sse(text)]
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED", text
    calls = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert calls == ["tooluse_Paris01", "tooluse_Oslo02", "tooluse_Lima03"]
    ((_, path_, headers, _),) = served.requests
    assert path_.endswith("/converse-stream")
    assert FAKE_KEY_ID in headers["authorization"]  # signed with the environment's key
    assert FAKE_KEY_ID not in text and FAKE_SECRET not in text


BEARER = "ABSKQmVkcm9ja0FQSUtleS1mYWtlLWZha2UtZmFrZS1mYWtlLWZha2UtZmFrZQ=="


def test_a_bedrock_api_key_from_the_agents_key_variable_is_sent_as_a_bearer_token(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Over HTTPS (botocore sends a bearer token over nothing else): the fake serves a
    certificate made here, and botocore trusts it through AWS_CA_BUNDLE."""
    key = BEARER
    monkeypatch.setenv("TW_BEDROCK_KEY", key)
    tls, cert = self_signed(tmp_path)
    monkeypatch.setenv("AWS_CA_BUNDLE", str(cert))
    path = CASSETTES / "interleaved_tool_use.yaml"
    data = load_recording(path.read_bytes(), path.name)[0].response_body
    with fake_bedrock([(200, STREAM, data)], tls=tls) as (url, served):
        assert url.startswith("https://")
        agent = {"provider": "bedrock", "base_url": url, "key_env": "TW_BEDROCK_KEY"}
        text = asyncio.run(post(create_app({"agents": [agent]})))
    events = [json.loads(e.data) for e in parse_sse(text)]
    assert events[-1]["type"] == "RUN_FINISHED", text
    ((_, _, headers, _),) = served.requests
    assert headers["authorization"] == f"Bearer {key}"
    assert key not in text


def test_a_bedrock_api_key_for_a_plain_http_endpoint_is_a_run_error_saying_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TW_BEDROCK_KEY", BEARER)
    agent = {"provider": "bedrock", "base_url": "http://127.0.0.1:9", "key_env": "TW_BEDROCK_KEY"}
    text = asyncio.run(post(create_app({"agents": [agent]})))
    events = [json.loads(e.data) for e in parse_sse(text)]
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"], text
    assert "sent over HTTPS only" in events[-1]["message"]
    assert "https:// base_url" in events[-1]["message"]
    assert BEARER not in text


def test_the_replay_cannot_drive_botocore_and_says_so() -> None:
    from toolwire.adapters.bedrock.client import CLIENT
    from toolwire.errors import UnsupportedInput

    with pytest.raises(UnsupportedInput, match="decode --from bedrock"):
        CLIENT.make_client(api_key=None, base_url="http://127.0.0.1:9", http_client=object())
