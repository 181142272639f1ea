"""Cohere v2 chat stream events (or a whole response) -> AG-UI events.

The message id is ``message-start``'s ``id``. ``tool-plan-delta`` text and ``text`` content
items are the assistant message's text (the plan's start marked ``cohere.tool_plan``);
``thinking`` content items are ``REASONING_*`` items, ended at their ``content-end``. A
call is keyed by its ``index``: ``tool-call-start`` names it (``id``, ``function.name``),
``tool-call-delta`` carries argument text, ``tool-call-end`` ends it, where Cohere says.
Citations are kept on ``RUN_FINISHED`` metadata. ``message-end`` ends the turn; a stream
without it is truncated; ``finish_reason`` ``ERROR`` / ``TIMEOUT`` raise the vendor's error.
"""

from __future__ import annotations

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
    ToolCallStartEvent,
)

from toolwire.errors import TruncatedStream, VendorDataError
from toolwire.losses import Loss
from toolwire.protocol._fastpath import PASS, Taken, read_stream
from toolwire.protocol._makers import args_delta, maker, reasoning_delta, text_delta
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder, as_dict
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id

from .wire import (
    CITATIONS_KEY,
    DELTA_FORM,
    FIELDS,
    STOP_REASON_KEY,
    TOOL_PLAN_KEY,
    VENDOR,
    ChatStreamEvent,
    Message,
    map_stop_reason,
    stream_error,
    token_usage,
)

_ERRORS = ("ERROR", "TIMEOUT")
#: the start and end events' validators (the constructor without its frame)
_START = maker(ToolCallStartEvent)
_END = maker(ToolCallEndEvent)


@dataclass
class _Call:
    agui: str
    open: bool = True


class Decoder(BaseDecoder):
    """Sans-I/O decoder of one v2 chat turn (stream events, or one ``V2ChatResponse``)."""

    vendor = VENDOR

    def __init__(self) -> None:
        super().__init__()
        self.message_id: str | None = None
        self.model: str | None = None
        self.ended = False
        self._text_open = False
        self._content: dict[int, str] = {}  # content index -> "text" | "thinking"
        self._reasoning: dict[int, str] = {}  # thinking content index -> reasoning id
        self._calls: dict[int, _Call] = {}
        self._made = 0
        self._citations: list[Any] = []
        self._ids = CallIds(VENDOR)
        self._logprobs_told = False
        self._reasoning_ids: set[str] = set()

    # ------------------------------------------------------------ streaming

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: ``feed``'s, with the text,
        thinking, argument and plan deltas toolwire's own reader hands on fused (most of a
        stream: ``protocol._fastpath``) read by :meth:`_common`, no dict made."""
        return read_stream(self, chunks, DELTA_FORM, self._common)

    def _common(
        self,
        content: int | None,
        text: str | None,
        thinking: str | None,
        call: int | None,
        arguments: str | None,
        plan: str | None,
        start: int | None,
        call_id: str | None,
        name: str | None,
        end: int | None,
    ) -> Taken:
        """The rule of :data:`~toolwire.adapters.cohere.wire.DELTA_FORM`: text for the open
        message (a text content item's, or the plan's), thinking for its open reasoning
        message, argument text for an open call, a new call (an id and a name of its own)
        started or an open one ended, as the handlers read them in these states.
        :data:`PASS` for anything else (the end already read, a content item not started
        or of another kind, a call not open, one without an id): the general path reads
        it."""
        if self.ended:
            return PASS
        if arguments is not None:
            known = self._calls.get(call)  # type: ignore[arg-type]  # (given with arguments)
            if known is None or not known.open:
                return PASS
            return args_delta(known.agui, arguments) if arguments else None
        if plan is not None or text is not None:
            if plan is None and self._content.get(content) != "text":  # type: ignore[arg-type]
                return PASS
            delta = text if plan is None else plan
            if not delta:
                return None
            if not self._text_open:
                return PASS
            return text_delta(self.message_id, delta)  # type: ignore[arg-type]  # (open)
        if thinking is not None:
            if self._content.get(content) != "thinking":  # type: ignore[arg-type]
                return PASS
            rid = self._reasoning.get(content)  # type: ignore[arg-type]
            if rid is None:
                return PASS
            return reasoning_delta(rid, thinking) if thinking else None
        if end is not None:
            known = self._calls.get(end)
            if known is None or not known.open:
                return None  # (nothing to end: what _end_call does)
            known.open = False
            return _END({"tool_call_id": known.agui})
        opened = self._calls.get(start)  # type: ignore[arg-type]  # (a start: given)
        if (opened is not None and opened.open) or not call_id or not name:
            return PASS
        if self.message_id is None:
            return PASS
        return self._open_call(start, call_id, name)  # type: ignore[arg-type]

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if self.ended:
            return self.after_end("message-end")
        event = cast(ChatStreamEvent, chunk)  # (checked JSON: each handler checks its fields)
        kind = event.get("type")
        delta = event.get("delta")
        if delta is not None and not isinstance(delta, dict):
            raise FIELDS.wrong(delta, dict, self.where("delta"))
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            return handler(self, event)
        if kind != "citation-end":  # (citation-end only closes what citation-start kept)
            what = "a debug event's prompt" if kind == "debug" else f"a {kind!r} event"
            self._drop("event-dropped", f"{self.where('type')}: {what} has no AG-UI event")
        return []

    @staticmethod
    def _message(event: ChatStreamEvent) -> Message:
        """The event's ``delta.message`` (``{}`` when it has none)."""
        message = (event.get("delta") or {}).get("message")
        return message if isinstance(message, dict) else {}

    def _on_message_start(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message = self._message(event)
        mid = event.get("id")
        if isinstance(mid, str) and mid:
            self.message_id = mid
        # what the message already holds is decoded as if it had been streamed
        self._whole_message(message, self.where("delta.message"), out)
        return out

    def _on_content_start(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message = self._message(event)
        index = self._index(event)
        item = FIELDS.obj(message.get("content"), self.where("delta.message.content"))
        ctype = item.get("type", "text")
        if ctype == "thinking":
            self._content[index] = "thinking"
            self._thinking(index, item.get("thinking"), out)
        elif ctype == "text":
            self._content[index] = "text"
            self._text(item.get("text"), None, out)
        else:
            self._content[index] = "skip"
            self._drop(
                "content-dropped",
                f"{self.where('delta.message.content')}: a {ctype!r} content item has no "
                "AG-UI event",
            )
        return out

    def _on_content_delta(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message = self._message(event)
        index = self._index(event)
        item = FIELDS.obj(message.get("content"), self.where("delta.message.content"))
        if self._content.get(index) == "thinking":
            self._thinking(index, item.get("thinking"), out)
        elif self._content.get(index) != "skip":
            self._text(item.get("text"), None, out)
        self._logprobs(event.get("logprobs"), self.where("logprobs"))
        return out

    def _on_content_end(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        index = self._index(event)
        if self._content.pop(index, None) == "thinking":
            self._end_thinking(index, out)
        return out

    def _on_tool_plan_delta(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message = self._message(event)
        self._text(message.get("tool_plan"), {TOOL_PLAN_KEY: True}, out)
        return out

    def _on_tool_call_start(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message = self._message(event)
        call = FIELDS.obj(message.get("tool_calls"), self.where("delta.message.tool_calls"))
        self._start_call(self._index(event), call, self.where("delta.message.tool_calls"), out)
        return out

    def _on_tool_call_delta(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message = self._message(event)
        call = FIELDS.obj(message.get("tool_calls"), self.where("delta.message.tool_calls"))
        self._call_args(self._index(event), call, self.where("delta.message.tool_calls"), out)
        return out

    def _on_tool_call_end(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        self._end_call(self._index(event), out)
        return out

    def _on_citation_start(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message = self._message(event)
        citation = message.get("citations")
        if citation is not None:
            self._citations.append(citation)
        return out

    def _on_message_end(self, event: ChatStreamEvent) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        self._finish(event.get("delta") or {}, self.where("delta"), out)
        return out

    def _drop(self, kind: str, reason: str) -> None:
        self.losses.append(Loss(kind=kind, target="AG-UI", reason=f"{VENDOR}: {reason}"))

    def _logprobs(self, logprobs: Any, where: str) -> None:
        """Log probabilities have no AG-UI field: announced once per turn."""
        if logprobs and not self._logprobs_told:
            self._logprobs_told = True
            self._drop("logprobs-dropped", f"{where}: log probabilities have no AG-UI field")

    def _close(self) -> list[BaseEvent]:
        if not self.ended:
            raise TruncatedStream(VENDOR, "the stream ended without message-end")
        return []

    # ------------------------------------------------------- whole response

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A non-streamed ``V2ChatResponse`` -> the events its stream would give."""
        self.chunk_index += 1
        body = as_dict(response, VENDOR, "response")
        mid = body.get("id")
        if isinstance(mid, str) and mid:
            self.message_id = mid
        message = FIELDS.at(body, "message", dict, "response")
        out: list[BaseEvent] = []
        self._whole_message(message, "response.message", out)
        self._logprobs(body.get("logprobs"), "response.logprobs")
        self._finish(body, "response", out)
        self.warn_new()
        return out

    def _whole_message(self, message: Message, at: str, out: list[BaseEvent]) -> None:
        """A message given whole (a response's, or what ``message-start`` already holds):
        its plan, content items, calls (each started and ended) and citations."""
        plan = FIELDS.opt_text(message.get("tool_plan"), f"{at}.tool_plan")
        if plan:
            self._text(plan, {TOOL_PLAN_KEY: True}, out)
        for i, item in enumerate(FIELDS.list_at(message, "content", at)):
            where = f"{at}.content[{i}]"
            item = FIELDS.obj(item, where)
            ctype = item.get("type", "text")
            if ctype == "thinking":
                self._thinking(i, item.get("thinking"), out)
                self._end_thinking(i, out)
            elif ctype == "text":
                self._text(FIELDS.at(item, "text", str, where), None, out)
            else:
                self._drop(
                    "content-dropped", f"{where}: a {ctype!r} content item has no AG-UI event"
                )
        for i, call in enumerate(FIELDS.list_at(message, "tool_calls", at)):
            where = f"{at}.tool_calls[{i}]"
            call = FIELDS.obj(call, where)
            self._start_call(i, call, where, out)
            self._end_call(i, out)
        for citation in FIELDS.list_at(message, "citations", at):
            self._citations.append(citation)

    # -------------------------------------------------------------- helpers

    def _index(self, chunk: ChatStreamEvent) -> int:
        index = chunk.get("index", 0)
        if type(index) is not int or index < 0:
            raise FIELDS.wrong(index, int, self.where("index"))
        return index

    def _mid(self) -> str:
        if self.message_id is None:
            self.message_id = mint_id("msg", VENDOR, self.chunk_index)
        return self.message_id

    def _text(self, text: Any, meta: dict[str, Any] | None, out: list[BaseEvent]) -> None:
        if text is None or text == "":
            return
        if not isinstance(text, str):
            raise FIELDS.wrong(text, str, self.where("delta.message.content.text"))
        mid = self._mid()
        if not self._text_open:
            self._text_open = True
            kw: dict[str, Any] = {"metadata": meta} if meta else {}
            out.append(TextMessageStartEvent(message_id=mid, role="assistant", **kw))
        out.append(TextMessageContentEvent(message_id=mid, delta=text))

    def _thinking(self, index: int, text: Any, out: list[BaseEvent]) -> None:
        if text is not None and not isinstance(text, str):
            raise FIELDS.wrong(text, str, self.where("delta.message.content.thinking"))
        rid = self._reasoning.get(index)
        if rid is None:
            rid = mint_id("reasoning", self._mid(), index, len(self._reasoning))
            if rid in self._reasoning_ids:  # (content message-start held, then streamed)
                rid = mint_id("reasoning", self._mid(), index, len(self._reasoning_ids))
            self._reasoning_ids.add(rid)
            self._reasoning[index] = rid
            out.append(ReasoningStartEvent(message_id=rid))
            out.append(ReasoningMessageStartEvent(message_id=rid))
        if text:
            out.append(ReasoningMessageContentEvent(message_id=rid, delta=text))

    def _end_thinking(self, index: int, out: list[BaseEvent]) -> None:
        rid = self._reasoning.pop(index, None)
        if rid is not None:
            out.append(ReasoningMessageEndEvent(message_id=rid))
            out.append(ReasoningEndEvent(message_id=rid))

    def _start_call(
        self, index: int, call: dict[str, Any], where: str, out: list[BaseEvent]
    ) -> None:
        if index in self._calls and self._calls[index].open:
            raise VendorDataError(VENDOR, where, f"call {index} started twice")
        fn = FIELDS.obj(call.get("function") or {}, f"{where}.function")
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise VendorDataError(VENDOR, f"{where}.function.name", "a call needs a name")
        vendor_id = FIELDS.opt_text(call.get("id"), f"{where}.id") or mint_id(
            "call", VENDOR, self._mid(), self._made
        )
        started = self._open_call(index, vendor_id, name)
        out.append(started)
        args = FIELDS.opt_text(fn.get("arguments"), f"{where}.function.arguments")
        if args:
            out.append(ToolCallArgsEvent(tool_call_id=started.tool_call_id, delta=args))

    def _open_call(self, index: int, vendor_id: str, name: str) -> ToolCallStartEvent:
        """Call ``index`` opened: its AG-UI id, its start event."""
        self._made += 1
        agui = self._ids.assign(vendor_id, self.known_call_ids)
        fields: dict[str, Any] = {
            "tool_call_id": agui,
            "tool_call_name": name,
            "parent_message_id": self._mid(),
        }
        meta = self._ids.metadata(agui, vendor_id)
        if meta:
            fields["metadata"] = meta
        self._calls[index] = _Call(agui)
        return _START(fields)

    def _call_args(
        self, index: int, call: dict[str, Any], where: str, out: list[BaseEvent]
    ) -> None:
        known = self._calls.get(index)
        if known is None or not known.open:
            raise VendorDataError(VENDOR, where, f"arguments for call {index}, which is not open")
        fn = FIELDS.obj(call.get("function") or {}, f"{where}.function")
        args = FIELDS.opt_text(fn.get("arguments"), f"{where}.function.arguments")
        if args:
            out.append(ToolCallArgsEvent(tool_call_id=known.agui, delta=args))

    def _end_call(self, index: int, out: list[BaseEvent]) -> None:
        known = self._calls.get(index)
        if known is not None and known.open:
            known.open = False
            out.append(_END({"tool_call_id": known.agui}))

    def _finish(self, delta: Mapping[str, Any], where: str, out: list[BaseEvent]) -> None:
        reason = FIELDS.opt_text(delta.get("finish_reason"), f"{where}.finish_reason")
        if reason in _ERRORS:
            raise stream_error(reason or "ERROR", delta.get("error"))
        for index in list(self._reasoning):
            self._end_thinking(index, out)
        for index in list(self._calls):
            self._end_call(index, out)
        if self._text_open:
            self._text_open = False
            out.append(TextMessageEndEvent(message_id=self._mid()))
        usage = token_usage(delta.get("usage"), self.model, f"{where}.usage")
        if usage is not None:
            self.usage = [usage]
        if reason:
            self.run_metadata[STOP_REASON_KEY] = reason
        if self._citations:
            self.run_metadata[CITATIONS_KEY] = list(self._citations)
        self.run_metadata[FINISH_REASON_KEY] = map_stop_reason(reason)
        self.ended = True


#: ``type`` -> its handler: the one table the decoder dispatches an event through
_HANDLERS: dict[str, Callable[[Decoder, ChatStreamEvent], list[BaseEvent]]] = {
    "message-start": Decoder._on_message_start,
    "content-start": Decoder._on_content_start,
    "content-delta": Decoder._on_content_delta,
    "content-end": Decoder._on_content_end,
    "tool-plan-delta": Decoder._on_tool_plan_delta,
    "tool-call-start": Decoder._on_tool_call_start,
    "tool-call-delta": Decoder._on_tool_call_delta,
    "tool-call-end": Decoder._on_tool_call_end,
    "citation-start": Decoder._on_citation_start,
    "message-end": Decoder._on_message_end,
}

__all__ = ["Decoder"]
