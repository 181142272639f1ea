"""Anthropic Messages stream events -> AG-UI events (sans-I/O).

Content blocks are keyed by their ``index``, so interleaved blocks stay
apart. A ``tool_use`` block is one tool call (START at ``content_block_start``,
ARGS per non-empty ``input_json_delta``, END at ``content_block_stop``); text
blocks are text messages on the Anthropic message id; thinking blocks are
reasoning messages whose signature becomes ``REASONING_ENCRYPTED_VALUE``;
server-tool and MCP blocks become a tool call plus its ``TOOL_CALL_RESULT``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    ReasoningEncryptedValueEvent,
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

from toolwire.adapters.anthropic.parts import server_result
from toolwire.adapters.anthropic.wire import (
    BLOCK_KEY,
    CITATIONS_KEY,
    DELTA_FORM,
    FIELDS,
    RETRYABLE_ERRORS,
    SERVER_CALL_TYPES,
    STOP_REASON_KEY,
    STOP_SEQUENCE_KEY,
    TYPE_KEY,
    VENDOR,
    ContentBlockDelta,
    ContentBlockStart,
    ContentBlockStop,
    Message,
    MessageDelta,
    MessageDeltaBody,
    MessageStart,
    MessageStop,
    Usage,
    call_metadata,
    map_stop_reason,
    plain,
    reasoning_id,
    token_usage,
)
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss
from toolwire.protocol._fastpath import PASS, Taken, read_stream
from toolwire.protocol._makers import args_delta, reasoning_delta, text_delta
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder, as_dict
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import result_message_id
from toolwire.protocol.jsontext import CheckedObject, checked, has_lone_surrogate
from toolwire.protocol.limits import limits
from toolwire.protocol.machine import RESULT_ERROR_KEY
from toolwire.protocol.signatures import mark

#: the events that name a content block by its ``index``
_BlockEvent = ContentBlockStart | ContentBlockDelta | ContentBlockStop


@dataclass
class _Block:
    kind: str  # text | call | thinking | redacted | done | skip
    ident: str = ""
    signature: list[str] = field(default_factory=list)
    citations: list[Any] = field(default_factory=list)


_BLOCK_TYPES = {"thinking": "thinking", "redacted": "redacted_thinking"}

#: The mapping of a content delta, by its type: (the kind of block it belongs to, the field
#: holding its text, what the text becomes: the event's maker, ``make(block id, text)``, or
#: ``None`` for a signature, kept and sent whole when its block stops). A
#: ``citations_delta`` carries no text: it is kept on its text block.
_DELTAS: dict[str, tuple[str, str, Any]] = {
    "text_delta": ("text", "text", text_delta),
    "input_json_delta": ("call", "partial_json", args_delta),
    "thinking_delta": ("thinking", "thinking", reasoning_delta),
    "signature_delta": ("thinking", "signature", None),
}


def _delta_fields(chunk: Any) -> tuple[int, str, str, str] | None:
    """The fields of :data:`~toolwire.adapters.anthropic.wire.DELTA_FORM` (index, delta
    type, text field, text) of a content delta in a chunk toolwire's reader parsed and
    checked, or in an SDK event object whose text is a clean string under the caps in force
    (the SDK builds its events unvalidated); ``None`` for anything else, which the general
    path reads."""
    dtype: Any
    if type(chunk) is CheckedObject:
        if chunk.get("type") != "content_block_delta" or not chunk.trusted():
            return None
        index, delta = chunk.get("index"), chunk.get("delta")
        if type(delta) is not dict:
            return None
        dtype = delta.get("type")
        spec = _DELTAS.get(dtype) if type(dtype) is str else None
        if spec is None:
            return None
        value = delta.get(spec[1])
    elif type(chunk) is not dict:
        try:  # an SDK object; a field it lacks is the general path's to name
            if chunk.type != "content_block_delta":
                return None
            index, delta = chunk.index, chunk.delta
            dtype = delta.type
        except AttributeError:
            return None
        spec = _DELTAS.get(dtype) if type(dtype) is str else None
        if spec is None:
            return None
        value = getattr(delta, spec[1], None)
        if type(value) is not str or (not value.isascii() and has_lone_surrogate(value)):
            return None
    else:
        return None
    if type(index) is not int or type(value) is not str:
        return None
    if limits().max_json_depth <= DELTA_FORM.depth:  # the caps in force now break its dict
        return None
    return index, dtype, spec[1], value


def _delta_dict(event: Any) -> dict[str, Any]:
    """An SDK ``content_block_delta`` as its wire dict, reading the one field that matters."""
    delta = getattr(event, "delta", None)
    dtype = getattr(delta, "type", None)
    spec = _DELTAS.get(dtype) if isinstance(dtype, str) else None
    if spec is None:
        out: dict[str, Any] = plain(event)
        return out
    field = spec[1]
    value = getattr(delta, field, None)
    index = getattr(event, "index", None)
    out = {"type": "content_block_delta", "index": index, "delta": {"type": dtype, field: value}}
    clean = (
        type(index) is int
        and type(value) is str
        and not has_lone_surrogate(value)
        and limits().max_json_depth > DELTA_FORM.depth
    )
    return CheckedObject.made(out) if clean else out


def _is_result_block(btype: str, block: dict[str, Any]) -> bool:
    return btype.endswith("_tool_result") and "tool_use_id" in block


class Decoder(BaseDecoder):
    """Feed Anthropic raw stream events (SDK objects or dicts); get AG-UI events.

    After ``close()``: ``usage`` (one ``TokenUsage``), ``stop_reason`` (the
    vendor's), ``message_id`` and ``model``. ``close()`` raises
    ``TruncatedStream`` when ``message_stop`` never came; an ``error`` event
    raises ``VendorStreamError`` with Anthropic's error type and message.
    """

    vendor = VENDOR

    def __init__(self) -> None:
        super().__init__()
        self.message_id: str | None = None
        self.model: str | None = None
        self.stop_reason: str | None = None
        self._blocks: dict[int, _Block] = {}
        self._ids = CallIds(VENDOR)  # two tool_use blocks with one id stay two calls
        self._usage: dict[str, Any] = {}
        self._stopped = False

    # ------------------------------------------------------------ driving

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """One stream event: an SDK event object or its JSON dict."""
        if type(chunk) is not dict:  # a checked dict or an SDK object: a delta, most often
            quick = self._quick_delta(chunk)
            if quick is not None:
                return quick
            if type(chunk) is CheckedObject:
                pass
            elif getattr(chunk, "type", None) == "content_block_delta":
                chunk = _delta_dict(chunk)  # an SDK delta, read without a full dump
            elif hasattr(chunk, "model_fields_set"):
                chunk = plain(chunk)
            else:
                return super().feed(chunk)  # the shared path names what is wrong
        self.chunk_index += 1
        if type(chunk) is not CheckedObject or not chunk.trusted():
            chunk = checked(chunk, VENDOR, f"chunk {self.chunk_index}")
        events = self._feed(chunk)
        self.warn_new()  # as the shared feed: each new loss warned once, here
        return events

    def _quick_delta(self, chunk: Any) -> list[BaseEvent] | None:
        """A content delta read straight to its event by :meth:`_content_delta`, from a
        checked dict or an SDK object (most of a stream); ``None``: the general path."""
        fields = _delta_fields(chunk)
        if fields is None:
            return None
        out = self._content_delta(*fields)
        if out is PASS:
            return None
        self.chunk_index += 1
        if len(self.losses) > self._announced:  # (none arise here; an earlier feed's may wait)
            self.warn_new()
        return [] if out is None else [out]

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: ``feed``'s, with the content
        deltas (most of a stream) read by :meth:`_content_delta` in the shared loop, fused
        from toolwire's own reader (``protocol._fastpath``)."""
        return read_stream(self, chunks, DELTA_FORM, self._content_delta, _delta_fields)

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A whole (non-streamed) Message -> the same events its stream would give."""
        msg = as_dict(response, VENDOR, "response")
        if msg.get("type") == "error":
            self.chunk_index += 1
            return self._feed(msg)
        content = FIELDS.at(msg, "content", list, "response")
        head = {
            k: v for k, v in msg.items() if k not in ("content", "stop_reason", "stop_sequence")
        }
        out = self.feed({"type": "message_start", "message": {**head, "content": []}})
        for i, block in enumerate(content):
            FIELDS.obj(block, f"response.content[{i}]")
            out += self.feed({"type": "content_block_start", "index": i, "content_block": block})
            out += self.feed({"type": "content_block_stop", "index": i})
        delta = {"stop_reason": msg.get("stop_reason"), "stop_sequence": msg.get("stop_sequence")}
        out += self.feed({"type": "message_delta", "delta": delta, "usage": msg.get("usage") or {}})
        out += self.feed({"type": "message_stop"})
        return out

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        ctype = chunk.get("type")
        if not isinstance(ctype, str):
            ctype = FIELDS.text(ctype, self.where("type"))  # raises: missing or not a string
        if ctype == "ping":
            return []
        if ctype == "error":
            err = chunk.get("error")
            err = err if isinstance(err, dict) else {}
            etype = str(err["type"]) if isinstance(err.get("type"), str) else "error"
            message = str(err["message"]) if isinstance(err.get("message"), str) else str(err)
            raise VendorStreamError(VENDOR, etype, message, retryable=etype in RETRYABLE_ERRORS)
        handler = _HANDLERS.get(ctype)
        if handler is None:
            return []  # an event type this version does not know: skipped
        if ctype != "message_start" and self.message_id is None:
            raise VendorDataError(VENDOR, self.where("type"), f"{ctype} before message_start")
        if self._stopped:
            raise VendorDataError(VENDOR, self.where("type"), f"{ctype} after message_stop")
        out: list[BaseEvent] = handler(self, chunk)
        return out

    def _close(self) -> list[BaseEvent]:
        if not self._stopped:
            what = "no message_start" if self.message_id is None else "no message_stop"
            open_blocks = sorted(self._blocks)
            if open_blocks:
                what += f" (content block(s) {open_blocks} still open)"
            raise TruncatedStream(VENDOR, f"the stream ended with {what}")
        return []

    # ------------------------------------------------------------ message

    def _on_message_start(self, chunk: MessageStart) -> list[BaseEvent]:
        if self.message_id is not None:
            raise VendorDataError(VENDOR, self.where("type"), "a second message_start")
        msg: Message = FIELDS.at(chunk, "message", dict, self.where("message_start"))
        self.message_id = self.response_id = FIELDS.at(msg, "id", str, self.where("message"))
        model = msg.get("model")
        self.model = model if isinstance(model, str) else None
        usage = msg.get("usage")
        if isinstance(usage, dict):
            self._take_usage(usage, "message.usage")
        return self._replay_start_content(msg)

    # ------------------------------------------------------------ content in message_start

    def _replay_start_content(self, msg: Message) -> list[BaseEvent]:
        """What ``message_start.message`` already holds, decoded as if it had been streamed.

        Anthropic may deliver a whole turn inside ``message_start`` (programmatic tool
        calling: ``tool_use`` blocks and ``stop_reason: tool_use``, then ``message_stop``
        with no ``content_block_*`` events); the SDK's accumulator starts from this message,
        so every block is read here as its ``content_block_start`` + ``content_block_stop``
        at its own index, and the stop reason as a ``message_delta`` would give it."""
        at = self.where("message")
        out: list[BaseEvent] = []
        for i, block in enumerate(FIELDS.list_at(msg, "content", at)):
            FIELDS.obj(block, f"{at}.content[{i}]")
            out += self._on_content_block_start(
                {"type": "content_block_start", "index": i, "content_block": block}
            )
            out += self._on_content_block_stop({"type": "content_block_stop", "index": i})
        stop: MessageDeltaBody = {}
        if msg.get("stop_reason") is not None:
            stop["stop_reason"] = msg.get("stop_reason")
        if msg.get("stop_sequence") is not None:
            stop["stop_sequence"] = msg.get("stop_sequence")
        if stop:
            out += self._on_message_delta({"type": "message_delta", "delta": stop})
        return out

    def _on_message_delta(self, chunk: MessageDelta) -> list[BaseEvent]:
        delta = chunk.get("delta")
        if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
            self.stop_reason = delta["stop_reason"]
            self.run_metadata[STOP_REASON_KEY] = self.stop_reason
            self.run_metadata[FINISH_REASON_KEY] = map_stop_reason(self.stop_reason)
        if isinstance(delta, dict) and isinstance(delta.get("stop_sequence"), str):
            self.run_metadata[STOP_SEQUENCE_KEY] = delta["stop_sequence"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._take_usage(usage, "usage")
        return []

    def _on_message_stop(self, chunk: MessageStop) -> list[BaseEvent]:
        if self._blocks:
            raise VendorDataError(
                VENDOR,
                self.where("type"),
                f"message_stop with content block(s) {sorted(self._blocks)} still open",
            )
        self._stopped = True
        return []

    def _take_usage(self, usage: Usage, where: str) -> None:
        # message_delta usage is cumulative: a count it repeats replaces the earlier one.
        self._usage.update({k: v for k, v in usage.items() if v is not None})
        entry = token_usage(self._usage, self.model, self.where(where))
        self.usage = [entry] if entry is not None else []

    # ------------------------------------------------------------ blocks

    def _index(self, chunk: _BlockEvent) -> int:
        index = chunk.get("index")
        if type(index) is not int or index < 0:  # bool is not a block index either
            if "index" not in chunk:
                raise VendorDataError(VENDOR, self.where(f"{chunk.get('type')}.index"), "missing")
            raise VendorDataError(VENDOR, self.where("index"), f"not a block index: {index!r}")
        return index

    def _on_content_block_start(self, chunk: ContentBlockStart) -> list[BaseEvent]:
        index = self._index(chunk)
        if index in self._blocks:
            raise VendorDataError(VENDOR, self.where("index"), f"block {index} is already open")
        block = FIELDS.at(chunk, "content_block", dict, self.where("content_block_start"))
        at = self.where("content_block")
        btype = FIELDS.at(block, "type", str, at)
        mid = self.message_id
        assert mid is not None
        out: list[BaseEvent] = []
        if btype == "text":
            text = FIELDS.at(block, "text", str, at)
            cites = block.get("citations")
            self._blocks[index] = _Block(
                "text", mid, citations=cites if isinstance(cites, list) else []
            )
            out.append(TextMessageStartEvent(message_id=mid, role="assistant"))
            if text:
                out.append(TextMessageContentEvent(message_id=mid, delta=text))
        elif btype == "tool_use" or btype in SERVER_CALL_TYPES:
            out.extend(self._start_call(index, btype, block, at))
        elif btype == "thinking":
            rid = reasoning_id(mid, index)
            thinking = FIELDS.at(block, "thinking", str, at)
            sig = block.get("signature")
            self._blocks[index] = _Block("thinking", rid, [sig] if isinstance(sig, str) else [])
            out.append(ReasoningStartEvent(message_id=rid))
            out.append(ReasoningMessageStartEvent(message_id=rid, role="reasoning"))
            if thinking:
                out.append(ReasoningMessageContentEvent(message_id=rid, delta=thinking))
        elif btype == "redacted_thinking":
            rid = reasoning_id(mid, index)
            data = FIELDS.at(block, "data", str, at)
            self._blocks[index] = _Block("redacted", rid, [data])
            out.append(ReasoningStartEvent(message_id=rid))
            out.append(
                ReasoningMessageStartEvent(
                    message_id=rid, role="reasoning", metadata={TYPE_KEY: "redacted_thinking"}
                )
            )
        elif _is_result_block(btype, block) or btype == "mcp_tool_result":
            out.append(self._result(block, at))
            self._blocks[index] = _Block("done")
        else:  # a block with no AG-UI home (container_upload), or one this version does not know
            self._blocks[index] = _Block("skip")
            self.losses.append(
                Loss(
                    kind="block-dropped",
                    target="AG-UI",
                    reason=f"{at}: a {btype!r} block has no AG-UI event",
                )
            )
        return out

    def _start_call(
        self, index: int, btype: str, block: dict[str, Any], at: str
    ) -> list[BaseEvent]:
        vendor_id = FIELDS.at(block, "id", str, at)
        name = FIELDS.at(block, "name", str, at)
        cid = self._ids.assign(vendor_id, self.known_call_ids)
        if btype != "tool_use":
            self.vendor_calls.add(cid)  # Anthropic runs it: never the application's to answer
        meta = {**call_metadata(btype, block), **self._ids.metadata(cid, vendor_id)}
        self._blocks[index] = _Block("call", cid)
        kw: dict[str, Any] = {"metadata": meta} if meta else {}
        out: list[BaseEvent] = [
            ToolCallStartEvent(
                tool_call_id=cid, tool_call_name=name, parent_message_id=self.message_id, **kw
            )
        ]
        given = block.get("input")
        FIELDS.opt_obj(given, f"{at}.input")
        if given:  # a whole input up front (non-streamed responses, some proxies)
            out.append(
                ToolCallArgsEvent(
                    tool_call_id=cid, delta=dumps_compact(given, VENDOR, f"{at}.input")
                )
            )
        return out

    def _result(self, block: dict[str, Any], at: str) -> ToolCallResultEvent:
        vendor_id = FIELDS.at(block, "tool_use_id", str, at)
        tool_use_id = self._ids.answer(vendor_id) or vendor_id
        content, meta, error = server_result(block, at, self.losses)
        meta = {**meta, BLOCK_KEY: block}
        if error is not None:
            meta[RESULT_ERROR_KEY] = error
        return ToolCallResultEvent(
            message_id=result_message_id(tool_use_id),
            tool_call_id=tool_use_id,
            content=content,
            role="tool",
            metadata=meta,
        )

    def _open(self, chunk: _BlockEvent) -> tuple[int, _Block]:
        index = self._index(chunk)
        block = self._blocks.get(index)
        if block is None:
            raise VendorDataError(VENDOR, self.where("index"), f"block {index} is not open")
        return index, block

    def _on_content_block_delta(self, chunk: ContentBlockDelta) -> list[BaseEvent]:
        index, block = self._open(chunk)
        delta = chunk.get("delta")
        if not isinstance(delta, dict):
            delta = FIELDS.at(chunk, "delta", dict, self.where("content_block_delta"))
        dtype = delta.get("type")
        if block.kind == "skip":
            return []
        if not isinstance(dtype, str):
            dtype = FIELDS.at(delta, "type", str, self.where("delta"))  # raises
        if dtype == "citations_delta":
            if block.kind != "text":
                raise self._wrong_block(dtype, index, block)
            block.citations.append(delta.get("citation"))
            return []
        spec = _DELTAS.get(dtype)
        if spec is None:
            return []  # a delta type this version does not know
        kind, field, _ = spec
        if block.kind != kind:
            raise self._wrong_block(dtype, index, block)
        value = delta.get(field)
        if not isinstance(value, str):
            value = FIELDS.at(delta, field, str, self.where("delta"))
        out = self._content_delta(index, dtype, field, value)
        assert out is not PASS  # (an open block of its kind: the rule takes it)
        return [] if out is None else [out]

    def _content_delta(self, index: int, dtype: str, field: str, text: str) -> Taken:
        """The rule: a content delta of type ``dtype`` whose ``field`` holds ``text``, into
        block ``index``, as :data:`_DELTAS` maps it; :data:`PASS` unless the block is open
        and of the delta's kind (the general path reads, and names, anything else)."""
        block = self._blocks.get(index)
        spec = _DELTAS.get(dtype)
        if block is None or spec is None or block.kind != spec[0] or field != spec[1]:
            return PASS
        if not text:
            return None
        make = spec[2]
        if make is None:  # a signature: whole once its block stops
            block.signature.append(text)
            return None
        event: BaseEvent = make(block.ident, text)
        return event

    def _wrong_block(self, dtype: str, index: int, block: _Block) -> VendorDataError:
        return VendorDataError(
            VENDOR, self.where("delta"), f"{dtype} for block {index}, a {block.kind} block"
        )

    def _on_content_block_stop(self, chunk: ContentBlockStop) -> list[BaseEvent]:
        _, block = self._open(chunk)
        del self._blocks[self._index(chunk)]
        if block.kind == "text":
            kw: dict[str, Any] = {}
            if block.citations:
                kw["metadata"] = {CITATIONS_KEY: block.citations}
            return [TextMessageEndEvent(message_id=block.ident, **kw)]
        if block.kind == "call":
            return [ToolCallEndEvent(tool_call_id=block.ident)]
        if block.kind in ("thinking", "redacted"):
            out: list[BaseEvent] = [ReasoningMessageEndEvent(message_id=block.ident)]
            value = "".join(block.signature)
            if value:
                out.append(
                    ReasoningEncryptedValueEvent(
                        subtype="message",
                        entity_id=block.ident,
                        encrypted_value=value,
                        # who issued it (only Anthropic can use it) and which block it restores
                        metadata=mark({TYPE_KEY: _BLOCK_TYPES[block.kind]}, VENDOR),
                    )
                )
            out.append(ReasoningEndEvent(message_id=block.ident))
            return out
        return []


#: ``type`` -> its handler: the one table the decoder dispatches an event through
_HANDLERS: dict[str, Callable[[Decoder, Any], list[BaseEvent]]] = {
    "message_start": Decoder._on_message_start,
    "content_block_start": Decoder._on_content_block_start,
    "content_block_delta": Decoder._on_content_block_delta,
    "content_block_stop": Decoder._on_content_block_stop,
    "message_delta": Decoder._on_message_delta,
    "message_stop": Decoder._on_message_stop,
}

__all__ = ["Decoder"]
