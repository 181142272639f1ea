"""Paths and small readers shared by the openai_chat tests (no toolwire decoding here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ag_ui.core import (
    BaseEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)

ROOT = Path(__file__).resolve().parents[2]
PROJECT_CASSETTES = ROOT / "cassettes" / "openai_chat"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "conformance" / "cassettes" / "openai_chat"
REFERENCE_STREAM = SHARED / "reference" / "streams" / "openai_chat.sse"


@dataclass
class Seen:
    """What an AG-UI event list says, per assistant message: text and calls in start order."""

    text: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)


def summarize(events: list[BaseEvent]) -> dict[str, Seen]:
    out: dict[str, Seen] = {}
    args: dict[str, list[str]] = {}
    names: dict[str, tuple[str, str]] = {}
    order: list[str] = []
    for ev in events:
        if isinstance(ev, TextMessageContentEvent):
            out.setdefault(ev.message_id, Seen()).text += ev.delta
        elif isinstance(ev, ToolCallStartEvent):
            parent = ev.parent_message_id or ""
            out.setdefault(parent, Seen())
            if ev.tool_call_id not in names:
                names[ev.tool_call_id] = (parent, ev.tool_call_name)
                order.append(ev.tool_call_id)
                args[ev.tool_call_id] = []
        elif isinstance(ev, ToolCallArgsEvent):
            args[ev.tool_call_id].append(ev.delta)
    for cid in order:
        parent, name = names[cid]
        out[parent].calls.append((cid, name, "".join(args[cid])))
    return out


def dumped(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]
