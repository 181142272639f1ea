"""AG-UI events -> Bedrock ``ConverseStream`` events (sans-I/O).

The inverse of the decoder: ``messageStart`` opens the turn; each text message, tool call
and reasoning message becomes one content block with the next ``contentBlockIndex`` (a
tool call opens with ``contentBlockStart``, text and reasoning with their first delta, as
Converse streams them); a reasoning message's encrypted value becomes its ``signature``
delta (or ``redactedContent``); ``RUN_FINISHED`` becomes ``messageStop`` and, when the run
states usage, ``metadata``. Events go through the shared
:class:`~toolwire.protocol.StreamMachine` first, so a malformed stream is refused.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningEncryptedValueEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageStartEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.adapters.bedrock.wire import (
    CALL_ID_RULE,
    CITATIONS_KEY,
    EXCEPTIONS,
    METRICS_KEY,
    REDACTED,
    RESPONSE_FIELDS_KEY,
    STATUS_KEY,
    STOP_REASON_KEY,
    TYPE_KEY,
    VENDOR,
    stop_reason_for,
    usage_fields,
)
from toolwire.losses import Loss
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import BaseEncoder
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.machine import RESULT_ERROR_KEY, StreamMachine
from toolwire.protocol.signatures import usable_encrypted

_SILENT = {
    EventType.STEP_STARTED,
    EventType.STEP_FINISHED,
    EventType.RAW,
    EventType.REASONING_START,
}
SERVER_CALL = "server_tool_use"


def _meta(ev: BaseEvent) -> dict[str, Any]:
    return ev.metadata if isinstance(ev.metadata, dict) else {}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}}


def _stop(index: int) -> dict[str, Any]:
    return {"contentBlockStop": {"contentBlockIndex": index}}


class _Open:
    """An open text or reasoning block: its index, and whether a delta has gone out."""

    __slots__ = ("index", "sent")

    def __init__(self, index: int) -> None:
        self.index = index
        self.sent = False


class Encoder(BaseEncoder):
    """Feed AG-UI events (models or JSON dicts); get ConverseStream event dicts (boto3's
    shape, blobs as base64 text; ``wire.to_sse`` frames them).

    What Converse's stream cannot carry is recorded in ``losses`` (warned once by
    ``feed``/``close``). ``model`` is accepted for symmetry with the other encoders: a
    Converse stream names no model.
    """

    vendor = VENDOR

    def __init__(self, *, model: str = "unknown") -> None:
        super().__init__()
        self._handlers = handlers_by_type(type(self))
        self.model = model
        self._machine = StreamMachine(run_open="auto", history=False)
        self._framed_here = False
        self._lost_kinds: set[str] = set()
        self._reset()

    def _reset(self) -> None:
        self._started = False
        self._index = 0
        self._texts: dict[str, _Open] = {}
        self._calls: dict[str, int] = {}
        self._call_types: dict[str, str] = {}
        self._ids = IdMapper(CALL_ID_RULE)
        self._client_calls = 0
        self._reasoning: dict[str, _Open] = {}
        self._mid: str | None = None

    # ---------------------------------------------------------------- API

    def _feed(self, event: BaseEvent | dict[str, Any]) -> list[dict[str, Any]]:
        machine = self._machine
        was_bare = machine.bare
        expanded = machine.feed(event)
        if machine.bare and not was_bare:
            self._framed_here = True
        out: list[dict[str, Any]] = []
        for ev in expanded:
            out.extend(self._event(ev))
        return out

    def _close(self) -> list[dict[str, Any]]:
        """End of input: finish a turn still being built (a bare turn's); a text or call the
        input left open stays open, so the output ends without ``messageStop``, as the input
        was cut."""
        out: list[dict[str, Any]] = []
        if not self._machine.bare:
            self._machine.end_input()
        if self._framed_here:
            self._framed_here = False
            for ev in self._machine.end_turn():
                out.extend(self._event(ev))
        if self._started and not self._texts and not self._calls:
            out.extend(self._finish(None))
        return out

    # -------------------------------------------------------------- plumbing

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        key = f"{kind}\x1f{tool_call_id}"
        if key in self._lost_kinds:
            return
        self._lost_kinds.add(key)
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))

    def _begin(self, mid: str | None) -> list[dict[str, Any]]:
        """``messageStart`` once, before the turn's first block."""
        if mid is not None:
            if self._mid is None:
                self._mid = mid
            elif mid != self._mid:
                self._lose(
                    "message-merged",
                    f"message {mid!r} goes into the turn of message {self._mid!r}: one "
                    "Converse response is one message",
                )
        if self._started:
            return []
        self._started = True
        return [{"messageStart": {"role": "assistant"}}]

    def _next(self) -> int:
        index = self._index
        self._index += 1
        return index

    # ---------------------------------------------------------------- events

    def _event(self, ev: BaseEvent) -> list[dict[str, Any]]:
        handler = self._handlers.get(ev.type)
        if handler is not None:
            out: list[dict[str, Any]] = handler(self, ev)
            return out
        if isinstance(ev, RunStartedEvent):
            done = self._finish(None) if self._started else []
            self._reset()
            return done
        if isinstance(ev, RunFinishedEvent):
            self._framed_here = False
            return self._finish(ev)
        if isinstance(ev, RunErrorEvent):
            self._framed_here = False
            self._reset()
            code = ev.code or "internalServerException"
            if code in EXCEPTIONS:
                return [{code: {"message": ev.message}}]
            return [{"error": {"code": code, "message": ev.message}}]
        if ev.type not in _SILENT:
            self._lose(
                f"{ev.type.value.lower()}-dropped",
                f"a Converse stream has no counterpart of {ev.type.value}",
            )
        return []

    def _finish(self, ev: RunFinishedEvent | None) -> list[dict[str, Any]]:
        out = self._begin(None)
        for block in sorted(self._reasoning.values(), key=lambda b: b.index):
            out.append(_stop(block.index))
        stated = _meta(ev) if ev is not None else {}
        stop = stated.get(STOP_REASON_KEY)
        if not isinstance(stop, str):
            stop = stop_reason_for(stated_finish_reason(stated))
        if not isinstance(stop, str):
            stop = "tool_use" if self._client_calls else "end_turn"
        message_stop: dict[str, Any] = {"stopReason": stop}
        if isinstance(stated.get(RESPONSE_FIELDS_KEY), dict):
            message_stop["additionalModelResponseFields"] = stated[RESPONSE_FIELDS_KEY]
        out.append({"messageStop": message_stop})
        usage = None
        if ev is not None and ev.usage:
            usage = next((u for u in ev.usage if u.provider == VENDOR), ev.usage[0])
        metrics = stated.get(METRICS_KEY)
        if usage is not None or isinstance(metrics, dict):
            out.append(
                {
                    "metadata": {
                        "usage": usage_fields(usage),
                        "metrics": metrics if isinstance(metrics, dict) else {"latencyMs": 0},
                    }
                }
            )
        self._reset()
        return out

    # text
    def _on_text_message_start(self, ev: TextMessageStartEvent) -> list[dict[str, Any]]:
        if ev.role not in (None, "assistant"):
            self._lose(
                "text-dropped",
                f"a {ev.role} text message cannot be part of a Converse assistant response",
            )
            return []
        out = self._begin(ev.message_id)
        self._texts[ev.message_id] = _Open(self._next())
        return out

    def _on_text_message_content(self, ev: Any) -> list[dict[str, Any]]:
        block = self._texts.get(ev.message_id)
        if block is None or not ev.delta:
            return []
        block.sent = True
        return [_delta(block.index, {"text": ev.delta})]

    def _on_text_message_end(self, ev: Any) -> list[dict[str, Any]]:
        block = self._texts.pop(ev.message_id, None)
        if block is None:
            return []
        out = [] if block.sent else [_delta(block.index, {"text": ""})]
        cites = _meta(ev).get(CITATIONS_KEY)
        out += [
            _delta(block.index, {"citation": c})
            for c in (cites if isinstance(cites, list) else [])
            if isinstance(c, dict)
        ]
        return [*out, _stop(block.index)]

    # tool calls
    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> list[dict[str, Any]]:
        cid = ev.tool_call_id
        if cid in self._call_types:
            self._lose(
                "tool-call-reopen-dropped",
                "a Converse toolUse block cannot be reopened once stopped; the further "
                "arguments are not carried",
                cid,
            )
            return []
        out = self._begin(ev.parent_message_id)
        meta = _meta(ev)
        server = meta.get(TYPE_KEY) == SERVER_CALL
        sent = cid if server else self._ids(cid, ev.metadata)
        self.losses.extend(self._ids.take_losses())
        start: dict[str, Any] = {"toolUseId": sent, "name": ev.tool_call_name}
        if server:
            start["type"] = SERVER_CALL
        else:
            self._client_calls += 1
        self._call_types[cid] = SERVER_CALL if server else "toolUse"
        index = self._next()
        self._calls[cid] = index
        out.append({"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": start}}})
        return out

    def _on_tool_call_args(self, ev: Any) -> list[dict[str, Any]]:
        index = self._calls.get(ev.tool_call_id)
        if index is None or not ev.delta:
            return []
        return [_delta(index, {"toolUse": {"input": ev.delta}})]

    def _on_tool_call_end(self, ev: Any) -> list[dict[str, Any]]:
        index = self._calls.pop(ev.tool_call_id, None)
        return [] if index is None else [_stop(index)]

    def _on_tool_call_result(self, ev: ToolCallResultEvent) -> list[dict[str, Any]]:
        if self._call_types.get(ev.tool_call_id) != SERVER_CALL:
            self._lose(
                "tool-result-dropped",
                "a Converse response carries results only of tools Bedrock ran itself "
                "(server tools)",
                ev.tool_call_id,
            )
            return []
        meta = _meta(ev)
        start: dict[str, Any] = {"toolUseId": ev.tool_call_id}
        if isinstance(meta.get(TYPE_KEY), str):
            start["type"] = meta[TYPE_KEY]
        status = meta.get(STATUS_KEY)
        if not isinstance(status, str) and RESULT_ERROR_KEY in meta:
            status = "error"
        if isinstance(status, str):
            start["status"] = status
        index = self._next()
        out: list[dict[str, Any]] = [
            {"contentBlockStart": {"contentBlockIndex": index, "start": {"toolResult": start}}}
        ]
        if ev.content:
            out.append(_delta(index, {"toolResult": [{"text": ev.content}]}))
        out.append(_stop(index))
        return out

    # reasoning
    def _on_reasoning_message_start(self, ev: Any) -> list[dict[str, Any]]:
        out = self._begin(None)
        self._reasoning[ev.message_id] = _Open(self._next())
        return out

    def _on_reasoning_message_content(self, ev: Any) -> list[dict[str, Any]]:
        block = self._reasoning.get(ev.message_id)
        if block is None or not ev.delta:
            return []
        block.sent = True
        return [_delta(block.index, {"reasoningContent": {"text": ev.delta}})]

    def _on_reasoning_message_end(self, ev: Any) -> list[dict[str, Any]]:
        return []  # the block stays open for its signature until REASONING_END

    def _on_reasoning_encrypted_value(
        self, ev: ReasoningEncryptedValueEvent
    ) -> list[dict[str, Any]]:
        if ev.subtype != "message":
            self._lose(
                "encrypted-value-dropped",
                "Converse signs reasoning blocks, not tool calls; a tool call's encrypted "
                "value has no place in its stream",
                ev.entity_id,
            )
            return []
        meta = _meta(ev)
        kept = usable_encrypted(
            ev.encrypted_value,
            meta,
            VENDOR,
            target=VENDOR,
            entity=f"reasoning message {ev.entity_id!r}",
            losses=self.losses,
        )
        if kept is None:
            return []
        block = self._reasoning.get(ev.entity_id)
        out: list[dict[str, Any]] = []
        if block is None:  # a value with no open reasoning message: a block of its own
            out += self._begin(None)
            block = _Open(self._next())
            self._reasoning[ev.entity_id] = block
        block.sent = True
        if meta.get(TYPE_KEY) == REDACTED:
            out.append(_delta(block.index, {"reasoningContent": {"redactedContent": kept}}))
        else:
            out.append(_delta(block.index, {"reasoningContent": {"signature": kept}}))
        return out

    def _on_reasoning_end(self, ev: Any) -> list[dict[str, Any]]:
        block = self._reasoning.pop(ev.message_id, None)
        if block is None:
            return []
        out = [] if block.sent else [_delta(block.index, {"reasoningContent": {"text": ""}})]
        return [*out, _stop(block.index)]


__all__ = ["Encoder"]
