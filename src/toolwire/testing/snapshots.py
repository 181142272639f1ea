"""AG-UI snapshots: what the UI would receive, as byte-stable JSONL, and an event-level diff.

A replayed cassette gives the same events every time except for what the caller or the clock
makes up: event ``timestamp``\\s and the thread and run ids a caller mints per run (``uuid4``).
:func:`normalized_events` drops timestamps and renames those ids to ``thread-1``, ``run-1``, … in
the order they first appear, everywhere they occur (``RUN_STARTED.input`` too); every other id
(messages, tool calls: the vendor's or minted from stable inputs) is kept, since a change there is
a change the UI would see. :func:`snapshot_text` is one JSON object per line, ``type`` first and
the other keys sorted, so a dependency upgrade reordering model fields does not churn snapshots.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from toolwire.errors import UnsupportedInput
from toolwire.matching import MISSING, difference_at
from toolwire.recordings import jsonl_chunks
from toolwire.testing.jsonwalk import slots

_RUN_KEYS = (("threadId", "thread"), ("runId", "run"), ("parentRunId", "run"))
_SHOWN = 80
_MAX_CHANGES = 25


def _as_dict(event: Any) -> dict[str, Any]:
    if isinstance(event, Mapping):
        return json.loads(json.dumps(event))  # type: ignore[no-any-return]
    dump = getattr(event, "model_dump", None)
    if dump is None:
        raise UnsupportedInput(f"snapshot: not an AG-UI event: {type(event).__name__}")
    out: dict[str, Any] = dump(mode="json", by_alias=True, exclude_none=True)
    return out


def _renames(events: list[dict[str, Any]]) -> dict[str, str]:
    names: dict[str, str] = {}
    counts = {"thread": 0, "run": 0}
    for ev in events:
        inner = ev.get("input")
        for where in (ev, inner if isinstance(inner, dict) else {}):
            for key, kind in _RUN_KEYS:
                value = where.get(key)
                if isinstance(value, str) and value and value not in names:
                    counts[kind] += 1
                    names[value] = f"{kind}-{counts[kind]}"
    return names


def _renamed(value: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    for holder, key in slots(value):
        node = holder[key]
        if isinstance(node, str) and node in names:
            holder[key] = names[node]
    return value


def normalized_events(events: Iterable[Any]) -> list[dict[str, Any]]:
    """The events as JSON objects with timestamps dropped and caller-minted run ids renamed."""
    out = [_as_dict(e) for e in events]
    for ev in out:
        ev.pop("timestamp", None)
    names = _renames(out)
    return [_renamed(ev, names) for ev in out] if names else out


def event_line(event: Mapping[str, Any]) -> str:
    """One normalized event as its snapshot line (no newline)."""
    ordered = {"type": event.get("type")} | {k: event[k] for k in sorted(event) if k != "type"}
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))


def snapshot_text(events: Iterable[Any]) -> str:
    """The snapshot file's text: one normalized event per line, each line ending in ``\\n``."""
    return "".join(event_line(e) + "\n" for e in normalized_events(events))


def read_snapshot(text: str) -> list[dict[str, Any]]:
    """A snapshot file's events (the lines :func:`snapshot_text` wrote)."""
    out = jsonl_chunks(text.encode("utf-8"))
    for n, value in enumerate(out, 1):
        if not isinstance(value, dict):
            raise UnsupportedInput(f"snapshot event {n} is not a JSON object")
    return out


def _show(value: Any) -> str:
    if value is MISSING:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _label(ev: Mapping[str, Any]) -> str:
    kind = str(ev.get("type", "?"))
    for key in ("toolCallId", "messageId", "runId", "name"):
        value = ev.get(key)
        if isinstance(value, str) and value:
            return f"{kind} for {value}"
    return kind


def _changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    if old.get("type") != new.get("type"):
        return f"{_label(old)} → {_label(new)}"
    found = difference_at(old, new, "")
    if found is None:  # pragma: no cover - equal lines never reach here
        return _label(new)
    at, a, b = found
    return f"{_label(new)}: {at.lstrip('.') or 'event'} {_show(a)} → {_show(b)}"


def describe_changes(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """What changed from the snapshot's events to this run's, one line per event.

    Events are aligned on their whole lines (difflib), so an inserted event shows as one ``+``
    and not as every later event changed; an event replaced by one of its kind names the first
    field that differs (``TOOL_CALL_ARGS for call_x: delta "{…}" → "{…}"``).
    """
    a, b = [event_line(e) for e in old], [event_line(e) for e in new]
    lines: list[str] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(paired):
            lines.append(f"event {j1 + k}: {_changed(old[i1 + k], new[j1 + k])}")
        for k in range(i1 + paired, i2):
            lines.append(f"event {k} (snapshot): - {_label(old[k])} (gone)")
        for k in range(j1 + paired, j2):
            lines.append(f"event {k}: + {_label(new[k])} (new)")
    if len(lines) > _MAX_CHANGES:
        rest = len(lines) - _MAX_CHANGES
        lines = [*lines[:_MAX_CHANGES], f"... and {rest} more changed events"]
    return lines


__all__ = [
    "describe_changes",
    "event_line",
    "normalized_events",
    "read_snapshot",
    "snapshot_text",
]
