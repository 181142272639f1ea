"""Ollama ``/api/chat`` lines (or a whole non-streamed response) -> AG-UI events.

Each line carries a fragment of ``message.content`` and/or ``message.thinking``, or whole
tool calls: a call is announced, given its arguments (the object as compact JSON) and
ended on the line that brings it, since Ollama never continues one. The line with
``done: true`` ends the turn; a stream that stops before it is truncated, however many
lines came. Thinking becomes a ``REASONING_*`` item that ends when the answer begins.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast

from ag_ui.core import (
    BaseEvent,
    ReasoningEndEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from toolwire.errors import TruncatedStream, VendorDataError
from toolwire.losses import Loss
from toolwire.protocol._compact_json import compact_finite
from toolwire.protocol._fastpath import PASS, TakenMany, read_stream
from toolwire.protocol._kept_json import read_written
from toolwire.protocol._makers import (
    args_delta,
    call_end,
    call_start,
    call_start_meta,
    reasoning_delta,
    text_delta,
)
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder, as_dict
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id
from toolwire.protocol.jsontext import scan_value

from .wire import (
    DELTA_FORM,
    DURATIONS_KEY,
    FIELDS,
    INDEX_KEY,
    STOP_REASON_KEY,
    VENDOR,
    ChatChunk,
    ChatMessage,
    durations,
    map_stop_reason,
    stream_error,
    token_usage,
)

#: a checked call: its vendor id (``None``: one is minted), name, argument text, index
_Found = tuple[str | None, str, str, int | None]


class Decoder(BaseDecoder):
    """Sans-I/O decoder of one ``/api/chat`` turn (streamed lines, or one whole response)."""

    vendor = VENDOR

    def __init__(self) -> None:
        super().__init__()
        self.model: str | None = None
        self.message_id: str | None = None
        self.done = False
        self._text_open = False
        self._reasoning_id: str | None = None
        self._reasoning_items = 0
        self._calls = 0
        self._ids = CallIds(VENDOR)
        self._told: set[str] = set()

    # ------------------------------------------------------------ streaming

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: ``feed``'s, with the common
        lines (a piece of text or thinking, whole calls: most of a stream) that toolwire's
        own reader hands on fused (``protocol._fastpath``) read by :meth:`_common`, no
        dict made."""
        return read_stream(self, chunks, DELTA_FORM, self._common)

    def _common(
        self,
        content: str,
        thinking: str | None,
        call_id: str | None,
        slot: int | None,
        name: str | None,
        arguments: str | None,
        calls: str | None,
    ) -> TakenMany:
        """The rule of :data:`~toolwire.adapters.ollama.wire.DELTA_FORM`: once the first
        line is read and before the last, a line's thinking, its text and its calls, as
        ``_message`` reads them (the same steps). Every call is checked before any state
        changes; a call the general path would refuse (a name missing, arguments that are
        no object, a number Python will not read) is :data:`PASS`: it reads the line and
        names what is wrong."""
        message_id = self.message_id
        if self.done or message_id is None or self.model is None:
            return PASS
        found: list[_Found] = []
        if calls is None and arguments is None:
            # (a piece of text, or of thinking, for what is open: most lines, as ``_text``
            # and ``_reasoning`` make their events in these states)
            if not thinking:
                if not content:
                    return None
                if self._text_open and self._reasoning_id is None:
                    return [text_delta(message_id, content)]
            elif not content and self._reasoning_id is not None:
                return [reasoning_delta(self._reasoning_id, thinking)]
        else:
            where = self.where
            try:
                if calls is None:  # one call spelled out
                    # (its arguments' text kept as Ollama wrote it when that is the text
                    # ``_arguments`` would write of them: ``read_written`` proves it)
                    written: str = arguments  # type: ignore[assignment]  # (not None here)
                    value, kept = read_written(written)
                    args = written if kept else _arguments(value, where)
                    if not name:
                        return PASS
                    found.append((call_id, name, args, slot))
                else:
                    value = scan_value(calls, 0)[0]
                    if type(value) is not list:
                        return PASS
                    for call in value:
                        found.append(self._checked_call(call, where))
            except (VendorDataError, ValueError, StopIteration, RecursionError):
                return PASS
        out: list[BaseEvent] = []
        if thinking:
            self._reasoning(thinking, out)
        if content:
            self._text(content, out)
        for vendor_id, fn_name, text, index in found:
            self._open(vendor_id, fn_name, text, index, out)
        return out or None

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if self.done:
            return self.after_end("the line with done: true")
        error = chunk.get("error")
        if error:
            raise stream_error(error)
        return self._line(cast(ChatChunk, chunk), self.where)  # (each field checked as read)

    def _close(self) -> list[BaseEvent]:
        if not self.done:
            raise TruncatedStream(VENDOR, "the stream ended without the line with done: true")
        return []

    # ------------------------------------------------------- whole response

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A non-streamed ``ChatResponse`` (``stream: false``): one line that is also the last."""
        self.chunk_index += 1
        body = as_dict(response, VENDOR, "response")
        if body.get("error"):
            raise stream_error(body["error"])
        if body.get("done") is None:  # a whole response is done by being whole
            body = {**body, "done": True}
        events = self._line(cast(ChatChunk, body), lambda field: f"response.{field}")
        self.warn_new()
        return events

    # -------------------------------------------------------------- helpers

    def _line(self, chunk: ChatChunk, where: Any) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        if self.model is None:
            model = chunk.get("model")
            if isinstance(model, str) and model:
                self.model = model
        if self.message_id is None:
            created = chunk.get("created_at")
            self.message_id = mint_id("msg", VENDOR, self.model or "", created or "")
        message = chunk.get("message")
        if message is not None:
            if not isinstance(message, dict):
                raise FIELDS.wrong(message, dict, where("message"))
            self._message(message, where, out)
        if chunk.get("logprobs"):
            self._drop(
                "logprobs-dropped", "logprobs", where, "log probabilities have no AG-UI field"
            )
        done = chunk.get("done")
        if done is not None and not isinstance(done, bool):
            raise FIELDS.wrong(done, bool, where("done"))
        if done:
            self._finish(chunk, where, out)
        return out

    def _message(self, message: ChatMessage, where: Any, out: list[BaseEvent]) -> None:
        thinking = message.get("thinking")
        if thinking is not None:
            if not isinstance(thinking, str):
                raise FIELDS.wrong(thinking, str, where("message.thinking"))
            if thinking:
                self._reasoning(thinking, out)
        content = message.get("content")
        if content is not None:
            if not isinstance(content, str):
                raise FIELDS.wrong(content, str, where("message.content"))
            if content:
                self._text(content, out)
        calls = message.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise FIELDS.wrong(calls, list, where("message.tool_calls"))
            for i, call in enumerate(calls):
                self._call(call, lambda f, i=i: where(f"message.tool_calls[{i}]{f}"), out)
        if message.get("images"):
            self._drop(
                "content-dropped",
                "message.images",
                where,
                "images the model sent have no AG-UI event",
            )
        if message.get("tool_name"):
            self._drop(
                "content-dropped",
                "message.tool_name",
                where,
                "a tool name on the model's message (a tool result's field) has no AG-UI event",
            )

    def _drop(self, kind: str, member: str, at: Any, what: str) -> None:
        """A member AG-UI has no place for: announced once per member per turn."""
        if member not in self._told:
            self._told.add(member)
            self.losses.append(
                Loss(kind=kind, target="AG-UI", reason=f"{VENDOR}: {at(member)}: {what}")
            )

    def _reasoning(self, text: str, out: list[BaseEvent]) -> None:
        if self._reasoning_id is None:
            self._reasoning_items += 1
            rid = mint_id("reasoning", self.message_id, self._reasoning_items)
            self._reasoning_id = rid
            out.append(ReasoningStartEvent(message_id=rid))
            out.append(ReasoningMessageStartEvent(message_id=rid))
        out.append(reasoning_delta(self._reasoning_id, text))

    def _end_reasoning(self, out: list[BaseEvent]) -> None:
        if self._reasoning_id is not None:
            out.append(ReasoningMessageEndEvent(message_id=self._reasoning_id))
            out.append(ReasoningEndEvent(message_id=self._reasoning_id))
            self._reasoning_id = None

    def _text(self, text: str, out: list[BaseEvent]) -> None:
        self._end_reasoning(out)
        assert self.message_id is not None
        if not self._text_open:
            self._text_open = True
            out.append(TextMessageStartEvent(message_id=self.message_id, role="assistant"))
        out.append(text_delta(self.message_id, text))

    def _call(self, call: Any, where: Any, out: list[BaseEvent]) -> None:
        self._open(*self._checked_call(call, where), out)

    def _checked_call(self, call: Any, where: Any) -> _Found:
        """A call's id, name, argument text and index, each checked (nothing changes)."""
        if not isinstance(call, dict):
            raise FIELDS.wrong(call, dict, where(""))
        fn = call.get("function")
        if not isinstance(fn, dict):
            raise FIELDS.wrong(fn, dict, where(".function"))
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise VendorDataError(VENDOR, where(".function.name"), "a call needs a name")
        text = _arguments(fn.get("arguments"), where)
        vendor_id = call.get("id")
        if vendor_id is not None and not isinstance(vendor_id, str):
            raise FIELDS.wrong(vendor_id, str, where(".id"))
        index = fn.get("index")
        if index is not None and (type(index) is not int or index < 0):
            raise FIELDS.wrong(index, int, where(".function.index"))
        return vendor_id, name, text, index

    def _open(
        self,
        vendor_id: str | None,
        name: str,
        text: str,
        index: int | None,
        out: list[BaseEvent],
    ) -> None:
        """A checked call: its start, its arguments, its end (reasoning before it ended)."""
        if self._reasoning_id is not None:
            self._end_reasoning(out)
        if vendor_id is None or not vendor_id:
            vendor_id = mint_id("call", VENDOR, self.message_id, "call", self._calls)
            minted = True
        else:
            minted = False
        self._calls += 1
        agui = self._ids.assign(vendor_id, self.known_call_ids)
        meta: dict[str, Any] = {} if minted else self._ids.metadata(agui, vendor_id)
        if index is not None:
            meta[INDEX_KEY] = index
        message_id: str = self.message_id  # type: ignore[assignment]  # (set: a line came)
        if meta:  # (the usual: the call's index, built directly)
            out.append(call_start_meta(agui, name, message_id, meta))
        else:
            out.append(call_start(agui, name, message_id))
        if text:
            out.append(args_delta(agui, text))
        out.append(call_end(agui))

    def _finish(self, chunk: ChatChunk, where: Any, out: list[BaseEvent]) -> None:
        self._end_reasoning(out)
        if self._text_open:
            self._text_open = False
            assert self.message_id is not None
            out.append(TextMessageEndEvent(message_id=self.message_id))
        reason = FIELDS.opt_text(chunk.get("done_reason"), where("done_reason"))
        usage = token_usage(chunk, self.model, where("usage"))
        if usage is not None:
            self.usage = [usage]
        if reason is not None:
            self.run_metadata[STOP_REASON_KEY] = reason
        timings = durations(chunk)
        if timings:
            self.run_metadata[DURATIONS_KEY] = timings
        self.run_metadata[FINISH_REASON_KEY] = map_stop_reason(reason, made_calls=self._calls > 0)
        self.done = True


def _arguments(args: Any, where: Any) -> str:
    """A call's ``arguments`` as the argument text: an object as compact JSON, a string
    (not Ollama's shape, but a proxy's) as it is, none as ``""``."""
    if args is None:
        return ""
    if isinstance(args, dict):
        try:
            return compact_finite(args)
        except (ValueError, TypeError, RecursionError):  # named where it is
            return dumps_compact(args, VENDOR, where(".function.arguments"))
    if isinstance(args, str):
        return args
    raise FIELDS.wrong(args, (dict, str), where(".function.arguments"))


__all__ = ["Decoder"]
