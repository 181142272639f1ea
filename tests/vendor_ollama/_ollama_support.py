"""Shared by the ollama tests: paths, the SDK's own reading of a body, an event summary.

Nothing here decodes with toolwire: what the SDK parses (its ``ChatResponse`` objects)
and what the raw lines say (``json.loads`` per line) are the references.
"""

from __future__ import annotations

import json
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

from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / "ollama"


def load(name: str) -> tuple[dict[str, Any], bytes]:
    ex = recording(CASSETTES / name)[0]
    return ex.request_body, ex.response_body


def raw_lines(body: bytes) -> list[dict[str, Any]]:
    """The body's objects, one per ``\\n``-ended line (``json.loads``, no toolwire)."""
    return [json.loads(line) for line in body.split(b"\n") if line.strip()]


@dataclass
class Seen:
    """What a turn says: thinking, text and calls ``(id, name, arguments text)`` in order."""

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


def sdk_seen(responses: list[Any]) -> Seen:
    """The same summary from the SDK's ``ChatResponse`` objects (no ids: the SDK drops them);
    arguments as the SDK holds them, a mapping, dumped compact here."""
    out = Seen()
    for r in responses:
        m = r.message
        out.thinking += m.thinking or ""
        out.text += m.content or ""
        for c in m.tool_calls or []:
            text = json.dumps(dict(c.function.arguments), separators=(",", ":"), ensure_ascii=False)
            out.calls.append(("", c.function.name, text))
    return out


def without_ids(seen: Seen) -> Seen:
    return Seen(seen.thinking, seen.text, [("", n, a) for _, n, a in seen.calls])
