"""Shared by the cohere tests: paths, the SDK's own reading of a cassette, an event summary.

Nothing here decodes with toolwire: the SDK's typed events are the reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cohere
from ag_ui.core import (
    BaseEvent,
    ReasoningMessageContentEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)

from toolwire.testing import replay
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / "cohere"


def load(name: str) -> tuple[dict[str, Any], bytes]:
    ex = recording(CASSETTES / name)[0]
    return ex.request_body, ex.response_body


def close(client: Any) -> None:
    """Close a sync SDK client's connections (the SDK leaves its pool to the collector)."""
    client._client_wrapper.httpx_client.httpx_client.close()


def sdk(name: str) -> Any:
    """The SDK's parse: the recorded request re-issued through ``chat_stream`` / ``chat``."""
    body, _ = load(name)
    kw = {k: v for k, v in body.items() if k != "stream"}
    client = cohere.ClientV2(api_key="test-key", base_url="https://api.cohere.com")
    try:
        with replay(str(CASSETTES / name), match="path"):  # the SDK writes its own defaults
            if body.get("stream"):
                return list(client.chat_stream(**kw))
            return client.chat(**kw)
    finally:
        close(client)


@dataclass
class Seen:
    thinking: str = ""
    text: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)


def summarize(events: list[BaseEvent]) -> Seen:
    out = Seen()
    args: dict[str, list[str]] = {}
    names: list[tuple[str, str]] = []
    for ev in events:
        if isinstance(ev, ReasoningMessageContentEvent):
            out.thinking += ev.delta
        elif isinstance(ev, TextMessageContentEvent):
            out.text += ev.delta
        elif isinstance(ev, ToolCallStartEvent):
            names.append((ev.tool_call_id, ev.tool_call_name))
            args[ev.tool_call_id] = []
        elif isinstance(ev, ToolCallArgsEvent):
            args[ev.tool_call_id].append(ev.delta)
    out.calls = [(cid, name, "".join(args[cid])) for cid, name in names]
    return out


def sdk_seen(parsed: Any) -> Seen:
    """The same summary from the SDK's objects, the way an SDK user accumulates them."""
    out = Seen()
    if not isinstance(parsed, list):
        m = parsed.message
        out.text += m.tool_plan or ""
        for item in m.content or []:
            if item.type == "thinking":
                out.thinking += item.thinking
            else:
                out.text += item.text
        for c in m.tool_calls or []:
            out.calls.append((c.id, c.function.name, c.function.arguments or ""))
        return out
    calls: dict[int, list[str]] = {}
    kinds: dict[int, str] = {}
    for ev in parsed:
        if ev.type == "tool-plan-delta":
            out.text += ev.delta.message.tool_plan or ""
        elif ev.type == "content-start":
            kinds[ev.index] = ev.delta.message.content.type
        elif ev.type == "content-delta":
            item = ev.delta.message.content
            if kinds.get(ev.index) == "thinking":
                out.thinking += item.thinking or ""
            else:
                out.text += item.text or ""
        elif ev.type == "tool-call-start":
            tc = ev.delta.message.tool_calls
            calls[ev.index] = [tc.id, tc.function.name, tc.function.arguments or ""]
        elif ev.type == "tool-call-delta":
            calls[ev.index][2] += ev.delta.message.tool_calls.function.arguments or ""
    out.calls = [(c[0], c[1], c[2]) for _, c in sorted(calls.items())]
    return out
