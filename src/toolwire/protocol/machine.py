"""The AG-UI event-stream machine: chunk expansion, sequence rules, pending calls, history.

One sans-I/O consumer of AG-UI streams, used by every encoder, the CLI's
``validate`` and the tests. :meth:`StreamMachine.feed` takes one event (a model
or its JSON dict), expands ``*_CHUNK`` events into the explicit
start/content/end form, checks every fatal rule of the streaming pattern, the
tool-call family and the run lifecycle, and returns the explicit events. Each
violation is a :class:`~toolwire.errors.ProtocolViolation` with a stable code
(the table is :data:`VIOLATION_CODES`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    DeveloperMessage,
    EventType,
    FunctionCall,
    Message,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessage,
    ReasoningMessageChunkEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StepFinishedEvent,
    SystemMessage,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)

from toolwire.errors import ProtocolViolation
from toolwire.protocol.events import parse_event
from toolwire.protocol.ids import mint_id
from toolwire.protocol.limits import check
from toolwire.protocol.versions import check_declared

#: Metadata key under which toolwire carries a tool result's error text on
#: ``TOOL_CALL_RESULT`` (the event has no ``error`` field); history assembly
#: moves it to ``ToolMessage.error``.
RESULT_ERROR_KEY = "toolwire.error"

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
    "pending-tool-calls-mismatch": "a stated pendingToolCallIds list differs from the stream",
    "interrupt-id-duplicate": "two interrupts of one run share an id",
    "duplicate-message-id": "a new message reuses the id of another message in the thread",
    "tool-call-parent-not-assistant": "a tool call's parentMessageId names a non-assistant message",
    "truncated": "the stream ended with a run still active (no terminal event)",
}

_LANE_PASS = {
    EventType.RAW,
    EventType.ACTIVITY_SNAPSHOT,
    EventType.ACTIVITY_DELTA,
    EventType.REASONING_ENCRYPTED_VALUE,
    EventType.SUBAGENT_STARTED,
}
_ALL_LANES = {
    EventType.RUN_STARTED,
    EventType.RUN_FINISHED,
    EventType.RUN_ERROR,
    EventType.MESSAGES_SNAPSHOT,
}
_CHUNK_TYPES = {
    EventType.TOOL_CALL_CHUNK,
    EventType.TEXT_MESSAGE_CHUNK,
    EventType.REASONING_MESSAGE_CHUNK,
}


@dataclass
class _Chunking:
    """A chunk stream being expanded in one lane."""

    kind: str  # "tool" | "text" | "reasoning"
    id: str
    owner: str | None
    name: str | None = None
    parent: str | None = None
    role: str | None = None


@dataclass
class _Call:
    id: str
    name: str
    parent: str | None
    owner: str | None
    arguments: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    encrypted: str | None = None
    size: int = 0  # characters of argument text so far


@dataclass
class _Msg:
    id: str
    role: str
    owner: str | None = None
    name: str | None = None
    content: list[str] = field(default_factory=list)
    parts: Any = None  # tool message content (str or parts)
    tool_call_id: str | None = None
    calls: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    encrypted: str | None = None
    model: Message | None = None  # a message taken whole from a snapshot or input


def _tag(owner: str | None) -> dict[str, Any]:
    return {"subagent_run_id": owner} if owner else {}


def _owner(event: BaseEvent) -> str | None:
    value = getattr(event, "subagent_run_id", None)
    return value if isinstance(value, str) else None


class StreamMachine:
    """Consume an AG-UI stream event by event; see the module docstring."""

    def __init__(self, *, run_open: bool | Literal["auto"] = False) -> None:
        """``run_open`` starts inside a run: for a bare turn (a decoder's output) that has
        no ``RUN_STARTED`` of its own; :meth:`end_turn` closes it. ``"auto"`` decides from
        the first event (an encoder that takes either); ``bare`` says which it was."""
        self.index = -1
        self._auto = run_open == "auto"
        self.bare = run_open is True
        self._run: str = "active" if self.bare else "idle"  # idle | active | finished | errored
        self._lanes: dict[str | None, _Chunking] = {}
        self._open_calls: dict[str, _Call] = {}
        self._calls: dict[str, _Call] = {}
        self._open_messages: dict[str, str | None] = {}
        self._open_reasoning: dict[str, str | None] = {}
        self._open_reasoning_msgs: dict[str, str | None] = {}
        self._open_steps: dict[str, str | None] = {}
        self._subagents_open: set[str] = set()
        self._subagents_seen: set[str] = set()
        # calls the run started, in order (a dict: an ordered set, O(1) membership)
        self._run_started_calls: dict[str, None] = {}
        self._run_answered: set[str] = set()
        self._msgs: dict[str, _Msg] = {}
        self._order: list[str] = []
        self._last_assistant: str | None = None
        self._pending_encrypted: dict[tuple[str, str], ReasoningEncryptedValueEvent] = {}
        self.runs: list[RunStartedEvent] = []
        self.finished: RunFinishedEvent | None = None
        self.error: RunErrorEvent | None = None

    # ---------------------------------------------------------------- public

    def feed(self, event: BaseEvent | dict[str, Any]) -> list[BaseEvent]:
        """One event in, the explicit events it stands for out (after every check)."""
        self.index += 1
        parsed = parse_event(event, self.index)
        if parsed is None:
            return []
        if self._auto:
            self._auto = False
            if parsed.type not in (EventType.RUN_STARTED, EventType.RUN_ERROR):
                self.bare = True
                self._run = "active"
        out: list[BaseEvent] = []
        if parsed.type not in _CHUNK_TYPES:
            self._check_not_chunked(parsed)
        self._close_lanes_for(parsed, out)
        if parsed.type in _CHUNK_TYPES:
            out.extend(self._expand(parsed))
        else:
            out.append(parsed)
        for ev in out:
            self._verify(ev)
        return out

    def feed_all(self, events: Any) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        for e in events:
            out.extend(self.feed(e))
        return out

    def close(self) -> None:
        """End of the stream: a run still active means the stream was truncated."""
        if self._run == "active":
            raise ProtocolViolation(
                "truncated",
                "the stream ended without RUN_FINISHED or RUN_ERROR: never read as success",
                index=self.index,
            )

    def end_turn(self) -> list[BaseEvent]:
        """The ``*_END`` events that close every chunk stream still being expanded.

        For a bare turn with no run event to close them; the machine stays usable.
        """
        out = [self._synth_end(self._lanes.pop(lane)) for lane in list(self._lanes)]
        for ev in out:
            self._verify(ev)
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
        ends: list[BaseEvent] = []
        for cid, call in self._open_calls.items():
            ends.append(ToolCallEndEvent(tool_call_id=cid, **_tag(call.owner)))
        for mid, owner in self._open_messages.items():
            ends.append(TextMessageEndEvent(message_id=mid, **_tag(owner)))
        for mid, owner in self._open_reasoning_msgs.items():
            ends.append(ReasoningMessageEndEvent(message_id=mid, **_tag(owner)))
        for mid, owner in self._open_reasoning.items():
            ends.append(ReasoningEndEvent(message_id=mid, **_tag(owner)))
        for name, owner in reversed(self._open_steps.items()):
            ends.append(StepFinishedEvent(step_name=name, **_tag(owner)))
        for ev in ends:
            self._verify(ev)
        return out + ends

    @property
    def call_ids(self) -> frozenset[str]:
        """Every tool call id the thread has seen so far (for decoders that must not reuse one)."""
        return frozenset(self._calls)

    @property
    def pending_tool_call_ids(self) -> list[str]:
        """Calls the current (or last) run started and did not answer, in order."""
        return [c for c in self._run_started_calls if c not in self._run_answered]

    @property
    def messages(self) -> list[Message]:
        """The conversation history assembled so far."""
        return [self._build(self._msgs[i]) for i in self._order]

    # ------------------------------------------------------------- expansion

    def _close_lanes_for(self, ev: BaseEvent, out: list[BaseEvent]) -> None:
        if ev.type in _ALL_LANES:
            for lane in list(self._lanes):
                out.append(self._synth_end(self._lanes.pop(lane)))
            return
        if ev.type in _LANE_PASS or ev.type in _CHUNK_TYPES:
            return
        lane = _owner(ev)
        if ev.type in (EventType.SUBAGENT_FINISHED, EventType.SUBAGENT_ERROR):
            if lane in self._lanes:
                out.append(self._synth_end(self._lanes.pop(lane)))
            return
        if lane in self._lanes:
            out.append(self._synth_end(self._lanes.pop(lane)))

    def _synth_end(self, c: _Chunking) -> BaseEvent:
        tag: dict[str, Any] = {"subagent_run_id": c.owner} if c.owner else {}
        if c.kind == "tool":
            return ToolCallEndEvent(tool_call_id=c.id, **tag)
        if c.kind == "text":
            return TextMessageEndEvent(message_id=c.id, **tag)
        return ReasoningMessageEndEvent(message_id=c.id, **tag)

    def _find_stream(self, kind: str, ident: str | None, tag: str | None) -> _Chunking | None:
        if ident is not None:
            for c in self._lanes.values():
                if c.kind == kind and c.id == ident:
                    return c
            return None
        if tag is not None:
            tagged = self._lanes.get(tag)
            return tagged if tagged is not None and tagged.kind == kind else None
        parent = self._lanes.get(None)
        if parent is not None and parent.kind == kind:
            return parent
        others = [c for lane, c in self._lanes.items() if lane is not None and c.kind == kind]
        if len(others) > 1:
            raise ProtocolViolation(
                "chunk-ambiguous-lane",
                "an untagged chunk without an id cannot tell which subagent's stream it continues",
                index=self.index,
            )
        return others[0] if others else None

    def _expand(self, ev: BaseEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        tag = _owner(ev)
        meta: dict[str, Any] = {"metadata": ev.metadata} if ev.metadata is not None else {}
        raw: dict[str, Any] = {"raw_event": ev.raw_event} if ev.raw_event is not None else {}
        owner_tag: dict[str, Any]
        if isinstance(ev, ToolCallChunkEvent):
            kind, ident = "tool", ev.tool_call_id
        elif isinstance(ev, TextMessageChunkEvent):
            kind, ident = "text", ev.message_id
        else:
            assert isinstance(ev, ReasoningMessageChunkEvent)
            kind, ident = "reasoning", ev.message_id
        stream = self._find_stream(kind, ident, tag)
        if stream is None:
            # opener
            if ident is None:
                code = (
                    "chunk-missing-tool-call-id" if kind == "tool" else "chunk-missing-message-id"
                )
                raise ProtocolViolation(
                    code, f"the first {ev.type.value} must carry its id", index=self.index
                )
            lane = tag
            if lane in self._lanes:
                out.append(self._synth_end(self._lanes.pop(lane)))
            owner_tag = {"subagent_run_id": tag} if tag else {}
            if isinstance(ev, ToolCallChunkEvent):
                if ev.tool_call_name is None:
                    raise ProtocolViolation(
                        "chunk-missing-tool-call-name",
                        f"the first TOOL_CALL_CHUNK of {ident!r} must carry toolCallName",
                        index=self.index,
                    )
                stream = _Chunking(kind, ident, tag, ev.tool_call_name, ev.parent_message_id)
                start_kw: dict[str, Any] = {}
                if ev.parent_message_id is not None:
                    start_kw["parent_message_id"] = ev.parent_message_id
                out.append(
                    ToolCallStartEvent(
                        tool_call_id=ident,
                        tool_call_name=ev.tool_call_name,
                        **start_kw,
                        **owner_tag,
                        **meta,
                    )
                )
                if ev.delta is not None:
                    out.append(
                        ToolCallArgsEvent(tool_call_id=ident, delta=ev.delta, **owner_tag, **raw)
                    )
            elif isinstance(ev, TextMessageChunkEvent):
                stream = _Chunking(kind, ident, tag, role=ev.role)
                skw: dict[str, Any] = {"role": ev.role or "assistant"}
                if ev.name is not None:
                    skw["name"] = ev.name
                out.append(TextMessageStartEvent(message_id=ident, **skw, **owner_tag, **meta))
                if ev.delta:
                    out.append(
                        TextMessageContentEvent(
                            message_id=ident, delta=ev.delta, **owner_tag, **raw
                        )
                    )
            else:
                assert isinstance(ev, ReasoningMessageChunkEvent)
                stream = _Chunking(kind, ident, tag)
                out.append(ReasoningMessageStartEvent(message_id=ident, **owner_tag, **meta))
                if ev.delta:
                    out.append(
                        ReasoningMessageContentEvent(
                            message_id=ident, delta=ev.delta, **owner_tag, **raw
                        )
                    )
            self._lanes[lane] = stream
            return out
        # continuation
        if tag is not None and stream.owner != tag:
            raise ProtocolViolation(
                "owner-mismatch",
                f"chunk tagged {tag!r} continues {stream.id!r} opened by {stream.owner!r}",
                index=self.index,
            )
        lane_owner = tag or stream.owner
        owner_tag = {"subagent_run_id": lane_owner} if lane_owner else {}
        if isinstance(ev, ToolCallChunkEvent):
            if ev.tool_call_name is not None and ev.tool_call_name != stream.name:
                raise ProtocolViolation(
                    "chunk-conflicting-name",
                    f"cannot continue tool call {stream.id!r}: toolCallName {ev.tool_call_name!r}"
                    f" does not match {stream.name!r}",
                    index=self.index,
                )
            if ev.parent_message_id is not None and ev.parent_message_id != stream.parent:
                raise ProtocolViolation(
                    "chunk-conflicting-parent",
                    f"cannot continue tool call {stream.id!r}: parentMessageId"
                    f" {ev.parent_message_id!r} does not match {stream.parent!r}",
                    index=self.index,
                )
            if ev.delta is not None or ev.metadata is not None:
                out.append(
                    ToolCallArgsEvent(
                        tool_call_id=stream.id, delta=ev.delta or "", **owner_tag, **meta, **raw
                    )
                )
        elif isinstance(ev, TextMessageChunkEvent):
            if ev.role is not None and stream.role is not None and ev.role != stream.role:
                raise ProtocolViolation(
                    "chunk-conflicting-role",
                    f"cannot continue message {stream.id!r}: role {ev.role!r}",
                    index=self.index,
                )
            if ev.delta or ev.metadata is not None:
                out.append(
                    TextMessageContentEvent(
                        message_id=stream.id, delta=ev.delta or "", **owner_tag, **meta, **raw
                    )
                )
        else:
            assert isinstance(ev, ReasoningMessageChunkEvent)
            if ev.delta or ev.metadata is not None:
                out.append(
                    ReasoningMessageContentEvent(
                        message_id=stream.id, delta=ev.delta or "", **owner_tag, **meta, **raw
                    )
                )
        return out

    def _check_not_chunked(self, ev: BaseEvent) -> None:
        ident: str | None = None
        kind = ""
        if isinstance(ev, (ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent)):
            ident, kind = ev.tool_call_id, "tool"
        elif isinstance(ev, (TextMessageStartEvent, TextMessageContentEvent, TextMessageEndEvent)):
            ident, kind = ev.message_id, "text"
        elif isinstance(
            ev,
            (ReasoningMessageStartEvent, ReasoningMessageContentEvent, ReasoningMessageEndEvent),
        ):
            ident, kind = ev.message_id, "reasoning"
        if ident is None:
            return
        for c in self._lanes.values():
            if c.kind == kind and c.id == ident:
                raise ProtocolViolation(
                    "chunk-forms-mixed",
                    f"{ev.type.value} for {ident!r}, which a chunk stream is assembling",
                    index=self.index,
                )

    # ---------------------------------------------------------- verification

    def _fail(self, code: str, reason: str) -> None:
        raise ProtocolViolation(code, reason, index=self.index)

    def _verify(self, ev: BaseEvent) -> None:
        t = ev.type
        if self._run == "idle" and t not in (EventType.RUN_STARTED, EventType.RUN_ERROR):
            self._fail("event-before-run-started", f"{t.value} before RUN_STARTED")
        if self._run == "finished" and t not in (EventType.RUN_STARTED, EventType.RUN_ERROR):
            self._fail("event-after-run-closed", f"{t.value} after RUN_FINISHED")
        if self._run == "errored" and t is not EventType.RUN_STARTED:
            self._fail("event-after-run-closed", f"{t.value} after RUN_ERROR")
        handler = getattr(self, "_on_" + t.value.lower(), None)
        if handler is not None:
            handler(ev)

    def _continuation_owner(self, opener: str | None, ev: BaseEvent, what: str) -> None:
        tag = _owner(ev)
        if tag is not None and tag != opener:
            self._fail("owner-mismatch", f"{ev.type.value} tagged {tag!r} but {what} is {opener!r}")

    # run lifecycle
    def _on_run_started(self, ev: RunStartedEvent) -> None:
        if self._run == "active":
            self._fail("run-already-started", "RUN_STARTED while a run is active")
        self._run = "active"
        self._reset_run()
        self.runs.append(ev)
        check_declared(ev.protocol_version, who="the stream")
        if ev.input is not None and not self._order:
            for m in ev.input.messages:
                self._adopt(m)

    def _reset_run(self) -> None:
        self._open_calls.clear()
        self._open_messages.clear()
        self._open_reasoning.clear()
        self._open_reasoning_msgs.clear()
        self._open_steps.clear()
        self._subagents_open.clear()
        self._subagents_seen.clear()
        self._run_started_calls = {}
        self._run_answered = set()
        self.finished = None
        self.error = None

    def _on_run_finished(self, ev: RunFinishedEvent) -> None:
        if self._run != "active":
            self._fail("event-after-run-closed", "RUN_FINISHED with no active run")
        open_items = (
            [f"tool call {i!r}" for i in self._open_calls]
            + [f"message {i!r}" for i in self._open_messages]
            + [f"reasoning {i!r}" for i in self._open_reasoning]
            + [f"reasoning message {i!r}" for i in self._open_reasoning_msgs]
            + [f"step {i!r}" for i in self._open_steps]
        )
        if open_items:
            self._fail("item-open-at-run-finished", "still open: " + ", ".join(open_items))
        if self._subagents_open:
            self._fail(
                "subagent-open-at-run-finished",
                "subagents not closed: " + ", ".join(sorted(self._subagents_open)),
            )
        outcome = ev.outcome
        if isinstance(outcome, RunFinishedSuccessOutcome) and outcome.pending_tool_call_ids:
            if list(outcome.pending_tool_call_ids) != self.pending_tool_call_ids:
                self._fail(
                    "pending-tool-calls-mismatch",
                    f"stated {list(outcome.pending_tool_call_ids)}, the stream leaves "
                    f"{self.pending_tool_call_ids} pending",
                )
        if isinstance(outcome, RunFinishedInterruptOutcome):
            seen: set[str] = set()
            for it in outcome.interrupts:
                if it.id in seen:
                    self._fail("interrupt-id-duplicate", f"interrupt id {it.id!r} repeated")
                seen.add(it.id)
        self._run = "finished"
        self.finished = ev

    def _on_run_error(self, ev: RunErrorEvent) -> None:
        self._run = "errored"
        self.error = ev
        self._open_calls.clear()
        self._open_messages.clear()
        self._open_reasoning.clear()
        self._open_reasoning_msgs.clear()
        self._open_steps.clear()
        self._subagents_open.clear()

    # open/continue/close bookkeeping shared by steps, messages and reasoning
    def _opening(
        self, table: dict[str, str | None], key: str, code: str, what: str, ev: BaseEvent
    ) -> None:
        if key in table:
            self._fail(code, f"{what} {key!r} is open")
        table[key] = _owner(ev)

    def _continuing(
        self,
        table: dict[str, str | None],
        key: str,
        code: str,
        what: str,
        ev: BaseEvent,
        *,
        close: bool = False,
    ) -> None:
        if key not in table:
            self._fail(code, f"{ev.type.value} for {what} {key!r}, which is not open")
        owner = table.pop(key) if close else table[key]
        self._continuation_owner(owner, ev, f"the owner of {what} {key!r}")

    # steps and subagents
    def _on_step_started(self, ev: Any) -> None:
        self._opening(self._open_steps, ev.step_name, "step-already-open", "step", ev)

    def _on_step_finished(self, ev: Any) -> None:
        self._continuing(self._open_steps, ev.step_name, "step-not-open", "step", ev, close=True)

    def _on_subagent_started(self, ev: Any) -> None:
        if ev.subagent_run_id in self._subagents_seen:
            self._fail("subagent-reused", f"subagentRunId {ev.subagent_run_id!r} announced twice")
        self._subagents_seen.add(ev.subagent_run_id)
        self._subagents_open.add(ev.subagent_run_id)

    def _on_subagent_finished(self, ev: Any) -> None:
        self._subagents_open.discard(ev.subagent_run_id)

    _on_subagent_error = _on_subagent_finished

    # text messages
    def _on_text_message_start(self, ev: TextMessageStartEvent) -> None:
        self._opening(self._open_messages, ev.message_id, "message-already-open", "message", ev)
        msg = self._msgs.get(ev.message_id)
        role = ev.role or "assistant"
        if msg is not None and msg.role != role:
            self._fail(
                "duplicate-message-id",
                f"a {role} text message reuses messageId {ev.message_id!r} of a {msg.role} "
                "message; the history cannot hold both",
            )
        if msg is None:
            msg = self._new_msg(ev.message_id, ev.role or "assistant", _owner(ev))
            msg.name = ev.name
        self._merge(msg.metadata, ev)
        if msg.role == "assistant":
            self._last_assistant = msg.id

    def _on_text_message_content(self, ev: TextMessageContentEvent) -> None:
        self._continuing(self._open_messages, ev.message_id, "message-not-open", "message", ev)
        msg = self._msgs[ev.message_id]
        msg.content.append(ev.delta)
        self._merge(msg.metadata, ev)

    def _on_text_message_end(self, ev: TextMessageEndEvent) -> None:
        self._continuing(
            self._open_messages, ev.message_id, "message-not-open", "message", ev, close=True
        )
        self._merge(self._msgs[ev.message_id].metadata, ev)

    # reasoning
    def _on_reasoning_start(self, ev: Any) -> None:
        self._opening(self._open_reasoning, ev.message_id, "message-already-open", "reasoning", ev)

    def _on_reasoning_end(self, ev: Any) -> None:
        self._continuing(
            self._open_reasoning, ev.message_id, "message-not-open", "reasoning", ev, close=True
        )

    def _on_reasoning_message_start(self, ev: ReasoningMessageStartEvent) -> None:
        self._opening(
            self._open_reasoning_msgs,
            ev.message_id,
            "message-already-open",
            "reasoning message",
            ev,
        )
        msg = self._msgs.get(ev.message_id)
        if msg is not None and msg.role != "reasoning":
            self._fail(
                "duplicate-message-id",
                f"a reasoning message reuses messageId {ev.message_id!r} of a {msg.role} message",
            )
        msg = msg or self._new_msg(ev.message_id, "reasoning", _owner(ev))
        self._merge(msg.metadata, ev)

    def _on_reasoning_message_content(self, ev: ReasoningMessageContentEvent) -> None:
        self._continuing(
            self._open_reasoning_msgs, ev.message_id, "message-not-open", "reasoning message", ev
        )
        msg = self._msgs[ev.message_id]
        msg.content.append(ev.delta)
        self._merge(msg.metadata, ev)

    def _on_reasoning_message_end(self, ev: ReasoningMessageEndEvent) -> None:
        self._continuing(
            self._open_reasoning_msgs,
            ev.message_id,
            "message-not-open",
            "reasoning message",
            ev,
            close=True,
        )
        self._merge(self._msgs[ev.message_id].metadata, ev)

    def _on_reasoning_encrypted_value(self, ev: ReasoningEncryptedValueEvent) -> None:
        # The event's metadata (e.g. who issued the value) merges into the entity it names.
        if ev.subtype == "tool-call" and ev.entity_id in self._calls:
            call = self._calls[ev.entity_id]
            call.encrypted = ev.encrypted_value
            self._merge(call.metadata, ev)
        elif ev.subtype == "message" and ev.entity_id in self._msgs:
            msg = self._msgs[ev.entity_id]
            msg.encrypted = ev.encrypted_value
            self._merge(msg.metadata, ev)
        else:
            self._pending_encrypted[(ev.subtype, ev.entity_id)] = ev

    # tool calls
    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> None:
        cid = ev.tool_call_id
        if cid in self._open_calls:
            self._fail("tool-call-already-open", f"tool call {cid!r} is open")
        tag = _owner(ev)
        parent = ev.parent_message_id
        if parent is not None and parent in self._msgs:
            if self._msgs[parent].role != "assistant":
                self._fail(
                    "tool-call-parent-not-assistant",
                    f"tool call {cid!r} names parentMessageId {parent!r}, a "
                    f"{self._msgs[parent].role} message; only an assistant message makes calls",
                )
            powner = self._msgs[parent].owner
            if tag is not None and powner != tag:
                self._fail(
                    "tool-call-owner-mismatch",
                    f"tool call {cid!r} tagged {tag!r} but its message {parent!r} belongs to "
                    f"{powner!r}; a tool call belongs to the message that carries it",
                )
            if tag is None:
                tag = powner
        existing = self._calls.get(cid)
        if existing is not None:
            if existing.name != ev.tool_call_name or (
                parent is not None and parent != existing.parent
            ):
                self._fail(
                    "tool-call-reopen-disagrees",
                    f"reopening {cid!r} as {ev.tool_call_name!r}/{parent!r}, opened as "
                    f"{existing.name!r}/{existing.parent!r}",
                )
            call = existing
        else:
            call = _Call(cid, ev.tool_call_name, parent, tag)
            self._calls[cid] = call
            self._attach(call)
            enc = self._pending_encrypted.pop(("tool-call", cid), None)
            if enc is not None:
                call.encrypted = enc.encrypted_value
                self._merge(call.metadata, enc)
        self._open_calls[cid] = call
        self._run_started_calls.setdefault(cid)
        self._merge(call.metadata, ev)

    def _on_tool_call_args(self, ev: ToolCallArgsEvent) -> None:
        call = self._open_calls.get(ev.tool_call_id)
        if call is None:
            self._fail("tool-call-not-open", f"TOOL_CALL_ARGS for {ev.tool_call_id!r}, not open")
            return
        self._continuation_owner(call.owner, ev, "its TOOL_CALL_START's owner")
        call.arguments.append(ev.delta)
        call.size += len(ev.delta)
        check(
            "max_argument_chars",
            call.size,
            lambda: f"event {self.index}: arguments of {call.id!r}",
        )
        self._merge(call.metadata, ev)

    def _on_tool_call_end(self, ev: ToolCallEndEvent) -> None:
        call = self._open_calls.get(ev.tool_call_id)
        if call is None:
            self._fail("tool-call-not-open", f"TOOL_CALL_END for {ev.tool_call_id!r}, not open")
            return
        self._continuation_owner(call.owner, ev, "its TOOL_CALL_START's owner")
        del self._open_calls[ev.tool_call_id]
        self._merge(call.metadata, ev)

    def _on_tool_call_result(self, ev: ToolCallResultEvent) -> None:
        existing = self._msgs.get(ev.message_id)
        if existing is not None and existing.role != "tool":
            self._fail("duplicate-message-id", f"messageId {ev.message_id!r} is already used")
        msg = existing or self._new_msg(ev.message_id, "tool", _owner(ev))
        msg.parts = ev.content
        msg.tool_call_id = ev.tool_call_id
        self._merge(msg.metadata, ev)
        self._run_answered.add(ev.tool_call_id)
        self._last_assistant = None

    def _on_messages_snapshot(self, ev: MessagesSnapshotEvent) -> None:
        self._msgs.clear()
        self._order.clear()
        self._calls = {k: v for k, v in self._calls.items() if k in self._open_calls}
        for m in ev.messages:
            self._adopt(m)

    # --------------------------------------------------------------- history

    def _merge(self, target: dict[str, Any], ev: BaseEvent) -> None:
        if ev.metadata:
            target.update(ev.metadata)

    def _new_msg(self, mid: str, role: str, owner: str | None) -> _Msg:
        msg = _Msg(mid, role, owner)
        enc = self._pending_encrypted.pop(("message", mid), None)
        if enc is not None:
            msg.encrypted = enc.encrypted_value
            self._merge(msg.metadata, enc)
        self._msgs[mid] = msg
        self._order.append(mid)
        if role in ("user", "tool"):
            self._last_assistant = None
        return msg

    def _attach(self, call: _Call) -> None:
        mid = call.parent
        if mid is None:
            mid = self._last_assistant or mint_id("msg", call.id)
        msg = self._msgs.get(mid)
        if msg is None:
            msg = self._new_msg(mid, "assistant", call.owner)
        msg.calls.append(call.id)
        self._last_assistant = mid

    def _adopt(self, m: Message) -> None:
        msg = _Msg(m.id, m.role, getattr(m, "subagent_run_id", None), model=m)
        self._msgs[m.id] = msg
        self._order.append(m.id)
        if isinstance(m, AssistantMessage):
            for tc in m.tool_calls or []:
                if tc.id not in self._calls:
                    self._calls[tc.id] = _Call(tc.id, tc.function.name, m.id, msg.owner)
        if isinstance(m, ToolMessage):
            self._run_answered.add(m.tool_call_id)

    def _build(self, msg: _Msg) -> Message:
        base: dict[str, Any] = {"id": msg.id}
        if msg.owner is not None:
            base["subagent_run_id"] = msg.owner
        meta = dict(msg.metadata)
        if msg.model is not None and not msg.calls and not msg.content:
            return msg.model
        if msg.role == "tool":
            error = meta.get(RESULT_ERROR_KEY)
            kw: dict[str, Any] = {}
            if isinstance(error, str):
                kw["error"] = error
            if meta:
                kw["metadata"] = meta
            if msg.encrypted is not None:
                kw["encrypted_value"] = msg.encrypted
            return ToolMessage(**base, content=msg.parts, tool_call_id=msg.tool_call_id or "", **kw)
        if msg.role == "reasoning":
            kw = {"metadata": meta} if meta else {}
            if msg.encrypted is not None:
                kw["encrypted_value"] = msg.encrypted
            return ReasoningMessage(**base, content="".join(msg.content), **kw)
        kw = {"metadata": meta} if meta else {}
        if msg.name is not None:
            kw["name"] = msg.name
        if msg.encrypted is not None:
            kw["encrypted_value"] = msg.encrypted
        text = "".join(msg.content)
        if msg.role == "assistant":
            calls = []
            for cid in msg.calls:
                c = self._calls[cid]
                ckw: dict[str, Any] = {}
                if c.encrypted is not None:
                    ckw["encrypted_value"] = c.encrypted
                if c.metadata:
                    ckw["metadata"] = dict(c.metadata)
                calls.append(
                    ToolCall(
                        id=c.id,
                        function=FunctionCall(name=c.name, arguments="".join(c.arguments)),
                        **ckw,
                    )
                )
            prior = msg.model if isinstance(msg.model, AssistantMessage) else None
            if prior is not None:
                calls = list(prior.tool_calls or []) + calls
                text = (prior.content or "") + text
            if calls:
                kw["tool_calls"] = calls
            if text or not calls:
                kw["content"] = text
            return AssistantMessage(**base, **kw)
        cls = {"user": UserMessage, "system": SystemMessage, "developer": DeveloperMessage}[
            msg.role
        ]
        return cls(**base, content=text, **kw)  # type: ignore[no-any-return]


def validate_stream(events: Any) -> StreamMachine:
    """Run a whole stream through a machine (raises on the first violation)."""
    machine = StreamMachine()
    for e in events:
        machine.feed(e)
    machine.close()
    return machine


__all__ = ["RESULT_ERROR_KEY", "VIOLATION_CODES", "StreamMachine", "validate_stream"]
