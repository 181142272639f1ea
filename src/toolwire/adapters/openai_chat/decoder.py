"""Chat Completions chunks (or a whole completion) -> AG-UI events.

Calls are keyed by ``(choice index, tool_calls[].index)``. The API has no
per-call end event, so a call stays open until its choice's ``finish_reason``:
fragments of several calls may interleave freely. A new ``id`` on an index
that already holds a call (OpenAI-compatible servers that reuse index 0)
ends that call and starts the next. A call is announced once both its id and
its name are known; arguments that come earlier wait for it. Reasoning text
that compatible servers stream (``reasoning_content`` from DeepSeek and vLLM,
``reasoning`` from OpenRouter and Ollama) becomes a ``REASONING_*`` item that
ends when the answer (text or a call) begins.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
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
from toolwire.protocol._makers import args_delta, text_delta
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder, as_dict
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id
from toolwire.protocol.jsontext import CheckedObject

from .wire import (
    CHOICE_KEY,
    COMPLETION_ID_KEY,
    DELTA_FORM,
    FIELDS,
    REFUSAL_KEY,
    STOP_REASONS_KEY,
    TOOL_TYPE_KEY,
    VENDOR,
    ChatMessage,
    ChoiceDelta,
    ChunkChoice,
    map_stop_reason,
    message_id,
    stream_error,
    token_usage,
)

#: Key of the legacy ``function_call`` delta (one per choice, never carries an id).
_LEGACY = "function_call"
#: Delta fields compatible servers stream reasoning text in (OpenAI itself streams none).
_REASONING_FIELDS = ("reasoning_content", "reasoning")
#: Message / delta fields with content no AG-UI event holds, announced once per choice.
_UNCARRIED = (
    ("audio", "the model's audio answer (audio data and its transcript)"),
    ("annotations", "the message's URL citations"),
)


@dataclass
class _Call:
    slot: int | str
    where: str  # the fragment that opened it, for errors found later
    id: str | None = None  # the vendor's
    agui: str = ""  # the AG-UI id: the vendor's, or minted when another choice used it
    name: str | None = None
    custom: bool = False
    started: bool = False
    waiting: list[str] = field(default_factory=list)


@dataclass
class _Choice:
    index: int
    message_id: str
    text_open: bool = False
    reasoning_id: str | None = None
    reasoning_items: int = 0
    slots: dict[int | str, _Call] = field(default_factory=dict)
    open: list[_Call] = field(default_factory=list)
    by_id: dict[str, _Call] = field(default_factory=dict)
    finish_reason: str | None = None
    ordinal: int = 0
    lost: set[str] = field(default_factory=set)  # delta fields already announced as lost


def decoder_options(request_body: Any) -> dict[str, Any]:
    """:class:`Decoder` options a recorded request implies: a streamed request with
    ``stream_options.include_usage`` expects a usage chunk before ``[DONE]``."""
    if not isinstance(request_body, dict) or request_body.get("stream") is not True:
        return {}
    options = request_body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage") is True:
        return {"expect_usage": True}
    return {}


class Decoder(BaseDecoder):
    """Sans-I/O decoder of one Chat Completions response (streamed or whole).

    ``finish_reasons`` maps each choice index to its ``finish_reason`` once
    seen; ``close()`` raises ``TruncatedStream`` when a choice has none (or
    no choice ever finished), whether or not ``data: [DONE]`` came.
    """

    vendor = VENDOR

    def __init__(self, *, expect_usage: bool = False) -> None:
        """``expect_usage``: the request set ``stream_options.include_usage``, so a stream
        without its usage chunk was cut (see :func:`decoder_options`)."""
        super().__init__()
        self.expect_usage = expect_usage
        self._usage_seen = False
        self.completion_id: str | None = None
        self.model: str | None = None
        self._choices: dict[int, _Choice] = {}
        self._ids = CallIds(VENDOR)  # n > 1: choices may repeat one another's call ids

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """One chunk (SDK object or dict) -> AG-UI events.

        Also takes the events of the SDK's ``chat.completions.stream()`` helper:
        its ``chunk`` events are unwrapped (without dumping the growing
        snapshot), and the others, which restate what the chunks say, are skipped.
        """
        # a chunk is told by its choices first: it has no ``type``, and probing a pydantic
        # model for a missing attribute is slow (once per chunk, 4 % of the SDK path)
        is_dict = isinstance(chunk, dict)
        choices = chunk.get("choices") if is_dict else getattr(chunk, "choices", None)
        if choices is not None:
            return super().feed(chunk)
        kind = chunk.get("type") if is_dict else getattr(chunk, "type", None)
        if isinstance(kind, str):
            if kind == "chunk":
                inner = chunk.get("chunk") if is_dict else chunk.chunk
                return super().feed(inner)
            self.chunk_index += 1
            return []
        return super().feed(chunk)

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: ``feed``'s, with the chunks of
        one plain delta (most of a stream) read by :meth:`_plain_delta` in the shared loop,
        fused from toolwire's own reader (``protocol._fastpath``) or from the dicts it
        parsed and checked."""
        return read_stream(self, chunks, DELTA_FORM, self._plain_delta, _read_delta_fields)

    @property
    def finish_reasons(self) -> dict[int, str]:
        return {i: c.finish_reason for i, c in self._choices.items() if c.finish_reason}

    # ------------------------------------------------------------ streaming

    # Per chunk the fields are checked in place and a place is spelled out only for the
    # error that names it (FIELDS raises it): the where-texts of every field of every
    # chunk were a fifth of the decoder's time.

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        fast = self._one_delta(chunk)
        if fast is not None:
            return fast
        if chunk.get("error"):
            raise stream_error(chunk["error"])
        out: list[BaseEvent] = []
        if self.completion_id is None or self.model is None:
            self._identify(chunk)
        choices: list[ChunkChoice] | None = chunk.get("choices")  # (checked just below)
        if choices is not None:
            if not isinstance(choices, list):
                raise FIELDS.wrong(choices, list, self.where("choices"))
            for pos, raw in enumerate(choices):
                if not isinstance(raw, dict):
                    FIELDS.obj(raw, self.where(f"choices[{pos}]"))  # raises
                index = raw.get("index", pos)
                choice = self._choices.get(index) if type(index) is int else None
                if choice is None:
                    choice = self._choice(index, self.where(f"choices[{pos}].index"))
                delta = raw.get("delta")
                if delta is not None:
                    if not isinstance(delta, dict):
                        raise FIELDS.wrong(delta, dict, self.where(f"choices[{pos}].delta"))
                    if delta:
                        self._delta(choice, delta, pos, False, out)
                reason = raw.get("finish_reason")
                if reason is not None:
                    if not isinstance(reason, str):
                        where = self.where(f"choices[{pos}].finish_reason")
                        raise FIELDS.wrong(reason, str, where)
                    if reason:
                        self._finish(choice, reason, out)
        if chunk.get("usage") is not None:
            self._take_usage(chunk)
        return out

    def _one_delta(self, chunk: dict[str, Any]) -> list[BaseEvent] | None:
        """A chunk of one plain delta read by :meth:`_plain_delta`, without the general
        walk; ``None`` hands anything else (or anything malformed) to that walk."""
        fields = _delta_fields(chunk)
        if fields is None:
            return None
        out = self._plain_delta(*fields)
        if out is PASS:
            return None
        return [] if out is None else [out]

    def _plain_delta(
        self, choice: int, content: str | None, slot: int | None, arguments: str | None
    ) -> Taken:
        """The rule for most chunks of a stream (the fields of
        :data:`~toolwire.adapters.openai_chat.wire.DELTA_FORM`): text ``content`` for the
        choice's open message, or one fragment of ``arguments`` for the started call in
        ``slot``, while no reasoning is open. :data:`PASS` for anything else: the general
        walk (``_delta``) reads it, which in these states gives these same events."""
        ch = self._choices.get(choice)
        if ch is None or ch.reasoning_id is not None or self.model is None:
            return PASS
        if content is not None:
            if not ch.text_open:
                return PASS
            return text_delta(ch.message_id, content) if content else None
        call = ch.slots.get(slot)  # type: ignore[arg-type]  # (one of the two is given)
        if call is None or not call.started:
            return PASS
        return args_delta(call.agui, arguments) if arguments else None

    def _at(self, pos: int, whole: bool, tail: str = "") -> str:
        """Where choice ``pos``'s delta (or whole message) sits, for an error message."""
        base = f"response.choices[{pos}].message" if whole else self.where(f"choices[{pos}].delta")
        return base + tail

    def _close(self) -> list[BaseEvent]:
        if not self._choices:
            raise TruncatedStream(VENDOR, "no choice reached a finish_reason")
        cut = sorted(i for i, c in self._choices.items() if c.finish_reason is None)
        if cut:
            which = ", ".join(str(i) for i in cut)
            raise TruncatedStream(VENDOR, f"choice {which} ended without a finish_reason")
        if self.expect_usage and not self._usage_seen:
            raise TruncatedStream(
                VENDOR,
                "the request asked for stream_options.include_usage and the usage chunk "
                "never came (the stream was cut after finish_reason)",
            )
        self.run_metadata[STOP_REASONS_KEY] = [
            self._choices[i].finish_reason for i in sorted(self._choices)
        ]
        first = self._choices[min(self._choices)].finish_reason  # the turn AG-UI carries on
        self.run_metadata[FINISH_REASON_KEY] = map_stop_reason(first)
        return []

    # ------------------------------------------------------- whole response

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A non-streamed ``chat.completion`` -> the same events its stream would give."""
        self.chunk_index += 1
        body = as_dict(response, VENDOR, "response")
        if body.get("error"):
            raise stream_error(body["error"])
        self._identify(body)
        choices = FIELDS.at(body, "choices", list, "response")
        out: list[BaseEvent] = []
        for pos, raw in enumerate(choices):
            where = f"response.choices[{pos}]"
            raw = FIELDS.obj(raw, where)
            choice = self._choice(raw.get("index", pos), f"{where}.index")
            message = FIELDS.at(raw, "message", dict, where)
            self._delta(choice, _message_as_delta(message, f"{where}.message"), pos, True, out)
            reason = FIELDS.opt_text(raw.get("finish_reason"), f"{where}.finish_reason")
            self._finish(choice, reason or "stop", out)
        self._take_usage(body, "response.usage")
        return out

    # -------------------------------------------------------------- helpers

    def _identify(self, chunk: Mapping[str, Any]) -> None:
        if self.completion_id is None:
            cid = chunk.get("id")
            if isinstance(cid, str) and cid:
                self.completion_id = self.response_id = cid
        if self.model is None:
            model = chunk.get("model")
            if isinstance(model, str) and model:  # Azure's first chunk has model ""
                self.model = model

    def _choice(self, index: Any, where: str) -> _Choice:
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise VendorDataError(VENDOR, where, f"expected a choice index, got {index!r}")
        choice = self._choices.get(index)
        if choice is None:
            if self.completion_id is None:
                # Some compatible servers send no id: derive one from what is stable.
                self.completion_id = mint_id("chatcmpl", VENDOR, self.model or "")
            choice = _Choice(index, message_id(self.completion_id, index))
            self._choices[index] = choice
        return choice

    def _take_usage(self, chunk: Mapping[str, Any], where: str | None = None) -> None:
        if chunk.get("usage") is not None:
            self._usage_seen = True
        usage = token_usage(chunk.get("usage"), chunk.get("model"), where or self.where("usage"))
        if usage is not None:
            self.usage = [usage]

    def _delta(
        self, ch: _Choice, delta: ChoiceDelta, pos: int, whole: bool, out: list[BaseEvent]
    ) -> None:
        """One choice's delta (``whole``: a whole message read as one delta)."""
        for key in _REASONING_FIELDS:
            thought = delta.get(key)
            if thought and isinstance(thought, str):
                self._reasoning(ch, thought, out)
        for key in ("content", "refusal"):
            text = delta.get(key)
            if text is not None:
                if not isinstance(text, str):
                    raise FIELDS.wrong(text, str, self._at(pos, whole, f".{key}"))
                if text:
                    self._text(ch, text, {REFUSAL_KEY: True} if key == "refusal" else None, out)
        calls = delta.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise FIELDS.wrong(calls, list, self._at(pos, whole, ".tool_calls"))
            for i, frag in enumerate(calls):
                self._fragment(ch, frag, i, pos, whole, out)
        legacy = delta.get(_LEGACY)
        if legacy is not None:
            self._fragment(ch, {"index": _LEGACY, "function": legacy}, None, pos, whole, out)
        for key, what in _UNCARRIED:
            if delta.get(key) and key not in ch.lost:
                ch.lost.add(key)  # once per choice: an audio answer comes in many deltas
                self.losses.append(
                    Loss(
                        kind="content-dropped",
                        target="AG-UI",
                        reason=f"{self._at(pos, whole, f'.{key}')}: {what} has no AG-UI event",
                    )
                )

    def _reasoning(self, ch: _Choice, text: str, out: list[BaseEvent]) -> None:
        if ch.reasoning_id is None:
            ch.reasoning_items += 1
            rid = mint_id("reasoning", ch.message_id, ch.reasoning_items)
            ch.reasoning_id = rid
            out.append(ReasoningStartEvent(message_id=rid))
            out.append(ReasoningMessageStartEvent(message_id=rid))
        out.append(ReasoningMessageContentEvent(message_id=ch.reasoning_id, delta=text))

    def _end_reasoning(self, ch: _Choice, out: list[BaseEvent]) -> None:
        if ch.reasoning_id is not None:
            out.append(ReasoningMessageEndEvent(message_id=ch.reasoning_id))
            out.append(ReasoningEndEvent(message_id=ch.reasoning_id))
            ch.reasoning_id = None

    def _text(
        self, ch: _Choice, text: str, meta: dict[str, Any] | None, out: list[BaseEvent]
    ) -> None:
        self._end_reasoning(ch, out)
        if not ch.text_open:
            ch.text_open = True
            start = self._choice_meta(ch)
            skw: dict[str, Any] = {"metadata": start} if start else {}
            out.append(TextMessageStartEvent(message_id=ch.message_id, role="assistant", **skw))
        kw: dict[str, Any] = {"metadata": meta} if meta else {}
        out.append(TextMessageContentEvent(message_id=ch.message_id, delta=text, **kw))

    def _fragment(
        self,
        ch: _Choice,
        frag: Any,
        i: int | None,
        pos: int,
        whole: bool,
        out: list[BaseEvent],
    ) -> None:
        """Fragment ``i`` of the delta's ``tool_calls`` (``None``: its legacy function_call)."""
        if not isinstance(frag, dict):
            FIELDS.obj(frag, self._frag_at(i, pos, whole))  # raises
        slot = frag.get("index", i)
        if type(slot) is not int and slot != _LEGACY:
            raise FIELDS.wrong(slot, int, self._frag_at(i, pos, whole, ".index"))
        custom = frag.get("type") == "custom"
        fn = frag.get("custom" if custom else "function")
        if fn is None:
            fn = {}
        elif not isinstance(fn, dict):
            raise FIELDS.wrong(fn, dict, self._frag_at(i, pos, whole, ".function"))
        call_id = frag.get("id")
        name = fn.get("name")
        if call_id is not None and not isinstance(call_id, str):
            raise FIELDS.wrong(call_id, str, self._frag_at(i, pos, whole, ".id"))
        if name is not None and not isinstance(name, str):
            raise FIELDS.wrong(name, str, self._frag_at(i, pos, whole, ".function.name"))
        call_id = call_id or None
        name = name or None
        args = fn.get("input" if custom else "arguments")
        if type(args) is not str:
            args = _arguments(args, lambda: self._frag_at(i, pos, whole, ".function"))

        self._end_reasoning(ch, out)
        call = ch.slots.get(slot)
        if call is not None and call_id is not None and call.id not in (None, call_id):
            # A new id on an index in use: the provider reuses the index for its next call.
            self._end(ch, call, out)
            call = None
        if call is None:
            call = ch.by_id.get(call_id) if call_id is not None else None
            if call is None:
                call = _Call(slot, self._frag_at(i, pos, whole))
            elif call not in ch.open:  # the same call again, after another took its index
                out.append(self._start_event(ch, call))
                ch.open.append(call)
            call.slot = slot
            ch.slots[slot] = call
        if call_id is not None and call.id is None:
            if call.started:
                raise VendorDataError(
                    VENDOR,
                    self._frag_at(i, pos, whole, ".id"),
                    f"id {call_id!r} came after the call had started",
                )
            call.id = call_id
        if name is not None:
            if call.name is None:
                call.name = name
            elif name != call.name:
                raise VendorDataError(
                    VENDOR,
                    self._frag_at(i, pos, whole, ".function.name"),
                    f"{name!r} continues call {call.id or slot!r} named {call.name!r}",
                )
        call.custom = call.custom or custom
        if slot == _LEGACY and call.id is None and call.name is not None:
            call.id = mint_id("call", ch.message_id, _LEGACY, ch.ordinal)
        if not call.started and call.id is not None and call.name is not None:
            self._open(ch, call, out)
        if args:
            if call.started:
                out.append(args_delta(call.agui, args))
            else:
                call.waiting.append(args)

    def _frag_at(self, i: int | None, pos: int, whole: bool, tail: str = "") -> str:
        step = f".{_LEGACY}" if i is None else f".tool_calls[{i}]"
        return self._at(pos, whole, step + tail)

    def _open(self, ch: _Choice, call: _Call, out: list[BaseEvent]) -> None:
        assert call.id is not None
        call.agui = self._ids.assign(call.id, self.known_call_ids)
        call.started = True
        ch.ordinal += 1
        ch.by_id[call.id] = call
        ch.open.append(call)
        out.append(self._start_event(ch, call))
        if call.waiting:
            out.append(ToolCallArgsEvent(tool_call_id=call.agui, delta="".join(call.waiting)))
            call.waiting = []

    def _choice_meta(self, ch: _Choice) -> dict[str, Any]:
        """Which choice (and completion) a start event belongs to, for choices after the first."""
        if ch.index == 0 or self.completion_id is None:
            return {}
        return {CHOICE_KEY: ch.index, COMPLETION_ID_KEY: self.completion_id}

    def _start_event(self, ch: _Choice, call: _Call) -> ToolCallStartEvent:
        meta = self._choice_meta(ch)
        if call.custom:
            meta[TOOL_TYPE_KEY] = "custom"
        meta.update(self._ids.metadata(call.agui, call.id or ""))
        kw: dict[str, Any] = {"metadata": meta} if meta else {}
        return ToolCallStartEvent(
            tool_call_id=call.agui,
            tool_call_name=call.name or "",
            parent_message_id=ch.message_id,
            **kw,
        )

    def _end(self, ch: _Choice, call: _Call, out: list[BaseEvent]) -> None:
        if not call.started:
            if call.name is None:
                raise VendorDataError(VENDOR, call.where, "the call ended without a function name")
            if call.id is None:
                call.id = mint_id("call", ch.message_id, call.slot, ch.ordinal)
            self._open(ch, call, out)
        if call in ch.open:
            ch.open.remove(call)
            out.append(ToolCallEndEvent(tool_call_id=call.agui))
        if ch.slots.get(call.slot) is call:
            del ch.slots[call.slot]

    def _finish(self, ch: _Choice, reason: str, out: list[BaseEvent]) -> None:
        self._end_reasoning(ch, out)
        if ch.text_open:
            ch.text_open = False
            out.append(TextMessageEndEvent(message_id=ch.message_id))
        for call in list(ch.slots.values()):
            if not call.started:
                self._end(ch, call, out)
        for call in list(ch.open):
            self._end(ch, call, out)
        ch.slots.clear()
        ch.finish_reason = reason


def _delta_fields(chunk: dict[str, Any]) -> tuple[int, str | None, int | None, str | None] | None:
    """The fields of :data:`~toolwire.adapters.openai_chat.wire.DELTA_FORM` of a checked
    chunk of that shape (one choice, no finish, no usage, no error, a delta that is only
    text or only one fragment of argument text); ``None`` for any other."""
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1:
        return None
    raw = choices[0]
    if type(raw) is not dict or raw.get("finish_reason") is not None:
        return None
    index = raw.get("index", 0)
    delta = raw.get("delta")
    if type(index) is not int or type(delta) is not dict or len(delta) != 1:
        return None
    if chunk.get("error") or chunk.get("usage") is not None:
        return None
    text = delta.get("content")
    if type(text) is str:
        return index, text, None, None
    calls = delta.get("tool_calls")
    if type(calls) is not list or len(calls) != 1:
        return None
    frag = calls[0]
    if type(frag) is not dict or len(frag) != 2:  # its index and its function, no more
        return None
    slot, fn = frag.get("index"), frag.get("function")
    if type(slot) is not int or type(fn) is not dict or len(fn) != 1:
        return None
    args = fn.get("arguments")
    if type(args) is not str:
        return None
    return index, None, slot, args


def _read_delta_fields(chunk: Any) -> tuple[int, str | None, int | None, str | None] | None:
    """:func:`_delta_fields` of a chunk toolwire's reader parsed and checked under the caps in
    force (any other goes to ``feed``, which checks it first)."""
    if type(chunk) is not CheckedObject or not chunk.trusted():
        return None
    return _delta_fields(chunk)


def _arguments(value: Any, where: Callable[[], str]) -> str:
    """A fragment's argument text; ``null`` is no text, an object (some servers) is dumped."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return dumps_compact(value)
    raise FIELDS.wrong(value, (str, dict), f"{where()}.arguments")


def _message_as_delta(message: ChatMessage, where: str) -> ChoiceDelta:
    """A whole ``ChatCompletionMessage`` in the shape of one delta carrying all of it."""
    keys = (*_REASONING_FIELDS, "content", "refusal", _LEGACY, *(k for k, _ in _UNCARRIED))
    delta = cast(ChoiceDelta, {k: message.get(k) for k in keys})  # (the delta's own fields)
    calls = FIELDS.list_at(message, "tool_calls", where)
    if calls:
        indexed: list[Any] = [
            {**c, "index": i} if isinstance(c, dict) else c for i, c in enumerate(calls)
        ]
        delta["tool_calls"] = indexed
    return delta


__all__ = ["Decoder"]
