"""AG-UI events -> Responses stream events (the encode direction).

Each AG-UI run becomes one response: ``response.created`` and
``response.in_progress``, one output item per message, reasoning item and tool
call (in the order they open), and ``response.completed`` (``RUN_FINISHED``),
``response.failed`` or ``response.incomplete`` (``RUN_ERROR``). Events outside
a run open a response of their own, completed by :meth:`Encoder.close`. The
payloads are what ``openai``'s SDK parses into its ``ResponseStreamEvent``
types; :func:`to_sse` frames them with ``event:`` lines as OpenAI does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningEncryptedValueEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.capabilities import accepts
from toolwire.losses import Loss, snapshot_dropped
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import BaseEncoder
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import RESULT_ERROR_KEY, StreamMachine

from .items import APPROVAL_REASON, SERVER_RUN, image_data
from .parts import to_vendor_content
from .wire import (
    ANNOTATIONS_KEY,
    CALL_FIELDS_KEY,
    CALL_ID_RULE,
    INCOMPLETE_FOR,
    ITEM_ID_KEY,
    ITEM_KEY,
    ITEM_TYPE_KEY,
    OUTPUT_ITEM_KEY,
    PHASE_KEY,
    REASONING_PART_KEY,
    VENDOR,
    usage_fields,
)

#: the run's own events, which open (or end) a response themselves
_RUN_EVENTS = frozenset({EventType.RUN_STARTED, EventType.RUN_FINISHED, EventType.RUN_ERROR})
_INCOMPLETE_REASONS = ("max_output_tokens", "max_messages", "content_filter", "steered")


@dataclass
class _Item:
    """One output item of the response being written."""

    index: int
    body: dict[str, Any]
    text: list[str] = field(default_factory=list)  # message text / argument text
    metadata: dict[str, Any] = field(default_factory=dict)
    parts: list[tuple[str, list[str]]] = field(default_factory=list)  # reasoning parts
    open_part: str | None = None  # reasoning message id being written
    pending_part: str | None = None  # started, no text yet (empty parts are not written)
    part_kind: str = "summary"
    message_ids: set[str] = field(default_factory=set)
    deferred: bool = False  # hosted / other calls: written whole once complete


class Encoder(BaseEncoder):
    """Sans-I/O encoder: feed AG-UI events, get Responses stream-event dicts back.

    ``model`` and ``created_at`` fill the ``response`` objects; response ids
    come from ``response_id`` or are minted from the run id. What the stream cannot
    carry goes to ``losses`` (``feed``/``close`` warn about each once).
    """

    vendor = VENDOR

    def __init__(
        self, *, model: str = "toolwire", created_at: int = 0, response_id: str | None = None
    ) -> None:
        super().__init__()
        #: ``EventType`` -> this class's ``_on_<type>`` method (a subclass's own included)
        self._handlers = handlers_by_type(type(self))
        self.model = model
        self.created_at = created_at
        self.response_id = response_id
        self._resp: str | None = None
        self._seq = 0
        self._responses = 0
        self._items: dict[str, _Item] = {}  # open, by AG-UI id
        self._calls: dict[str, _Item] = {}  # deferred calls waiting for a result
        self._output: list[tuple[int, dict[str, Any]]] = []
        self._next_index = 0
        self._machine = StreamMachine(run_open="auto", history=False)  # a bare turn or a framed run
        self._ids = IdMapper(CALL_ID_RULE)

    def _call_id(self, call_id: str, metadata: Any = None) -> str:
        """The ``call_id`` to send (one the API takes; a call and its output alike)."""
        out = self._ids(call_id, metadata)
        self.losses += self._ids.take_losses()
        return out

    # --------------------------------------------------------------- framing

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        ev = {"type": kind, "sequence_number": self._seq, **fields}
        self._seq += 1
        return ev

    def _response(self, status: str, **extra: Any) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": self._resp,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "model": self.model,
            "output": [item for _, item in sorted(self._output, key=lambda x: x[0])],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": None,
            "metadata": {},
        }
        body.update(extra)
        return body

    def _start(self, run_id: str | None) -> list[dict[str, Any]]:
        self._responses += 1
        self._resp = (
            self.response_id
            if (self.response_id and self._responses == 1)
            else (mint_id("resp", run_id or "toolwire", self._responses))
        )
        self._seq = 0
        self._output = []
        self._next_index = 0
        return [
            self._event("response.created", response=self._response("in_progress")),
            self._event("response.in_progress", response=self._response("in_progress")),
        ]

    def _ensure(self) -> list[dict[str, Any]]:
        return [] if self._resp is not None else self._start(None)

    def _add(self, key: str, body: dict[str, Any]) -> tuple[_Item, dict[str, Any]]:
        item = _Item(self._next_index, body)
        self._next_index += 1
        self._items[key] = item
        return item, self._event(
            "response.output_item.added", output_index=item.index, item=dict(body)
        )

    def _done(self, item: _Item) -> dict[str, Any]:
        self._output.append((item.index, item.body))
        return self._event("response.output_item.done", output_index=item.index, item=item.body)

    # ------------------------------------------------------------------ feed

    def _feed(self, event: BaseEvent | dict[str, Any]) -> list[dict[str, Any]]:
        """One AG-UI event (a model or its JSON dict, explicit or chunk form) -> stream events.

        A :class:`~toolwire.protocol.StreamMachine` expands chunks and checks the
        sequence first; a bare turn (no ``RUN_STARTED``) is taken as one run.
        """
        expanded = self._machine.feed(event)
        if len(expanded) == 1:  # most events stand for themselves
            return self._on(expanded[0])
        out: list[dict[str, Any]] = []
        for ev in expanded:
            out += self._on(ev)
        return out

    def _on(self, event: BaseEvent) -> list[dict[str, Any]]:
        t = event.type
        handler = self._handlers.get(t)
        if handler is None:
            return []
        if self._resp is None and t not in _RUN_EVENTS:  # a bare turn: its response first
            started = self._start(None)
            return started + handler(self, event)  # type: ignore[no-any-return]
        return handler(self, event)  # type: ignore[no-any-return]

    # run lifecycle (a run is one response; a bare turn's starts with its first event)

    def _on_run_started(self, event: RunStartedEvent) -> list[dict[str, Any]]:
        out = self._finish("completed") if self._resp is not None else []
        return out + self._start(event.run_id)

    def _on_run_finished(self, event: RunFinishedEvent) -> list[dict[str, Any]]:
        cut = INCOMPLETE_FOR.get(stated_finish_reason(event.metadata) or "")
        if cut is not None:  # a turn cut short ends as Responses says so: incomplete
            return self._ensure() + self._finish(
                "incomplete",
                incomplete_details={"reason": cut},
                usage=usage_fields(event.usage),
            )
        asked = self._ensure() + self._interrupts(event)
        return asked + self._finish("completed", usage=usage_fields(event.usage))

    def _on_run_error(self, event: RunErrorEvent) -> list[dict[str, Any]]:
        return self._ensure() + self._error(event)

    def _close(self) -> list[dict[str, Any]]:
        """End of the AG-UI stream: a bare turn's response is completed; a framed run cut
        before its terminal event raises ``ProtocolViolation("truncated")``."""
        out: list[dict[str, Any]] = []
        if not self._machine.bare:
            self._machine.end_input()  # a framed run cut before its terminal event raises
        if self._machine.bare and self._resp is not None:
            # ends any chunk stream still open (its END is synthesized); explicit items
            # left open are closed below, as a cut-off turn
            out += [c for ev in self._machine.end_turn() for c in self._on(ev)]
        if self._resp is not None:
            out += self._finish("completed")
        return out

    # ------------------------------------------------------------------ text

    def _interrupts(self, event: RunFinishedEvent) -> list[dict[str, Any]]:
        """An interrupted run's MCP approval requests, written back as their items; any other
        interrupt has no Responses counterpart (a loss)."""
        outcome = event.outcome
        out: list[dict[str, Any]] = []
        for it in getattr(outcome, "interrupts", None) or ():
            item = (it.metadata or {}).get(ITEM_KEY)
            if it.reason == APPROVAL_REASON and isinstance(item, dict):
                out += self._write_whole(_Item(-1, dict(item)))
            else:
                self._lose(
                    "interrupt-dropped",
                    f"interrupt {it.id!r} ({it.reason}) has no Responses item to ask it with",
                )
        return out

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))

    def _on_messages_snapshot(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self.losses.append(snapshot_dropped(VENDOR, "a Responses stream"))
        return []

    def _on_text_message_start(self, ev: TextMessageStartEvent) -> list[dict[str, Any]]:
        if ev.role not in (None, "assistant"):
            self._lose(
                "message-dropped",
                f"a {ev.role} text message ({ev.message_id!r}) is not model output; a "
                "Responses stream carries the model's items only (history: encode_request)",
            )
            return []
        body: dict[str, Any] = {
            "id": ev.message_id,
            "type": "message",
            "status": "in_progress",
            "content": [],
            "role": "assistant",
        }
        meta = ev.metadata or {}
        if isinstance(meta.get(PHASE_KEY), str):
            body["phase"] = meta[PHASE_KEY]
        item, added = self._add(ev.message_id, body)
        item.metadata.update(meta)
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        return [
            added,
            self._event(
                "response.content_part.added",
                item_id=ev.message_id,
                output_index=item.index,
                content_index=0,
                part=part,
            ),
        ]

    def _on_text_message_content(self, ev: TextMessageContentEvent) -> list[dict[str, Any]]:
        item = self._items.get(ev.message_id)
        if item is None or not ev.delta:
            return []
        item.text.append(ev.delta)
        return [
            self._event(
                "response.output_text.delta",
                item_id=ev.message_id,
                output_index=item.index,
                content_index=0,
                delta=ev.delta,
                logprobs=[],
            )
        ]

    def _ending(self, key: str, ev: BaseEvent) -> tuple[_Item, str] | None:
        """The open item an end event closes (its metadata merged), and its whole text."""
        item = self._items.pop(key, None)
        if item is None:
            return None
        item.metadata.update(ev.metadata or {})
        return item, "".join(item.text)

    def _on_text_message_end(self, ev: BaseEvent) -> list[dict[str, Any]]:
        mid = getattr(ev, "message_id", "")
        ending = self._ending(mid, ev)
        if ending is None:
            return []
        item, text = ending
        notes = item.metadata.get(ANNOTATIONS_KEY)
        part = {
            "type": "output_text",
            "annotations": notes if isinstance(notes, list) else [],
            "logprobs": [],
            "text": text,
        }
        item.body.update(status="completed", content=[part])
        where = {"item_id": mid, "output_index": item.index, "content_index": 0}
        return [
            self._event("response.output_text.done", **where, text=text, logprobs=[]),
            self._event("response.content_part.done", **where, part=part),
            self._done(item),
        ]

    # ------------------------------------------------------------- tool calls

    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> list[dict[str, Any]]:
        meta = dict(ev.metadata or {})
        kind = meta.get(ITEM_TYPE_KEY)
        if isinstance(kind, str) and kind != "custom_tool_call":
            item = _Item(-1, {}, deferred=True)
            item.metadata.update(meta)
            item.body = {"name": ev.tool_call_name, "call_id": ev.tool_call_id}
            self._items[ev.tool_call_id] = item
            return []
        item_id = meta.get(ITEM_ID_KEY)
        if not isinstance(item_id, str):
            item_id = mint_id("fc", ev.tool_call_id)
        if kind == "custom_tool_call":
            body: dict[str, Any] = {"id": item_id, "type": "custom_tool_call", "input": ""}
        else:
            body = {
                "id": item_id,
                "type": "function_call",
                "status": "in_progress",
                "arguments": "",
            }
        body.update(call_id=self._call_id(ev.tool_call_id, meta), name=ev.tool_call_name)
        fields = meta.get(CALL_FIELDS_KEY)
        if isinstance(fields, dict):
            body.update(fields)
        item, added = self._add(ev.tool_call_id, body)
        item.metadata.update(meta)
        return [added]

    def _on_tool_call_args(self, ev: ToolCallArgsEvent) -> list[dict[str, Any]]:
        item = self._items.get(ev.tool_call_id)
        if item is None or not ev.delta:
            return []
        item.text.append(ev.delta)
        if item.deferred:
            return []
        kind = (
            "response.custom_tool_call_input.delta"
            if item.body["type"] == "custom_tool_call"
            else "response.function_call_arguments.delta"
        )
        seq = self._seq  # (``_event`` written out: the one event of a tool-heavy turn)
        self._seq = seq + 1
        return [
            {
                "type": kind,
                "sequence_number": seq,
                "item_id": item.body["id"],
                "output_index": item.index,
                "delta": ev.delta,
            }
        ]

    def _on_tool_call_end(self, ev: BaseEvent) -> list[dict[str, Any]]:
        cid = getattr(ev, "tool_call_id", "")
        ending = self._ending(cid, ev)
        if ending is None:
            return []
        item, text = ending
        if item.deferred:
            whole = item.metadata.get(ITEM_KEY)
            if not isinstance(whole, dict):
                return self._as_function_call(cid, item, text)
            item.body = dict(whole)
            if whole.get("type") in SERVER_RUN:
                self._calls[cid] = item  # written once its result is known
                return []
            return self._write_whole(item)
        where = {"item_id": item.body["id"], "output_index": item.index}
        if item.body["type"] == "custom_tool_call":
            item.body["input"] = text
            done = self._event("response.custom_tool_call_input.done", **where, input=text)
        else:
            item.body.update(arguments=text, status="completed")
            done = self._event("response.function_call_arguments.done", **where, arguments=text)
        return [done, self._done(item)]

    def _as_function_call(self, cid: str, item: _Item, text: str) -> list[dict[str, Any]]:
        """A call marked with an item type but carrying no item: written as a function call."""
        body = {
            "id": mint_id("fc", cid),
            "type": "function_call",
            "status": "completed",
            "arguments": text,
            "call_id": self._call_id(cid, item.metadata),
            "name": item.body["name"],
        }
        item.body = body
        item.deferred = False
        return self._write_whole(item)

    def _write_whole(self, item: _Item) -> list[dict[str, Any]]:
        item.index = self._next_index
        self._next_index += 1
        added = self._event("response.output_item.added", output_index=item.index, item=item.body)
        return [added, self._done(item)]

    def _on_tool_call_result(self, ev: ToolCallResultEvent) -> list[dict[str, Any]]:
        item = self._calls.pop(ev.tool_call_id, None)
        if item is not None:
            if item.body.get("type") == "image_generation_call" and "result" not in item.body:
                item.body["result"] = image_data(ev.content)
            return self._write_whole(item)
        meta = ev.metadata or {}
        if isinstance(meta.get(OUTPUT_ITEM_KEY), dict):
            item = _Item(-1, dict(meta[OUTPUT_ITEM_KEY]))
            return self._write_whole(item)
        output, losses = to_vendor_content(
            ev.content, accepts(VENDOR), tool_call_id=ev.tool_call_id
        )
        self.losses += losses
        if isinstance(meta.get(RESULT_ERROR_KEY), str):
            self._lose(
                "result-error-dropped",
                f"function_call_output has no error field; the error text "
                f"{meta[RESULT_ERROR_KEY]!r} is not sent (the output is)",
                ev.tool_call_id,
            )
        body = {
            "id": ev.message_id,
            "type": "function_call_output",
            "call_id": self._call_id(ev.tool_call_id),
            "output": output,
            "status": "completed",
        }
        return self._write_whole(_Item(-1, body))

    # -------------------------------------------------------------- reasoning

    def _reasoning(self, mid: str) -> _Item | None:
        for item in self._items.values():
            if item.body.get("type") == "reasoning" and (
                item.body["id"] == mid or mid in item.message_ids
            ):
                return item
        return None

    def _on_reasoning_start(self, ev: BaseEvent) -> list[dict[str, Any]]:
        mid = getattr(ev, "message_id", "")
        body: dict[str, Any] = {"id": mid, "type": "reasoning", "summary": []}
        item, added = self._add(mid, body)
        item.message_ids.add(mid)
        return [added]

    def _on_reasoning_message_start(self, ev: ReasoningMessageStartEvent) -> list[dict[str, Any]]:
        item = self._reasoning(ev.message_id)
        if item is None:  # a reasoning message outside a reasoning phase
            owner = (ev.metadata or {}).get(ITEM_ID_KEY)
            item = self._reasoning(owner) if isinstance(owner, str) else None
        out: list[dict[str, Any]] = []
        if item is None:
            out = self._on_reasoning_start(ev)
            item = self._items[ev.message_id]
        item.message_ids.add(ev.message_id)
        item.pending_part = ev.message_id
        item.part_kind = (
            "content" if (ev.metadata or {}).get(REASONING_PART_KEY) == "content" else "summary"
        )
        return out

    def _part_where(self, item: _Item) -> dict[str, Any]:
        n = sum(1 for k, _ in item.parts if k == item.part_kind) - 1
        key = "summary_index" if item.part_kind == "summary" else "content_index"
        return {"item_id": item.body["id"], "output_index": item.index, key: n}

    def _on_reasoning_message_content(
        self, ev: ReasoningMessageContentEvent
    ) -> list[dict[str, Any]]:
        item = self._reasoning(ev.message_id)
        if item is None or not ev.delta:
            return []
        out: list[dict[str, Any]] = []
        if item.pending_part == ev.message_id:
            item.pending_part = None
            item.open_part = ev.message_id
            item.parts.append((item.part_kind, []))
            if item.part_kind == "summary":
                out.append(
                    self._event(
                        "response.reasoning_summary_part.added",
                        **self._part_where(item),
                        part={"type": "summary_text", "text": ""},
                    )
                )
        if item.open_part != ev.message_id:
            return out
        item.parts[-1][1].append(ev.delta)
        kind = (
            "response.reasoning_summary_text.delta"
            if item.part_kind == "summary"
            else "response.reasoning_text.delta"
        )
        out.append(self._event(kind, **self._part_where(item), delta=ev.delta))
        return out

    def _on_reasoning_message_end(self, ev: BaseEvent) -> list[dict[str, Any]]:
        mid = getattr(ev, "message_id", "")
        item = self._reasoning(mid)
        if item is None:
            return []
        if item.pending_part == mid:
            item.pending_part = None
            return []
        if item.open_part != mid:
            return []
        item.open_part = None
        text = "".join(item.parts[-1][1])
        where = self._part_where(item)
        if item.part_kind == "content":
            return [self._event("response.reasoning_text.done", **where, text=text)]
        part = {"type": "summary_text", "text": text}
        return [
            self._event("response.reasoning_summary_text.done", **where, text=text),
            self._event("response.reasoning_summary_part.done", **where, part=part),
        ]

    def _on_reasoning_encrypted_value(
        self, ev: ReasoningEncryptedValueEvent
    ) -> list[dict[str, Any]]:
        if ev.subtype == "message":
            item = self._reasoning(ev.entity_id)
            if item is not None:
                item.body["encrypted_content"] = ev.encrypted_value
        return []

    def _on_reasoning_end(self, ev: BaseEvent) -> list[dict[str, Any]]:
        mid = getattr(ev, "message_id", "")
        item = self._items.get(mid)
        if item is None or item.body.get("type") != "reasoning":
            return []
        out = self._on_reasoning_message_end(_Stub(message_id=item.open_part or ""))
        del self._items[mid]
        item.body["summary"] = [
            {"type": "summary_text", "text": "".join(t)} for k, t in item.parts if k == "summary"
        ]
        content = [
            {"type": "reasoning_text", "text": "".join(t)} for k, t in item.parts if k == "content"
        ]
        if content:
            item.body["content"] = content
        return [*out, self._done(item)]

    # ---------------------------------------------------------------- closing

    def _close_items(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for key, item in list(self._items.items()):
            kind = item.body.get("type")
            if kind == "message":
                out += self._on_text_message_end(_Stub(message_id=key))
            elif kind == "reasoning":
                out += self._on_reasoning_end(_Stub(message_id=key))
            else:
                out += self._on_tool_call_end(_Stub(tool_call_id=key))
        for cid in list(self._calls):
            out += self._write_whole(self._calls.pop(cid))
        return out

    def _finish(self, status: str, **extra: Any) -> list[dict[str, Any]]:
        out = self._close_items()
        kind = {"completed": "response.completed", "failed": "response.failed"}.get(
            status, "response.incomplete"
        )
        out.append(self._event(kind, response=self._response(status, **extra)))
        self._resp = None
        return out

    def _error(self, ev: RunErrorEvent) -> list[dict[str, Any]]:
        if ev.code == "incomplete":
            reason = next((r for r in _INCOMPLETE_REASONS if ev.message.endswith(r)), None)
            return self._finish(
                "incomplete", incomplete_details={"reason": reason}, usage=usage_fields(ev.usage)
            )
        error = {"code": ev.code or "server_error", "message": ev.message}
        return self._finish("failed", error=error, usage=usage_fields(ev.usage))


class _Stub(BaseEvent):
    """A synthetic end event used to close what a run left open."""

    type: EventType = EventType.CUSTOM
    message_id: str = ""
    tool_call_id: str = ""


__all__ = ["Encoder"]
