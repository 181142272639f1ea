"""AG-UI events -> Cohere v2 chat stream events (frame them with ``to_sse``).

``message-start`` opens the turn (the first assistant message's id); an assistant text
marked ``cohere.tool_plan`` goes out as ``tool-plan-delta``, other text as one ``text``
content item (``content-start`` / ``-delta`` / ``-end``); each reasoning item as a
``thinking`` content item; each call as ``tool-call-start`` (id, name) / ``-delta`` (its
argument text, unchanged) / ``-end``. ``RUN_FINISHED`` (or ``close()`` of a bare turn)
writes the decoded citations back and ``message-end`` with the finish reason and usage.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.losses import Loss
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import OutputStreamEncoder
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import StreamMachine

from .wire import (
    CALL_ID_RULE,
    CITATIONS_KEY,
    STOP_REASON_KEY,
    TOOL_PLAN_KEY,
    VENDOR,
    stop_reason_for,
    usage_fields,
)


class Encoder(OutputStreamEncoder):
    """Sans-I/O encoder: ``feed(event)`` and ``close()`` return v2 chat stream event dicts."""

    vendor = VENDOR
    stream_name = "a chat stream"

    def __init__(self) -> None:
        super().__init__()
        self._handlers = handlers_by_type(type(self))
        self._machine = StreamMachine(run_open="auto", history=False)
        self._reset()

    def _reset(self) -> None:
        self._started = False
        self._open = False
        self._items = 0  # content indexes used
        self._calls = 0
        self._text: dict[str, tuple[bool, int | None]] = {}  # message id -> (plan, index)
        self._thinking: dict[str, int] = {}
        self._call_index: dict[str, int] = {}
        self._ids = IdMapper(CALL_ID_RULE)

    def _feed(self, event: BaseEvent | dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for ev in self._machine.feed(event):
            out.extend(self._on(ev))
        return out

    def _close(self) -> list[dict[str, Any]]:
        out = [c for ev in self._machine.end_input() for c in self._on(ev)]
        if self._open:
            out += self._finish(None)
        return out

    def _on_reasoning_encrypted_value(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self._lose("encrypted-value-dropped", "a Cohere stream carries no signatures")
        return []

    def _begin(self, message_id: str | None) -> list[dict[str, Any]]:
        self._open = True
        if self._started:
            return []
        self._started = True
        start = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": []}
        return [
            {
                "id": message_id or mint_id("msg", VENDOR, "encoded"),
                "type": "message-start",
                "delta": {"message": start},
            }
        ]

    def _on_run_started(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self._open = True
        return []

    def _on_text_message_start(self, ev: TextMessageStartEvent) -> list[dict[str, Any]]:
        if ev.role not in (None, "assistant"):
            self._open = True
            self._lose("message-dropped", f"a {ev.role} text message is not model output")
            return []
        out = self._begin(ev.message_id)
        plan = bool(isinstance(ev.metadata, dict) and ev.metadata.get(TOOL_PLAN_KEY))
        if plan:
            self._text[ev.message_id] = (True, None)
            return out
        index = self._items
        self._items += 1
        self._text[ev.message_id] = (False, index)
        item = {"type": "text", "text": ""}
        out.append(
            {"type": "content-start", "index": index, "delta": {"message": {"content": item}}}
        )
        return out

    def _on_text_message_content(self, ev: TextMessageContentEvent) -> list[dict[str, Any]]:
        found = self._text.get(ev.message_id)
        if found is None or not ev.delta:
            return []
        plan, index = found
        if plan:
            return [{"type": "tool-plan-delta", "delta": {"message": {"tool_plan": ev.delta}}}]
        item = {"text": ev.delta}
        return [{"type": "content-delta", "index": index, "delta": {"message": {"content": item}}}]

    def _on_text_message_end(self, ev: TextMessageEndEvent) -> list[dict[str, Any]]:
        found = self._text.pop(ev.message_id, None)
        if found is None or found[0]:
            return []
        return [{"type": "content-end", "index": found[1]}]

    def _on_reasoning_message_start(self, ev: ReasoningMessageStartEvent) -> list[dict[str, Any]]:
        out = self._begin(None)
        index = self._items
        self._items += 1
        self._thinking[ev.message_id] = index
        item = {"type": "thinking", "thinking": ""}
        out.append(
            {"type": "content-start", "index": index, "delta": {"message": {"content": item}}}
        )
        return out

    def _on_reasoning_message_content(
        self, ev: ReasoningMessageContentEvent
    ) -> list[dict[str, Any]]:
        index = self._thinking.get(ev.message_id)
        if index is None or not ev.delta:
            return []
        item = {"thinking": ev.delta}
        return [{"type": "content-delta", "index": index, "delta": {"message": {"content": item}}}]

    def _on_reasoning_message_end(self, ev: ReasoningMessageEndEvent) -> list[dict[str, Any]]:
        index = self._thinking.pop(ev.message_id, None)
        return [] if index is None else [{"type": "content-end", "index": index}]

    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> list[dict[str, Any]]:
        if ev.tool_call_id in self._call_index:
            return []
        out = self._begin(ev.parent_message_id)
        index = self._calls
        self._calls += 1
        self._call_index[ev.tool_call_id] = index
        call = {
            "id": self._ids(ev.tool_call_id, ev.metadata),
            "type": "function",
            "function": {"name": ev.tool_call_name, "arguments": ""},
        }
        self.losses += self._ids.take_losses()
        out.append(
            {"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": call}}}
        )
        return out

    def _on_tool_call_args(self, ev: ToolCallArgsEvent) -> list[dict[str, Any]]:
        index = self._call_index.get(ev.tool_call_id)
        if index is None or not ev.delta:
            return []
        call = {"function": {"arguments": ev.delta}}
        return [
            {"type": "tool-call-delta", "index": index, "delta": {"message": {"tool_calls": call}}}
        ]

    def _on_tool_call_end(self, ev: ToolCallEndEvent) -> list[dict[str, Any]]:
        index = self._call_index.get(ev.tool_call_id)
        return [] if index is None else [{"type": "tool-call-end", "index": index}]

    def _on_run_finished(self, ev: RunFinishedEvent) -> list[dict[str, Any]]:
        return self._finish(ev)

    def _on_run_error(self, ev: RunErrorEvent) -> list[dict[str, Any]]:
        out = self._begin(None)
        reason = ev.code if ev.code in ("ERROR", "TIMEOUT") else "ERROR"
        if ev.code and ev.code != reason:
            self._lose(
                "error-code-dropped",
                f"a Cohere stream ends in error with finish_reason ERROR or TIMEOUT only; the "
                f"code {ev.code!r} is not sent",
            )
        out.append({"type": "message-end", "delta": {"finish_reason": reason, "error": ev.message}})
        self._reset()
        return out

    def _finish(self, ev: RunFinishedEvent | None) -> list[dict[str, Any]]:
        out = self._begin(None)
        meta = ev.metadata if ev is not None and isinstance(ev.metadata, dict) else {}
        citations = meta.get(CITATIONS_KEY)
        if isinstance(citations, list):
            for i, citation in enumerate(citations):
                body = {"message": {"citations": citation}}
                out.append({"type": "citation-start", "index": i, "delta": body})
                out.append({"type": "citation-end", "index": i})
        stated = meta.get(STOP_REASON_KEY)
        if not isinstance(stated, str) or not stated:
            stated = stop_reason_for(stated_finish_reason(meta), made_calls=self._calls > 0)
        delta: dict[str, Any] = {"finish_reason": stated}
        usage = usage_fields(list(ev.usage or [])) if ev is not None else None
        if usage is not None:
            delta["usage"] = usage
        out.append({"type": "message-end", "delta": delta})
        self._reset()
        return out

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))


__all__ = ["Encoder"]
