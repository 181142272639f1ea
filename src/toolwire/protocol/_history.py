"""History assembly: the messages a stream builds, as ``ag_ui`` messages on request.

:class:`History` is the sequence rules' :class:`~toolwire.protocol._ledger.Ledger` that
also keeps each message's content, each call's argument text, the metadata and the
encrypted values the events carry, and builds the conversation from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from io import StringIO
from typing import Any

import ag_ui.core as ag
from ag_ui.core import BaseEvent, EventType, Message, ToolCall

from toolwire.protocol._ledger import CallRecord, Ledger, MessageRecord

#: Metadata key under which toolwire carries a tool result's error text on
#: ``TOOL_CALL_RESULT`` (the event has no ``error`` field); history assembly
#: moves it to ``ToolMessage.error``.
RESULT_ERROR_KEY = "toolwire.error"

# argument deltas held as separate strings before they are folded into one buffer
_FOLD_AT = 64


@dataclass(slots=True)
class _Msg(MessageRecord):
    name: str | None = None
    content: list[str] = field(default_factory=list)
    parts: Any = None  # tool message content (str or parts)
    tool_call_id: str | None = None
    calls: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    encrypted: str | None = None
    model: Message | None = None  # a message taken whole from a snapshot or input


@dataclass(slots=True)
class _Call(CallRecord):
    # the last few deltas, and what came before them folded into one buffer: a str per
    # delta costs a header and a list slot (57 B) each, the buffer only the text
    pieces: list[str] = field(default_factory=list)
    folded: StringIO | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    encrypted: str | None = None

    def add(self, delta: str) -> None:
        pieces = self.pieces
        pieces.append(delta)
        if len(pieces) >= _FOLD_AT:
            if self.folded is None:
                self.folded = StringIO()
            self.folded.write("".join(pieces))
            pieces.clear()

    def arguments(self) -> str:
        tail = "".join(self.pieces)
        return tail if self.folded is None else self.folded.getvalue() + tail


def _merge(target: dict[str, Any], ev: BaseEvent) -> None:
    if ev.metadata:
        target.update(ev.metadata)


class History(Ledger):
    """The ledger that also assembles the conversation (see the module docstring)."""

    keeps_history = True
    _message_cls = _Msg
    _call_cls = _Call
    msgs: dict[str, _Msg]  # type: ignore[assignment]
    calls: dict[str, _Call]  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self._order: list[str] = []
        self._pending_encrypted: dict[tuple[str, str], ag.ReasoningEncryptedValueEvent] = {}

    def _take_encrypted(self, kind: str, ident: str, target: _Msg | _Call) -> None:
        enc = self._pending_encrypted.pop((kind, ident), None)
        if enc is not None:
            target.encrypted = enc.encrypted_value
            _merge(target.metadata, enc)

    def _record(self, mid: str, role: str, owner: str | None, name: str | None) -> _Msg:
        msg = _Msg(mid, role, owner, name)
        self._take_encrypted("message", mid, msg)
        self._order.append(mid)
        return msg

    def _call(self, ev: ag.ToolCallStartEvent, owner: str | None) -> _Call:
        call = _Call(ev.tool_call_id, ev.tool_call_name, ev.parent_message_id, owner)
        self._take_encrypted("tool-call", call.id, call)
        return call

    def _attached(self, msg: _Msg, call: CallRecord) -> None:
        msg.calls.append(call.id)

    def call_ended(self, call: CallRecord) -> None:
        """A closed call keeps its record: the history reads its arguments and metadata."""

    def _adopted_call(self, tc: ToolCall, mid: str, owner: str | None) -> _Call:
        return _Call(tc.id, tc.function.name, mid, owner)

    def hooks(self) -> dict[EventType, Callable[[Any], None]]:
        def message_meta(ev: Any) -> None:
            _merge(self.msgs[ev.message_id].metadata, ev)

        def call_meta(ev: Any) -> None:
            _merge(self.calls[ev.tool_call_id].metadata, ev)

        t = EventType
        return {
            t.TEXT_MESSAGE_START: message_meta,
            t.TEXT_MESSAGE_CONTENT: self._content,
            t.TEXT_MESSAGE_END: message_meta,
            t.REASONING_MESSAGE_START: message_meta,
            t.REASONING_MESSAGE_CONTENT: self._content,
            t.REASONING_MESSAGE_END: message_meta,
            t.REASONING_ENCRYPTED_VALUE: self._encrypted,
            t.TOOL_CALL_START: call_meta,
            t.TOOL_CALL_ARGS: self._arguments,
            t.TOOL_CALL_END: call_meta,
            t.TOOL_CALL_RESULT: self._result,
        }

    def _content(self, ev: Any) -> None:
        msg = self.msgs[ev.message_id]
        msg.content.append(ev.delta)
        _merge(msg.metadata, ev)

    def _arguments(self, ev: ag.ToolCallArgsEvent) -> None:
        call = self.calls[ev.tool_call_id]
        call.add(ev.delta)
        _merge(call.metadata, ev)

    def _result(self, ev: ag.ToolCallResultEvent) -> None:
        msg = self.msgs[ev.message_id]
        msg.parts = ev.content
        msg.tool_call_id = ev.tool_call_id
        _merge(msg.metadata, ev)

    def _encrypted(self, ev: ag.ReasoningEncryptedValueEvent) -> None:
        # the event's metadata (e.g. who issued the value) merges into the entity it names
        target: _Msg | _Call | None = None
        if ev.subtype == "tool-call":
            target = self.calls.get(ev.entity_id)
        elif ev.subtype == "message":
            target = self.msgs.get(ev.entity_id)
        if target is None:
            self._pending_encrypted[(ev.subtype, ev.entity_id)] = ev
            return
        target.encrypted = ev.encrypted_value
        _merge(target.metadata, ev)

    def restart(self, *, open_ids: set[str]) -> None:
        super().restart(open_ids=open_ids)
        self._order = [i for i in self._order if i in self.msgs]
        # a message still open keeps only the calls still open: one it ended before the
        # snapshot went with the history the snapshot replaced (the sequence check forgot
        # it too, so the history never names a call the check does not know)
        calls = self.calls
        for msg in self.msgs.values():
            if msg.calls:
                msg.calls = [cid for cid in msg.calls if cid in calls]

    def _adopted(self, m: Message, owner: str | None) -> _Msg:
        self._order.append(m.id)
        return _Msg(m.id, m.role, owner, model=m)

    def messages(self) -> list[Message]:
        """The conversation history assembled so far."""
        return [self._build(self.msgs[i]) for i in self._order]

    def _tool_calls(self, msg: _Msg) -> list[ToolCall]:
        calls = []
        for cid in msg.calls:
            c = self.calls[cid]
            kw: dict[str, Any] = {}
            if c.encrypted is not None:
                kw["encrypted_value"] = c.encrypted
            if c.metadata:
                kw["metadata"] = dict(c.metadata)
            function = ag.FunctionCall(name=c.name, arguments=c.arguments())
            calls.append(ToolCall(id=c.id, function=function, **kw))
        return calls

    def _build(self, msg: _Msg) -> Message:
        if msg.model is not None and not msg.calls and not msg.content:
            return msg.model
        base: dict[str, Any] = {"id": msg.id}
        if msg.owner is not None:
            base["subagent_run_id"] = msg.owner
        meta = dict(msg.metadata)
        kw: dict[str, Any] = {"metadata": meta} if meta else {}
        if msg.encrypted is not None:
            kw["encrypted_value"] = msg.encrypted
        if msg.role == "tool":
            error = meta.get(RESULT_ERROR_KEY)
            if isinstance(error, str):
                kw["error"] = error
            return ag.ToolMessage(
                **base, content=msg.parts, tool_call_id=msg.tool_call_id or "", **kw
            )
        text = "".join(msg.content)
        if msg.role == "reasoning":
            return ag.ReasoningMessage(**base, content=text, **kw)
        if msg.name is not None:
            kw["name"] = msg.name
        if msg.role != "assistant":
            cls = {
                "user": ag.UserMessage,
                "system": ag.SystemMessage,
                "developer": ag.DeveloperMessage,
            }
            return cls[msg.role](**base, content=text, **kw)  # type: ignore[no-any-return]
        calls = self._tool_calls(msg)
        prior = msg.model if isinstance(msg.model, ag.AssistantMessage) else None
        if prior is not None:
            calls = list(prior.tool_calls or []) + calls
            text = (prior.content or "") + text
        if calls:
            kw["tool_calls"] = calls
        if text or not calls:
            kw["content"] = text
        return ag.AssistantMessage(**base, **kw)


__all__ = ["RESULT_ERROR_KEY", "History"]
