"""What a stream leaves of the thread: the ledger the rules read, and the history it builds.

:class:`Ledger` keeps only what the sequence rules must know across events: every
message's id, role and owner, every tool call's id, name, parent, owner and argument
size, and which assistant message a call without a parent belongs to. It keeps no
text, arguments or metadata, so checking a long stream holds no more than that.
:class:`History` is the ledger that also assembles the conversation: content,
argument text, metadata and encrypted values, built as ``ag_ui`` messages on request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from io import StringIO
from typing import Any, cast

import ag_ui.core as ag
from ag_ui.core import BaseEvent, EventType, Message, ToolCall

from toolwire.errors import ToolwireError
from toolwire.protocol.chunks import owner_of
from toolwire.protocol.ids import mint_id

#: Metadata key under which toolwire carries a tool result's error text on
#: ``TOOL_CALL_RESULT`` (the event has no ``error`` field); history assembly
#: moves it to ``ToolMessage.error``.
RESULT_ERROR_KEY = "toolwire.error"

# argument deltas held as separate strings before they are folded into one buffer
_FOLD_AT = 64


@dataclass(slots=True)
class MessageRecord:
    id: str
    role: str
    owner: str | None


@dataclass(slots=True)
class CallRecord:
    id: str
    name: str
    parent: str | None
    owner: str | None
    size: int = 0  # characters of argument text so far


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


class Ledger:
    """The thread as the sequence rules need it (see the module docstring)."""

    keeps_history = False
    _message_cls: type[MessageRecord] = MessageRecord
    _call_cls: type[CallRecord] = CallRecord

    def __init__(self) -> None:
        self.msgs: dict[str, MessageRecord] = {}
        self.calls: dict[str, CallRecord] = {}
        self._last_assistant: str | None = None

    def _record(self, mid: str, role: str, owner: str | None) -> MessageRecord:
        return self._message_cls(mid, role, owner)

    def _call(self, ev: ag.ToolCallStartEvent, owner: str | None) -> CallRecord:
        return self._call_cls(ev.tool_call_id, ev.tool_call_name, ev.parent_message_id, owner)

    def _new_msg(self, mid: str, role: str, owner: str | None) -> MessageRecord:
        msg = self._record(mid, role, owner)
        self.msgs[mid] = msg
        if role in ("user", "tool"):
            self._last_assistant = None
        return msg

    # what the rules tell the ledger, each event after its checks passed
    def text_started(self, ev: ag.TextMessageStartEvent, role: str) -> MessageRecord:
        msg = self.msgs.get(ev.message_id) or self._new_msg(ev.message_id, role, owner_of(ev))
        if msg.role == "assistant":
            self._last_assistant = msg.id
        return msg

    def reasoning_started(self, ev: Any) -> MessageRecord:
        msg = self.msgs.get(ev.message_id)
        return msg or self._new_msg(ev.message_id, "reasoning", owner_of(ev))

    def call_started(
        self, ev: ag.ToolCallStartEvent, existing: CallRecord | None, owner: str | None
    ) -> CallRecord:
        if existing is not None:
            return existing
        call = self._call(ev, owner)
        self.calls[call.id] = call
        mid = call.parent
        if mid is None:
            mid = self._last_assistant or mint_id("msg", call.id)
        msg = self.msgs.get(mid) or self._new_msg(mid, "assistant", call.owner)
        self._attached(msg, call)
        self._last_assistant = mid
        return call

    # what only the history keeps (the ledger takes no content, arguments or metadata)
    def hooks(self) -> dict[EventType, Callable[[Any], None]]:
        """Handlers of the events that only add content, metadata or encrypted values."""
        return {}

    def _attached(self, msg: MessageRecord, call: CallRecord) -> None: ...

    def call_args(self, call: Any, ev: ag.ToolCallArgsEvent) -> None: ...

    def call_ended(self, call: Any, ev: ag.ToolCallEndEvent) -> None: ...

    def result(self, ev: ag.ToolCallResultEvent, existing: MessageRecord | None) -> MessageRecord:
        msg = existing or self._new_msg(ev.message_id, "tool", owner_of(ev))
        self._last_assistant = None
        return msg

    def restart(self, *, open_ids: set[str]) -> None:
        """A snapshot replaces the messages; only the messages and calls still open stay."""
        self.msgs = {k: v for k, v in self.msgs.items() if k in open_ids}
        self.calls = {k: v for k, v in self.calls.items() if k in open_ids}

    def adopt(self, m: Message) -> MessageRecord:
        """A whole message from a snapshot or a run's input."""
        owner = getattr(m, "subagent_run_id", None)
        msg = self._adopted(m, owner)
        self.msgs[m.id] = msg
        if isinstance(m, ag.AssistantMessage):
            for tc in m.tool_calls or []:
                if tc.id not in self.calls:
                    self.calls[tc.id] = self._call_cls(tc.id, tc.function.name, m.id, owner)
        return msg

    def _adopted(self, m: Message, owner: str | None) -> MessageRecord:
        return self._message_cls(m.id, m.role, owner)

    def messages(self) -> list[Message]:
        raise ToolwireError(
            "this StreamMachine checks the stream without keeping its history "
            "(history=False): create it with history=True to read messages"
        )


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

    def _record(self, mid: str, role: str, owner: str | None) -> _Msg:
        msg = _Msg(mid, role, owner)
        self._take_encrypted("message", mid, msg)
        self._order.append(mid)
        return msg

    def _call(self, ev: ag.ToolCallStartEvent, owner: str | None) -> _Call:
        call = cast(_Call, super()._call(ev, owner))
        self._take_encrypted("tool-call", call.id, call)
        return call

    def text_started(self, ev: ag.TextMessageStartEvent, role: str) -> MessageRecord:
        known = ev.message_id in self.msgs
        msg = cast(_Msg, super().text_started(ev, role))
        if not known:
            msg.name = ev.name
        _merge(msg.metadata, ev)
        return msg

    def reasoning_started(self, ev: Any) -> MessageRecord:
        msg = cast(_Msg, super().reasoning_started(ev))
        _merge(msg.metadata, ev)
        return msg

    def hooks(self) -> dict[EventType, Callable[[Any], None]]:
        return {
            EventType.TEXT_MESSAGE_CONTENT: self.content,
            EventType.TEXT_MESSAGE_END: self.ended,
            EventType.REASONING_MESSAGE_CONTENT: self.content,
            EventType.REASONING_MESSAGE_END: self.ended,
            EventType.REASONING_ENCRYPTED_VALUE: self.encrypted,
        }

    def content(self, ev: Any) -> None:
        msg = self.msgs[ev.message_id]
        msg.content.append(ev.delta)
        _merge(msg.metadata, ev)

    def ended(self, ev: Any) -> None:
        _merge(self.msgs[ev.message_id].metadata, ev)

    def encrypted(self, ev: ag.ReasoningEncryptedValueEvent) -> None:
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

    def call_started(
        self, ev: ag.ToolCallStartEvent, existing: CallRecord | None, owner: str | None
    ) -> CallRecord:
        call = cast(_Call, super().call_started(ev, existing, owner))
        _merge(call.metadata, ev)
        return call

    def _attached(self, msg: Any, call: CallRecord) -> None:
        msg.calls.append(call.id)

    def call_args(self, call: _Call, ev: Any) -> None:
        call.add(ev.delta)
        _merge(call.metadata, ev)

    def call_ended(self, call: _Call, ev: Any) -> None:
        _merge(call.metadata, ev)

    def result(self, ev: ag.ToolCallResultEvent, existing: MessageRecord | None) -> MessageRecord:
        msg = cast(_Msg, super().result(ev, existing))
        msg.parts = ev.content
        msg.tool_call_id = ev.tool_call_id
        _merge(msg.metadata, ev)
        return msg

    def restart(self, *, open_ids: set[str]) -> None:
        super().restart(open_ids=open_ids)
        self._order = [i for i in self._order if i in self.msgs]

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


__all__ = ["RESULT_ERROR_KEY", "CallRecord", "History", "Ledger", "MessageRecord"]
