"""Mistral chat completion chunks (or a whole response) -> AG-UI events.

Calls are keyed by id within their choice: Mistral sends each call whole in one delta
(``id``, ``function.name``, ``function.arguments``), several calls in one delta, all
often at ``index`` 0; a fragment without an id continues the call at its index. A call
stays open until its choice's ``finish_reason`` (where the API says the turn ended), so
arguments split over deltas are joined in order. ``content`` is a string or a list of
chunks: ``text`` is text, ``thinking`` (Magistral) a ``REASONING_*`` item that ends when
the answer begins; other output chunks (references) are reported and dropped.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

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
)

from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss
from toolwire.protocol._fastpath import PASS, TakenMany, read_stream
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
from toolwire.protocol.signatures import encrypted_value_event

from .wire import (
    CHOICE_KEY,
    DELTA_FORM,
    FIELDS,
    PROVIDER,
    STOP_REASONS_KEY,
    VENDOR,
    Choice,
    Delta,
    map_stop_reason,
    message_id,
    mint_call_id,
    stream_error,
    token_usage,
)

#: the id the SDK's ``ToolCall`` model fills in when the API sent none
_SDK_NO_ID = "null"
#: the ids that name no call: one is minted (the general path's case)
_NO_ID = frozenset({"", _SDK_NO_ID})


#: an open call: its AG-UI id, its name, its index. A plain tuple of strings and an int:
#: the collector stops tracking it at its first pass (a turn's calls stay open until its
#: finish, and as objects they were a quarter of what every later collection walked)
_Call = tuple[str, str, int | None]
_AGUI: Final = 0
_NAME: Final = 1
_INDEX: Final = 2


@dataclass
class _Choice:
    index: int
    message_id: str
    text_open: bool = False
    reasoning_id: str | None = None
    reasoning_items: int = 0
    calls: list[_Call] = field(default_factory=list)  # open, in start order
    #: the last call opened at each index, while open (a continuation's call, no search);
    #: made at the first continuation that names an index (whole calls need none)
    last_at: dict[int, _Call] | None = None
    by_id: dict[str, _Call] = field(default_factory=dict)
    finish_reason: str | None = None
    ordinal: int = 0


class Decoder(BaseDecoder):
    """Sans-I/O decoder of one Mistral chat completion (streamed or whole)."""

    vendor = VENDOR

    def __init__(self) -> None:
        super().__init__()
        self.completion_id: str | None = None
        self.model: str | None = None
        self._choices: dict[int, _Choice] = {}
        self._ids = CallIds(VENDOR)
        self._logprobs_told = False
        #: while :class:`_EndsLater` feeds a chunk: where in its events each finished
        #: choice's ``TOOL_CALL_END`` events go, and for which calls
        self._ends_later: list[tuple[int, list[_Call]]] | None = None

    # ------------------------------------------------------------ streaming

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: ``feed``'s, with the common
        chunks (a text fragment, a piece of thinking, whole calls: most of a stream) that
        toolwire's own reader hands on fused (``protocol._fastpath``) read by
        :meth:`_common`, no dict made. The end events of a finish are made as they are
        read (:class:`_EndsLater`): every call of a turn ends there, and a list of them
        all was most of what such a stream held at its fullest."""
        return read_stream(_EndsLater(self), chunks, DELTA_FORM, self._common)

    def _common(
        self,
        choice: int,
        content: str | None,
        part: str | None,
        thought: str | None,
        call_id: str | None,
        name: str | None,
        arguments: str | None,
        slot: int | None,
        calls: str | None,
    ) -> TakenMany:
        """The rule of :data:`~toolwire.adapters.mistral.wire.DELTA_FORM`: for a started
        choice not finished, text for its open message, thinking for its open reasoning,
        or new calls (each with an id and a name of its own), as ``_delta`` reads them in
        these states. Every call is checked before any state changes; anything else (the
        first chunk, a call continued or without an id, reasoning a call would end, a
        number Python will not read) is :data:`PASS`: the general path reads it."""
        ch = self._choices.get(choice)
        if ch is None or ch.finish_reason is not None or self.model is None:
            return PASS
        text = content if content is not None else part
        if text is not None:
            if not text:
                return None
            if ch.reasoning_id is not None or not ch.text_open:
                return PASS
            return [text_delta(ch.message_id, text)]
        if thought is not None:
            if not thought:
                return None
            if ch.reasoning_id is None:
                return PASS
            return [reasoning_delta(ch.reasoning_id, thought)]
        if ch.reasoning_id is not None:
            return PASS  # (a call ends it first)
        out: list[BaseEvent] = []
        if calls is None:  # one call spelled out (the common case)
            if call_id in _NO_ID or not name or call_id in ch.by_id:
                return PASS
            call = self._open_call(ch, call_id, name, slot, out)  # type: ignore[arg-type]
            if arguments:
                out.append(args_delta(call[_AGUI], arguments))
            return out
        try:
            found = _plain_calls(scan_value(calls, 0)[0])
        except (ValueError, StopIteration):  # (a number Python will not read)
            return PASS
        if found is None:
            return PASS
        new: set[str] = set()
        for vendor_id, fn_name, _, _ in found:
            if vendor_id in _NO_ID or not fn_name:
                return PASS
            if vendor_id in ch.by_id or vendor_id in new:  # (continues a call)
                return PASS
            new.add(vendor_id)
        for vendor_id, fn_name, args, index in found:
            call = self._open_call(ch, vendor_id, fn_name, index, out)
            if args:
                out.append(args_delta(call[_AGUI], args))
        return out or None

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if "choices" not in chunk and isinstance(chunk.get("data"), dict):
            chunk = chunk["data"]  # the SDK's CompletionEvent wraps each chunk
        if chunk.get("object") == "error" or (chunk.get("error") and "choices" not in chunk):
            raise stream_error(
                chunk.get("error") if isinstance(chunk.get("error"), dict) else chunk
            )
        if self._choices and all(c.finish_reason for c in self._choices.values()):
            if chunk.get("choices"):
                return self.after_end("every choice's finish_reason")
        self._identify(chunk)
        out: list[BaseEvent] = []
        choices = chunk.get("choices")
        if choices is not None:
            if not isinstance(choices, list):
                raise FIELDS.wrong(choices, list, self.where("choices"))
            for pos, item in enumerate(choices):
                where = self.where(f"choices[{pos}]")
                raw = cast(Choice, FIELDS.obj(item, where))  # (each field checked as read)
                ch = self._choice(raw.get("index", pos), f"{where}.index")
                delta = raw.get("delta")
                if delta is not None:
                    checked = cast(Delta, FIELDS.obj(delta, f"{where}.delta"))
                    self._delta(ch, checked, f"{where}.delta", out)
                self._extras(raw, where)
                reason = FIELDS.opt_text(raw.get("finish_reason"), f"{where}.finish_reason")
                if reason:
                    self._finish(ch, reason, out)
        if chunk.get("usage") is not None:
            usage = token_usage(chunk["usage"], self.model, self.where("usage"))
            if usage is not None:
                self.usage = [usage]
        return out

    def _close(self) -> list[BaseEvent]:
        if not self._choices:
            raise TruncatedStream(VENDOR, "no choice reached a finish_reason")
        cut = sorted(i for i, c in self._choices.items() if c.finish_reason is None)
        if cut:
            which = ", ".join(str(i) for i in cut)
            raise TruncatedStream(VENDOR, f"choice {which} ended without a finish_reason")
        reasons = [self._choices[i].finish_reason for i in sorted(self._choices)]
        self.run_metadata[STOP_REASONS_KEY] = reasons
        self.run_metadata[FINISH_REASON_KEY] = map_stop_reason(reasons[0])
        return []

    # ------------------------------------------------------- whole response

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A non-streamed ``ChatCompletionResponse`` -> the events its stream would give."""
        self.chunk_index += 1
        body = as_dict(response, VENDOR, "response")
        if body.get("object") == "error" or body.get("error"):
            raise stream_error(body.get("error") if isinstance(body.get("error"), dict) else body)
        self._identify(body)
        out: list[BaseEvent] = []
        for pos, item in enumerate(FIELDS.at(body, "choices", list, "response")):
            where = f"response.choices[{pos}]"
            raw = cast(Choice, FIELDS.obj(item, where))
            ch = self._choice(raw.get("index", pos), f"{where}.index")
            message = FIELDS.at(raw, "message", dict, where)
            calls = FIELDS.list_at(message, "tool_calls", f"{where}.message")
            delta = cast(Delta, {**message, "tool_calls": calls})
            self._delta(ch, delta, f"{where}.message", out)
            self._extras(raw, where)
            reason = FIELDS.opt_text(raw.get("finish_reason"), f"{where}.finish_reason")
            self._finish(ch, reason or "stop", out)
        usage = token_usage(body.get("usage"), self.model, "response.usage")
        if usage is not None:
            self.usage = [usage]
        self.warn_new()
        return out

    # -------------------------------------------------------------- helpers

    def _identify(self, chunk: Mapping[str, Any]) -> None:
        if self.completion_id is None and isinstance(chunk.get("id"), str) and chunk["id"]:
            self.completion_id = chunk["id"]
        if self.model is None and isinstance(chunk.get("model"), str) and chunk["model"]:
            self.model = chunk["model"]

    def _choice(self, index: Any, where: str) -> _Choice:
        if type(index) is not int or index < 0:
            raise VendorDataError(VENDOR, where, f"expected a choice index, got {index!r}")
        ch = self._choices.get(index)
        if ch is None:
            if self.completion_id is None:
                self.completion_id = mint_id("cmpl", VENDOR, self.model or "")
            ch = _Choice(index, message_id(self.completion_id, index))
            self._choices[index] = ch
        return ch

    def _delta(self, ch: _Choice, delta: Delta, where: str, out: list[BaseEvent]) -> None:
        content = delta.get("content")
        if isinstance(content, str):
            if content:
                self._text(ch, content, out)
        elif isinstance(content, list):
            for i, part in enumerate(content):
                self._part(
                    ch, FIELDS.obj(part, f"{where}.content[{i}]"), f"{where}.content[{i}]", out
                )
        elif content is not None:
            raise FIELDS.wrong(content, (str, list), f"{where}.content")
        calls = delta.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise FIELDS.wrong(calls, list, f"{where}.tool_calls")
            for i, frag in enumerate(calls):
                self._fragment(ch, frag, f"{where}.tool_calls[{i}]", out)

    def _part(self, ch: _Choice, part: dict[str, Any], where: str, out: list[BaseEvent]) -> None:
        kind = part.get("type")
        if kind == "text":
            text = FIELDS.at(part, "text", str, where)
            if text:
                self._text(ch, text, out)
        elif kind == "thinking":
            pieces = FIELDS.list_at(part, "thinking", where)
            for j, piece in enumerate(pieces):
                piece = FIELDS.obj(piece, f"{where}.thinking[{j}]")
                text = piece.get("text")
                if piece.get("type", "text") != "text":
                    self._drop(f"{where}.thinking[{j}]", piece.get("type"), "thinking")
                elif isinstance(text, str) and text:
                    self._reasoning(ch, text, out)
            signature = part.get("signature")
            if isinstance(signature, str) and signature:
                rid = self._reasoning_open(ch, out)
                out.append(encrypted_value_event("message", rid, signature, PROVIDER))
        else:
            self._drop(where, kind, "output")

    def _drop(self, where: str, kind: Any, inside: str) -> None:
        self.losses.append(
            Loss(
                kind="content-dropped",
                target="AG-UI",
                reason=f"{VENDOR}: a {kind!r} chunk in the model's {inside} ({where}) has no "
                "AG-UI stream event",
            )
        )

    def _extras(self, raw: Choice, where: str) -> None:
        """A choice's members AG-UI has no field for: announced (log probabilities once)."""
        for key in ("logprobs", "prompt_logprobs"):
            if raw.get(key) and not self._logprobs_told:
                self._logprobs_told = True
                self.losses.append(
                    Loss(
                        kind="logprobs-dropped",
                        target="AG-UI",
                        reason=f"{VENDOR}: {where}.{key}: log probabilities have no AG-UI field",
                    )
                )
        if raw.get("messages"):
            self.losses.append(
                Loss(
                    kind="content-dropped",
                    target="AG-UI",
                    reason=f"{VENDOR}: {where}.messages: messages beside the choice's message "
                    "have no AG-UI event",
                )
            )

    def _reasoning_open(self, ch: _Choice, out: list[BaseEvent]) -> str:
        if ch.reasoning_id is None:
            ch.reasoning_items += 1
            rid = mint_id("reasoning", ch.message_id, ch.reasoning_items)
            ch.reasoning_id = rid
            out.append(ReasoningStartEvent(message_id=rid))
            out.append(ReasoningMessageStartEvent(message_id=rid))
        return ch.reasoning_id

    def _reasoning(self, ch: _Choice, text: str, out: list[BaseEvent]) -> None:
        rid = self._reasoning_open(ch, out)
        out.append(ReasoningMessageContentEvent(message_id=rid, delta=text))

    def _end_reasoning(self, ch: _Choice, out: list[BaseEvent]) -> None:
        if ch.reasoning_id is not None:
            out.append(ReasoningMessageEndEvent(message_id=ch.reasoning_id))
            out.append(ReasoningEndEvent(message_id=ch.reasoning_id))
            ch.reasoning_id = None

    def _text(self, ch: _Choice, text: str, out: list[BaseEvent]) -> None:
        self._end_reasoning(ch, out)
        if not ch.text_open:
            ch.text_open = True
            kw: dict[str, Any] = {"metadata": {CHOICE_KEY: ch.index}} if ch.index else {}
            out.append(TextMessageStartEvent(message_id=ch.message_id, role="assistant", **kw))
        out.append(TextMessageContentEvent(message_id=ch.message_id, delta=text))

    def _fragment(self, ch: _Choice, frag: Any, where: str, out: list[BaseEvent]) -> None:
        frag = FIELDS.obj(frag, where)
        fn = frag.get("function")
        fn = {} if fn is None else FIELDS.obj(fn, f"{where}.function")
        vendor_id = FIELDS.opt_text(frag.get("id"), f"{where}.id")
        if vendor_id in _NO_ID:
            vendor_id = None
        name = FIELDS.opt_text(fn.get("name"), f"{where}.function.name") or None
        index = FIELDS.opt_int(frag.get("index"), f"{where}.index")
        args = fn.get("arguments")
        if args is None:
            text = ""
        elif isinstance(args, str):
            text = args
        elif isinstance(args, dict):  # the API may send the object itself
            text = dumps_compact(args, VENDOR, f"{where}.function.arguments")
        else:
            raise FIELDS.wrong(args, (str, dict), f"{where}.function.arguments")
        self._end_reasoning(ch, out)
        call = ch.by_id.get(vendor_id) if vendor_id is not None else None
        if call is None and vendor_id is None and name is None:
            # a continuation: the open call at this index, else the last one opened
            call = None
            if index is not None:
                if ch.last_at is None:
                    ch.last_at = {c[_INDEX]: c for c in ch.calls if c[_INDEX] is not None}
                call = ch.last_at.get(index)
            if call is None:
                call = ch.calls[-1] if ch.calls else None
            if call is None:
                raise VendorDataError(VENDOR, where, "arguments for no call (no id, no name)")
        if call is None:
            if name is None:
                raise VendorDataError(VENDOR, f"{where}.function.name", "a new call has no name")
            if vendor_id is None:
                vendor_id = mint_call_id(VENDOR, ch.message_id, ch.ordinal)
            call = self._open_call(ch, vendor_id, name, index, out)
        elif name is not None and name != call[_NAME]:
            raise VendorDataError(
                VENDOR, f"{where}.function.name", f"{name!r} continues a call named {call[_NAME]!r}"
            )
        if text:
            out.append(ToolCallArgsEvent(tool_call_id=call[_AGUI], delta=text))

    def _open_call(
        self, ch: _Choice, vendor_id: str, name: str, index: int | None, out: list[BaseEvent]
    ) -> _Call:
        """A new call of choice ``ch``: its AG-UI id, its start event."""
        agui = self._ids.assign(vendor_id, self.known_call_ids)
        # (a turn's calls share a few names: the start holds the one kept, which the
        # sequence check's record then finds kept already)
        name = sys.intern(name)
        call = (agui, name, index)
        ch.ordinal += 1
        ch.by_id[vendor_id] = call
        ch.calls.append(call)
        if index is not None and ch.last_at is not None:
            ch.last_at[index] = call
        if agui == vendor_id and not ch.index:  # the usual start: no metadata
            out.append(call_start(agui, name, ch.message_id))
            return call
        meta = self._ids.metadata(agui, vendor_id)
        if ch.index:
            meta[CHOICE_KEY] = ch.index
        if meta:
            out.append(call_start_meta(agui, name, ch.message_id, meta))
        else:
            out.append(call_start(agui, name, ch.message_id))
        return call

    def _finish(self, ch: _Choice, reason: str, out: list[BaseEvent]) -> None:
        if ch.finish_reason is not None:
            return
        self._end_reasoning(ch, out)
        if ch.text_open:
            ch.text_open = False
            out.append(TextMessageEndEvent(message_id=ch.message_id))
        if ch.calls and self._ends_later is not None:
            self._ends_later.append((len(out), ch.calls))  # made as they are read
        else:
            out += [call_end(call[_AGUI]) for call in ch.calls]
        ch.calls = []
        ch.last_at = None
        ch.finish_reason = reason
        if reason == "error":
            self.error_metadata[STOP_REASONS_KEY] = [reason]
            raise VendorStreamError(VENDOR, "error", "the model stopped with finish_reason error")


class _EndsLater:
    """The decoder as :meth:`Decoder.events` hands it to ``read_stream``: its ``feed``
    gives the same events in the same order, the ``TOOL_CALL_END`` events of a finished
    choice made one by one as they are read rather than all held in the chunk's list (a
    turn of many whole calls ends them all at its finish)."""

    __slots__ = ("_decoder",)

    def __init__(self, decoder: Decoder) -> None:
        self._decoder = decoder

    @property
    def chunk_index(self) -> int:
        return self._decoder.chunk_index

    @chunk_index.setter
    def chunk_index(self, value: int) -> None:
        self._decoder.chunk_index = value

    def feed(self, chunk: Any) -> Iterable[BaseEvent]:
        d = self._decoder
        later: list[tuple[int, list[_Call]]] = []
        d._ends_later = later
        try:
            events = d.feed(chunk)
        finally:
            d._ends_later = None
        return _spliced(events, later) if later else events

    def close(self) -> list[BaseEvent]:
        return self._decoder.close()


def _spliced(events: list[BaseEvent], later: list[tuple[int, list[_Call]]]) -> Iterator[BaseEvent]:
    """``events`` with each finished choice's end events at their place, made as read."""
    at = 0
    for place, calls in later:
        yield from events[at:place]
        at = place
        for call in calls:
            yield call_end(call[_AGUI])
    yield from events[at:]


def _plain_calls(value: Any) -> list[tuple[str, str, str, int | None]] | None:
    """Each call of a delta's ``tool_calls`` (parsed) as ``(id, name, arguments, index)``,
    when every one is an object with a string id, a function with a string name and string
    (or absent) arguments, and an integer (or absent) index; ``None`` for any other."""
    if type(value) is not list:
        return None
    out: list[tuple[str, str, str, int | None]] = []
    for frag in value:
        if type(frag) is not dict:
            return None
        vendor_id, fn, index = frag.get("id"), frag.get("function"), frag.get("index")
        if type(vendor_id) is not str or type(fn) is not dict:
            return None
        if index is not None and type(index) is not int:
            return None
        name, args = fn.get("name"), fn.get("arguments", "")
        if type(name) is not str or type(args) is not str:
            return None
        out.append((vendor_id, name, args, index))
    return out


__all__ = ["Decoder"]
