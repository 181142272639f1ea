"""Anthropic Messages stream events -> AG-UI events (sans-I/O).

Content blocks are keyed by their ``index``, so interleaved blocks stay
apart. A ``tool_use`` block is one tool call (START at ``content_block_start``,
ARGS per non-empty ``input_json_delta``, END at ``content_block_stop``); text
blocks are text messages on the Anthropic message id; thinking blocks are
reasoning messages whose signature becomes ``REASONING_ENCRYPTED_VALUE``;
server-tool and MCP blocks become a tool call plus its ``TOOL_CALL_RESULT``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from re import Match
from typing import Any, TypeGuard

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
    DELTA_EVENT,
    FIELDS,
    RETRYABLE_ERRORS,
    SERVER_CALL_TYPES,
    STOP_REASON_KEY,
    STOP_SEQUENCE_KEY,
    TYPE_KEY,
    VENDOR,
    call_metadata,
    map_anthropic_stop_reason,
    plain,
    reasoning_id,
    token_usage,
)
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder, as_dict
from toolwire.protocol.fastpath import fused_reading, scan_string
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import result_message_id
from toolwire.protocol.jsontext import CheckedObject, checked, has_lone_surrogate
from toolwire.protocol.limits import limits
from toolwire.protocol.machine import RESULT_ERROR_KEY
from toolwire.protocol.makers import args_delta, reasoning_delta, text_delta
from toolwire.protocol.signatures import mark


@dataclass
class _Block:
    kind: str  # text | call | thinking | redacted | done | skip
    ident: str = ""
    signature: list[str] = field(default_factory=list)
    citations: list[Any] = field(default_factory=list)


_BLOCK_TYPES = {"thinking": "thinking", "redacted": "redacted_thinking"}

#: delta type -> (the block kind it belongs to, the field holding its text)
_DELTAS: dict[str, tuple[str, str]] = {
    "text_delta": ("text", "text"),
    "citations_delta": ("text", "citation"),
    "input_json_delta": ("call", "partial_json"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("thinking", "signature"),
}


def _delta_dict(event: Any) -> dict[str, Any]:
    """An SDK ``content_block_delta`` as its wire dict, reading the one field that matters."""
    delta = getattr(event, "delta", None)
    dtype = getattr(delta, "type", None)
    spec = _DELTAS.get(dtype) if isinstance(dtype, str) else None
    if spec is None or spec[1] == "citation":
        out: dict[str, Any] = plain(event)
        return out
    field = spec[1]
    value = getattr(delta, field, None)
    index = getattr(event, "index", None)
    out = {"type": "content_block_delta", "index": index, "delta": {"type": dtype, field: value}}
    return CheckedObject.made(out) if _clean_delta(value, index) else out


def _clean_delta(value: Any, index: Any) -> TypeGuard[str]:
    """True when an SDK delta's text and index pass the checks as they stand: the SDK builds
    its stream events unvalidated, so the index must be an int and the text a string with no
    lone surrogate, under a cap that allows the delta's own dict (at depth 1)."""
    return (
        type(index) is int
        and type(value) is str
        and not has_lone_surrogate(value)
        and limits().max_json_depth > 2
    )


#: the deltas an SDK object is read straight to events for: delta type -> (the block kind
#: it belongs to, the field holding its text, the event's maker, ``make(block id, text)``,
#: or None for a signature)
_FAST_DELTAS: dict[str, tuple[str, str, Any]] = {
    "text_delta": ("text", "text", text_delta),
    "input_json_delta": ("call", "partial_json", args_delta),
    "thinking_delta": ("thinking", "thinking", reasoning_delta),
    "signature_delta": ("thinking", "signature", None),
}


def _delta_events(block: _Block, kind: str, dtype: object, value: str) -> list[BaseEvent]:
    """The events of one content delta of ``kind`` into its open ``block``."""
    if not value:
        return []
    if kind == "call":
        return [args_delta(block.ident, value)]
    if kind == "text":
        return [text_delta(block.ident, value)]
    if dtype == "thinking_delta":
        return [reasoning_delta(block.ident, value)]
    block.signature.append(value)
    return []


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
        # a delta is read straight to events only into an open block, which means
        # message_start came and message_stop has not
        if type(chunk) is CheckedObject:
            if chunk.get("type") == "content_block_delta" and chunk.trusted():
                # most of a stream read from bytes: as an SDK delta below, from the dict
                index, delta = chunk.get("index"), chunk.get("delta")
                block = self._blocks.get(index) if type(index) is int else None
                dtype = delta.get("type") if type(delta) is dict else None
                spec = _FAST_DELTAS.get(dtype) if type(dtype) is str else None
                if block is not None and spec is not None and block.kind == spec[0]:
                    fast = self._fast_delta(block, spec, delta.get(spec[1]))  # type: ignore[union-attr]
                    if fast is not None:
                        return fast
        elif type(chunk) is not dict:
            if getattr(chunk, "type", None) == "content_block_delta":
                # most of a stream: read from the SDK's object, no dict
                index = getattr(chunk, "index", None)
                # (an index of any other type than int may not even be hashable)
                block = self._blocks.get(index) if type(index) is int else None
                delta = getattr(chunk, "delta", None)
                dtype = getattr(delta, "type", None)
                spec = _FAST_DELTAS.get(dtype) if type(dtype) is str else None
                if block is not None and spec is not None and block.kind == spec[0]:
                    fast = self._fast_delta(block, spec, getattr(delta, spec[1], None))
                    if fast is not None:
                        return fast
                chunk = _delta_dict(chunk)  # read without a full dump
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

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: the events ``feed`` gives chunk
        by chunk, with the content deltas (most of a stream) read to events in this loop,
        without the two calls ``feed`` makes of each (a ninth of the SDK path's time). From
        toolwire's own reader they come fused (``protocol.fastpath``): no dict made of them."""
        blocks, fast, feed, caps = self._blocks, _FAST_DELTAS, self.feed, limits
        chunk: Any
        # ({delta: {...}}: two deep)
        with fused_reading(chunks, DELTA_EVENT, 2) as (chunks, reader):
            for chunk in chunks:
                # (as in feed: only into an open block)
                if type(chunk) is Match:  # a content delta read from bytes, fused: no dict
                    _, index, dtype, field, raw = chunk.groups()
                    block, spec = blocks.get(int(index)), fast.get(dtype)
                    if (
                        spec is not None
                        and block is not None
                        and spec[1] == field
                        and block.kind == spec[0]
                    ):
                        self.chunk_index += 1
                        if raw:
                            value = (
                                raw
                                if "\\" not in raw
                                else scan_string(chunk.string, chunk.start(5))[0]
                            )
                            if spec[2] is None:
                                block.signature.append(value)
                            else:
                                yield spec[2](block.ident, value)
                        continue
                    chunk = reader.chunk(chunk)  # type: ignore[union-attr]  # (matches: fused)
                spec = block = value = None
                cap = caps().max_json_depth  # the caps in force now, read once
                if type(chunk) is CheckedObject:
                    checked_under = getattr(chunk, "_cap", None)  # its trusted(), written out
                    if (
                        chunk.get("type") == "content_block_delta"
                        and checked_under is not None
                        and checked_under <= cap
                    ):
                        index, delta = chunk.get("index"), chunk.get("delta")
                        dtype = delta.get("type") if type(delta) is dict else None
                        if type(index) is int and type(dtype) is str:
                            block, spec = blocks.get(index), fast.get(dtype)
                            if spec is not None:
                                value = delta.get(spec[1])  # type: ignore[union-attr]
                elif type(chunk) is not dict:
                    try:  # an SDK object; a field it lacks is the general path's to name
                        is_delta = chunk.type == "content_block_delta"
                        index, delta = chunk.index, chunk.delta
                        dtype = delta.type
                    except AttributeError:
                        is_delta = False
                    if is_delta and type(index) is int and type(dtype) is str:
                        block, spec = blocks.get(index), fast.get(dtype)
                        if spec is not None:
                            value = getattr(delta, spec[1], None)
                # _fast_delta's checks and events, written out here: a call a delta is the cost
                if (
                    spec is not None
                    and block is not None
                    and block.kind == spec[0]
                    and type(value) is str
                    and (value.isascii() or not has_lone_surrogate(value))
                    and cap > 2
                ):
                    self.chunk_index += 1  # (feed warned of its losses: none wait here)
                    if value:
                        if spec[2] is None:
                            block.signature.append(value)
                        else:
                            yield spec[2](block.ident, value)
                    continue
                yield from feed(chunk)
            yield from self.close()

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

    def _on_message_start(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if self.message_id is not None:
            raise VendorDataError(VENDOR, self.where("type"), "a second message_start")
        msg = FIELDS.at(chunk, "message", dict, self.where("message_start"))
        self.message_id = self.response_id = FIELDS.at(msg, "id", str, self.where("message"))
        model = msg.get("model")
        self.model = model if isinstance(model, str) else None
        usage = msg.get("usage")
        if isinstance(usage, dict):
            self._take_usage(usage, "message.usage")
        return self._replay_start_content(msg)

    # ------------------------------------------------------------ content in message_start

    def _replay_start_content(self, msg: dict[str, Any]) -> list[BaseEvent]:
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
        stop = {k: msg[k] for k in ("stop_reason", "stop_sequence") if msg.get(k) is not None}
        if stop:
            out += self._on_message_delta({"type": "message_delta", "delta": stop})
        return out

    def _on_message_delta(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        delta = chunk.get("delta")
        if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
            self.stop_reason = delta["stop_reason"]
            self.run_metadata[STOP_REASON_KEY] = self.stop_reason
            self.run_metadata[FINISH_REASON_KEY] = map_anthropic_stop_reason(self.stop_reason)
        if isinstance(delta, dict) and isinstance(delta.get("stop_sequence"), str):
            self.run_metadata[STOP_SEQUENCE_KEY] = delta["stop_sequence"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._take_usage(usage, "usage")
        return []

    def _on_message_stop(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if self._blocks:
            raise VendorDataError(
                VENDOR,
                self.where("type"),
                f"message_stop with content block(s) {sorted(self._blocks)} still open",
            )
        self._stopped = True
        return []

    def _take_usage(self, usage: dict[str, Any], where: str) -> None:
        # message_delta usage is cumulative: a count it repeats replaces the earlier one.
        self._usage.update({k: v for k, v in usage.items() if v is not None})
        entry = token_usage(self._usage, self.model, self.where(where))
        self.usage = [entry] if entry is not None else []

    # ------------------------------------------------------------ blocks

    def _index(self, chunk: dict[str, Any]) -> int:
        index = chunk.get("index")
        if type(index) is not int or index < 0:  # bool is not a block index either
            if "index" not in chunk:
                raise VendorDataError(VENDOR, self.where(f"{chunk.get('type')}.index"), "missing")
            raise VendorDataError(VENDOR, self.where("index"), f"not a block index: {index!r}")
        return index

    def _on_content_block_start(self, chunk: dict[str, Any]) -> list[BaseEvent]:
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

    def _open(self, chunk: dict[str, Any]) -> tuple[int, _Block]:
        index = self._index(chunk)
        block = self._blocks.get(index)
        if block is None:
            raise VendorDataError(VENDOR, self.where("index"), f"block {index} is not open")
        return index, block

    def _on_content_block_delta(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        index, block = self._open(chunk)
        delta = chunk.get("delta")
        if not isinstance(delta, dict):
            delta = FIELDS.at(chunk, "delta", dict, self.where("content_block_delta"))
        dtype = delta.get("type")
        if block.kind == "skip":
            return []
        spec = _DELTAS.get(dtype) if isinstance(dtype, str) else None
        if spec is None:
            if not isinstance(dtype, str):
                FIELDS.at(delta, "type", str, self.where("delta"))
            return []  # a delta type this version does not know
        kind, field = spec
        if block.kind != kind:
            raise VendorDataError(
                VENDOR, self.where("delta"), f"{dtype} for block {index}, a {block.kind} block"
            )
        value = delta.get(field)
        if dtype == "citations_delta":
            block.citations.append(value)
            return []
        if not isinstance(value, str):
            value = FIELDS.at(delta, field, str, self.where("delta"))
        return _delta_events(block, kind, dtype, value)

    def _fast_delta(
        self, block: _Block, spec: tuple[str, str, Any], value: Any
    ) -> list[BaseEvent] | None:
        """The events of a delta of ``block``'s kind whose text is ``value``, when the text
        is a clean string under the caps in force (else ``None``: the general path)."""
        if type(value) is not str or (not value.isascii() and has_lone_surrogate(value)):
            return None
        if limits().max_json_depth <= 2:  # the caps in force now: a delta's dict breaks it
            return None
        self.chunk_index += 1
        if len(self.losses) > self._announced:  # (none arise here; an earlier feed's may wait)
            self.warn_new()
        if not value:
            return []
        make = spec[2]
        if make is None:  # a signature: whole once its block stops
            block.signature.append(value)
            return []
        return [make(block.ident, value)]

    def _on_content_block_stop(self, chunk: dict[str, Any]) -> list[BaseEvent]:
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


_HANDLERS: dict[str, Any] = {
    name[len("_on_") :]: fn for name, fn in vars(Decoder).items() if name.startswith("_on_")
}

__all__ = ["Decoder"]
