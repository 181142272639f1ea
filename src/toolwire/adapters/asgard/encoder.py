"""AG-UI events -> Asgard SSE frames, so an Asgard chatbot front end can show any
model's tool calls (seed-peers.md §3.5).

Asgard sends a call whole (``tool_call.start`` with its parsed ``parameter``),
so the encoder buffers each call's arguments until ``TOOL_CALL_END``. What the
platform has no field for is a :class:`~toolwire.losses.Loss` on ``losses``, warned
about once by ``feed``/``close``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    EventType,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    TokenUsage,
    UserMessage,
)

from toolwire.losses import Loss
from toolwire.protocol.arguments import (
    REPEATED_KEYS,
    parse_arguments_object,
    repeated_keys,
    repeated_keys_reason,
)
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import BaseEncoder
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import RESULT_ERROR_KEY, StreamMachine
from toolwire.protocol.parts import text_of

from . import wire as f
from .parts import asgard_meta, content_text, result_value
from .wire import META_KEY

_NO_CARRIER = {
    EventType.STATE_SNAPSHOT,
    EventType.STATE_DELTA,
    EventType.ACTIVITY_SNAPSHOT,
    EventType.ACTIVITY_DELTA,
    EventType.CUSTOM,
    EventType.RAW,
    EventType.REASONING_ENCRYPTED_VALUE,
}

_CALL_EVENTS = {EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END}


@dataclass
class _Msg:
    kind: str  # "text" | "thinking"
    owner: str | None
    parts: list[str] = field(default_factory=list)
    idx: int = 0


@dataclass
class _Call:
    id: str
    name: str
    owner: str | None
    meta: dict[str, Any]
    args: list[str] = field(default_factory=list)
    wire: dict[str, Any] | None = None  # the processId/callSeq/toolUseId/toolCall sent


class Encoder(BaseEncoder):
    """Sans-I/O: ``feed(event)`` / ``close()`` return Asgard envelope dicts.

    ``request_id``/``custom_channel_id`` default to the ``RUN_STARTED`` run and
    thread ids; ``namespace``/``bot_provider_name`` fill the envelope. A turn
    without ``RUN_STARTED`` (the machine's ``run_open="auto"`` tells from the first
    event) gets an implicit run: ``run.init`` first, and at :meth:`close` its chunk
    streams are closed and ``run.done`` ends it. ``losses`` lists what Asgard could
    not carry.
    """

    vendor = f.VENDOR

    def __init__(
        self,
        *,
        request_id: str | None = None,
        custom_channel_id: str | None = None,
        namespace: str = "",
        bot_provider_name: str = "",
        thread_id: str = "thread",
        run_id: str = "run",
    ) -> None:
        super().__init__()
        #: ``EventType`` -> this class's ``_on_<type>`` method (a subclass's own included)
        self._handlers = handlers_by_type(type(self))
        self._given_ids = (request_id, custom_channel_id)  # each run's own ids when None
        self._names = (namespace, bot_provider_name)  # the same in every frame
        self._thread_id = thread_id
        self._run_id = run_id
        self._machine = StreamMachine(run_open="auto", history=False)  # a bare turn or framed runs
        self._primed = False
        self._implicit = False
        self._in_run = False
        self._req = ""
        self._event_ids = mint_id("evt", "")  # this run's eventId stem (one hash a run)
        self._chan = ""
        self._seq = 0
        self._msgs: dict[str, _Msg] = {}
        self._calls: dict[str, _Call] = {}  # kept across runs: a result may answer an old call
        self._used: set[tuple[str, int]] = set()
        self._next_seq: dict[str, int] = {}
        self._subagents: dict[str, dict[str, Any]] = {}
        self._dropped_types: set[str] = set()
        self._dropped_meta: set[tuple[str, str, str]] = set()

    # ----------------------------------------------------------------- public

    def _feed(self, event: BaseEvent | dict[str, Any]) -> list[dict[str, Any]]:
        """One AG-UI event (model or dict; chunks are expanded) -> Asgard frames."""
        out: list[dict[str, Any]] = []
        if not self._primed:
            self._primed = True
            kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
            if kind != EventType.RUN_STARTED:
                # a bare turn (or a run that only failed): Asgard's stream opens with
                # run.init all the same, so the encoder opens the run itself
                self._implicit = True
                start = RunStartedEvent(thread_id=self._thread_id, run_id=self._run_id)
                out.extend(self._on_run_started(start))
        for ev in self._machine.feed(event):
            out.extend(self._translate(ev))
        return out

    def _close(self) -> list[dict[str, Any]]:
        """End of input: a bare turn's chunk streams are closed and its implicit run ends
        with ``run.done``; a framed run left open raises (an Asgard stream without
        ``run.done`` reads as truncated, never as success)."""
        out: list[dict[str, Any]] = []
        for ev in self._machine.end_input():
            out.extend(self._translate(ev))
        if self._in_run and self._implicit:
            fin = RunFinishedEvent(thread_id=self._thread_id, run_id=self._run_id)
            for ev in self._machine.feed(fin):
                out.extend(self._translate(ev))
        return out

    # --------------------------------------------------------------- framing

    def _frame(self, event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
        self._seq += 1
        namespace, bot = self._names
        return f.envelope(
            event_type,
            payload,
            request_id=self._req,
            event_id=f"{self._event_ids}-{self._seq}",
            custom_channel_id=self._chan,
            namespace=namespace,
            bot_provider_name=bot,
        )

    def _loss(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.losses.append(
            Loss(kind=kind, target=f.VENDOR, reason=reason, tool_call_id=tool_call_id)
        )

    # ------------------------------------------------------------ dispatch

    def _translate(self, ev: BaseEvent) -> list[dict[str, Any]]:
        t = ev.type
        if ev.metadata and t not in _NO_CARRIER:
            self._foreign_metadata(ev)
        handler = self._handlers.get(t)
        if handler is not None:
            result: list[dict[str, Any]] = handler(self, ev)
            return result
        if t in _NO_CARRIER:
            return self._no_carrier(ev)
        return []

    def _foreign_metadata(self, ev: BaseEvent) -> None:
        """Metadata keys other than ``asgard`` and the error key: frames have no place for them."""
        assert ev.metadata is not None
        # toolwire.finishReason: the frames' own shape says how the run ended (done, consent)
        extra = [k for k in ev.metadata if k not in (META_KEY, RESULT_ERROR_KEY, FINISH_REASON_KEY)]
        if not extra:
            return
        call_id = getattr(ev, "tool_call_id", None)
        family = "call" if ev.type in _CALL_EVENTS else ev.type.value
        owner = next(
            (
                v
                for v in (
                    call_id,
                    getattr(ev, "message_id", None),
                    getattr(ev, "step_name", None),
                    getattr(ev, "subagent_run_id", None),
                    getattr(ev, "run_id", None),
                )
                if isinstance(v, str)
            ),
            self._req,  # RUN_ERROR: the run it ends
        )
        new = [k for k in extra if (family, owner, k) not in self._dropped_meta]
        if not new:
            return
        self._dropped_meta.update((family, owner, k) for k in new)
        what = "tool call" if family == "call" else ev.type.value
        self._loss(
            "metadata-dropped",
            f"{what} metadata keys {', '.join(map(repr, new))} have no place in an Asgard frame",
            call_id,
        )

    def _no_carrier(self, ev: BaseEvent) -> list[dict[str, Any]]:
        raw = getattr(ev, "event", None)
        if (
            ev.type is EventType.RAW
            and getattr(ev, "source", None) == "asgard"
            and isinstance(raw, dict)
            and isinstance(raw.get("eventType"), str)
        ):
            return [raw]  # an Asgard frame the decoder passed through: send it back as it was
        name = ev.type.value
        if name not in self._dropped_types:
            self._dropped_types.add(name)
            self._loss("event-dropped", f"Asgard has no frame for {name}; dropped (once per type)")
        return []

    # ------------------------------------------------------------------ runs

    def _on_run_started(self, ev: RunStartedEvent) -> list[dict[str, Any]]:
        self._in_run = True
        request_id, channel_id = self._given_ids
        self._req = request_id or ev.run_id
        self._chan = channel_id or ev.thread_id
        self._seq = 0
        self._event_ids = mint_id("evt", self._req)
        self._msgs.clear()
        self._used.clear()
        self._next_seq.clear()
        return [self._frame(f.RUN_INIT, {})]

    def _usage_frames(self, usage: list[TokenUsage] | None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for u in usage or []:
            payload: dict[str, Any] = {"processId": self._req, "completionModelName": u.model or ""}
            for src, dst in (
                (u.input_tokens, "inputTokens"),
                (u.output_tokens, "outputTokens"),
                (u.total_tokens, "totalTokens"),
            ):
                if src is not None:
                    payload[dst] = src
            dropped = [
                name
                for name, value in (
                    ("provider", u.provider),
                    ("reasoningTokens", u.reasoning_tokens),
                    ("cachedInputTokens", u.cached_input_tokens),
                    ("cacheWriteInputTokens", u.cache_write_input_tokens),
                )
                if value is not None
            ]
            if dropped:
                self._loss(
                    "usage-fields-dropped",
                    "asgard.completion_model.usage holds only the model name and input/output/"
                    f"total tokens; dropped {', '.join(dropped)}",
                )
            out.append(self._frame(f.USAGE, payload))
        return out

    def _on_run_finished(self, ev: RunFinishedEvent) -> list[dict[str, Any]]:
        out = self._usage_frames(ev.usage)
        outcome = ev.outcome
        if isinstance(outcome, RunFinishedInterruptOutcome):
            out.extend(self._consent_frames(outcome))
        elif isinstance(outcome, RunFinishedCancelledOutcome):
            self._loss("outcome-cancelled-dropped", "Asgard has no cancelled run; sent as run.done")
        if ev.result is not None:
            self._loss("run-result-dropped", "asgard.run.done carries no run result")
        out.append(self._frame(f.RUN_DONE, {}))
        self._in_run = False
        self._implicit = False
        return out

    def _on_run_error(self, ev: RunErrorEvent) -> list[dict[str, Any]]:
        out = self._usage_frames(ev.usage)
        error = {
            "message": ev.message,
            "code": ev.code or "",
            "inner": "",
            "location": {
                "namespace": "",
                "workflowName": "",
                "processorName": "",
                "processorType": "",
            },
        }
        out.append(self._frame(f.RUN_ERROR, {"error": error}))
        self._in_run = False
        self._implicit = False
        return out

    def _consent_frames(self, outcome: RunFinishedInterruptOutcome) -> list[dict[str, Any]]:
        by_process: dict[str, list[dict[str, Any]]] = {}
        allowed: dict[str, dict[str, Any]] = {}
        for it in outcome.interrupts:
            meta = asgard_meta(it.metadata)
            call = self._calls.get(it.tool_call_id) if it.tool_call_id else None
            wire = call.wire if call is not None else None
            name = meta.get("toolName") or (call.name if call is not None else None)
            if not isinstance(name, str) or not name:
                self._loss(
                    "interrupt-dropped",
                    f"interrupt {it.id!r} concerns no tool call; Asgard asks consent only for "
                    "tool calls",
                )
                continue
            if "parameter" in meta:
                parameter = meta["parameter"]
            elif wire is not None:
                parameter = wire["toolCall"]["parameter"]
            else:
                parameter = {}
            toolset = meta.get("toolsetName")
            if not isinstance(toolset, str):
                toolset = wire["toolCall"]["toolsetName"] if wire is not None else ""
            pid = meta.get("processId")
            if not isinstance(pid, str):
                pid = wire["processId"] if wire is not None else self._req
            entry: dict[str, Any] = {
                "toolCallId": it.id,
                "toolsetName": toolset,
                "toolName": name,
                "parameter": parameter,
                "alreadyAllowed": False,
            }
            if it.message:
                entry["reason"] = it.message
            by_process.setdefault(pid, []).append(entry)
            for item in meta.get("alreadyAllowedCalls") or []:
                if isinstance(item, dict) and isinstance(item.get("toolCallId"), str):
                    allowed.setdefault(item["toolCallId"], {"pid": pid, "item": item})
            if it.expires_at is not None or it.subagent_run_id is not None:
                self._loss(
                    "interrupt-fields-dropped",
                    f"interrupt {it.id!r}: a consent entry has no expiry or subagent field",
                )
        for value in allowed.values():
            by_process.setdefault(value["pid"], []).append(value["item"])
        return [
            self._frame(f.TOOL_CALL_CONSENT, {"processId": pid, "pendingCalls": calls})
            for pid, calls in by_process.items()
        ]

    def _on_messages_snapshot(self, ev: Any) -> list[dict[str, Any]]:
        """Restated history, the way an Asgard rejoin replays it: ``message.user`` for the
        user's turns, one ``message.complete`` per bot message (tool calls are not persisted
        by the platform, so they are not restated)."""
        out: list[dict[str, Any]] = []
        skipped: list[str] = []
        for m in ev.messages:
            meta = asgard_meta(m.metadata)
            if isinstance(m, UserMessage):
                text, dropped = content_text(m.content, place="user_message")
                self.losses.extend(dropped)
                user: dict[str, Any] = {"messageId": m.id, "text": text}
                for key in ("customMessageId", "identityHint", "blobIds"):
                    if key in meta:
                        user[key] = meta[key]
                out.append(self._frame(f.MESSAGE_USER, user))
            elif isinstance(m, AssistantMessage):
                if m.content:
                    msg = _Msg("text", m.subagent_run_id, [m.content])
                    body = self._message(m.id, msg, m.content, None)
                    body["template"] = {"type": "TEXT", "text": m.content, "quickReplies": []}
                    for key in ("template", "payload", "replyToCustomMessageId", "isDebug"):
                        if key in meta:
                            body[key] = meta[key]
                    out.append(self._frame(f.MESSAGE_COMPLETE, {"message": body}))
                if m.tool_calls:
                    skipped.append(f"the tool calls of {m.id!r}")
            else:
                skipped.append(f"a {m.role} message {m.id!r}")
        if skipped:
            self._loss(
                "snapshot-items-dropped",
                "an Asgard transcript restates user and bot messages only; not restated: "
                + ", ".join(skipped),
            )
        return out

    # ----------------------------------------------------------- steps

    def _on_step_started(self, ev: Any) -> list[dict[str, Any]]:
        task = asgard_meta(ev.metadata).get("task")
        return [self._frame(f.PROCESS_START, {"processId": ev.step_name, "task": task})]

    def _on_step_finished(self, ev: Any) -> list[dict[str, Any]]:
        result = asgard_meta(ev.metadata).get("taskResult")
        return [self._frame(f.PROCESS_COMPLETE, {"processId": ev.step_name, "taskResult": result})]

    # ------------------------------------------------------ subagents

    def _parent_tool_use(self, owner: str | None) -> str | None:
        if owner is None:
            return None
        sub = self._subagents.get(owner)
        # an unannounced subagent keeps its id: the decoder names subagents by parentToolUseId
        return str(sub["parentToolUseId"]) if sub is not None else owner

    def _on_subagent_started(self, ev: Any) -> list[dict[str, Any]]:
        parent_call = ev.parent_tool_call_id
        if parent_call is None:
            self._loss(
                "subagent-dropped",
                f"subagent {ev.subagent_run_id!r} has no parentToolCallId; Asgard keys a "
                "subagent by the Agent tool call that spawned it, so no subagent.start is sent "
                "(its frames carry the subagent id as parentToolUseId)",
            )
            return []
        call = self._calls.get(parent_call)
        use_id = (call.wire or {}).get("toolUseId") if call is not None else None
        use_id = use_id or parent_call
        meta = asgard_meta(ev.metadata)
        agent = meta.get("agentId") if isinstance(meta.get("agentId"), str) else ev.subagent_run_id
        sub = {"agentId": agent, "parentToolUseId": use_id, "subagentType": ev.name}
        self._subagents[ev.subagent_run_id] = sub
        payload = dict(sub)
        if ev.description:
            payload["description"] = ev.description
        return [self._frame(f.SUBAGENT_START, payload)]

    def _subagent_end(self, sid: str, status: str, summary: Any) -> list[dict[str, Any]]:
        sub = self._subagents.get(sid)
        if sub is None:
            return []
        payload = dict(sub, status=status)
        if summary is not None:
            payload["summary"] = summary if isinstance(summary, str) else json.dumps(summary)
        return [self._frame(f.SUBAGENT_COMPLETE, payload)]

    def _on_subagent_finished(self, ev: Any) -> list[dict[str, Any]]:
        if ev.outcome is not None and ev.outcome.type == "suspended":
            self._loss(
                "subagent-suspended",
                f"subagent {ev.subagent_run_id!r} is suspended; Asgard's subagent.complete has "
                "no such status, so none is sent and the front end shows it running",
            )
            return []
        return self._subagent_end(ev.subagent_run_id, "completed", ev.result)

    def _on_subagent_error(self, ev: Any) -> list[dict[str, Any]]:
        status = "cancelled" if ev.code == "cancelled" else "failed"
        return self._subagent_end(ev.subagent_run_id, status, ev.message)

    # --------------------------------------------------- messages, thinking

    def _message(self, mid: str, msg: _Msg, text: str, idx: int | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "messageId": mid,
            "replyToCustomMessageId": "",
            "text": text,
            "payload": None,
            "isDebug": False,
            "idx": idx,
            "template": None,
        }
        parent = self._parent_tool_use(msg.owner)
        if parent is not None:
            body["parentToolUseId"] = parent
        return body

    def _on_text_message_start(self, ev: Any) -> list[dict[str, Any]]:
        if ev.role != "assistant":
            self._loss(
                "message-dropped",
                f"message {ev.message_id!r} has role {ev.role!r}; Asgard streams only the bot's "
                "messages",
            )
            return []
        msg = _Msg("text", ev.subagent_run_id)
        self._msgs[ev.message_id] = msg
        return [
            self._frame(f.MESSAGE_START, {"message": self._message(ev.message_id, msg, "", None)})
        ]

    def _on_text_message_content(self, ev: Any) -> list[dict[str, Any]]:
        return self._delta(ev.message_id, ev.delta, f.MESSAGE_DELTA)

    def _on_text_message_end(self, ev: Any) -> list[dict[str, Any]]:
        return self._complete(ev.message_id, ev.metadata, f.MESSAGE_COMPLETE)

    def _on_reasoning_message_start(self, ev: Any) -> list[dict[str, Any]]:
        msg = _Msg("thinking", ev.subagent_run_id)
        self._msgs[ev.message_id] = msg
        body = self._message(ev.message_id, msg, "", None)
        return [self._frame(f.THINKING_START, {"message": body})]

    def _on_reasoning_message_content(self, ev: Any) -> list[dict[str, Any]]:
        return self._delta(ev.message_id, ev.delta, f.THINKING_DELTA)

    def _on_reasoning_message_end(self, ev: Any) -> list[dict[str, Any]]:
        return self._complete(ev.message_id, ev.metadata, f.THINKING_COMPLETE)

    def _delta(self, mid: str, delta: str, event_type: str) -> list[dict[str, Any]]:
        msg = self._msgs.get(mid)
        if msg is None:
            return []  # a dropped (non-assistant) message
        msg.parts.append(delta)
        body = self._message(mid, msg, delta, msg.idx)
        msg.idx += 1
        return [self._frame(event_type, {"message": body})]

    def _complete(
        self, mid: str, metadata: dict[str, Any] | None, event_type: str
    ) -> list[dict[str, Any]]:
        msg = self._msgs.pop(mid, None)
        if msg is None:
            return []
        text = "".join(msg.parts)
        body = self._message(mid, msg, text, None)
        meta = asgard_meta(metadata)
        if msg.kind == "text":
            body["template"] = {"type": "TEXT", "text": text, "quickReplies": []}
        for key in ("template", "payload", "replyToCustomMessageId", "isDebug"):
            if key in meta:
                body[key] = meta[key]
        if isinstance(meta.get("text"), str):
            body["text"] = meta["text"]  # a complete that contradicted its deltas, restated
        return [self._frame(event_type, {"message": body})]

    # ------------------------------------------------------------ tool calls

    def _on_tool_call_start(self, ev: Any) -> list[dict[str, Any]]:
        old = self._calls.get(ev.tool_call_id)
        if old is not None and old.wire is not None:
            self._loss(
                "call-reopened",
                "Asgard sends a call once, whole; arguments added by reopening it are dropped",
                ev.tool_call_id,
            )
            old.wire = dict(old.wire, reopened=True)
            return []
        meta = asgard_meta(ev.metadata)
        self._calls[ev.tool_call_id] = _Call(
            ev.tool_call_id, ev.tool_call_name, ev.subagent_run_id, meta
        )
        return []

    def _on_tool_call_args(self, ev: Any) -> list[dict[str, Any]]:
        call = self._calls.get(ev.tool_call_id)
        if call is not None and (call.wire is None or not call.wire.get("reopened")):
            call.args.append(ev.delta)
        return []

    def _on_tool_call_end(self, ev: Any) -> list[dict[str, Any]]:
        call = self._calls.get(ev.tool_call_id)
        if call is None or call.wire is not None:
            return []
        return [self._frame(f.TOOL_CALL_START, self._start_payload(call))]

    def _slot(self, meta: dict[str, Any]) -> tuple[str, int]:
        pid = meta.get("processId")
        if not isinstance(pid, str) or not pid:
            pid = self._req
        seq = meta.get("callSeq")
        if not isinstance(seq, int) or isinstance(seq, bool) or (pid, seq) in self._used:
            seq = self._next_seq.get(pid, 0)
            while (pid, seq) in self._used:
                seq += 1
        self._used.add((pid, seq))
        self._next_seq[pid] = max(self._next_seq.get(pid, 0), seq + 1)
        return pid, seq

    def _start_payload(self, call: _Call) -> dict[str, Any]:
        pid, seq = self._slot(call.meta)
        text = "".join(call.args)
        parameter = parse_arguments_object(text)
        if parameter is None:
            self._loss(
                "arguments-not-object",
                "Asgard's parameter is a JSON object and these arguments are not one; sent {} "
                "(no wrapper key is invented)",
                call.id,
            )
            parameter = {}
        else:
            _check_duplicate_keys(text, call.id, self)
        tool_call: dict[str, Any] = {
            "toolsetName": call.meta.get("toolsetName")
            if isinstance(call.meta.get("toolsetName"), str)
            else "",
            "toolName": call.name,
            "parameter": parameter,
        }
        if isinstance(call.meta.get("reason"), str):
            tool_call["reason"] = call.meta["reason"]
        use_id = call.meta.get("toolUseId")
        payload: dict[str, Any] = {"processId": pid, "callSeq": seq}
        if isinstance(use_id, str) and use_id:
            payload["toolUseId"] = use_id
        elif call.id != f"{pid}-{seq}":
            payload["toolUseId"] = call.id  # the AG-UI id, kept for the way back
        parent = self._parent_tool_use(call.owner)
        if parent is not None:
            payload["parentToolUseId"] = parent
        payload["toolCall"] = tool_call
        call.wire = payload
        return payload

    def _on_tool_call_result(self, ev: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        call = self._calls.get(ev.tool_call_id)
        if call is None:
            self._loss(
                "result-dropped",
                "Asgard's tool_call.complete restates the call, and this result's call was "
                "never seen; the SDK would drop it",
                ev.tool_call_id,
            )
            return []
        if call.wire is None:
            out.append(self._frame(f.TOOL_CALL_START, self._start_payload(call)))
        text, dropped = content_text(ev.content, tool_call_id=ev.tool_call_id)
        self.losses.extend(dropped)
        meta = asgard_meta(ev.metadata)
        error = (ev.metadata or {}).get(RESULT_ERROR_KEY)
        failed = meta.get("isError") is True or isinstance(error, str)
        result: Any = result_value(text)
        if failed and text == "" and isinstance(error, str):
            result = error
        elif isinstance(error, str) and error not in (text, text_of(ev.content)):
            if not (
                isinstance(result, dict) and error in (result.get("error"), result.get("message"))
            ):
                self._loss(
                    "error-text-dropped",
                    "tool_call.complete has isError but no error text beside the result; "
                    "the error text differs from the result and is dropped",
                    ev.tool_call_id,
                )
        wire = call.wire
        assert wire is not None
        payload: dict[str, Any] = {k: v for k, v in wire.items() if k != "reopened"}
        payload["toolCallResult"] = result
        legacy = isinstance(result, dict) and bool(result.get("error"))
        if isinstance(meta.get("isError"), bool):
            payload["isError"] = meta["isError"] or (failed and not legacy)
        elif failed and not legacy:
            payload["isError"] = True  # (a legacy ``result.error`` already says so)
        if "toolUseResultSidecar" in meta:
            payload["toolUseResultSidecar"] = meta["toolUseResultSidecar"]
        out.append(self._frame(f.TOOL_CALL_COMPLETE, payload))
        return out


def _check_duplicate_keys(text: str, call_id: str, enc: Encoder) -> None:
    """Report arguments whose JSON repeats a key: an object keeps only the last."""
    keys = repeated_keys(text)
    if keys:
        enc._loss(REPEATED_KEYS, repeated_keys_reason(keys, "Asgard's parameter"), call_id)


__all__ = ["Encoder"]
