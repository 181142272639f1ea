"""The tool calls of an AG-UI stream as (id, name, argument text): the view most assertions about
a decoded stream compare against a recording or a vendor SDK's own parse. It reads events as
``ag_ui.core`` objects or as their JSON (camelCase) dicts, so a test of the CLI output and a test
of the decoder share it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from toolwire.errors import UnsupportedInput


class CallText(NamedTuple):
    """One tool call: its id, its name and its argument deltas joined, in start order."""

    id: str
    name: str
    arguments: str


def _field(event: Any, json_key: str, attribute: str) -> Any:
    if isinstance(event, dict):
        return event.get(json_key)
    return getattr(event, attribute, None)


def _kind(event: Any) -> str:
    kind = _field(event, "type", "type")
    return str(getattr(kind, "value", kind))


def calls_from_events(events: Iterable[Any]) -> list[CallText]:
    """Every ``TOOL_CALL_START`` with the ``TOOL_CALL_ARGS`` deltas that follow it for the same
    id. Arguments for an id that never started are an error, not a silently new call."""
    names: dict[str, str] = {}
    args: dict[str, list[str]] = {}
    for i, e in enumerate(events):
        kind = _kind(e)
        if kind == "TOOL_CALL_START":
            call_id = _field(e, "toolCallId", "tool_call_id")
            names[call_id] = _field(e, "toolCallName", "tool_call_name")
            args.setdefault(call_id, [])
        elif kind == "TOOL_CALL_ARGS":
            call_id = _field(e, "toolCallId", "tool_call_id")
            if call_id not in args:
                raise UnsupportedInput(
                    f"event {i}: TOOL_CALL_ARGS for {call_id!r} before its TOOL_CALL_START"
                )
            args[call_id].append(_field(e, "delta", "delta"))
    return [CallText(cid, names[cid], "".join(parts)) for cid, parts in args.items()]


__all__ = ["CallText", "calls_from_events"]
