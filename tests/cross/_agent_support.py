"""Scripted model turns for the agent-loop tests (the driver's and the server's): AG-UI
events said in a vendor's own words (``reply_of_turn``: the adapter's encoder and SSE
framing), served by FakeVendor; the run input they answer; a backend tool that hangs."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.testing.fake_vendor import Reply, reply_of_turn

#: a 1x1 PNG
PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJ"
    "RU5ErkJggg=="
)
PNG = base64.b64decode(PNG_B64)

CONFIRM = {
    "name": "confirm_booking",
    "description": "Ask the user to confirm a booking.",
    "parameters": {
        "type": "object",
        "properties": {"hotel": {"type": "string"}},
        "required": ["hotel"],
    },
}


def turn_events(
    calls: list[tuple[str, str, dict[str, Any]]] = (),  # type: ignore[assignment]
    *,
    text: str | None = None,
    message_id: str = "msg_1",
    input_tokens: int = 10,
    output_tokens: int = 5,
) -> list[BaseEvent]:
    """One model turn: optional text, then the calls (id, name, arguments), then its end."""
    out: list[BaseEvent] = [RunStartedEvent(thread_id="t", run_id="r")]
    if text is not None:
        out += [
            TextMessageStartEvent(message_id=message_id, role="assistant"),
            TextMessageContentEvent(message_id=message_id, delta=text),
            TextMessageEndEvent(message_id=message_id),
        ]
    for cid, name, args in calls:
        out += [
            ToolCallStartEvent(tool_call_id=cid, tool_call_name=name, parent_message_id=message_id),
            ToolCallArgsEvent(tool_call_id=cid, delta=json.dumps(args)),
            ToolCallEndEvent(tool_call_id=cid),
        ]
    usage = TokenUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )
    out.append(RunFinishedEvent(thread_id="t", run_id="r", usage=[usage]))
    return out


def turn(vendor: str, *args: Any, **kw: Any) -> Reply:
    return reply_of_turn(vendor, turn_events(*args, **kw))


def agent_input(*, tools: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "threadId": "thread-1",
        "runId": "run-1",
        "protocolVersion": PROTOCOL_VERSION,
        "messages": [{"id": "u1", "role": "user", "content": "Book me a hotel in Oslo."}],
        "tools": [CONFIRM] if tools is None else tools,
        "context": [],
        "state": None,
        "forwardedProps": {},
    }
    data.update(extra)
    return data


def requests_json(fv: Any) -> list[dict[str, Any]]:
    return [json.loads(r.body) for r in fv.requests]


class Settable(Protocol):
    def set(self) -> None: ...


def hanging_tool(started: Settable, cancelled: Settable) -> Callable[[str], Awaitable[str]]:
    """A backend tool ``get_weather(city)`` that sets ``started`` and then waits 30 s, long
    past any test, unless it is cancelled, which sets ``cancelled`` (``asyncio`` or
    ``threading`` events alike: the server runs it in another thread)."""

    async def get_weather(city: str) -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    return get_weather


__all__ = [
    "CONFIRM",
    "PNG",
    "PNG_B64",
    "agent_input",
    "hanging_tool",
    "requests_json",
    "turn",
    "turn_events",
]
