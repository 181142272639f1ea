"""Asgard SSE frames -> AG-UI events (the turn; ``frame_run`` adds ``RUN_*``).

The rules are seed-peers.md §3.4, and the Asgard SDK's own reducer where §3.4
defers to it: a late start or delta after a complete is dropped, a delta
without a start opens the message lazily, a complete is self-sufficient.
"""

from __future__ import annotations

from collections.abc import (
    Callable,
    Collection,
    Iterable,
    Iterator,
)
from dataclasses import dataclass, field
from typing import Any, Literal

from ag_ui.core import (
    BaseEvent,
    EventType,
    Interrupt,
    MessagesSnapshotEvent,
    RawEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    aggregate_token_usage,
)
from ag_ui.core.events import SubagentFinishedSuspendedOutcome

from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss
from toolwire.protocol.callids import CallIds as RepeatedIds
from toolwire.protocol.decoding import BaseDecoder, as_dict
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.machine import RESULT_ERROR_KEY, StreamMachine
from toolwire.protocol.runs import frame_run
from toolwire.protocol.surface import check_choice

from . import wire as f
from .parts import arguments_text, error_text, is_error, result_text
from .wire import FIELDS, META_KEY

CallIds = Literal["process_seq", "tool_use_id"]

#: What an answer to a consent interrupt looks like (``ResumeEntry.payload``).
CONSENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "result": {"type": "string", "enum": list(f.CONSENT_RESULTS)},
        "denyReason": {"type": "string"},
    },
    "required": ["result"],
}
CONSENT_REASON = "tool_call_consent"


@dataclass
class _Text:
    """One message or thinking block being assembled."""

    kind: str  # "text" | "thinking"
    owner: str | None
    parts: list[str] = field(default_factory=list)
    closed: bool = False


@dataclass
class _Call:
    id: str
    name: str
    process_id: str
    parameter: Any
    owner: str | None
    parent: str
    completed: bool = False


class Decoder(BaseDecoder):
    """One Asgard run's SSE frames (envelope dicts) -> the AG-UI turn.

    ``call_ids="process_seq"`` (default) names each call ``{processId}-{callSeq}``,
    the SDK's own key; ``"tool_use_id"`` prefers the frame's ``toolUseId`` (what
    toolwire's :class:`Encoder` fills with the AG-UI id, so a round trip keeps
    ids). ``qualify_with_run`` (or an id already in ``used_ids``, the thread's
    earlier call ids) prefixes the id with ``requestId:`` so it stays unique
    across runs of one channel.

    After the stream: ``thread_id``/``run_id`` hold ``customChannelId`` and
    ``requestId``, ``usage`` the run's usage, ``interrupts`` the consent
    interrupts, ``already_allowed`` the consent entries that needed no answer
    (answer them ``ALLOW_ONCE`` when replying), ``losses`` what was reshaped.
    """

    vendor = f.VENDOR

    def __init__(
        self,
        *,
        call_ids: CallIds = "process_seq",
        qualify_with_run: bool = False,
        used_ids: Collection[str] = (),
        rejoin: bool | None = None,
    ) -> None:
        super().__init__()
        self.rejoin = rejoin
        self._snapshot: StreamMachine | None = None
        check_choice(
            call_ids, ("process_seq", "tool_use_id"), option="call_ids", where="asgard.Decoder"
        )
        self.call_ids: CallIds = call_ids
        self.qualify_with_run = qualify_with_run
        self.used_ids = frozenset(used_ids)
        self.thread_id: str | None = None
        self.run_id: str | None = None
        self.envelope_metadata: dict[str, Any] = {}
        self.already_allowed: list[dict[str, Any]] = []
        self.error_detail: dict[str, Any] | None = None
        self._done = False
        self._failed = False
        self._texts: dict[str, _Text] = {}  # open messages and thinking blocks
        self._closed: set[str] = set()  # ids of finished ones: later frames are dropped
        self._calls: dict[tuple[str, int], _Call] = {}  # calls still running
        self._answered: set[tuple[str, int]] = set()
        #: the tool each (processId, callSeq) first named, and the further calls that
        #: reused the pair with another tool (each a call of its own, never dropped)
        self._key_tool: dict[tuple[str, int], str] = {}
        self._reused: dict[tuple[str, int], list[_Call]] = {}
        self._pair_ids: dict[tuple[str, int], str] = {}  # the id the pair's first call got
        self._repeats = RepeatedIds(self.vendor)
        self._ids: set[str] = set()
        self._by_tool_use: dict[str, str] = {}
        self._lane_msg: dict[str | None, str] = {}
        self._steps_open: dict[str, None] = {}
        self._steps_seen: set[str] = set()
        self._subagents_open: dict[str, None] = {}
        self._subagents_seen: set[str] = set()
        self._attributed: set[str] = set()
        self._interrupts: dict[str, Interrupt] = {}
        self._usage: list[TokenUsage] = []
        self._seen_content = False

    # ------------------------------------------------------------------ feed

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        et = chunk.get("eventType")
        if not isinstance(et, str):  # the place is named only when something is wrong
            et = FIELDS.text(et, self.where("eventType"))
        if self._done or self._failed:
            if et == f.RUN_INIT:
                raise VendorDataError(
                    self.vendor,
                    self.where("eventType"),
                    "a second asgard.run.init after the run ended: one Decoder decodes one run "
                    "(split a capture with toolwire.adapters.asgard.load_recording)",
                )
            return self.after_end("asgard.run.done/run.error")  # dropped (§3.4), with a loss
        self._envelope(chunk)
        key = f.FACT_KEY.get(et)
        if key is None:
            if et.startswith("asgard."):
                return [RawEvent(event=chunk, source="asgard")]
            self.losses.append(  # not Asgard's vocabulary: said, not carried
                Loss(
                    kind="event-dropped",
                    target="AG-UI",
                    reason=f"{self.where('eventType')}: {et!r} is no Asgard event type",
                )
            )
            return []
        fact = chunk.get("fact")
        if not isinstance(fact, dict):
            fact = FIELDS.obj(fact, self.where("fact"))
        payload = fact.get(key)
        where = self.where(f"fact.{key}")
        if payload is None and et in (f.RUN_INIT, f.RUN_DONE):
            payload = {}
        elif not isinstance(payload, dict):
            payload = FIELDS.obj(payload, where)  # raises, naming what is there instead
        if not self._seen_content and et != f.RUN_INIT:
            self._seen_content = True
            if self.rejoin or (self.rejoin is None and et == f.MESSAGE_USER):
                self._snapshot = StreamMachine()
                self._snapshot.feed(
                    RunStartedEvent(thread_id=self.thread_id or "", run_id=self.run_id or "")
                )
        events = _HANDLERS[et](self, payload, where)
        if self._snapshot is None:
            return events
        # a rejoin restates history: one MESSAGES_SNAPSHOT, not streaming triads (§3.4)
        out: list[BaseEvent] = []
        for ev in events:
            if ev.type is EventType.RAW:
                out.append(ev)
            else:
                self._snapshot.feed(ev)
        if self._done:
            out.append(MessagesSnapshotEvent(messages=self._snapshot.messages))
        return out

    def _envelope(self, chunk: dict[str, Any]) -> None:
        """The run's identity, from the first frame that carries it (every frame repeats it)."""
        if self.run_id is not None and self.thread_id is not None:
            return
        if self.run_id is None and isinstance(chunk.get("requestId"), str):
            self.run_id = chunk["requestId"]
        if self.thread_id is None and isinstance(chunk.get("customChannelId"), str):
            self.thread_id = chunk["customChannelId"] or None
        if not self.envelope_metadata:
            meta = {
                k: chunk[k]
                for k in ("namespace", "botProviderName", "traceId")
                if isinstance(chunk.get(k), str) and chunk[k]
            }
            if meta:
                self.envelope_metadata = {META_KEY: meta}

    def _on_run_init(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        return []  # (its envelope is read for every frame)

    def _on_run_done(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        return self._run_done()

    # ------------------------------------------------------------- run end

    def _run_done(self) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        for mid, text in list(self._texts.items()):
            out.extend(self._end(mid, text, None))
        for step in list(self._steps_open):
            out.append(StepFinishedEvent(step_name=step))
        self._steps_open.clear()
        for sid in list(self._subagents_open):
            self._loss(
                "subagent-unfinished",
                "asgard.run.done came before asgard.subagent.complete (an async Agent call); "
                "reported as a suspended subagent, not as a success or a failure",
            )
            out.append(
                SubagentFinishedEvent(
                    subagent_run_id=sid, outcome=SubagentFinishedSuspendedOutcome()
                )
            )
        self._subagents_open.clear()
        self._done = True
        self.interrupts = list(self._interrupts.values())
        return out

    def _on_run_error(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        err = FIELDS.obj(payload.get("error"), f"{where}.error")
        message = FIELDS.opt_text(err.get("message"), f"{where}.error.message") or "run error"
        code = FIELDS.opt_text(err.get("code"), f"{where}.error.code") or "asgard.run.error"
        self.error_detail = err
        self.error_metadata = {f"{META_KEY}.error": err}
        self._failed = True
        raise VendorStreamError(self.vendor, code, message)

    # ------------------------------------------------------ messages, thinking

    def _message(
        self, kind: str, phase: str, payload: dict[str, Any], where: str
    ) -> list[BaseEvent]:
        msg = payload.get("message")
        mid = msg.get("messageId") if isinstance(msg, dict) else None
        text = msg.get("text") if isinstance(msg, dict) else None
        owner = msg.get("parentToolUseId") if isinstance(msg, dict) else None
        if not (
            isinstance(mid, str)
            and (text is None or isinstance(text, str))
            and (owner is None or isinstance(owner, str))
        ):  # the slow path names what is wrong
            msg = FIELDS.at(payload, "message", dict, where)
            FIELDS.at(msg, "messageId", str, f"{where}.message")
            FIELDS.opt_text(msg.get("text"), f"{where}.message.text")
            FIELDS.opt_text(msg.get("parentToolUseId"), f"{where}.message.parentToolUseId")
        assert isinstance(msg, dict) and isinstance(mid, str)
        text = text or ""
        owner = owner or None
        if mid in self._closed:
            return []  # anything after complete is dropped (SDK rule)
        state = self._texts.get(mid)
        if state is not None and phase == "start":
            return []  # a repeated start
        out: list[BaseEvent] = []
        if state is None:
            state = _Text(kind, owner)
            self._texts[mid] = state
            tag = self._tag(owner)
            if kind == "text":
                out.append(TextMessageStartEvent(message_id=mid, role="assistant", **tag))
                self._lane_msg[owner] = mid
            else:
                out.append(ReasoningStartEvent(message_id=mid, **tag))
                out.append(ReasoningMessageStartEvent(message_id=mid, role="reasoning", **tag))
        if phase == "complete":
            have = "".join(state.parts)
            if text.startswith(have):
                out.extend(self._content(mid, state, text[len(have) :]))
            elif text != have:
                self._loss(
                    "message-text-contradicted",
                    f"asgard.message.complete for {mid!r} restates a text that is not the "
                    "streamed deltas; the streamed text is kept, the complete text is in the "
                    "end event's metadata",
                )
            out.extend(
                self._end(mid, state, msg, contradicted=text != have and not text.startswith(have))
            )
            return out
        out.extend(self._content(mid, state, text))
        return out

    def _content(self, mid: str, state: _Text, delta: str) -> list[BaseEvent]:
        if not delta:
            return []
        state.parts.append(delta)
        tag = self._tag(state.owner)
        if state.kind == "text":
            return [TextMessageContentEvent(message_id=mid, delta=delta, **tag)]
        return [ReasoningMessageContentEvent(message_id=mid, delta=delta, **tag)]

    def _end(
        self, mid: str, state: _Text, msg: dict[str, Any] | None, *, contradicted: bool = False
    ) -> list[BaseEvent]:
        state.closed = True
        self._texts.pop(mid, None)
        self._closed.add(mid)  # only the id stays, to drop late frames
        tag = self._tag(state.owner)
        kw: dict[str, Any] = dict(tag)
        extra = _message_extras(msg, contradicted) if msg is not None else {}
        if extra:
            kw["metadata"] = {META_KEY: extra}
        if state.kind == "text":
            return [TextMessageEndEvent(message_id=mid, **kw)]
        return [
            ReasoningMessageEndEvent(message_id=mid, **kw),
            ReasoningEndEvent(message_id=mid, **tag),
        ]

    # ----------------------------------------------------------- tool calls

    def _call_fields(self, payload: dict[str, Any], where: str) -> dict[str, Any]:
        pid = FIELDS.at(payload, "processId", str, where)
        seq = FIELDS.at(payload, "callSeq", int, where)
        if isinstance(seq, bool):
            raise FIELDS.wrong(seq, int, f"{where}.callSeq")
        tc = FIELDS.at(payload, "toolCall", dict, where)
        twhere = f"{where}.toolCall"
        return {
            "processId": pid,
            "callSeq": seq,
            "toolName": FIELDS.at(tc, "toolName", str, twhere),
            "toolsetName": FIELDS.opt_text(tc.get("toolsetName"), f"{twhere}.toolsetName") or "",
            "parameter": tc.get("parameter"),
            "parameterAt": f"{twhere}.parameter",
            "reason": FIELDS.opt_text(tc.get("reason"), f"{twhere}.reason") or None,
            "toolUseId": FIELDS.opt_text(payload.get("toolUseId"), f"{where}.toolUseId") or None,
            "parentToolUseId": FIELDS.opt_text(
                payload.get("parentToolUseId"), f"{where}.parentToolUseId"
            )
            or None,
        }

    def _call_id(self, fields: dict[str, Any]) -> str:
        base = f"{fields['processId']}-{fields['callSeq']}"
        if self.call_ids == "tool_use_id" and fields["toolUseId"]:
            base = fields["toolUseId"]
            if base in self._ids:
                base = f"{fields['processId']}-{fields['callSeq']}"
        taken = base in self.used_ids or base in self.known_call_ids or base in self._ids
        if self.qualify_with_run or taken:
            base = f"{self.run_id or ''}:{base}"
        return base

    def _open_call(
        self, fields: dict[str, Any], *, reused: bool = False
    ) -> tuple[_Call, list[BaseEvent]]:
        pair = (fields["processId"], fields["callSeq"])
        first = self._calls.get(pair)
        base = first.id if reused and first is not None else self._pair_ids.get(pair)
        if base is None:
            base = self._call_id(fields)
        cid = self._repeats.assign(base, self._ids) if reused else base
        owner = fields["parentToolUseId"]
        parent = self._lane_msg.get(owner) or mint_id("msg", self.run_id or "", cid)
        self._lane_msg[owner] = parent
        call = _Call(
            cid, fields["toolName"], fields["processId"], fields["parameter"], owner, parent
        )
        if reused:
            self._reused.setdefault(pair, []).append(call)
        else:
            self._calls[pair] = call
            self._key_tool[pair] = call.name
            self._pair_ids[pair] = cid
        self._ids.add(cid)
        if fields["toolUseId"]:
            self._by_tool_use[fields["toolUseId"]] = cid
        meta: dict[str, Any] = {
            "toolsetName": fields["toolsetName"],
            "processId": fields["processId"],
            "callSeq": fields["callSeq"],
        }
        for key in ("reason", "toolUseId", "parentToolUseId"):
            if fields[key]:
                meta[key] = fields[key]
        tag = self._tag(owner)
        out: list[BaseEvent] = [
            ToolCallStartEvent(
                tool_call_id=cid,
                tool_call_name=call.name,
                parent_message_id=parent,
                metadata={META_KEY: meta, **self._repeats.metadata(cid, base)},
                **tag,
            )
        ]
        if fields["parameter"] is not None:
            out.append(
                ToolCallArgsEvent(
                    tool_call_id=cid,
                    delta=arguments_text(fields["parameter"], fields["parameterAt"]),
                    **tag,
                )
            )
        out.append(ToolCallEndEvent(tool_call_id=cid, **tag))
        return call, out

    def _on_tool_call_start(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        fields = self._call_fields(payload, where)
        key = (fields["processId"], fields["callSeq"])
        if key in self._calls or key in self._answered:
            name = fields["toolName"]
            if name == self._key_tool.get(key) or any(
                c.name == name for c in self._reused.get(key, [])
            ):
                return []  # a repeated or late start: the SDK keeps the first
            return self._open_call(fields, reused=True)[1]  # another tool: its own call
        return self._open_call(fields)[1]

    def _on_tool_call_complete(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        fields = self._call_fields(payload, where)
        out: list[BaseEvent] = []
        key = (fields["processId"], fields["callSeq"])
        other = next((c for c in self._reused.get(key, []) if c.name == fields["toolName"]), None)
        if other is not None:  # the complete of a call that reused the pair with its tool
            if other.completed:
                return []
            other.completed = True
            call = other
        else:
            if key in self._answered:
                if self._key_tool.get(key) not in (None, fields["toolName"]):
                    # another tool under a used pair, with no start: its own call
                    call, out = self._open_call(fields, reused=True)
                    call.completed = True
                    return out + self._result_events(call, fields, payload, where)
                return []  # a second complete: the SDK keeps the first
            found = self._calls.get(key)
            if found is not None and found.name != fields["toolName"]:
                # the pair's first call is still running: this complete is another tool's
                call, out = self._open_call(fields, reused=True)
                call.completed = True
                return out + self._result_events(call, fields, payload, where)
            if found is None:
                # The SDK drops a complete with no start; its toolCall is whole: keep the call.
                found, out = self._open_call(fields)
            call = found
            if call.completed:
                return []
            call.completed = True
            del self._calls[key]  # only its key stays, to drop a repeated complete
            self._answered.add(key)
        return out + self._result_events(call, fields, payload, where)

    def _result_events(
        self, call: _Call, fields: dict[str, Any], payload: dict[str, Any], where: str
    ) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        result = payload.get("toolCallResult")
        content = result_text(result, f"{where}.toolCallResult")
        meta: dict[str, Any] = {"processId": fields["processId"], "callSeq": fields["callSeq"]}
        if isinstance(payload.get("isError"), bool):
            meta["isError"] = payload["isError"]
        sidecar = payload.get("toolUseResultSidecar")
        if sidecar is not None:
            meta["toolUseResultSidecar"] = sidecar
        metadata: dict[str, Any] = {META_KEY: meta}
        if is_error(payload):
            metadata[RESULT_ERROR_KEY] = error_text(result, content)
        out.append(
            ToolCallResultEvent(
                message_id=result_message_id(call.id),
                tool_call_id=call.id,
                content=content,
                role="tool",
                metadata=metadata,
                **self._tag(call.owner),
            )
        )
        if self._lane_msg.get(call.owner) == call.parent:
            del self._lane_msg[call.owner]  # the next call belongs to the next assistant turn
        return out

    def _on_message_user(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        """The user's own turn, replayed on a rejoin: restated in the snapshot."""
        mid = FIELDS.at(payload, "messageId", str, where)
        text = FIELDS.opt_text(payload.get("text"), f"{where}.text") or ""
        if self._snapshot is None or mid in self._closed:
            return []  # not a rejoin: a live stream never carries it
        self._closed.add(mid)
        out: list[BaseEvent] = [TextMessageStartEvent(message_id=mid, role="user")]
        if text:
            out.append(TextMessageContentEvent(message_id=mid, delta=text))
        meta = {
            k: payload[k] for k in ("customMessageId", "identityHint", "blobIds") if payload.get(k)
        }
        end_kw: dict[str, Any] = {"metadata": {META_KEY: meta}} if meta else {}
        out.append(TextMessageEndEvent(message_id=mid, **end_kw))
        return out

    # -------------------------------------------------------------- consent

    def _on_tool_call_consent(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        pid = FIELDS.at(payload, "processId", str, where)
        pending = FIELDS.at(payload, "pendingCalls", list, where)
        asked: list[Interrupt] = []
        allowed: list[dict[str, Any]] = []
        for n, item in enumerate(pending):
            iwhere = f"{where}.pendingCalls[{n}]"
            FIELDS.obj(item, iwhere)
            tcid = FIELDS.at(item, "toolCallId", str, iwhere)
            name = FIELDS.at(item, "toolName", str, iwhere)
            toolset = FIELDS.opt_text(item.get("toolsetName"), f"{iwhere}.toolsetName") or ""
            reason = FIELDS.opt_text(item.get("reason"), f"{iwhere}.reason") or None
            if FIELDS.opt_bool(item.get("alreadyAllowed"), f"{iwhere}.alreadyAllowed"):
                allowed.append(item)
                continue
            meta: dict[str, Any] = {
                "toolsetName": toolset,
                "toolName": name,
                "parameter": item.get("parameter"),
                "processId": pid,
            }
            kw: dict[str, Any] = {}
            match = self._by_tool_use.get(tcid) or (tcid if tcid in self._ids else None)
            if match is not None:
                kw["tool_call_id"] = match
            else:
                hint = [
                    c.id
                    for c in self._calls.values()
                    if not c.completed
                    and c.process_id == pid
                    and c.name == name
                    and c.parameter == item.get("parameter")
                ]
                if len(hint) == 1:
                    meta["candidateToolCallId"] = hint[0]
            if reason:
                kw["message"] = reason
            asked.append(
                Interrupt(
                    id=tcid,
                    reason=CONSENT_REASON,
                    response_schema=CONSENT_SCHEMA,
                    metadata={META_KEY: meta},
                    **kw,
                )
            )
        self.already_allowed.extend(allowed)
        for it in asked:
            if allowed:
                assert it.metadata is not None
                it.metadata[META_KEY]["alreadyAllowedCalls"] = allowed
            self._interrupts[it.id] = it
        return []

    # ------------------------------------------------------ usage, steps

    def _on_usage(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        kw: dict[str, Any] = {}
        model = (
            FIELDS.opt_text(payload.get("completionModelName"), f"{where}.completionModelName")
            or None
        )
        if model:
            kw["model"] = model
        for src, dst in (
            ("inputTokens", "input_tokens"),
            ("outputTokens", "output_tokens"),
            ("totalTokens", "total_tokens"),
        ):
            value = FIELDS.opt_int(payload.get(src), f"{where}.{src}")
            if value is not None:
                if not 0 <= value < 2**53:  # TokenUsage counts are JSON-safe integers
                    raise VendorDataError(
                        self.vendor, f"{where}.{src}", f"{value} is not a token count (0..2**53-1)"
                    )
                kw[dst] = value
        self._usage.append(TokenUsage(**kw))
        self.usage = aggregate_token_usage(self._usage)
        return []

    def _on_process_start(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        pid = FIELDS.at(payload, "processId", str, where)
        if pid in self._steps_seen:
            return []
        self._steps_seen.add(pid)
        self._steps_open[pid] = None
        kw: dict[str, Any] = {}
        if payload.get("task") is not None:
            kw["metadata"] = {META_KEY: {"task": payload["task"]}}
        return [StepStartedEvent(step_name=pid, **kw)]

    def _on_process_complete(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        pid = FIELDS.at(payload, "processId", str, where)
        if pid not in self._steps_open:
            return []  # nothing open to finish
        del self._steps_open[pid]
        kw: dict[str, Any] = {}
        if payload.get("taskResult") is not None:
            kw["metadata"] = {META_KEY: {"taskResult": payload["taskResult"]}}
        return [StepFinishedEvent(step_name=pid, **kw)]

    # ------------------------------------------------------------ subagents

    def _tag(self, owner: str | None) -> dict[str, Any]:
        if owner is None:
            return {}
        if owner not in self._subagents_seen:
            self._attributed.add(owner)
        return {"subagent_run_id": owner}

    def _on_subagent_start(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        agent = FIELDS.at(payload, "agentId", str, where)
        sid = FIELDS.at(payload, "parentToolUseId", str, where)
        if sid in self._subagents_seen:
            return []  # a replayed start never rolls the status back
        if sid in self._attributed:
            self._loss(
                "subagent-announcement-late",
                f"asgard.subagent.start for {sid!r} came after events attributed to it; AG-UI "
                "requires the announcement first, so the subagent stays unannounced",
            )
            return []
        self._subagents_seen.add(sid)
        self._subagents_open[sid] = None
        kind = FIELDS.opt_text(payload.get("subagentType"), f"{where}.subagentType") or None
        kw: dict[str, Any] = {}
        desc = FIELDS.opt_text(payload.get("description"), f"{where}.description") or None
        if desc:
            kw["description"] = desc
        parent = self._by_tool_use.get(sid)
        if parent is not None:
            kw["parent_tool_call_id"] = parent
        meta: dict[str, Any] = {"agentId": agent}
        if kind:
            meta["subagentType"] = kind
        return [
            SubagentStartedEvent(
                subagent_run_id=sid, name=kind or agent, metadata={META_KEY: meta}, **kw
            )
        ]

    def _on_subagent_complete(self, payload: dict[str, Any], where: str) -> list[BaseEvent]:
        FIELDS.at(payload, "agentId", str, where)
        sid = FIELDS.at(payload, "parentToolUseId", str, where)
        status = FIELDS.at(payload, "status", str, where)
        summary = FIELDS.opt_text(payload.get("summary"), f"{where}.summary") or None
        if status not in ("completed", "failed", "cancelled"):
            raise VendorDataError(
                self.vendor,
                f"{where}.status",
                f"expected completed/failed/cancelled, got {status!r}",
            )
        if sid not in self._subagents_open:
            return []  # never announced (or already closed): nothing to close
        del self._subagents_open[sid]
        out: list[BaseEvent] = []
        for mid, text in list(self._texts.items()):
            if text.owner == sid:
                out.extend(self._end(mid, text, None))  # nothing outlives its subagent
        if status == "completed":
            kw: dict[str, Any] = {"result": summary} if summary is not None else {}
            return [*out, SubagentFinishedEvent(subagent_run_id=sid, **kw)]
        if status == "failed":
            return [*out, SubagentErrorEvent(subagent_run_id=sid, message=summary or "failed")]
        self._loss(
            "subagent-cancelled",
            "AG-UI 1.0 has no cancelled subagent outcome; reported as SUBAGENT_ERROR "
            "with code 'cancelled'",
        )
        return [
            *out,
            SubagentErrorEvent(
                subagent_run_id=sid, message=summary or "cancelled", code="cancelled"
            ),
        ]

    # ---------------------------------------------------------------- close

    def _close(self) -> list[BaseEvent]:
        if self._done and not self._failed:
            self.run_metadata[FINISH_REASON_KEY] = f.map_stop_reason(
                consent_asked=bool(self.interrupts)
            )
        if self._failed or self._done:
            return []
        raise TruncatedStream(
            self.vendor,
            f"no asgard.run.done or asgard.run.error after {self.chunk_index + 1} frame(s)",
        )

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A whole captured run: a JSON list of envelopes (or one envelope)."""
        frames = response if isinstance(response, list) else [response]
        return [ev for frame in frames for ev in self.feed(frame)]

    def _loss(self, kind: str, reason: str) -> None:
        self.losses.append(Loss(kind=kind, target="AG-UI", reason=reason))  # feed/close warn


def _message_extras(msg: dict[str, Any], contradicted: bool) -> dict[str, Any]:
    """What an Asgard message has beyond its text (no AG-UI field exists for it)."""
    extra: dict[str, Any] = {}
    template = msg.get("template")
    if isinstance(template, dict):
        plain = (
            template.get("type") == "TEXT"
            and not template.get("quickReplies")
            and not template.get("references")
        )
        if not plain:
            extra["template"] = template
    elif template is not None:
        extra["template"] = template
    if msg.get("payload") is not None:
        extra["payload"] = msg["payload"]
    if isinstance(msg.get("replyToCustomMessageId"), str) and msg["replyToCustomMessageId"]:
        extra["replyToCustomMessageId"] = msg["replyToCustomMessageId"]
    if msg.get("isDebug") is True:
        extra["isDebug"] = True
    if contradicted:
        extra["text"] = msg.get("text")
    return extra


def decode_run(
    chunks: Iterable[Any],
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    **options: Any,
) -> Iterator[BaseEvent]:
    """One complete AG-UI run, ``threadId``/``runId`` taken from the first frame's
    ``customChannelId``/``requestId`` unless given (§3.4).

    The shared ``frame_run`` frames it and reads the ids from the first frame, so a source
    that fails, even before its first frame, ends the run with ``RUN_ERROR`` as it would
    anywhere else.
    """
    return frame_run(
        Decoder(**options), chunks, thread_id=thread_id, run_id=run_id, ids_from=_frame_ids
    )


def _frame_ids(frame: Any) -> tuple[str | None, str | None]:
    """The thread and run an Asgard frame names (``customChannelId``, ``requestId``)."""
    head = frame if isinstance(frame, dict) else as_dict(frame, f.VENDOR)
    channel, request = head.get("customChannelId"), head.get("requestId")
    return (
        channel if isinstance(channel, str) and channel else None,
        request if isinstance(request, str) and request else None,
    )


def _message(kind: str, phase: str) -> Callable[[Decoder, dict[str, Any], str], list[BaseEvent]]:
    """The handler of a ``message.*`` / ``message.thinking.*`` frame."""
    return lambda self, payload, where: self._message(kind, phase, payload, where)


#: ``eventType`` -> its handler: the one table the decoder dispatches a frame through (the
#: frame's fact payload and its place in, its AG-UI events out)
_HANDLERS: dict[str, Callable[[Decoder, dict[str, Any], str], list[BaseEvent]]] = {
    f.RUN_INIT: Decoder._on_run_init,
    f.RUN_DONE: Decoder._on_run_done,
    f.RUN_ERROR: Decoder._on_run_error,
    f.MESSAGE_START: _message("text", "start"),
    f.MESSAGE_DELTA: _message("text", "delta"),
    f.MESSAGE_COMPLETE: _message("text", "complete"),
    f.THINKING_START: _message("thinking", "start"),
    f.THINKING_DELTA: _message("thinking", "delta"),
    f.THINKING_COMPLETE: _message("thinking", "complete"),
    f.TOOL_CALL_START: Decoder._on_tool_call_start,
    f.TOOL_CALL_COMPLETE: Decoder._on_tool_call_complete,
    f.TOOL_CALL_CONSENT: Decoder._on_tool_call_consent,
    f.MESSAGE_USER: Decoder._on_message_user,
    f.USAGE: Decoder._on_usage,
    f.PROCESS_START: Decoder._on_process_start,
    f.PROCESS_COMPLETE: Decoder._on_process_complete,
    f.SUBAGENT_START: Decoder._on_subagent_start,
    f.SUBAGENT_COMPLETE: Decoder._on_subagent_complete,
}

__all__ = [
    "CONSENT_REASON",
    "CONSENT_SCHEMA",
    "Decoder",
    "decode_run",
]
