"""``toolwire serve`` with a ``bedrock`` agent and a long history: the run's request is
serialized off the event loop (the server's aiobotocore client, through the adapter's
hooks) and the conversation arrives whole at the fake vendor on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import httpx
import pytest
from _bedrock_sdk import CASSETTES, FAKE_KEY_ID, FAKE_SECRET, fake_bedrock
from ag_ui.core import RunAgentInput
from botocore.serialize import RestJSONSerializer

from toolwire.adapters.bedrock import encode_request
from toolwire.adapters.bedrock.client import CLIENT, large
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


def long_input(turns: int) -> dict[str, Any]:
    history = [
        {"id": f"h{i}", "role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} é"}
        for i in range(turns)
    ]
    return {
        "threadId": "t1",
        "runId": "r1",
        "messages": [*history, {"id": "u1", "role": "user", "content": "Weather in Paris?"}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }


async def post(app: Any, payload: dict[str, Any], loop_thread: list[int]) -> str:
    loop_thread.append(threading.get_ident())
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http,
    ):
        response = await http.post("/agents/bedrock", json=payload, timeout=60)
        return response.text


def test_a_served_long_history_is_serialized_off_the_loop_and_sent_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    payload = long_input(301)
    body = encode_request(RunAgentInput.model_validate(payload), model=CLIENT.default_model)
    assert large(body)
    loop_thread: list[int] = []
    serialized: list[tuple[bool, int]] = []
    serialize = RestJSONSerializer.serialize_to_request

    def spy(self: Any, params: dict[str, Any], model: Any) -> Any:
        on_loop = threading.get_ident() in loop_thread
        serialized.append((on_loop, len(params.get("messages", ()))))
        return serialize(self, params, model)

    monkeypatch.setattr(RestJSONSerializer, "serialize_to_request", spy)
    path = CASSETTES / "parallel_three_tool_use.yaml"
    data = load_recording(path.read_bytes(), path.name)[0].response_body
    with fake_bedrock([(200, STREAM, data)], timeout=60) as (url, served):
        app = create_app({"agents": [{"provider": "bedrock", "base_url": url}]})
        text = asyncio.run(post(app, payload, loop_thread))
    events = [json.loads(e.data) for e in parse_sse(text)]
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED", text
    calls = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert calls == ["tooluse_Paris01", "tooluse_Oslo02", "tooluse_Lima03"]
    # the whole conversation serialized in a worker thread, the SDK's own serializer on the
    # loop given the empty stand-in
    turns = len(body["messages"])
    assert serialized == [(False, turns), (False, 0), (True, 0)]
    ((_, _, headers, sent),) = served.requests
    assert json.loads(sent) == {k: v for k, v in body.items() if k != "modelId"}
    assert int(headers["content-length"]) == len(sent)
