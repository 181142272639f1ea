"""The official TypeScript client (@ag-ui/client's HttpAgent) against the served endpoint.

Every run goes through the client's own event enforcement and verifier; a stream it rejects
fails the run. Expected calls and text come from the recordings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _serve import (
    CASSETTES,
    DEMO,
    FRONTEND,
    calls,
    demo_input,
    live_server,
    recorded_calls,
    recorded_sse_events,
    recorded_text,
    text,
)

from toolwire.server import create_app

Client = Callable[[dict[str, Any], Path], dict[str, Any]]


def _accepted(out: dict[str, Any]) -> list[list[dict[str, Any]]]:
    assert out["exit"] == 0, [r["error"] for r in out["runs"]]
    assert all(r["error"] is None for r in out["runs"])
    return [r["events"] for r in out["runs"]]


def test_a_frontend_tool_round_trip_through_the_official_client(
    ag_ui_client: Client, tmp_path: Path
) -> None:
    turns = recorded_sse_events(FRONTEND)
    with live_server(create_app()) as (_, base):
        out = ag_ui_client(
            {
                "url": f"{base}/agents/replay",
                "threadId": "ui-thread",
                "messages": [
                    {
                        "id": "u1",
                        "role": "user",
                        "content": "Please make my page background dark slate.",
                    }
                ],
                "answers": {"change_background": "background is now #2f3e46"},
            },
            tmp_path,
        )
    first, second = _accepted(out)
    assert calls(first) == recorded_calls(turns[0])
    assert text(first) == recorded_text(turns[0])
    assert text(second) == recorded_text(turns[1])
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "tool", "assistant"]


def test_the_demo_conversation_continues_with_its_signed_thinking(
    ag_ui_client: Client, tmp_path: Path
) -> None:
    """The demo's input, then its follow-up recording: the reasoning goes back signed."""
    demo = demo_input()
    follow_up = CASSETTES / "anthropic" / "thinking_tool_results_followup.yaml"
    with live_server(create_app()) as (_, base):
        out = ag_ui_client(
            {
                "url": f"{base}/agents/replay",
                "threadId": demo["threadId"],
                "messages": demo["messages"],
                "tools": demo["tools"],
                "answers": {
                    "get_weather": "14°C, light rain",
                    "get_time": [{"type": "text", "text": "2025-11-29T22:41:07+09:00"}],
                },
            },
            tmp_path,
        )
    first, second = _accepted(out)
    assert calls(first) == recorded_calls(recorded_sse_events(DEMO)[0])
    assert text(second) == recorded_text(recorded_sse_events(follow_up)[0])
    reasoning = [m for m in out["messages"] if m["role"] == "reasoning"]
    signed = [
        e
        for e in recorded_sse_events(DEMO)[0]
        if e.get("delta", {}).get("type") == "signature_delta"
    ]
    assert [m["encryptedValue"] for m in reasoning] == [signed[0]["delta"]["signature"]]


def test_a_conversation_with_no_recording_ends_in_run_error_the_client_accepts(
    ag_ui_client: Client, tmp_path: Path
) -> None:
    with live_server(create_app()) as (_, base):
        out = ag_ui_client(
            {
                "url": f"{base}/agents/replay",
                "threadId": "t-none",
                "messages": [{"id": "u1", "role": "user", "content": "hello"}],
            },
            tmp_path,
        )
    (events,) = _accepted(out)
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert '"hello"' in events[1]["message"] and json.dumps(events)
