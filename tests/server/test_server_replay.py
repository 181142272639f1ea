"""The replay provider over ASGI: recorded conversations play back, turn after turn.

Expected values come from the recordings themselves (their requests and streamed events),
never from the server's own output.
"""

from __future__ import annotations

import pytest
from _serve import (
    CASSETTES,
    DEMO,
    FRONTEND,
    asgi_client,
    calls,
    demo_input,
    events_of,
    recorded_calls,
    recorded_requests,
    recorded_sse_events,
    recorded_text,
    run_input,
    text,
)

from toolwire.protocol.machine import StreamMachine
from toolwire.server import create_app
from toolwire.server._replay import index_recordings, replay_client


async def test_the_demo_input_plays_the_demo_recording() -> None:
    async with asgi_client(create_app()) as client:
        r = await client.post("/agents/replay", json=demo_input())
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    events = events_of(r.text)
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    recorded = recorded_sse_events(DEMO)[0]
    assert calls(events) == recorded_calls(recorded)
    assert text(events) == recorded_text(recorded)
    pending = events[-1]["outcome"]["pendingToolCallIds"]
    assert pending == [c[0] for c in recorded_calls(recorded)]
    StreamMachine().feed_all(events)  # a valid AG-UI stream


async def test_a_frontend_tool_conversation_plays_turn_after_turn() -> None:
    """Turn 2 is answered only when it holds turn 1's call and the recorded result."""
    turns = recorded_sse_events(FRONTEND)
    question = {"id": "u1", "role": "user", "content": "Please make my page background dark slate."}
    async with asgi_client(create_app()) as client:
        first = events_of((await client.post("/agents/replay", json=run_input([question]))).text)
        assert calls(first) == recorded_calls(turns[0])
        assert text(first) == recorded_text(turns[0])
        machine = StreamMachine()
        machine.feed_all(first)
        (call_id, _, _) = calls(first)[0]
        history = (
            machine.messages
        )  # the input's messages and the assistant turn, as a UI keeps them
        answer = {
            "id": "tm1",
            "role": "tool",
            "toolCallId": call_id,
            "content": "background is now #2f3e46",
        }
        messages = [m.model_dump(by_alias=True, exclude_none=True) for m in history] + [answer]
        second = events_of(
            (await client.post("/agents/replay", json=run_input(messages, run="r2"))).text
        )
        assert second[-1]["type"] == "RUN_FINISHED", second[-1]
        assert text(second) == recorded_text(turns[1])
        assert calls(second) == []

        wrong = [*messages[:-1], {**answer, "content": "it is pink now"}]
        third = events_of(
            (await client.post("/agents/replay", json=run_input(wrong, run="r3"))).text
        )
    assert [e["type"] for e in third] == ["RUN_STARTED", "RUN_ERROR"]
    assert third[1]["code"] == "replay_no_match"
    assert "frontend_tool_conversation.yaml#1" in third[1]["message"]
    assert "it is pink now" in third[1]["message"]


async def test_replay_from_a_configured_cassette_only() -> None:
    app = create_app({"agents": [{"provider": "replay", "cassettes": [str(FRONTEND)]}]})
    demo = demo_input()
    async with asgi_client(app) as client:
        r = await client.post("/agents/replay", json=demo)
    events = events_of(r.text)
    assert events[-1]["type"] == "RUN_ERROR"
    assert "(2 compared)" in events[-1]["message"]


async def test_a_recorded_vendor_error_replays_as_run_error() -> None:
    """overloaded_error.yaml: text, then Anthropic's in-stream error event, read by the SDK."""
    cassette = CASSETTES / "anthropic" / "overloaded_error.yaml"
    (recorded_error,) = [e for e in recorded_sse_events(cassette)[0] if e["type"] == "error"]
    app = create_app({"agents": [{"provider": "replay", "cassettes": [str(cassette)]}]})
    async with asgi_client(app) as client:
        question = recorded_requests(cassette)[0]["messages"][0]["content"]
        r = await client.post(
            "/agents/replay", json=run_input([{"id": "u1", "role": "user", "content": question}])
        )
    events = events_of(r.text)
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == recorded_error["error"]["type"]
    assert events[-1]["message"] == recorded_error["error"]["message"]
    assert text(events) == recorded_text(recorded_sse_events(cassette)[0])


async def test_the_replaying_transport_checks_what_the_sdk_really_sent() -> None:
    """The vendor SDK's own request must be the recorded one, or the SDK gets a 400 naming why."""
    import anthropic

    turn = next(t for t in index_recordings([FRONTEND]) if t.source.endswith("#0"))
    client = replay_client(turn)
    recorded = recorded_requests(FRONTEND)[0]
    async with await client.messages.create(**recorded) as stream:
        kinds = [event.type async for event in stream]
    assert kinds == [e["type"] for e in recorded_sse_events(FRONTEND)[0]]
    with pytest.raises(anthropic.BadRequestError) as info:
        await client.messages.create(
            **{**recorded, "messages": [{"role": "user", "content": "hm"}]}
        )
    assert "frontend_tool_conversation.yaml#0" in str(info.value)
    assert 'now "hm"' in str(info.value)
