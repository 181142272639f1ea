"""Shared by the mistral tests: paths, the SDK's own reading of a cassette, an event summary.

Nothing here decodes with toolwire: the SDK's parsed objects are the reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ag_ui.core import (
    BaseEvent,
    ReasoningMessageContentEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)
from mistralai.client import Mistral

from toolwire.testing import replay
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / "mistral"


def load(name: str) -> tuple[dict[str, Any], bytes]:
    ex = recording(CASSETTES / name)[0]
    return ex.request_body, ex.response_body


def sdk(name: str) -> Any:
    """The SDK's parse: the recorded request re-issued through ``chat.stream`` / ``complete``."""
    body, _ = load(name)
    kw = {k: v for k, v in body.items() if k != "stream"}
    client = Mistral(api_key="test-key")
    with replay(str(CASSETTES / name), match="path"):  # the SDK adds its defaults (prefix)
        if body.get("stream"):
            with client.chat.stream(**kw) as events:
                return list(events)
        return client.chat.complete(**kw)


@dataclass
class Seen:
    thinking: str = ""
    text: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    finish: str | None = None


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


def _content(out: Seen, content: Any) -> None:
    if isinstance(content, str):
        out.text += content
        return
    for chunk in content or []:
        if chunk.type == "text":
            out.text += chunk.text
        elif chunk.type == "thinking":
            out.thinking += "".join(t.text for t in chunk.thinking if t.type == "text")


def sdk_seen(parsed: Any) -> Seen:
    """The same summary from the SDK's objects (a stream's events, or a whole response)."""
    out = Seen()
    if isinstance(parsed, list):
        for event in parsed:
            for choice in event.data.choices:
                _content(out, choice.delta.content)
                for c in choice.delta.tool_calls or []:
                    out.calls.append((c.id, c.function.name, c.function.arguments))
                out.finish = choice.finish_reason or out.finish
        return out
    (choice,) = parsed.choices
    _content(out, choice.message.content)
    for c in choice.message.tool_calls or []:
        out.calls.append((c.id, c.function.name, c.function.arguments))
    out.finish = choice.finish_reason
    return out
