"""Responses stream events -> AG-UI events (the decode direction).

Output items are keyed by ``output_index``: every item-level event carries it,
while ``call_id`` (the id a result must answer, hence the AG-UI
``toolCallId``) is only on the item itself. Text and argument deltas pass
through as they come; ``response.output_item.done`` closes the item and adds
whatever the deltas did not carry (a whole response has no deltas at all).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from ag_ui.core import (
    BaseEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss
from toolwire.protocol._fastpath import PASS, Taken, read_stream
from toolwire.protocol._makers import args_delta, text_delta
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder, as_dict
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.signatures import encrypted_value_event

from .items import (
    Waiting,
    approval_interrupt,
    call_identity,
    finish_call,
    is_call_item,
    is_vendor_run,
    output_item_result,
)
from .wire import (
    ANNOTATIONS_KEY,
    DELTA_FORM,
    FIELDS,
    ITEM_ID_KEY,
    ITEM_KEY,
    PHASE_KEY,
    PROVIDER,
    REASONING_PART_KEY,
    RETRYABLE_ERRORS,
    TERMINAL,
    VENDOR,
    ItemDeltaEvent,
    OutputItem,
    OutputItemEvent,
    ReasoningEvent,
    ResponseEvent,
    map_stop_reason,
    token_usage,
)

#: The delta events that extend an open output item's text, by type: the kind of item each
#: extends (its text becomes that item's ``TEXT_MESSAGE_CONTENT`` or ``TOOL_CALL_ARGS``).
_ITEM_DELTAS = {
    "response.output_text.delta": "text",
    "response.refusal.delta": "text",
    "response.function_call_arguments.delta": "call",
    "response.custom_tool_call_input.delta": "call",
    "response.mcp_call_arguments.delta": "call",
}

#: a delta event's type -> the kind of item it extends and the maker of its AG-UI event
_DELTA_MAKERS = {
    kind: (item, text_delta if item == "text" else args_delta)
    for kind, item in _ITEM_DELTAS.items()
}


@dataclass
class _Open:
    """One output item being streamed."""

    kind: str  # "text" | "call" | "reasoning" | "output" | "approval" | "other"
    ident: str  # message id, tool call id, or reasoning id
    streamed: int = 0  # characters of text / argument text emitted so far
    part: str | None = None  # the reasoning message open in this item
    part_key: tuple[str, int] | None = None
    parts: int = 0  # reasoning messages emitted for this item
    streamed_parts: dict[tuple[str, int], int] | None = None


def _message_text(item: dict[str, Any]) -> tuple[str, list[Any]]:
    text: list[str] = []
    notes: list[Any] = []
    for part in FIELDS.list_at(item, "content", "item"):
        if not isinstance(part, dict):
            continue
        if part.get("type") == "output_text" and isinstance(part.get("text"), str):
            text.append(part["text"])
            notes.extend(FIELDS.list_at(part, "annotations", "item.content[]"))
        elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
            text.append(part["refusal"])
    return "".join(text), notes


class Decoder(BaseDecoder):
    """Sans-I/O decoder of one Responses stream (``responses.create(stream=True)``).

    Feed each stream event (an SDK event object or its JSON dict); after
    :meth:`close`, ``usage`` holds the terminal event's usage. An ``error``
    event, ``response.failed`` and ``response.incomplete`` raise
    :class:`~toolwire.errors.VendorStreamError`; a stream without a terminal
    event raises :class:`~toolwire.errors.TruncatedStream` from ``close()``. A whole
    response with status ``cancelled`` sets ``cancelled`` (the run's cancelled outcome).
    """

    vendor = VENDOR

    def __init__(self) -> None:
        super().__init__()
        self._ids = CallIds(VENDOR)  # two call items with one call_id stay two calls
        self.response_id: str | None = None
        self.model: str | None = None
        self._items: dict[int, _Open] = {}
        self._parent: str | None = None
        self._ended = False
        self._waiting = Waiting()  # calls not answered yet: what an output without call_id answers
        #: output index -> (item id, finished) of the items a start event carried
        self._from_start: dict[int, tuple[Any, bool]] = {}

    # ------------------------------------------------------------------ whole

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A whole (non-streamed) ``Response``: its output items, then its outcome."""
        body = as_dict(response, VENDOR, "response")
        output = FIELDS.at(body, "output", list, "response")
        self._note_response(body)
        events: list[BaseEvent] = []
        for i, item in enumerate(output):
            for kind in ("response.output_item.added", "response.output_item.done"):
                events += self.feed({"type": kind, "output_index": i, "item": item})
        status = body.get("status")
        if status in ("completed", "incomplete", "failed"):
            events += self.feed({"type": f"response.{status}", "response": body})
        elif status == "cancelled":  # a background response stopped by responses.cancel
            self._ended = self.cancelled = True
            usage = token_usage(body)
            if usage is not None:
                self.usage = [usage]
            events += self._flush_open()
        else:
            self.closed = True
            raise TruncatedStream(VENDOR, f"the response has status {status!r}, not a final one")
        return events

    # ----------------------------------------------------------------- stream

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: ``feed``'s, with the text and
        argument deltas toolwire's own reader hands on fused (most of a stream:
        ``protocol._fastpath``) read by :meth:`_item_delta`, no dict made."""
        return read_stream(self, chunks, DELTA_FORM, self._item_delta)

    # The per-delta reads check the field in place and name the place only when FIELDS
    # raises (``_read``): building ``chunk N`` for every field was a third of the time.

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        kind: str = self._read(chunk, "type", str)
        if self._ended:
            return self.after_end("the response's terminal event")
        handler = _HANDLERS.get(kind)
        if handler is None:
            return []  # an event type this decoder does not need (or does not know)
        return handler(self, chunk)

    def _close(self) -> list[BaseEvent]:
        if not self._ended:
            raise TruncatedStream(
                VENDOR, "no response.completed, response.incomplete or response.failed event came"
            )
        return []

    def _at(self, path: str = "") -> str:
        """``chunk N`` (plus a path inside it) for ``FIELDS.at``, which appends the key."""
        return f"chunk {self.chunk_index}" + (f" {path}" if path else "")

    def _lose(self, what: str) -> None:
        """An item with no AG-UI event (or an output answering no call), said as a loss."""
        self.losses.append(
            Loss(kind="item-dropped", target="AG-UI", reason=f"{self._at('item')}: {what}")
        )

    def _note_response(self, response: dict[str, Any]) -> None:
        if isinstance(response.get("id"), str):
            self.response_id = response["id"]
        if isinstance(response.get("model"), str):
            self.model = response["model"]

    def _on_created(self, chunk: ResponseEvent) -> list[BaseEvent]:
        resp = self._read(chunk, "response", dict)
        self._note_response(resp)
        return self._replay_start_output(resp)

    def _replay_start_output(self, resp: dict[str, Any]) -> list[BaseEvent]:
        """Output items a ``response.created`` / ``.in_progress`` / ``.queued`` already holds,
        read as if streamed: each one ``output_item.added`` at its index, plus its ``done``
        unless it is still ``in_progress`` (then the stream's own deltas and ``done`` go on
        with it). The stream repeating an item already read this way is not read twice."""
        out: list[BaseEvent] = []
        for i, item in enumerate(FIELDS.list_at(resp, "output", self._at("response"))):
            item = cast(OutputItem, FIELDS.obj(item, self._at(f"response.output[{i}]")))
            seen = self._from_start.get(i)
            if seen is not None and seen[0] == item.get("id"):
                if seen[1] or item.get("status") == "in_progress":
                    continue  # the same item again: read already
                out += self._on_done(
                    {"type": "response.output_item.done", "output_index": i, "item": item}
                )  # (which notes it done)
                continue
            added: OutputItemEvent = {
                "type": "response.output_item.added",
                "output_index": i,
                "item": item,
            }
            out += self._on_added(added)
            self._from_start[i] = (item.get("id"), False)
            if item.get("status") != "in_progress":
                out += self._on_done({**added, "type": "response.output_item.done"})
        return out

    def _repeat_of_start(self, chunk: OutputItemEvent, done: bool) -> bool:
        """``output_item.added`` / ``.done`` of an item a start event carried already."""
        if not self._from_start:
            return False
        index, item = chunk.get("output_index"), chunk.get("item")
        if type(index) is not int:
            return False
        seen = self._from_start.get(index)
        if seen is None or not isinstance(item, dict) or seen[0] != item.get("id"):
            return False
        if done and not seen[1]:
            self._from_start[index] = (seen[0], True)
            return False  # the stream finishes an item the start event opened
        return True

    def _read(self, chunk: Mapping[str, Any], key: str, kind: type) -> Any:
        """``chunk[key]`` of ``kind`` (as ``FIELDS.at`` reads it, with its error)."""
        value = chunk.get(key)
        if isinstance(value, kind):
            return value
        return FIELDS.at(chunk, key, kind, self._at())  # raises

    def _item_at(self, chunk: Mapping[str, Any], kind: str | None = None) -> _Open:
        index = self._read(chunk, "output_index", int)
        item = self._items.get(index)
        if item is None:
            raise VendorDataError(
                VENDOR, self.where("output_index"), f"no output item {index} was added"
            )
        if kind is not None and item.kind != kind:
            raise VendorDataError(
                VENDOR, self.where("type"), f"output item {index} is a {item.kind} item"
            )
        return item

    def _on_added(self, chunk: OutputItemEvent) -> list[BaseEvent]:
        if self._repeat_of_start(chunk, done=False):
            return []
        index = self._read(chunk, "output_index", int)
        item = self._read(chunk, "item", dict)
        kind = FIELDS.at(item, "type", str, self._at("item"))
        at = self._at("item")
        if index in self._items:
            raise VendorDataError(VENDOR, self.where("output_index"), f"item {index} added twice")
        if kind == "message":
            mid = FIELDS.at(item, "id", str, at)
            self._items[index] = _Open("text", mid)
            self._parent = mid
            meta: dict[str, Any] = {ITEM_ID_KEY: mid}
            if isinstance(item.get("phase"), str):
                meta[PHASE_KEY] = item["phase"]
            return [TextMessageStartEvent(message_id=mid, role="assistant", metadata=meta)]
        if kind == "reasoning":
            rid = FIELDS.at(item, "id", str, at)
            self._items[index] = _Open("reasoning", rid, streamed_parts={})
            return [ReasoningStartEvent(message_id=rid)]
        if is_call_item(kind, item):
            call = call_identity(item, at)
            cid = self._ids.assign(call.id, self.known_call_ids)  # a repeat stays apart
            self._items[index] = _Open("call", cid)
            if is_vendor_run(kind, item):
                self.vendor_calls.add(cid)  # OpenAI answers it, never the application
            self._waiting.add(kind, cid)
            parent = self._parent or mint_id("msg", self.response_id or "", "calls")
            meta = {**call.metadata, **self._ids.metadata(cid, call.id)}
            return [
                ToolCallStartEvent(
                    tool_call_id=cid,
                    tool_call_name=call.name,
                    parent_message_id=parent,
                    metadata=meta or None,
                )
            ]
        if kind.endswith("_output"):
            self._items[index] = _Open("output", str(item.get("id", index)))
            return []
        if kind == "mcp_approval_request":  # an interrupt once done: the application decides
            self._items[index] = _Open("approval", str(item.get("id", index)))
            return []
        self._items[index] = _Open("other", str(item.get("id", index)))
        self._lose(f"a Responses {kind!r} item has no AG-UI event")
        return []

    def _on_item_delta(self, chunk: ItemDeltaEvent) -> list[BaseEvent]:
        kind = chunk["type"]
        self._item_at(chunk, _ITEM_DELTAS[kind])  # names a missing or other item
        delta = self._read(chunk, "delta", str)
        out = self._item_delta(kind, chunk["output_index"], delta)
        assert out is not PASS  # (an open item of its kind: the rule takes it)
        return [] if out is None else [out]

    def _item_delta(self, kind: str, index: int, text: str) -> Taken:
        """The rule: a delta event of type ``kind`` extends the open item at ``index`` by
        ``text`` (counted, for what its done event adds), as :data:`_ITEM_DELTAS` maps it;
        :data:`PASS` unless that item is open and of that kind, before the terminal event."""
        item = self._items.get(index)
        made = _DELTA_MAKERS.get(kind)
        if item is None or made is None or item.kind != made[0] or self._ended:
            return PASS
        if not text:
            return None
        item.streamed += len(text)
        event: BaseEvent = made[1](item.ident, text)
        return event

    # reasoning ---------------------------------------------------------------

    def _open_part(self, item: _Open, key: tuple[str, int]) -> list[BaseEvent]:
        if item.part_key == key:
            return []
        out = self._close_part(item)
        mid = item.ident if item.parts == 0 else f"{item.ident}:{item.parts}"
        item.parts += 1
        if item.streamed_parts is not None:
            item.streamed_parts.setdefault(key, 0)
        item.part, item.part_key = mid, key
        meta = {ITEM_ID_KEY: item.ident}
        if key[0] == "content":
            meta[REASONING_PART_KEY] = "content"
        out.append(ReasoningMessageStartEvent(message_id=mid, role="reasoning", metadata=meta))
        return out

    def _close_part(self, item: _Open) -> list[BaseEvent]:
        if item.part is None:
            return []
        mid, item.part, item.part_key = item.part, None, None
        return [ReasoningMessageEndEvent(message_id=mid)]

    def _reasoning_key(self, chunk: ReasoningEvent) -> tuple[_Open, tuple[str, int]]:
        item = self._item_at(chunk, "reasoning")
        if "summary_index" in chunk:
            n = self._read(chunk, "summary_index", int)
            return item, ("summary", n)
        n = self._read(chunk, "content_index", int)
        return item, ("content", n)

    def _on_reasoning_part_added(self, chunk: ReasoningEvent) -> list[BaseEvent]:
        item, key = self._reasoning_key(chunk)
        return self._open_part(item, key)

    def _on_reasoning_delta(self, chunk: ReasoningEvent) -> list[BaseEvent]:
        item, key = self._reasoning_key(chunk)
        delta = self._read(chunk, "delta", str)
        out = self._open_part(item, key)
        if delta:
            assert item.part is not None and item.streamed_parts is not None
            item.streamed_parts[key] = item.streamed_parts.get(key, 0) + len(delta)
            out.append(ReasoningMessageContentEvent(message_id=item.part, delta=delta))
        return out

    def _on_reasoning_part_done(self, chunk: ReasoningEvent) -> list[BaseEvent]:
        item, key = self._reasoning_key(chunk)
        return self._close_part(item) if item.part_key == key else []

    def _finish_reasoning(self, item: _Open, body: dict[str, Any]) -> list[BaseEvent]:
        out = self._close_part(item)
        streamed = item.streamed_parts or {}
        for field, label in (("summary", "summary"), ("content", "content")):
            for n, part in enumerate(FIELDS.list_at(body, field, self.where("item"))):
                text = FIELDS.at(part, "text", str, self.where(f"item.{field}[{n}]"))
                if (label, n) in streamed:
                    continue  # streamed already, and closed by its own done event
                out += self._open_part(item, (label, n))
                if text:
                    assert item.part is not None
                    out.append(ReasoningMessageContentEvent(message_id=item.part, delta=text))
                out += self._close_part(item)
        if item.parts == 0:
            out += self._open_part(item, ("summary", 0))
            out += self._close_part(item)
        enc = body.get("encrypted_content")
        if isinstance(enc, str) and enc:
            out.append(encrypted_value_event("message", item.ident, enc, PROVIDER))
        out.append(ReasoningEndEvent(message_id=item.ident))
        return out

    # item done ---------------------------------------------------------------

    def _on_done(self, chunk: OutputItemEvent) -> list[BaseEvent]:
        if self._repeat_of_start(chunk, done=True):
            return []
        body = self._read(chunk, "item", dict)
        kind = FIELDS.at(body, "type", str, self._at("item"))
        index = self._read(chunk, "output_index", int)
        item = self._items.pop(index, None)
        if item is None:  # a done without an added: read it as both
            opened = self._on_added(chunk)
            return opened + self._finish(self._items.pop(index), body, kind)
        return self._finish(item, body, kind)

    def _finish(self, item: _Open, body: dict[str, Any], kind: str) -> list[BaseEvent]:
        at = self._at("item")
        if item.kind == "text":
            text, notes = _message_text(body)
            out: list[BaseEvent] = []
            if len(text) > item.streamed:
                out.append(
                    TextMessageContentEvent(message_id=item.ident, delta=text[item.streamed :])
                )
            meta = {ANNOTATIONS_KEY: notes} if notes else None
            out.append(TextMessageEndEvent(message_id=item.ident, metadata=meta))
            return out
        if item.kind == "reasoning":
            return self._finish_reasoning(item, body)
        if item.kind == "call":
            call = finish_call(body, at)
            cid = item.ident  # the AG-UI id the call opened with
            out = []
            if len(call.arguments) > item.streamed:
                out.append(
                    ToolCallArgsEvent(tool_call_id=cid, delta=call.arguments[item.streamed :])
                )
            end_meta = {ITEM_KEY: call.metadata[ITEM_KEY]} if ITEM_KEY in call.metadata else None
            out.append(ToolCallEndEvent(tool_call_id=cid, metadata=end_meta))
            if call.result is not None:
                self._waiting.answered(cid)
                out.append(
                    ToolCallResultEvent(
                        message_id=result_message_id(cid),
                        tool_call_id=cid,
                        content=call.result,
                        role="tool",
                        metadata=call.result_metadata or None,
                    )
                )
            return out
        if item.kind == "approval":
            self.interrupts.append(approval_interrupt(body, at))
            return []
        if item.kind == "output":
            given = body.get("call_id")
            given = FIELDS.opt_text(given, f"{at}.call_id")
            answers = self._waiting.answer(
                kind, self._ids.answer(given) or given if given else None
            )
            if answers is None:
                self._lose(f"a {kind!r} item without a call_id follows no call it can answer")
                return []
            content, meta, losses = output_item_result(body, at, target=VENDOR)
            self.losses += losses
            ident = body.get("id")
            return [
                ToolCallResultEvent(
                    message_id=ident if isinstance(ident, str) else result_message_id(answers),
                    tool_call_id=answers,
                    content=content,
                    role="tool",
                    metadata=meta,
                )
            ]
        return []

    # terminal ----------------------------------------------------------------

    def _flush_open(self) -> list[BaseEvent]:
        """Close items a terminal event left open (the vendor never sent their done)."""
        out: list[BaseEvent] = []
        for index in sorted(self._items):
            item = self._items.pop(index)
            if item.kind == "text":
                out.append(TextMessageEndEvent(message_id=item.ident))
            elif item.kind == "call":
                out.append(ToolCallEndEvent(tool_call_id=item.ident))
            elif item.kind == "reasoning":
                out += self._close_part(item)
                out.append(ReasoningEndEvent(message_id=item.ident))
        return out

    def _on_terminal(self, chunk: ResponseEvent) -> list[BaseEvent]:
        kind = chunk["type"]
        self._ended = True
        if kind == "error":
            message = chunk.get("message")
            code = chunk.get("code")
            raise VendorStreamError(
                VENDOR,
                code if isinstance(code, str) and code else "error",
                message if isinstance(message, str) else json.dumps(chunk),
                retryable=isinstance(code, str) and code in RETRYABLE_ERRORS,
            )
        resp = self._read(chunk, "response", dict)
        self._note_response(resp)
        usage = token_usage(resp)
        if usage is not None:
            self.usage = [usage]
        if kind == "response.failed":
            err = resp.get("error") if isinstance(resp.get("error"), dict) else {}
            code = str(err.get("code") or "failed")
            message = str(err.get("message") or "the response failed")
            raise VendorStreamError(VENDOR, code, message, retryable=code in RETRYABLE_ERRORS)
        if kind == "response.incomplete":
            details = resp.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            self.error_metadata[FINISH_REASON_KEY] = map_stop_reason(
                "incomplete", incomplete_reason=reason if isinstance(reason, str) else None
            )
            raise VendorStreamError(VENDOR, "incomplete", str(reason or "unknown reason"))
        output = resp.get("output")
        made_calls = isinstance(output, list) and any(
            isinstance(item, dict) and item.get("type") == "function_call" for item in output
        )
        self.run_metadata[FINISH_REASON_KEY] = map_stop_reason("completed", made_calls=made_calls)
        return self._flush_open()


_HANDLERS: dict[str, Callable[[Decoder, Any], list[BaseEvent]]] = {
    "response.created": Decoder._on_created,
    "response.in_progress": Decoder._on_created,
    "response.queued": Decoder._on_created,
    "response.output_item.added": Decoder._on_added,
    "response.output_item.done": Decoder._on_done,
    "response.reasoning_summary_part.added": Decoder._on_reasoning_part_added,
    "response.reasoning_summary_part.done": Decoder._on_reasoning_part_done,
    "response.reasoning_summary_text.delta": Decoder._on_reasoning_delta,
    "response.reasoning_text.delta": Decoder._on_reasoning_delta,
    "response.reasoning_text.done": Decoder._on_reasoning_part_done,
    **{name: Decoder._on_item_delta for name in _ITEM_DELTAS},
    **{name: Decoder._on_terminal for name in TERMINAL},
}


__all__ = ["RETRYABLE_ERRORS", "Decoder"]
