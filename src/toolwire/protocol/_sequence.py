"""The sequence rules of an AG-UI stream: the run lifecycle (its table is in ``states``),
then the items.

Every transition of the run lifecycle is in ``states.TRANSITIONS``; nothing else changes
a ``RunState``. Within a run, :class:`SequenceRules` checks that messages, reasoning,
steps, subagents and tool calls open, continue and close under one owner, none left
open at ``RUN_FINISHED``; what it must remember of the thread is a ``Ledger``'s.
"""

from __future__ import annotations

from itertools import islice
from typing import Any, NoReturn

import ag_ui.core as ag
from ag_ui.core import BaseEvent, EventType

from toolwire.errors import ProtocolViolation
from toolwire.protocol._chunks import owner_of
from toolwire.protocol._ledger import Ledger
from toolwire.protocol._states import ROWS, Refused, RunState
from toolwire.protocol._versions import check_declared
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.finish import vendor_pending
from toolwire.protocol.limits import check, limits

_S = RunState
_E = EventType

# the items that open, continue and close within a run: event type -> (item, id field, step)
_OPEN, _CONTINUE, _CLOSE = 0, 1, 2
_ITEM_EVENTS: dict[EventType, tuple[str, str, int]] = {
    _E.TEXT_MESSAGE_START: ("message", "message_id", _OPEN),
    _E.TEXT_MESSAGE_CONTENT: ("message", "message_id", _CONTINUE),
    _E.TEXT_MESSAGE_END: ("message", "message_id", _CLOSE),
    _E.REASONING_START: ("reasoning", "message_id", _OPEN),
    _E.REASONING_END: ("reasoning", "message_id", _CLOSE),
    _E.REASONING_MESSAGE_START: ("reasoning message", "message_id", _OPEN),
    _E.REASONING_MESSAGE_CONTENT: ("reasoning message", "message_id", _CONTINUE),
    _E.REASONING_MESSAGE_END: ("reasoning message", "message_id", _CLOSE),
    _E.STEP_STARTED: ("step", "step_name", _OPEN),
    _E.STEP_FINISHED: ("step", "step_name", _CLOSE),
}


def _then(handler: Any, hook: Any) -> Any:
    """The handler, then the ledger's hook: ``verify``'s order for an event it takes."""

    def check(rules: SequenceRules, ev: BaseEvent) -> None:
        handler(rules, ev)
        hook(ev)

    return check


class SequenceRules:
    """The run lifecycle and the item rules, event by event (see the module docstring)."""

    def __init__(self, thread: Ledger, *, state: RunState = RunState.IDLE) -> None:
        #: ``EventType`` -> this class's ``_on_<type>`` method (a subclass's own included)
        self._handlers = handlers_by_type(type(self))
        self.thread = thread
        self.index = -1
        self.state = state
        self._row = ROWS[state]
        self.open_calls: dict[str, Any] = {}
        #: item -> id -> owner, of the items open now (in the order _ITEM_EVENTS names them)
        self.open: dict[str, dict[str, str | None]] = {
            item: {} for item, _, _ in _ITEM_EVENTS.values()
        }
        self._subagents_open: set[str] = set()
        self._subagents_seen: set[str] = set()
        # calls the run started, in order: the ledger's calls from the ``_started_at``-th
        # on, while every call the ledger took since the run began is one the run started
        # (a table of their own is one more entry a call); else ``_started``, an ordered
        # set made when that stops (a call reopened, a call adopted, a snapshot)
        self._started_at = 0
        self._started: dict[str, None] | None = None
        self.run_answered: set[str] = set()
        self.runs: list[ag.RunStartedEvent] = []
        self.finished: ag.RunFinishedEvent | None = None
        self.error: ag.RunErrorEvent | None = None
        self._hooks = thread.hooks()
        #: whether :meth:`whole_call` stands for a call's three events: their handlers are
        #: this class's, the ledger has no hook for them and keeps no call's record
        calls = (_E.TOOL_CALL_START, _E.TOOL_CALL_ARGS, _E.TOOL_CALL_END)
        self._takes_whole = thread.takes_whole_calls and not any(
            t in self._hooks or self._handlers.get(t) is not _BASE_HANDLERS.get(t) for t in calls
        )

    def enter(self, state: RunState) -> None:
        self.state = state
        self._row = ROWS[state]

    def active_check(self, t: EventType) -> Any:
        """What ``verify`` does for ``t`` inside an active run, as one ``check(rules, event)``,
        when that is its handler then its hook, if any (the row keeps the run active, no item
        rule); else ``None``. A caller that knows the run is active calls it instead of
        ``verify``: the same checks, the same errors, in the same order."""
        if t in _ITEM_EVENTS or ROWS[RunState.ACTIVE][t] is not RunState.ACTIVE:
            return None
        handler = self._handlers.get(t)
        hook = self._hooks.get(t)
        if handler is None or hook is None:
            return handler
        return _then(handler, hook)

    def verify(self, ev: BaseEvent) -> None:
        """Check one explicit event against the table and the item rules, then take it."""
        t = ev.type
        target = self._row[t]
        if type(target) is Refused:
            self._fail(target.code, target.reason.format(type=t.value))
        item = _ITEM_EVENTS.get(t)
        if item is not None:
            self._item(ev, *item)
        handler = self._handlers.get(t)
        if handler is not None:
            handler(self, ev)
        hook = self._hooks.get(t)
        if hook is not None:
            hook(ev)
        if target is not self.state:
            self.enter(target)  # type: ignore[arg-type]

    def _own_started(self) -> dict[str, None]:
        """The calls the current (or last) run started, in order, as their own table (from
        here on the run keeps them there)."""
        if self._started is None:
            self._started = dict.fromkeys(islice(self.thread.calls, self._started_at, None))
        return self._started

    @property
    def pending_tool_call_ids(self) -> list[str]:
        """Calls the current (or last) run started and did not answer, in order."""
        started = self._started
        if started is None:
            return [
                c
                for c in islice(self.thread.calls, self._started_at, None)
                if c not in self.run_answered
            ]
        return [c for c in started if c not in self.run_answered]

    def _fail(self, code: str, reason: str) -> NoReturn:
        raise ProtocolViolation(code, reason, index=self.index)

    def _continuation_owner(self, opener: str | None, ev: BaseEvent, what: str) -> None:
        tag = owner_of(ev)
        if tag is not None and tag != opener:
            self._fail("owner-mismatch", f"{ev.type.value} tagged {tag!r} but {what} is {opener!r}")

    def _close_items(self, *, subagents_seen: bool) -> None:
        self.open_calls.clear()
        for table in self.open.values():
            table.clear()
        self._subagents_open.clear()
        if subagents_seen:
            self._subagents_seen.clear()

    # run lifecycle (the transition itself is the table's)
    def _on_run_started(self, ev: ag.RunStartedEvent) -> None:
        self._close_items(subagents_seen=True)
        self.run_answered = set()
        self.finished = None
        self.error = None
        self.runs.append(ev)
        check_declared(ev.protocol_version, who="the stream")
        if ev.input is not None and not self.thread.msgs:
            self._adopt(ev.input.messages)
        self._started = None  # none yet: the run's calls are the ones the ledger takes next
        self._started_at = len(self.thread.calls)

    def _on_run_finished(self, ev: ag.RunFinishedEvent) -> None:
        open_items = [f"tool call {i!r}" for i in self.open_calls] + [
            f"{item} {i!r}" for item, table in self.open.items() for i in table
        ]
        if open_items:
            self._fail("item-open-at-run-finished", "still open: " + ", ".join(open_items))
        if self._subagents_open:
            self._fail(
                "subagent-open-at-run-finished",
                "subagents not closed: " + ", ".join(sorted(self._subagents_open)),
            )
        outcome = ev.outcome
        if isinstance(outcome, ag.RunFinishedSuccessOutcome):
            self._check_pending(outcome, ev.metadata)
        if isinstance(outcome, ag.RunFinishedInterruptOutcome):
            seen: set[str] = set()
            for it in outcome.interrupts:
                if it.id in seen:
                    self._fail("interrupt-id-duplicate", f"interrupt id {it.id!r} repeated")
                seen.add(it.id)
        self.finished = ev

    def _check_pending(self, outcome: ag.RunFinishedSuccessOutcome, metadata: Any) -> None:
        """A stated pending list is the stream's pending calls, less those the metadata says
        the vendor will answer itself (``finish.VENDOR_PENDING_KEY``), which must be pending."""
        pending = self.pending_tool_call_ids
        waiting = vendor_pending(metadata)
        if not outcome.pending_tool_call_ids and not waiting:
            return
        stray = [c for c in waiting if c not in pending]
        if stray:
            self._fail(
                "pending-tool-calls-mismatch",
                f"{stray} stated as the vendor's to answer, the stream leaves {pending} pending",
            )
        expected = [c for c in pending if c not in waiting]
        stated = list(outcome.pending_tool_call_ids or ())
        if stated and stated != expected:
            self._fail(
                "pending-tool-calls-mismatch",
                f"stated {stated}, the stream leaves {expected} pending"
                + (f" (and {waiting} for the vendor)" if waiting else ""),
            )

    def _on_run_error(self, ev: ag.RunErrorEvent) -> None:
        self.error = ev
        self._close_items(subagents_seen=False)

    def _item(self, ev: Any, item: str, field: str, step: int) -> None:
        """Open, continue or close a message, reasoning, reasoning message or step."""
        key = getattr(ev, field)
        table = self.open[item]
        if step == _OPEN:
            if key in table:
                code = "step-already-open" if item == "step" else "message-already-open"
                self._fail(code, f"{item} {key!r} is open")
            table[key] = owner_of(ev)
            return
        if key not in table:
            code = "step-not-open" if item == "step" else "message-not-open"
            self._fail(code, f"{ev.type.value} for {item} {key!r}, which is not open")
        owner = table.pop(key) if step == _CLOSE else table[key]
        # (most events have no owner tag: the check, and its message, only for one that has)
        if getattr(ev, "subagent_run_id", None) is not None:
            self._continuation_owner(owner, ev, f"the owner of {item} {key!r}")

    # subagents
    def _on_subagent_started(self, ev: Any) -> None:
        if ev.subagent_run_id in self._subagents_seen:
            self._fail("subagent-reused", f"subagentRunId {ev.subagent_run_id!r} announced twice")
        self._subagents_seen.add(ev.subagent_run_id)
        self._subagents_open.add(ev.subagent_run_id)

    def _on_subagent_finished(self, ev: Any) -> None:
        self._subagents_open.discard(ev.subagent_run_id)

    _on_subagent_error = _on_subagent_finished

    # messages: text, reasoning messages, reasoning
    def _role_free(self, mid: str, role: str, what: str, tail: str = "") -> None:
        msg = self.thread.msgs.get(mid)
        if msg is not None and msg.role != role:
            reason = f"a {what} reuses messageId {mid!r} of a {msg.role} message{tail}"
            self._fail("duplicate-message-id", reason)

    def _on_text_message_start(self, ev: ag.TextMessageStartEvent) -> None:
        role = ev.role or "assistant"
        tail = "; the history cannot hold both"
        self._role_free(ev.message_id, role, f"{role} text message", tail)
        self.thread.text_started(ev, role)

    def _on_reasoning_message_start(self, ev: Any) -> None:
        self._role_free(ev.message_id, "reasoning", "reasoning message")
        self.thread.reasoning_started(ev)

    # tool calls
    def _on_tool_call_start(self, ev: ag.ToolCallStartEvent) -> None:
        cid = ev.tool_call_id
        if cid in self.open_calls:
            self._fail("tool-call-already-open", f"tool call {cid!r} is open")
        tag, pmsg = self._call_owner(ev, cid)
        thread = self.thread
        parent = ev.parent_message_id
        existing = thread.calls.get(cid)
        if existing is not None:
            if existing.name != ev.tool_call_name or (
                parent is not None and parent != existing.parent
            ):
                self._fail(
                    "tool-call-reopen-disagrees",
                    f"reopening {cid!r} as {ev.tool_call_name!r}/{parent!r}, opened as "
                    f"{existing.name!r}/{existing.parent!r}",
                )
            self._own_started().setdefault(cid)  # (a reopened call: in order, once)
        elif self._started is not None:
            self._own_started().setdefault(cid)
        # (the parent's record, when found, handed on: the ledger need not look it up)
        self.open_calls[cid] = thread.call_started(ev, existing, tag, pmsg)

    def _call_owner(self, ev: ag.ToolCallStartEvent, cid: str) -> tuple[str | None, Any]:
        """A starting call's owner and the record of the message it names as its parent
        (``None`` when it names none the thread holds), after the parent's rules."""
        tag = ev.subagent_run_id  # owner_of written out: a call of the parent run's
        if tag is not None and type(tag) is not str:
            tag = owner_of(ev)
        parent = ev.parent_message_id
        pmsg = None if parent is None else self.thread.msgs.get(parent)
        if pmsg is not None:
            if pmsg.role != "assistant":
                self._fail(
                    "tool-call-parent-not-assistant",
                    f"tool call {cid!r} names parentMessageId {parent!r}, a "
                    f"{pmsg.role} message; only an assistant message makes calls",
                )
            if tag is not None and pmsg.owner != tag:
                self._fail(
                    "tool-call-owner-mismatch",
                    f"tool call {cid!r} tagged {tag!r} but its message {parent!r} belongs to "
                    f"{pmsg.owner!r}; a tool call belongs to the message that carries it",
                )
            if tag is None:
                tag = pmsg.owner
        return tag, pmsg

    def whole_call(
        self,
        start: ag.ToolCallStartEvent,
        args: ag.ToolCallArgsEvent,
        end: ag.ToolCallEndEvent | None = None,
    ) -> bool:
        """``verify`` of a new call's start, its one arguments event and (when given) its
        end, in turn, inside an active run, as one step: the same rules, the same violation
        at the same index, the same thread after (a whole call without its open record:
        issue 38, most calls come whole). ``False``, having changed nothing, for any other
        call (an id the thread holds, a subagent's tag, another id on the arguments or end,
        arguments past their cap, a ledger that keeps more than the rules need): verify
        each then."""
        cid = start.tool_call_id
        thread = self.thread
        size = len(args.delta)
        if (
            cid in thread.calls  # (every open call is there: none is open)
            or args.tool_call_id != cid
            or args.subagent_run_id is not None
            or (end is not None and (end.tool_call_id != cid or end.subagent_run_id is not None))
            or size > limits().max_argument_chars
            or not self._takes_whole
        ):
            return False
        if end is None:
            self._opened(start, cid, size)
            return True
        self.index += 1
        tag, pmsg = self._call_owner(start, cid)  # (raises with nothing changed)
        if self._started is not None:
            self._started.setdefault(cid)
        thread.whole_call(start, tag, pmsg, size)
        self.index += 2  # (the arguments, the end: nothing else to check)
        return True

    def _opened(self, start: ag.ToolCallStartEvent, cid: str, size: int) -> None:
        """``verify`` of a new call's start and its one arguments event of ``size``
        characters (both known to be its plain case: ``whole_call``'s conditions)."""
        self.index += 1
        tag, pmsg = self._call_owner(start, cid)  # (raises with nothing changed)
        if self._started is not None:
            self._started.setdefault(cid)
        self.open_calls[cid] = self.thread.call_opened(start, tag, pmsg, size)
        self.index += 1

    def calls_opened(self, events: list[Any]) -> bool:
        """``verify`` of each of a run of calls' starts, each followed by one arguments
        event (``events``: start, arguments, start, arguments, ...), in turn, inside an
        active run, as one step: the same rules, the same violation at the same index, the
        same thread after. A pair that is not a new call's plain case (``whole_call``'s
        conditions) is checked event by event. ``False``, having changed nothing, where the
        handlers or the ledger keep more than this class's: verify each then."""
        if not self._takes_whole:
            return False
        calls = self.thread.calls  # (every open call is there)
        cap = limits().max_argument_chars
        opened = self._opened
        for at in range(0, len(events), 2):
            start = events[at]
            args = events[at + 1]
            cid = start.tool_call_id
            size = len(args.delta)
            if (
                cid in calls
                or args.tool_call_id != cid
                or args.subagent_run_id is not None
                or size > cap
            ):
                self.index += 1
                self._on_tool_call_start(start)
                self.index += 1
                self._on_tool_call_args(args)
                continue
            opened(start, cid, size)
        return True

    def calls_ended(self, ends: list[ag.ToolCallEndEvent]) -> bool:
        """``verify`` of each of a run of ends of tool calls, in turn, inside an active run,
        as one step: the same rules, the same violation at the same index, the same thread
        after. ``False``, having changed nothing, where the handlers or the ledger keep
        more than this class's (``whole_call``'s condition): verify each then."""
        if not self._takes_whole:
            return False
        open_calls = self.open_calls
        ended = self.thread.call_ended
        for end in ends:
            self.index += 1
            cid = end.tool_call_id
            call = open_calls.get(cid)
            if call is None or end.subagent_run_id is not None:
                self._on_tool_call_end(end)  # the general check: it refuses, or takes it
                continue
            del open_calls[cid]
            ended(call)
        return True

    def _open_call(self, ev: ag.ToolCallArgsEvent | ag.ToolCallEndEvent) -> Any:
        call = self.open_calls.get(ev.tool_call_id)
        if call is None:
            self._fail("tool-call-not-open", f"{ev.type.value} for {ev.tool_call_id!r}, not open")
        self._continuation_owner(call.owner, ev, "its TOOL_CALL_START's owner")
        return call

    def _on_tool_call_args(self, ev: ag.ToolCallArgsEvent) -> None:
        call = self.open_calls.get(ev.tool_call_id)  # _open_call written out: most events
        if call is None or getattr(ev, "subagent_run_id", None) is not None:
            call = self._open_call(ev)
        call.size += len(ev.delta)
        if call.size > limits().max_argument_chars:  # the place is only named when passed
            check("max_argument_chars", call.size, f"event {self.index}: arguments of {call.id!r}")

    def _on_tool_call_end(self, ev: ag.ToolCallEndEvent) -> None:
        cid = ev.tool_call_id
        open_calls = self.open_calls
        call = open_calls.get(cid)  # _open_call written out, as for the arguments
        if call is None or getattr(ev, "subagent_run_id", None) is not None:
            call = self._open_call(ev)
        del open_calls[cid]
        self.thread.call_ended(call)

    def _on_tool_call_result(self, ev: ag.ToolCallResultEvent) -> None:
        existing = self.thread.msgs.get(ev.message_id)
        if existing is not None and existing.role != "tool":
            self._fail("duplicate-message-id", f"messageId {ev.message_id!r} is already used")
        self.thread.result(ev, existing)
        self.run_answered.add(ev.tool_call_id)

    def _on_messages_snapshot(self, ev: ag.MessagesSnapshotEvent) -> None:
        # what is still open goes on after the snapshot
        self._own_started()  # (the run's calls: the ledger drops some now)
        self.thread.restart(
            open_ids={*self.open_calls, *self.open["message"], *self.open["reasoning message"]}
        )
        self._adopt(ev.messages)

    def _adopt(self, messages: Any) -> None:
        self._own_started()  # (the run's calls: the ledger takes others now)
        for m in messages:
            self.thread.adopt(m)
            if isinstance(m, ag.ToolMessage):
                self.run_answered.add(m.tool_call_id)


#: the handlers of the class itself (a subclass's own are not :meth:`whole_call`'s)
_BASE_HANDLERS = handlers_by_type(SequenceRules)

__all__ = ["SequenceRules"]
