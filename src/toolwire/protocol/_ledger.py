"""What the sequence rules remember of the thread, and nothing more.

Every message's id, role and owner, every tool call's id, name, parent, owner and
argument size, and which assistant message a call without a parent belongs to: what
rules across events need (a reused message id, a call's parent, a reopened call). No
text, arguments or metadata, so checking a long stream holds no more than that; the
history (:mod:`toolwire.protocol._history`) is the ledger that also keeps those. A closed
call is a :class:`ClosedCall` shared with the calls alike (a turn of many whole calls
holds each id once, in ``calls``: issue 38).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import ag_ui.core as ag
from ag_ui.core import EventType, Message

from toolwire.errors import ToolwireError
from toolwire.protocol._chunks import owner_of
from toolwire.protocol.ids import mint_id


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


class ClosedCall(NamedTuple):
    """What the rules need of a call no longer open: a reopening must agree with its name
    and parent, goes on under its owner and adds to its argument size. Calls alike in all
    four share one (``Ledger._closed``), so a closed call costs its id and a table entry."""

    name: str
    parent: str | None
    owner: str | None
    size: int


#: the most distinct closed-call shapes one ledger shares (a call past them keeps its record)
_SHAPES_KEPT = 2048


class Ledger:
    """The thread as the sequence rules need it (see the module docstring)."""

    keeps_history = False
    _message_cls: type[MessageRecord] = MessageRecord
    _call_cls: type[CallRecord] = CallRecord

    def __init__(self) -> None:
        self.msgs: dict[str, MessageRecord] = {}
        #: every call of the thread: its record while open, a shared ``ClosedCall`` after
        self.calls: dict[str, CallRecord | ClosedCall] = {}
        self._last_assistant: str | None = None
        self._shapes: dict[ClosedCall, ClosedCall] = {}
        #: whether this ledger does anything with a call's message (the history does)
        self._attaches = type(self)._attached is not Ledger._attached
        cls = type(self)
        #: whether :meth:`whole_call` stands for a call's start and end: the ledger keeps
        #: nothing of a call but what this class does (not so the history)
        self.takes_whole_calls = not self._attaches and (
            cls._call is Ledger._call
            and cls.call_started is Ledger.call_started
            and cls.call_ended is Ledger.call_ended
            and cls._call_cls is CallRecord
        )

    def _record(self, mid: str, role: str, owner: str | None, name: str | None) -> MessageRecord:
        return self._message_cls(mid, role, owner)

    def _call(self, ev: ag.ToolCallStartEvent, owner: str | None) -> CallRecord:
        # the tool's name interned: a stream of many calls of few tools keeps one string each
        name = sys.intern(ev.tool_call_name)
        return self._call_cls(ev.tool_call_id, name, ev.parent_message_id, owner)

    def _new_msg(
        self, mid: str, role: str, owner: str | None, name: str | None = None
    ) -> MessageRecord:
        msg = self._record(mid, role, owner, name)
        self.msgs[mid] = msg
        if role in ("user", "tool"):
            self._last_assistant = None
        return msg

    def hooks(self) -> dict[EventType, Callable[[Any], None]]:
        """What to do with an event once the rules took it: the ledger keeps nothing more."""
        return {}

    # what the rules tell the ledger, each event after its checks passed
    def text_started(self, ev: ag.TextMessageStartEvent, role: str) -> None:
        msg = self.msgs.get(ev.message_id) or self._new_msg(
            ev.message_id, role, owner_of(ev), ev.name
        )
        if msg.role == "assistant":
            self._last_assistant = msg.id

    def reasoning_started(self, ev: Any) -> None:
        if ev.message_id not in self.msgs:
            self._new_msg(ev.message_id, "reasoning", owner_of(ev))

    def _closed(self, shape: ClosedCall) -> ClosedCall | None:
        """The one ``ClosedCall`` equal to ``shape`` (None once too many are kept)."""
        shared = self._shapes.get(shape)
        if shared is None and len(self._shapes) < _SHAPES_KEPT:
            shared = self._shapes[shape] = shape
        return shared

    def call_started(
        self,
        ev: ag.ToolCallStartEvent,
        existing: CallRecord | ClosedCall | None,
        owner: str | None,
        parent: MessageRecord | None = None,
    ) -> CallRecord:
        """A call opened (``existing``: the thread's record of its id, if any): its record.
        ``parent``: the record of the message the event names as its parent, when found."""
        if existing is not None:
            if type(existing) is ClosedCall:  # reopened: open again with what it had
                cid = ev.tool_call_id
                record = self._call_cls(cid, existing.name, existing.parent, existing.owner)
                record.size = existing.size
                self.calls[cid] = record
                return record
            return existing  # type: ignore[return-value]
        call = self._call(ev, owner)
        self.calls[call.id] = call
        msg = self._call_message(call.id, call.parent, call.owner, parent)
        if self._attaches:
            self._attached(msg, call)
        return call

    def _call_message(
        self, cid: str, mid: str | None, owner: str | None, parent: MessageRecord | None
    ) -> MessageRecord:
        """The message the new call ``cid`` belongs to (``mid``: the parent it names,
        ``parent``: its record when found), made when the thread has none; the last
        assistant's from now."""
        msg = parent
        if mid is None:
            mid = self._last_assistant or mint_id("msg", cid)
            msg = self.msgs.get(mid)
        elif msg is None:
            msg = self.msgs.get(mid)
        if msg is None:
            msg = self._new_msg(mid, "assistant", owner)
        self._last_assistant = mid
        return msg

    def call_opened(
        self, ev: ag.ToolCallStartEvent, owner: str | None, parent: MessageRecord | None, size: int
    ) -> CallRecord:
        """:meth:`call_started` of a new call whose arguments so far are ``size``
        characters, its record made with them (``takes_whole_calls``): the same thread."""
        cid = ev.tool_call_id
        mid = ev.parent_message_id
        call = CallRecord(cid, sys.intern(ev.tool_call_name), mid, owner, size)
        self.calls[cid] = call
        self._call_message(cid, mid, owner, parent)
        return call

    def whole_call(
        self, ev: ag.ToolCallStartEvent, owner: str | None, parent: MessageRecord | None, size: int
    ) -> None:
        """:meth:`call_started` then :meth:`call_ended` of a new call of ``size`` characters
        of arguments, without its open record (``takes_whole_calls``): the same thread."""
        cid = ev.tool_call_id
        name = sys.intern(ev.tool_call_name)
        mid = ev.parent_message_id
        shape = (name, mid, owner, size)
        shared: CallRecord | ClosedCall | None = self._shapes.get(shape)  # type: ignore[call-overload]
        if shared is None:
            shared = self._closed(ClosedCall(*shape))
            if shared is None:  # (past the shapes kept: the record, as call_ended leaves it)
                shared = self._call_cls(cid, name, mid, owner, size)
        self.calls[cid] = shared
        self._call_message(cid, mid, owner, parent)

    def _attached(self, msg: Any, call: CallRecord) -> None: ...

    def call_ended(self, call: CallRecord) -> None:
        """A call closed: only its shape is kept, shared with the calls alike (a stream of
        many whole calls holds one table entry each)."""
        shape = (call.name, call.parent, call.owner, call.size)
        # (a plain tuple finds the shape equal to it: no ``ClosedCall`` made a call of the
        # turn, only a new shape's)
        shared = self._shapes.get(shape)  # type: ignore[call-overload]
        if shared is None:
            shared = self._closed(ClosedCall(*shape))
            if shared is None:
                return
        self.calls[call.id] = shared

    def result(self, ev: ag.ToolCallResultEvent, existing: MessageRecord | None) -> None:
        if existing is None:
            self._new_msg(ev.message_id, "tool", owner_of(ev))
        self._last_assistant = None

    def restart(self, *, open_ids: set[str]) -> None:
        """A snapshot replaces the messages; only the messages and calls still open stay."""
        self.msgs = {k: v for k, v in self.msgs.items() if k in open_ids}
        self.calls = {k: v for k, v in self.calls.items() if k in open_ids}

    def adopt(self, m: Message) -> None:
        """A whole message from a snapshot or a run's input."""
        owner = getattr(m, "subagent_run_id", None)
        self.msgs[m.id] = self._adopted(m, owner)
        if isinstance(m, ag.AssistantMessage):
            for tc in m.tool_calls or []:
                if tc.id not in self.calls:
                    self.calls[tc.id] = self._adopted_call(tc, m.id, owner)

    def _adopted_call(
        self, tc: ag.ToolCall, mid: str, owner: str | None
    ) -> CallRecord | ClosedCall:
        """A call of a whole message: closed (its shape, or its record past the shapes kept)."""
        shape = ClosedCall(sys.intern(tc.function.name), mid, owner, 0)
        return self._closed(shape) or self._call_cls(tc.id, shape.name, mid, owner)

    def _adopted(self, m: Message, owner: str | None) -> MessageRecord:
        return self._message_cls(m.id, m.role, owner)

    def messages(self) -> list[Message]:
        raise ToolwireError(
            "this StreamMachine checks the stream without keeping its history "
            "(history=False): create it with history=True to read messages"
        )


__all__ = ["CallRecord", "ClosedCall", "Ledger", "MessageRecord"]
