"""The replay provider over ASGI: recorded conversations play back, turn after turn.

Expected values come from the recordings themselves (their requests and streamed events),
never from the server's own output.
"""

from __future__ import annotations

from _serve import (
    DEMO,
    FRONTEND,
    asgi_client,
    calls,
    demo_input,
    events_of,
    recorded_calls,
    recorded_sse_events,
    recorded_text,
    run_input,
    text,
)

from toolwire.protocol.machine import StreamMachine
from toolwire.server import create_app


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
