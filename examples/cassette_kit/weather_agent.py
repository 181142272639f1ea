"""The agent under test: a two-turn weather assistant on Anthropic, streaming AG-UI events.

Turn 1 sends the user's question with two tools; the model calls them. The agent answers the
calls and turn 2 sends the history back; the model writes its reply. Your agent will differ:
what matters for the cassette kit is that it talks to the vendor through the vendor's SDK.
"""

from __future__ import annotations

import uuid
from typing import Any

import anthropic

import toolwire
from toolwire.protocol.machine import StreamMachine

MODEL = "claude-sonnet-4-5"
TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    {
        "name": "get_time",
        "description": "Local time in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
]
ANSWERS = {"get_weather": "14°C, light rain", "get_time": "22:41"}


def _run_input(thread_id: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "threadId": thread_id,
        "runId": str(uuid.uuid4()),  # fresh every run: the snapshot normalizes it
        "state": {},
        "messages": messages,
        "tools": TOOLS,
        "context": [],
        "forwardedProps": {},
    }


def converse(client: anthropic.Anthropic, question: str) -> list[Any]:
    """Both turns' AG-UI events, as the UI would receive them."""
    thread_id = "thread-" + uuid.uuid4().hex
    first = _run_input(thread_id, [{"id": "user-1", "role": "user", "content": question}])
    turn1 = list(toolwire.run(client, first, model=MODEL, max_tokens=1024))
    machine = StreamMachine()
    for event in turn1:
        machine.feed(event)
    history = [
        m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in machine.messages
    ]
    results = [
        {
            "id": "result-" + e.tool_call_id,
            "role": "tool",
            "toolCallId": e.tool_call_id,
            "content": ANSWERS[e.tool_call_name],
        }
        for e in turn1
        if e.type == "TOOL_CALL_START"
    ]
    turn2 = list(
        toolwire.run(client, _run_input(thread_id, history + results), model=MODEL, max_tokens=1024)
    )
    return turn1 + turn2
