"""Downgrading an AG-UI stream for a peer from before content parts.

A peer that sends no ``protocolVersion`` predates content parts: tool-result
content (and message content in snapshots and run input) becomes its text
parts joined in order; every dropped part is announced. Nothing else changes:
same ids, same order, same outcome, no placeholder.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    MessagesSnapshotEvent,
    RunStartedEvent,
    ToolCallResultEvent,
    ToolMessage,
    UserMessage,
)

from toolwire.losses import Loss, announce
from toolwire.protocol.fitting import flatten

LEGACY_PEER = "a peer without protocolVersion (before content parts)"

#: How to keep the parts: the peer states its version. A ``RunAgentInput`` built in Python
#: is such a peer too (it says nothing, so the protocol's rule reads it as pre-1.0).
STATE_THE_VERSION = (
    "upgrade the peer to AG-UI 1.0 content parts and have it state protocolVersion; for a "
    "RunAgentInput you build in Python, pass protocol_version=ag_ui.core.PROTOCOL_VERSION"
)


def _flatten_messages(messages: list[Any], losses: list[Loss]) -> list[Any]:
    out = []
    for m in messages:
        if isinstance(m, (ToolMessage, UserMessage)) and isinstance(m.content, list):
            cid = m.tool_call_id if isinstance(m, ToolMessage) else None
            text, lost = flatten(
                m.content, target=LEGACY_PEER, tool_call_id=cid, upgrade=STATE_THE_VERSION
            )
            losses.extend(lost)
            m = m.model_copy(update={"content": text})
        out.append(m)
    return out


#: the event types a legacy peer may need reshaped (content parts flattened)
_RESHAPED = frozenset(
    {EventType.TOOL_CALL_RESULT, EventType.MESSAGES_SNAPSHOT, EventType.RUN_STARTED}
)


def downgrade_event(event: BaseEvent) -> tuple[BaseEvent, list[Loss]]:
    """One event reshaped for a legacy peer, with what it lost."""
    losses: list[Loss] = []
    if event.type not in _RESHAPED:  # the commonest events: nothing to reshape
        return event, losses
    if isinstance(event, ToolCallResultEvent) and isinstance(event.content, list):
        text, losses = flatten(
            event.content,
            target=LEGACY_PEER,
            tool_call_id=event.tool_call_id,
            upgrade=STATE_THE_VERSION,
        )
        return event.model_copy(update={"content": text}), losses
    if isinstance(event, MessagesSnapshotEvent):
        msgs = _flatten_messages(list(event.messages), losses)
        return event.model_copy(update={"messages": msgs}), losses
    if isinstance(event, RunStartedEvent) and event.input is not None:
        msgs = _flatten_messages(list(event.input.messages), losses)
        if losses:
            new_input = event.input.model_copy(update={"messages": msgs})
            return event.model_copy(update={"input": new_input}), losses
    return event, losses


def downgrade_stream(events: Iterable[BaseEvent], *, warn: bool = True) -> Iterator[BaseEvent]:
    """Every event reshaped for a legacy peer; each loss is warned about (unless ``warn``)."""
    for event in events:
        out, losses = downgrade_event(event)
        if warn:
            announce(losses, stacklevel=3)
        yield out


__all__ = ["LEGACY_PEER", "STATE_THE_VERSION", "downgrade_event", "downgrade_stream"]
