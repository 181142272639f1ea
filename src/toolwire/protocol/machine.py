"""The AG-UI event-stream machine: chunk expansion, sequence rules and history, composed.

One sans-I/O consumer of AG-UI streams, used by every encoder, the run framer, the
CLI's ``validate`` and the tests. :meth:`StreamMachine.feed` takes one event (a model
or its JSON dict), expands ``*_CHUNK`` events into the explicit start/content/end form
(:mod:`~toolwire.protocol._chunks`), checks every fatal rule of the streaming pattern,
the tool-call family and the run lifecycle (:mod:`~toolwire.protocol._sequence`), and
returns the explicit events. What the rules remember of the thread is a
:mod:`~toolwire.protocol._ledger`; the messages the events make are assembled on the
way (:mod:`~toolwire.protocol._history`) unless the machine was made with
``history=False``. Each violation is a :class:`~toolwire.errors.ProtocolViolation`
with a stable code (the table is :data:`VIOLATION_CODES`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Literal

from ag_ui.core import (
    BaseEvent,
    EventType,
    Message,
    ReasoningEndEvent,
    ReasoningMessageEndEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StepFinishedEvent,
    TextMessageEndEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.errors import ProtocolViolation
from toolwire.protocol._chunks import CHUNK_TYPES, ChunkExpander, owner_tag
from toolwire.protocol._history import RESULT_ERROR_KEY, History
from toolwire.protocol._ledger import Ledger
from toolwire.protocol._sequence import SequenceRules
from toolwire.protocol._states import RunState
from toolwire.protocol.events import parse_event

#: Every violation code the machine raises (events, chunks, sequence rules), and its meaning.
VIOLATION_CODES: dict[str, str] = {
    "malformed-event": "an event is not a JSON object with a string type",
    "malformed-value": "a known field carries a value the schema rejects",
    "null-optional-field": "an optional field is sent as null instead of being omitted",
    "event-before-run-started": "a stream must begin with RUN_STARTED or RUN_ERROR",
    "run-already-started": "RUN_STARTED while a run is still active",
    "event-after-run-closed": "an event after RUN_FINISHED/RUN_ERROR other than those allowed",
    "tool-call-already-open": "TOOL_CALL_START for a tool call that is open",
    "tool-call-not-open": "TOOL_CALL_ARGS/END for a tool call that is not open",
    "tool-call-reopen-disagrees": "a reopening TOOL_CALL_START with another name or parent",
    "tool-call-owner-mismatch": "a tool call attributed to another owner than its message",
    "message-already-open": "a *_START for a message that is open",
    "message-not-open": "content or end for a message that is not open",
    "step-already-open": "STEP_STARTED for a step that is running",
    "step-not-open": "STEP_FINISHED for a step that is not running",
    "item-open-at-run-finished": "a message, call, step or reasoning item open at RUN_FINISHED",
    "subagent-open-at-run-finished": "an announced subagent not closed before RUN_FINISHED",
    "subagent-reused": "a subagentRunId announced twice within a run",
    "owner-mismatch": "a continuation whose subagentRunId disagrees with its opener",
    "chunk-missing-tool-call-id": "the first TOOL_CALL_CHUNK of a call carries no toolCallId",
    "chunk-missing-tool-call-name": "the first TOOL_CALL_CHUNK of a call carries no toolCallName",
    "chunk-missing-message-id": "the first message chunk carries no messageId",
    "chunk-conflicting-name": "a continuation chunk repeats toolCallName with another value",
    "chunk-conflicting-parent": "a continuation chunk repeats parentMessageId with another value",
    "chunk-conflicting-role": "a continuation chunk repeats role with another value",
    "chunk-forms-mixed": "an explicit event for an item a chunk stream is assembling",
    "chunk-ambiguous-lane": "an untagged, id-less continuation with several subagent lanes open",
    "pending-tool-calls-mismatch": "a stated pendingToolCallIds list differs from the stream "
    "(less the calls RUN_FINISHED.metadata states the vendor will answer)",
    "interrupt-id-duplicate": "two interrupts of one run share an id",
    "duplicate-message-id": "a new message reuses the id of another message in the thread",
    "tool-call-parent-not-assistant": "a tool call's parentMessageId names a non-assistant message",
    "truncated": "the stream ended with a run still active (no terminal event)",
}

#: the event classes checked the short way when their check allows it (``active_check``)
_FAST_CLASSES: tuple[type[BaseEvent], ...] = (
    ToolCallStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
)
_ACTIVE = RunState.ACTIVE
_START, _ARGS, _END = _FAST_CLASSES


class StreamMachine:
    """Consume an AG-UI stream event by event; see the module docstring."""

    def __init__(self, *, run_open: bool | Literal["auto"] = False, history: bool = True) -> None:
        """``run_open`` starts inside a run: for a bare turn (a decoder's output) that has
        no ``RUN_STARTED`` of its own; :meth:`end_turn` closes it. ``"auto"`` decides from
        the first event (an encoder that takes either); ``bare`` says which it was.

        ``history=False`` checks every rule but keeps no text, arguments or metadata (for
        a pass-through that never reads :attr:`messages`, which then raises)."""
        self._auto = run_open == "auto"
        self.bare = run_open is True
        self._thread: Ledger = History() if history else Ledger()
        self._rules = SequenceRules(
            self._thread, state=RunState.ACTIVE if self.bare else RunState.IDLE
        )
        self._chunks = ChunkExpander()
        # the commonest events, a tool call's start, arguments and end inside a run with no
        # chunk stream open, are checked by their handler (and the ledger's hook) alone:
        # that is all verify does for them there (issue 38: a whole call is three events)
        self._fast_all: dict[type, Any] = {}
        for cls in _FAST_CLASSES:
            check = self._rules.active_check(cls.model_fields["type"].default)
            if check is not None:
                self._fast_all[cls] = check
        #: after :meth:`feed_call`, :meth:`feed_opened` or :meth:`feed_ends` raised: how many
        #: of its events passed
        self.call_taken = 0
        # (an "auto" machine takes its first event the general way: it decides the run)
        self._fast = {} if self._auto else self._fast_all
        #: a call's start, arguments and end checks, when all three have the short way
        checks = [self._fast_all.get(cls) for cls in _FAST_CLASSES]
        self._call_checks: tuple[Any, Any, Any] | None = (
            (checks[0], checks[1], checks[2]) if None not in checks else None
        )

    # ---------------------------------------------------------------- public

    def feed(self, event: BaseEvent | dict[str, Any]) -> list[BaseEvent]:
        """One event in, the explicit events it stands for out (after every check)."""
        rules = self._rules
        check = self._fast.get(type(event))
        if check is not None and rules.state is _ACTIVE and not self._chunks.lanes:
            rules.index += 1
            check(rules, event)
            return [event]  # type: ignore[list-item]
        return self._feed(event)

    def feed_call(
        self,
        start: ToolCallStartEvent,
        args: ToolCallArgsEvent,
        end: ToolCallEndEvent | None = None,
    ) -> bool:
        """:meth:`feed` of a tool call's start, one arguments event and (when given) an end,
        in turn, as one step (a whole call is the commonest run of events: issue 38): the
        same checks in the same order, the same violation at the same index, the same state
        after, each event passed on as it is. ``False``, having taken none of them, where
        ``feed`` would take the first the general way (outside an active run, a chunk stream
        open, an "auto" machine's first event, an event not of exactly those classes):
        :meth:`feed` each then. When one fails, :attr:`call_taken` says how many of the
        events before it passed (and were taken), as ``feed`` of each would have."""
        rules = self._rules
        checks = self._call_checks
        if (
            checks is None
            or not self._short_step_open()
            or type(start) is not _START
            or type(args) is not _ARGS
            or (end is not None and type(end) is not _END)
        ):
            return False
        first = rules.index + 1
        try:
            if rules.whole_call(start, args, end):
                return True
            # (no check of these changes the run's state or opens a chunk stream: the short
            # way stays open for the next)
            check_start, check_args, check_end = checks
            rules.index += 1
            check_start(rules, start)
            rules.index += 1
            check_args(rules, args)
            if end is not None:
                rules.index += 1
                check_end(rules, end)
        except BaseException:
            self.call_taken = rules.index - first  # (the failing event's index is rules.index)
            raise
        return True

    def feed_opened(self, events: list[Any]) -> bool:
        """:meth:`feed` of each of a run of tool calls' starts, each followed by one
        arguments event (``events``: start, arguments, start, arguments, ...), in turn, as
        one step (a stream whose calls stay open until their message ends opens them in a
        row): the same checks in the same order, the same violation at the same index, the
        same state after, each event passed on as it is. ``False``, having taken none of
        them, where ``feed`` would take the first the general way (as :meth:`feed_ends`) or
        an event is not exactly of its class: :meth:`feed` each then. When one fails,
        :attr:`call_taken` says how many of the events before it passed (and were taken)."""
        rules = self._rules
        checks = self._call_checks
        if checks is None or not self._short_step_open() or len(events) % 2:
            return False
        for at in range(0, len(events), 2):
            if type(events[at]) is not _START or type(events[at + 1]) is not _ARGS:
                return False
        # (no check of these changes the run's state or opens a chunk stream)
        first = rules.index + 1
        try:
            if not rules.calls_opened(events):
                check_start, check_args, _ = checks
                for at in range(0, len(events), 2):
                    rules.index += 1
                    check_start(rules, events[at])
                    rules.index += 1
                    check_args(rules, events[at + 1])
        except BaseException:
            self.call_taken = rules.index - first  # (the failing event's index is rules.index)
            raise
        return True

    def feed_ends(self, ends: list[ToolCallEndEvent]) -> bool:
        """:meth:`feed` of each of a run of tool calls' ends, in turn, as one step (a stream
        whose calls stay open until their message ends closes them all in a row): the same
        checks in the same order, the same violation at the same index, the same state after,
        each event passed on as it is. ``False``, having taken none of them, where ``feed``
        would take the first the general way (outside an active run, a chunk stream open,
        an "auto" machine's first event) or an event is not exactly a ``ToolCallEndEvent``:
        :meth:`feed` each then. When one fails, :attr:`call_taken` says how many of the
        events before it passed (and were taken), as ``feed`` of each would have."""
        rules = self._rules
        checks = self._call_checks
        if checks is None or not self._short_step_open():
            return False
        for end in ends:
            if type(end) is not _END:
                return False
        # (no end's check changes the run's state or opens a chunk stream)
        first = rules.index + 1
        try:
            if not rules.calls_ended(ends):
                check_end = checks[2]
                for end in ends:
                    rules.index += 1
                    check_end(rules, end)
        except BaseException:
            self.call_taken = rules.index - first  # (the failing event's index is rules.index)
            raise
        return True

    def _short_step_open(self) -> bool:
        """Whether ``feed`` would take a tool call's event the short way now (inside an active
        run, no chunk stream open, past an "auto" machine's first event): the condition of
        the one-step ways (:meth:`feed_call`, :meth:`feed_opened`, :meth:`feed_ends`)."""
        return self._rules.state is _ACTIVE and not self._chunks.lanes and bool(self._fast)

    def _feed(self, event: BaseEvent | dict[str, Any]) -> list[BaseEvent]:
        """:meth:`feed`'s general way: every event can take it."""
        rules = self._rules
        rules.index += 1
        parsed = parse_event(event, rules.index)
        if parsed is None:
            return []
        if self._auto:
            self._auto = False
            self._fast = self._fast_all
            if parsed.type not in (EventType.RUN_STARTED, EventType.RUN_ERROR):
                self.bare = True
                rules.enter(RunState.ACTIVE)
        chunks = self._chunks
        if parsed.type in CHUNK_TYPES:
            out = chunks.expand(parsed, rules.index)
        elif chunks.lanes:
            out = chunks.before(parsed, rules.index)
            out.append(parsed)
        else:
            out = [parsed]
        verify = rules.verify
        for ev in out:
            verify(ev)
        return out

    def feed_many(self, events: Iterable[BaseEvent | dict[str, Any]]) -> list[BaseEvent]:
        """:meth:`feed` of each event in turn, their outputs joined: the same events, the
        same violation at the same index, with the short way's look-ups made once."""
        out: list[BaseEvent] = []
        rules = self._rules
        lanes = self._chunks.lanes  # (cleared in place, never replaced)
        fast = self._fast
        append = out.append
        for event in events:
            check = fast.get(type(event))
            if check is not None and rules.state is _ACTIVE and not lanes:
                rules.index += 1
                check(rules, event)
                append(event)  # type: ignore[arg-type]
            else:
                out.extend(self._feed(event))
                fast = self._fast  # (an "auto" machine's first event opens the short way)
        return out

    def checked(self, events: Iterable[BaseEvent | dict[str, Any]]) -> Iterator[BaseEvent]:
        """:meth:`feed` of each event in turn, lazily: each explicit event as soon as its
        check passed (a stream's events handed on one by one, without a list each)."""
        rules = self._rules
        lanes = self._chunks.lanes  # (cleared in place, never replaced)
        fast = self._fast
        for event in events:
            check = fast.get(type(event))
            if check is not None and rules.state is _ACTIVE and not lanes:
                rules.index += 1
                check(rules, event)
                yield event  # type: ignore[misc]
            else:
                out = self._feed(event)
                fast = self._fast  # (an "auto" machine's first event opens the short way)
                yield from out

    def feed_all(self, events: Any) -> list[BaseEvent]:
        return self.feed_many(events)

    def close(self) -> None:
        """End of the stream: a run still active means the stream was truncated."""
        if self._rules.state is RunState.ACTIVE:
            raise ProtocolViolation(
                "truncated",
                "the stream ended without RUN_FINISHED or RUN_ERROR: never read as success",
                index=self.index,
            )

    def end_turn(self) -> list[BaseEvent]:
        """The ``*_END`` events that close every chunk stream still being expanded.

        For a bare turn with no run event to close them; the machine stays usable.
        """
        out = self._chunks.end_all()
        for ev in out:
            self._rules.verify(ev)
        return out

    def end_input(self) -> list[BaseEvent]:
        """The encoders' truncation rule, at the end of their input.

        A bare turn (no ``RUN_*`` events: a decoder's output) has no terminal event of
        its own, so its chunk streams are closed (:meth:`end_turn`). A framed run still
        active was cut before its terminal event: that is ``ProtocolViolation("truncated")``,
        never encoded as the vendor's success; no input at all is truncated too.
        """
        if self.bare:
            return self.end_turn()
        if self.index < 0:
            raise ProtocolViolation(
                "truncated", "no events: nothing says the run happened, let alone ended"
            )
        self.close()
        return []

    def open_item_ends(self) -> list[BaseEvent]:
        """The ``*_END`` / ``STEP_FINISHED`` events that close everything still open.

        For a run stopped before its vendor turn ended (e.g. cancelled by the consumer).
        The machine has already taken them: send them as they are, do not feed them.
        """
        out = self.end_turn()
        r = self._rules
        ends: list[BaseEvent] = []
        for cid, call in r.open_calls.items():
            ends.append(ToolCallEndEvent(tool_call_id=cid, **owner_tag(call.owner)))
        for mid, owner in r.open["message"].items():
            ends.append(TextMessageEndEvent(message_id=mid, **owner_tag(owner)))
        for mid, owner in r.open["reasoning message"].items():
            ends.append(ReasoningMessageEndEvent(message_id=mid, **owner_tag(owner)))
        for mid, owner in r.open["reasoning"].items():
            ends.append(ReasoningEndEvent(message_id=mid, **owner_tag(owner)))
        for name, owner in reversed(r.open["step"].items()):
            ends.append(StepFinishedEvent(step_name=name, **owner_tag(owner)))
        for ev in ends:
            r.verify(ev)
        return out + ends

    @property
    def index(self) -> int:
        """The index of the last event fed (``-1`` before the first)."""
        return self._rules.index

    @property
    def keeps_history(self) -> bool:
        """Whether :attr:`messages` can be read (``history=True``)."""
        return self._thread.keeps_history

    @property
    def runs(self) -> list[RunStartedEvent]:
        """Every ``RUN_STARTED`` of the stream, in order."""
        return self._rules.runs

    @property
    def finished(self) -> RunFinishedEvent | None:
        """The current (or last) run's ``RUN_FINISHED``, once it came."""
        return self._rules.finished

    @property
    def error(self) -> RunErrorEvent | None:
        """The current (or last) run's ``RUN_ERROR``, once it came."""
        return self._rules.error

    @property
    def call_ids(self) -> frozenset[str]:
        """Every tool call id the thread has seen so far (for decoders that must not reuse one)."""
        return frozenset(self._thread.calls)

    @property
    def pending_tool_call_ids(self) -> list[str]:
        """Calls the current (or last) run started and did not answer, in order."""
        return self._rules.pending_tool_call_ids

    @property
    def messages(self) -> list[Message]:
        """The conversation history assembled so far (``ToolwireError`` with ``history=False``)."""
        return self._thread.messages()


def validate_stream(events: Any, *, history: bool = True) -> StreamMachine:
    """Run a whole stream through a machine (raises on the first violation)."""
    machine = StreamMachine(history=history)
    for e in events:
        machine.feed(e)
    machine.close()
    return machine


__all__ = ["RESULT_ERROR_KEY", "VIOLATION_CODES", "StreamMachine", "validate_stream"]
