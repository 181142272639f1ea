"""Chunk expansion: ``*_CHUNK`` events as the explicit start / content / end events.

A chunk stream is assembled per lane (the parent run, or one subagent's run): its
first chunk opens the item and must carry the id (and a tool call's name), later
chunks continue it, and the first event of another kind in the same lane (or any
run event) closes it with a synthesized ``*_END``. The explicit events this module
makes still go through the sequence rules (:mod:`toolwire.protocol._sequence`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningMessageChunkEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.errors import ProtocolViolation

CHUNK_TYPES = frozenset(
    {EventType.TOOL_CALL_CHUNK, EventType.TEXT_MESSAGE_CHUNK, EventType.REASONING_MESSAGE_CHUNK}
)
# events that pass a lane without closing its chunk stream
_LANE_PASS = frozenset(
    {
        EventType.RAW,
        EventType.ACTIVITY_SNAPSHOT,
        EventType.ACTIVITY_DELTA,
        EventType.REASONING_ENCRYPTED_VALUE,
        EventType.SUBAGENT_STARTED,
    }
)
# events that close every lane's chunk stream
_ALL_LANES = frozenset(
    {
        EventType.RUN_STARTED,
        EventType.RUN_FINISHED,
        EventType.RUN_ERROR,
        EventType.MESSAGES_SNAPSHOT,
    }
)
# explicit events naming an item, by the kind of chunk stream that could be assembling it
_ITEM_KIND: dict[type[BaseEvent], tuple[str, str]] = {
    ToolCallStartEvent: ("tool", "tool_call_id"),
    ToolCallArgsEvent: ("tool", "tool_call_id"),
    ToolCallEndEvent: ("tool", "tool_call_id"),
    TextMessageStartEvent: ("text", "message_id"),
    TextMessageContentEvent: ("text", "message_id"),
    TextMessageEndEvent: ("text", "message_id"),
    ReasoningMessageStartEvent: ("reasoning", "message_id"),
    ReasoningMessageContentEvent: ("reasoning", "message_id"),
    ReasoningMessageEndEvent: ("reasoning", "message_id"),
}


def owner_of(event: BaseEvent) -> str | None:
    """The subagent run an event is tagged with (``None``: the parent run)."""
    value = getattr(event, "subagent_run_id", None)
    return value if isinstance(value, str) else None


def owner_tag(owner: str | None) -> dict[str, Any]:
    """The keyword that tags a made event with its owner (nothing for the parent run)."""
    return {"subagent_run_id": owner} if owner else {}


@dataclass(slots=True)
class _Chunking:
    """A chunk stream being expanded in one lane."""

    kind: str  # "tool" | "text" | "reasoning"
    id: str
    owner: str | None
    name: str | None = None
    parent: str | None = None
    role: str | None = None


def _end(c: _Chunking) -> BaseEvent:
    tag = owner_tag(c.owner)
    if c.kind == "tool":
        return ToolCallEndEvent(tool_call_id=c.id, **tag)
    if c.kind == "text":
        return TextMessageEndEvent(message_id=c.id, **tag)
    return ReasoningMessageEndEvent(message_id=c.id, **tag)


class ChunkExpander:
    """The chunk streams open per lane, and the explicit events each chunk stands for."""

    def __init__(self) -> None:
        self.lanes: dict[str | None, _Chunking] = {}

    def end_all(self) -> list[BaseEvent]:
        """The ``*_END`` of every chunk stream still open (they are closed)."""
        out = [_end(c) for c in self.lanes.values()]
        self.lanes.clear()
        return out

    def before(self, ev: BaseEvent, index: int) -> list[BaseEvent]:
        """The ``*_END`` events an explicit (non-chunk) event implies before it.

        An explicit event for an item a chunk stream is assembling is
        ``chunk-forms-mixed``. Only called while some lane is open.
        """
        kind = _ITEM_KIND.get(type(ev))
        if kind is None:  # a subclass of an event class names its item too
            kind = next((k for c, k in _ITEM_KIND.items() if isinstance(ev, c)), None)
        if kind is not None:
            ident = getattr(ev, kind[1])
            for c in self.lanes.values():
                if c.kind == kind[0] and c.id == ident:
                    raise ProtocolViolation(
                        "chunk-forms-mixed",
                        f"{ev.type.value} for {ident!r}, which a chunk stream is assembling",
                        index=index,
                    )
        if ev.type in _ALL_LANES:
            return self.end_all()
        if ev.type in _LANE_PASS:
            return []
        lane = owner_of(ev)
        return [_end(self.lanes.pop(lane))] if lane in self.lanes else []

    def _find(self, kind: str, ident: str | None, tag: str | None, index: int) -> _Chunking | None:
        if ident is not None:
            for c in self.lanes.values():
                if c.kind == kind and c.id == ident:
                    return c
            return None
        if tag is not None:
            tagged = self.lanes.get(tag)
            return tagged if tagged is not None and tagged.kind == kind else None
        parent = self.lanes.get(None)
        if parent is not None and parent.kind == kind:
            return parent
        others = [c for lane, c in self.lanes.items() if lane is not None and c.kind == kind]
        if len(others) > 1:
            raise ProtocolViolation(
                "chunk-ambiguous-lane",
                "an untagged chunk without an id cannot tell which subagent's stream it continues",
                index=index,
            )
        return others[0] if others else None

    def expand(self, ev: BaseEvent, index: int) -> list[BaseEvent]:
        """One ``*_CHUNK`` event -> the explicit events it stands for."""
        tag = owner_of(ev)
        if isinstance(ev, ToolCallChunkEvent):
            kind, ident = "tool", ev.tool_call_id
        elif isinstance(ev, TextMessageChunkEvent):
            kind, ident = "text", ev.message_id
        else:
            assert isinstance(ev, ReasoningMessageChunkEvent)
            kind, ident = "reasoning", ev.message_id
        stream = self._find(kind, ident, tag, index)
        if stream is None:
            return self._open(ev, kind, ident, tag, index)
        if tag is not None and stream.owner != tag:
            raise ProtocolViolation(
                "owner-mismatch",
                f"chunk tagged {tag!r} continues {stream.id!r} opened by {stream.owner!r}",
                index=index,
            )
        return self._continue(ev, stream, owner_tag(tag or stream.owner), index)

    def _open(
        self, ev: BaseEvent, kind: str, ident: str | None, tag: str | None, index: int
    ) -> list[BaseEvent]:
        if ident is None:
            code = "chunk-missing-tool-call-id" if kind == "tool" else "chunk-missing-message-id"
            raise ProtocolViolation(
                code, f"the first {ev.type.value} must carry its id", index=index
            )
        out: list[BaseEvent] = []
        if tag in self.lanes:
            out.append(_end(self.lanes.pop(tag)))
        own = owner_tag(tag)
        meta: dict[str, Any] = {"metadata": ev.metadata} if ev.metadata is not None else {}
        raw: dict[str, Any] = {"raw_event": ev.raw_event} if ev.raw_event is not None else {}
        if isinstance(ev, ToolCallChunkEvent):
            if ev.tool_call_name is None:
                raise ProtocolViolation(
                    "chunk-missing-tool-call-name",
                    f"the first TOOL_CALL_CHUNK of {ident!r} must carry toolCallName",
                    index=index,
                )
            stream = _Chunking(kind, ident, tag, ev.tool_call_name, ev.parent_message_id)
            start_kw: dict[str, Any] = {}
            if ev.parent_message_id is not None:
                start_kw["parent_message_id"] = ev.parent_message_id
            out.append(
                ToolCallStartEvent(
                    tool_call_id=ident, tool_call_name=ev.tool_call_name, **start_kw, **own, **meta
                )
            )
            if ev.delta is not None:
                out.append(ToolCallArgsEvent(tool_call_id=ident, delta=ev.delta, **own, **raw))
        elif isinstance(ev, TextMessageChunkEvent):
            stream = _Chunking(kind, ident, tag, role=ev.role)
            skw: dict[str, Any] = {"role": ev.role or "assistant"}
            if ev.name is not None:
                skw["name"] = ev.name
            out.append(TextMessageStartEvent(message_id=ident, **skw, **own, **meta))
            if ev.delta:
                out.append(TextMessageContentEvent(message_id=ident, delta=ev.delta, **own, **raw))
        else:
            assert isinstance(ev, ReasoningMessageChunkEvent)
            stream = _Chunking(kind, ident, tag)
            out.append(ReasoningMessageStartEvent(message_id=ident, **own, **meta))
            if ev.delta:
                out.append(
                    ReasoningMessageContentEvent(message_id=ident, delta=ev.delta, **own, **raw)
                )
        self.lanes[tag] = stream
        return out

    def _continue(
        self, ev: BaseEvent, stream: _Chunking, own: dict[str, Any], index: int
    ) -> list[BaseEvent]:
        meta: dict[str, Any] = {"metadata": ev.metadata} if ev.metadata is not None else {}
        if ev.raw_event is not None:
            meta["raw_event"] = ev.raw_event
        if isinstance(ev, ToolCallChunkEvent):
            repeated = (
                ("chunk-conflicting-name", "toolCallName", ev.tool_call_name, stream.name),
                (
                    "chunk-conflicting-parent",
                    "parentMessageId",
                    ev.parent_message_id,
                    stream.parent,
                ),
            )
            for code, wire, value, opened in repeated:
                if value is not None and value != opened:
                    raise ProtocolViolation(
                        code,
                        f"cannot continue tool call {stream.id!r}: {wire} {value!r}"
                        f" does not match {opened!r}",
                        index=index,
                    )
            if ev.delta is None and ev.metadata is None:
                return []
            return [ToolCallArgsEvent(tool_call_id=stream.id, delta=ev.delta or "", **own, **meta)]
        if isinstance(ev, TextMessageChunkEvent):
            if ev.role is not None and stream.role is not None and ev.role != stream.role:
                raise ProtocolViolation(
                    "chunk-conflicting-role",
                    f"cannot continue message {stream.id!r}: role {ev.role!r}",
                    index=index,
                )
            cls: type[TextMessageContentEvent | ReasoningMessageContentEvent] = (
                TextMessageContentEvent
            )
        else:
            assert isinstance(ev, ReasoningMessageChunkEvent)
            cls = ReasoningMessageContentEvent
        if not ev.delta and ev.metadata is None:
            return []
        return [cls(message_id=stream.id, delta=ev.delta or "", **own, **meta)]


__all__ = ["CHUNK_TYPES", "ChunkExpander", "owner_of", "owner_tag"]
