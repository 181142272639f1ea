"""Bedrock ``ConverseStream`` events -> AG-UI events (sans-I/O).

Content blocks are keyed by ``contentBlockIndex``. Only a tool-use block (and a server
tool's result) opens with ``contentBlockStart``; a text or reasoning block opens with its
first delta. A ``toolUse`` block is one tool call (START at its start, ARGS per non-empty
``delta.toolUse.input``, END at ``contentBlockStop``); text blocks are text messages on the
turn's message id; reasoning blocks are reasoning messages whose ``signature`` (or
``redactedContent``) becomes ``REASONING_ENCRYPTED_VALUE``. ``messageStop`` ends the turn;
``metadata`` (usage, metrics) may follow it. Converse names no message: its id is minted
from the turn's first content, or given (``message_id=``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.adapters.bedrock.wire import (
    CITATIONS_KEY,
    DELTA_FORM,
    EXCEPTIONS,
    FIELDS,
    METRICS_KEY,
    PERFORMANCE_KEY,
    REASONING_TEXT,
    REDACTED,
    RESPONSE_FIELDS_KEY,
    RETRYABLE_ERRORS,
    SERVICE_TIER_KEY,
    STATUS_KEY,
    STOP_REASON_KEY,
    TRACE_KEY,
    TYPE_KEY,
    VENDOR,
    ContentBlockDelta,
    ContentBlockStart,
    ContentBlockStop,
    DeltaPayload,
    MessageStart,
    MessageStop,
    Metadata,
    blob_text,
    json_form,
    map_stop_reason,
    token_usage,
)
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss
from toolwire.protocol._fastpath import PASS, Taken, read_stream
from toolwire.protocol._makers import (
    args_delta,
    call_end,
    call_start,
    reasoning_delta,
    text_delta,
)
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder, as_dict
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.jsontext import CheckedObject, checked, has_lone_surrogate
from toolwire.protocol.limits import check, limits
from toolwire.protocol.machine import RESULT_ERROR_KEY
from toolwire.protocol.signatures import mark


@dataclass(slots=True)
class _Block:
    kind: str  # text | call | reasoning | result | skip
    ident: str = ""
    signature: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    citations: list[Any] = field(default_factory=list)
    pieces: list[Any] = field(default_factory=list)  # a server tool result's content deltas
    status: str | None = None
    result_type: str | None = None
    args: int = 0  # argument characters buffered (bounded by the cap)


#: the events that name a content block by its ``contentBlockIndex``
_BlockEvent = ContentBlockStart | ContentBlockDelta | ContentBlockStop


def reasoning_id(message_id: str, index: int) -> str:
    """The id of the reasoning message a reasoning block becomes (Converse gives none)."""
    return mint_id("reasoning", message_id, index)


def _seed(payload: Mapping[str, Any]) -> str:
    """Stable text for minting the message id: the first content event's index and the
    members Converse defines (the raw frames' padding field ``p`` and anything boto3 would
    not keep are left out, so bytes and boto3's dicts mint the same id)."""
    kept: dict[str, Any] = {"i": payload.get("contentBlockIndex")}
    start = payload.get("start")
    if isinstance(start, dict) and isinstance(start.get("toolUse"), dict):
        use = start["toolUse"]
        kept["use"] = [use.get("toolUseId"), use.get("name")]
    delta = payload.get("delta")
    if isinstance(delta, dict):
        for key in ("text", "toolUse", "reasoningContent", "citation"):
            if key in delta:
                kept[key] = delta[key]
                break
    return json.dumps(json_form(kept), sort_keys=True, default=str)


def _delta_fields(chunk: Any) -> tuple[int, str | None, str | None, str | None] | None:
    """The fields of :data:`~toolwire.adapters.bedrock.wire.DELTA_FORM` (index, text, tool
    input, reasoning text: one of the three a string) of a delta chunk of that shape (one
    delta member holding one string; nothing else that could nest or need a repair), a
    dict boto3 gave or one toolwire's reader parsed, under the caps in force; ``None`` for
    anything else, which the general path reads (and names)."""
    kind = type(chunk)
    if (kind is not dict and kind is not CheckedObject) or len(chunk) != 1:
        return None
    payload = chunk.get("contentBlockDelta")
    if type(payload) is not dict or len(payload) != 2 or limits().max_json_depth <= 3:
        return None
    index, delta = payload.get("contentBlockIndex"), payload.get("delta")
    if type(index) is not int or index < 0 or type(delta) is not dict or len(delta) != 1:
        return None
    ((key, value),) = delta.items()
    if key == "text":
        text = value
    elif type(value) is not dict or len(value) != 1:
        return None
    elif key == "toolUse":
        text = value.get("input")
    elif key == "reasoningContent":
        text = value.get("text")
    else:
        return None
    if type(text) is not str:
        return None
    if not text.isascii() and not (kind is CheckedObject and chunk.trusted()):
        if has_lone_surrogate(text):  # (a dict from elsewhere: unchecked)
            return None
    if key == "text":
        return index, text, None, None
    if key == "toolUse":
        return index, None, text, None
    return index, None, None, text


class Decoder(BaseDecoder):
    """Feed ConverseStream events (boto3's dicts or the framing's); get AG-UI events.

    After ``close()``: ``usage`` (one ``TokenUsage``), ``stop_reason``, ``message_id``.
    ``close()`` raises ``TruncatedStream`` when ``messageStop`` never came; an exception
    event raises ``VendorStreamError`` with its type and message. ``model`` names the
    model on the usage (Converse streams name none).
    """

    vendor = VENDOR

    def __init__(self, *, message_id: str | None = None, model: str | None = None) -> None:
        super().__init__()
        self.message_id: str | None = message_id
        self.model = model
        self.stop_reason: str | None = None
        self.role: str | None = None
        self._blocks: dict[int, _Block] = {}
        self._ids = CallIds(VENDOR)
        self._usage: dict[str, Any] = {}
        self._started = False
        self._stopped = False
        self._metadata_seen = False

    # ------------------------------------------------------------ driving

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """One stream event: ``{eventType: payload}`` as boto3 yields it, or its JSON."""
        if type(chunk) is CheckedObject and "contentBlockDelta" not in chunk and chunk.trusted():
            # a frame toolwire's reader made, no delta (a block's start or stop, say): to
            # its handler as ``BaseDecoder.feed`` takes it, no delta's fields looked for
            return super().feed(chunk)
        fast = self._fast_delta(chunk)  # most of a stream: one content delta
        if fast is not None:
            return fast
        if type(chunk) is not CheckedObject and isinstance(chunk, dict):
            self.chunk_index += 1
            events = self._feed(checked(chunk, VENDOR, f"chunk {self.chunk_index}"))
            self.warn_new()
            return events
        return super().feed(chunk)

    def _fast_delta(self, chunk: Any) -> list[BaseEvent] | None:
        """A content delta's events by :meth:`_delta`, from its :func:`_delta_fields`;
        ``None``: the general path (the chunk is another, or the rule passes it)."""
        fields = _delta_fields(chunk)
        if fields is None:
            return None
        out = self._delta(*fields)
        if out is PASS:
            return None
        self.chunk_index += 1
        if len(self.losses) > self._announced:  # (none arise here; an earlier feed's may wait)
            self.warn_new()
        return [] if out is None else [out]

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: ``feed``'s, with the content
        deltas (most of a stream) read by :meth:`_delta` in the shared loop, fused from
        toolwire's own reader (``wire.sse_chunks``: ``protocol._fastpath``), or from the
        dicts boto3 gives (:func:`_delta_fields`)."""
        return read_stream(self, chunks, DELTA_FORM, self._delta, _delta_fields)

    def _delta(
        self, index: int, text: str | None, tool_input: str | None, reasoning: str | None
    ) -> Taken:
        """The rule: a text, tool-input or reasoning-text fragment (one is not ``None``)
        into block ``index``, open and of that kind; :data:`PASS` for anything else (a block
        a delta opens, one of another kind, a chunk after ``messageStop``, a fragment over
        the argument cap): the general path reads, and names, it."""
        block = self._blocks.get(index)  # (none is open once messageStop came)
        if block is None:
            return PASS
        if tool_input is not None:
            if block.kind != "call":
                return PASS
            if not tool_input:
                return None
            size = block.args + len(tool_input)
            if size > limits().max_argument_chars:
                return PASS  # (the general path names the cap, at this chunk)
            block.args = size
            return args_delta(block.ident, tool_input)
        if text is not None:
            if block.kind != "text":
                return PASS
            return text_delta(block.ident, text) if text else None
        if block.kind != "reasoning" or reasoning is None:
            return PASS
        return reasoning_delta(block.ident, reasoning) if reasoning else None

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A whole ``converse`` response -> the events its stream would give."""
        resp = as_dict(response, VENDOR, "response")
        output = FIELDS.at(resp, "output", dict, "response")
        message = FIELDS.at(output, "message", dict, "response.output")
        content = FIELDS.at(message, "content", list, "response.output.message")
        role = message.get("role")
        out = self.feed({"messageStart": {"role": role if isinstance(role, str) else "assistant"}})
        for i, raw in enumerate(content):
            block = json_form(FIELDS.obj(raw, f"response.output.message.content[{i}]"))
            out += self._whole_block(i, block, f"response.output.message.content[{i}]")
        stop: dict[str, Any] = {"stopReason": resp.get("stopReason")}
        if "additionalModelResponseFields" in resp:
            stop["additionalModelResponseFields"] = resp["additionalModelResponseFields"]
        out += self.feed({"messageStop": stop})
        kept = ("usage", "metrics", "trace", "performanceConfig", "serviceTier")
        meta = {k: resp[k] for k in kept if k in resp}
        if meta:
            out += self.feed({"metadata": meta})
        return out

    def _whole_block(self, i: int, block: dict[str, Any], at: str) -> list[BaseEvent]:
        """One block of a whole message, as the stream events that would carry it."""
        out: list[BaseEvent] = []
        if "text" in block:
            text = FIELDS.at(block, "text", str, at)
            out += self.feed(
                {"contentBlockDelta": {"contentBlockIndex": i, "delta": {"text": text}}}
            )
        elif "toolUse" in block:
            use = FIELDS.at(block, "toolUse", dict, at)
            start = {k: use[k] for k in ("toolUseId", "name", "type") if k in use}
            out += self.feed(
                {"contentBlockStart": {"contentBlockIndex": i, "start": {"toolUse": start}}}
            )
            given = use.get("input")
            if given is not None:
                FIELDS.opt_obj(given, f"{at}.toolUse.input")
                text = dumps_compact(given, VENDOR, f"{at}.toolUse.input") if given else ""
                if text:
                    use_delta: dict[str, Any] = {"toolUse": {"input": text}}
                    out += self.feed(
                        {"contentBlockDelta": {"contentBlockIndex": i, "delta": use_delta}}
                    )
        elif "reasoningContent" in block:
            rc = FIELDS.at(block, "reasoningContent", dict, at)
            if "reasoningText" in rc:
                rt = FIELDS.at(rc, "reasoningText", dict, f"{at}.reasoningContent")
                reasoning: dict[str, Any] = {
                    "text": FIELDS.at(rt, "text", str, f"{at}.reasoningContent.reasoningText")
                }
                out += self.feed(
                    {
                        "contentBlockDelta": {
                            "contentBlockIndex": i,
                            "delta": {"reasoningContent": reasoning},
                        }
                    }
                )
                if isinstance(rt.get("signature"), str):
                    sig = {"reasoningContent": {"signature": rt["signature"]}}
                    out += self.feed({"contentBlockDelta": {"contentBlockIndex": i, "delta": sig}})
            elif "redactedContent" in rc:
                red = {"reasoningContent": {"redactedContent": rc["redactedContent"]}}
                out += self.feed({"contentBlockDelta": {"contentBlockIndex": i, "delta": red}})
            else:
                kinds = sorted(rc) or ["(empty)"]
                self._drop(
                    "block-dropped",
                    f"{at}.reasoningContent: a {kinds[0]!r} reasoning block has no AG-UI event",
                )
                return out
        elif "toolResult" in block:
            res = FIELDS.at(block, "toolResult", dict, at)
            start = {k: res[k] for k in ("toolUseId", "type", "status") if k in res}
            out += self.feed(
                {"contentBlockStart": {"contentBlockIndex": i, "start": {"toolResult": start}}}
            )
            pieces = FIELDS.list_at(res, "content", f"{at}.toolResult")
            if pieces:
                res_delta: dict[str, Any] = {"toolResult": pieces}
                out += self.feed(
                    {"contentBlockDelta": {"contentBlockIndex": i, "delta": res_delta}}
                )
        else:
            kind = next(iter(block), "?")
            self.losses.append(
                Loss(
                    kind="block-dropped",
                    target="AG-UI",
                    reason=f"{at}: a {kind!r} block of a Converse response has no AG-UI event",
                )
            )
            return out
        out += self.feed({"contentBlockStop": {"contentBlockIndex": i}})
        return out

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if len(chunk) != 1:
            raise VendorDataError(
                VENDOR,
                f"chunk {self.chunk_index}",
                f"a ConverseStream event is one {{eventType: payload}} member, got {len(chunk)}",
            )
        ((name, payload),) = chunk.items()
        if (
            name in EXCEPTIONS
            or name == "error"
            or (isinstance(name, str) and name.endswith("Exception"))
        ):
            self._raise(name, payload)
        handler = _HANDLERS.get(name)
        if handler is None:  # an event type this version does not know: announced
            self._drop("event-dropped", f"a ConverseStream {name!r} event has no AG-UI event")
            return []
        if not isinstance(payload, dict):
            raise FIELDS.wrong(payload, dict, self.where(name))
        if name == "metadata":
            if self._metadata_seen:
                return self.after_end("metadata")
        elif self._stopped:
            return self.after_end("messageStop")
        if name != "messageStart" and name != "metadata" and not self._started:
            raise VendorDataError(VENDOR, self.where(name), f"{name} before messageStart")
        out: list[BaseEvent] = handler(self, payload)
        return out

    def _raise(self, name: str, payload: Any) -> None:
        body = payload if isinstance(payload, dict) else {}
        if name == "error":
            etype = str(body.get("code") or "error")
        else:
            etype = name
        message = body.get("message")
        text = message if isinstance(message, str) else json.dumps(json_form(body), default=str)
        original = body.get("originalStatusCode")
        if isinstance(original, int):
            self.error_metadata["bedrock.original_status_code"] = original
        raise VendorStreamError(VENDOR, etype, text, retryable=etype in RETRYABLE_ERRORS)

    def _close(self) -> list[BaseEvent]:
        if not self._stopped:
            what = "no messageStart" if not self._started else "no messageStop"
            if self._blocks:
                what += f" (content block(s) {sorted(self._blocks)} still open)"
            raise TruncatedStream(VENDOR, f"the stream ended with {what}")
        return []

    # ------------------------------------------------------------ message

    def _mid(self, chunk: Mapping[str, Any]) -> str:
        if self.message_id is None:
            self.message_id = mint_id("bedrock_msg", self.chunk_index, _seed(chunk))
        return self.message_id

    def _on_messageStart(self, payload: MessageStart) -> list[BaseEvent]:
        if self._started:
            raise VendorDataError(VENDOR, self.where("messageStart"), "a second messageStart")
        self._started = True
        role = payload.get("role")
        self.role = role if isinstance(role, str) else None
        return []

    def _on_messageStop(self, payload: MessageStop) -> list[BaseEvent]:
        if self._blocks:
            raise VendorDataError(
                VENDOR,
                self.where("messageStop"),
                f"messageStop with content block(s) {sorted(self._blocks)} still open",
            )
        reason = payload.get("stopReason")
        if not isinstance(reason, str):
            reason = FIELDS.at(payload, "stopReason", str, self.where("messageStop"))
        self.stop_reason = reason
        self.run_metadata[STOP_REASON_KEY] = reason
        self.run_metadata[FINISH_REASON_KEY] = map_stop_reason(reason)
        if isinstance(payload.get("additionalModelResponseFields"), dict):
            self.run_metadata[RESPONSE_FIELDS_KEY] = payload["additionalModelResponseFields"]
        self._stopped = True
        return []

    def _on_metadata(self, payload: Metadata) -> list[BaseEvent]:
        self._metadata_seen = True
        usage = payload.get("usage")
        if usage is not None:
            FIELDS.obj(usage, self.where("metadata.usage"))
            self._usage.update({k: v for k, v in usage.items() if v is not None})
            entry = token_usage(self._usage, self.model, self.where("metadata.usage"))
            self.usage = [entry] if entry is not None else []
        if isinstance(payload.get("metrics"), dict):
            self.run_metadata[METRICS_KEY] = payload["metrics"]
        if isinstance(payload.get("trace"), dict):
            self.run_metadata[TRACE_KEY] = payload["trace"]
        if isinstance(payload.get("performanceConfig"), dict):
            self.run_metadata[PERFORMANCE_KEY] = payload["performanceConfig"]
        if isinstance(payload.get("serviceTier"), dict):
            self.run_metadata[SERVICE_TIER_KEY] = payload["serviceTier"]
        return []

    # ------------------------------------------------------------ blocks

    def _index(self, payload: _BlockEvent, event: str) -> int:
        index = payload.get("contentBlockIndex")
        if type(index) is not int or index < 0:
            if "contentBlockIndex" not in payload:
                raise VendorDataError(VENDOR, self.where(f"{event}.contentBlockIndex"), "missing")
            raise VendorDataError(
                VENDOR, self.where(f"{event}.contentBlockIndex"), f"not a block index: {index!r}"
            )
        return index

    def _on_contentBlockStart(self, payload: ContentBlockStart) -> list[BaseEvent]:
        index = self._index(payload, "contentBlockStart")
        if index in self._blocks:
            raise VendorDataError(
                VENDOR, self.where("contentBlockIndex"), f"block {index} is already open"
            )
        start = FIELDS.at(payload, "start", dict, self.where("contentBlockStart"))
        at = self.where("contentBlockStart.start")
        if "toolUse" in start:
            return self._start_call(
                index, FIELDS.at(start, "toolUse", dict, at), f"{at}.toolUse", payload
            )
        if "toolResult" in start:
            res = FIELDS.at(start, "toolResult", dict, at)
            vendor_id = FIELDS.at(res, "toolUseId", str, f"{at}.toolResult")
            status = res.get("status")
            rtype = res.get("type")
            self._blocks[index] = _Block(
                "result",
                self._ids.answer(vendor_id) or vendor_id,
                status=status if isinstance(status, str) else None,
                result_type=rtype if isinstance(rtype, str) else None,
            )
            return []
        self._blocks[index] = _Block("skip")  # a start this version does not know (image ...)
        kind = next(iter(start), "?")
        self.losses.append(
            Loss(
                kind="block-dropped",
                target="AG-UI",
                reason=f"{at}: a {kind!r} content block has no AG-UI event",
            )
        )
        return []

    def _start_call(
        self, index: int, use: dict[str, Any], at: str, payload: ContentBlockStart
    ) -> list[BaseEvent]:
        vendor_id = FIELDS.at(use, "toolUseId", str, at)
        name = FIELDS.at(use, "name", str, at)
        mid = self._mid(payload)
        cid = self._ids.assign(vendor_id, self.known_call_ids)
        meta = dict(self._ids.metadata(cid, vendor_id))
        if isinstance(use.get("type"), str):
            meta[TYPE_KEY] = use["type"]
        self._blocks[index] = _Block("call", cid)
        if not meta:  # the usual start: built directly (the validator's instance)
            return [call_start(cid, name, mid)]
        return [
            ToolCallStartEvent(
                tool_call_id=cid, tool_call_name=name, parent_message_id=mid, metadata=meta
            )
        ]

    def _open_by_delta(self, index: int, delta: DeltaPayload, payload: ContentBlockDelta) -> _Block:
        """A text or reasoning block opens with its first delta (Converse sends no start)."""
        mid = self._mid(payload)
        if "text" in delta or "citation" in delta:
            return _Block("text", mid)
        if "reasoningContent" in delta:
            return _Block("reasoning", reasoning_id(mid, index))
        if "toolUse" in delta:
            raise VendorDataError(
                VENDOR,
                self.where("contentBlockDelta.delta.toolUse"),
                f"tool input for block {index}, which no contentBlockStart opened",
            )
        kind = next(iter(delta), "?")
        self._drop(
            "block-dropped",
            f"{self.where('contentBlockDelta.delta')}: a {kind!r} content block has no AG-UI event",
        )
        return _Block("skip")

    def _on_contentBlockDelta(self, payload: ContentBlockDelta) -> list[BaseEvent]:
        index = self._index(payload, "contentBlockDelta")
        delta = payload.get("delta")
        if not isinstance(delta, dict):  # checked here, the one place: a DeltaPayload from now
            delta = FIELDS.at(payload, "delta", dict, self.where("contentBlockDelta"))
        at = self.where("contentBlockDelta.delta")
        out: list[BaseEvent] = []
        block = self._blocks.get(index)
        if block is None:
            block = self._open_by_delta(index, delta, payload)
            self._blocks[index] = block
            if block.kind == "text":
                out.append(TextMessageStartEvent(message_id=block.ident, role="assistant"))
            elif block.kind == "reasoning":
                out.append(ReasoningStartEvent(message_id=block.ident))
                out.append(ReasoningMessageStartEvent(message_id=block.ident, role="reasoning"))
        if block.kind == "skip":
            return out
        # a fragment into its open block of its kind: the rule makes its event (as for the
        # deltas read fused), passing only a tool input over the argument cap, named here
        if "text" in delta:
            self._kind(block, "text", index, "text")
            text = FIELDS.at(delta, "text", str, at)
            out += self._taken(self._delta(index, text, None, None))
        elif "citation" in delta:
            self._kind(block, "text", index, "citation")
            block.citations.append(delta["citation"])
        elif "toolUse" in delta:
            self._kind(block, "call", index, "toolUse")
            use = FIELDS.at(delta, "toolUse", dict, at)
            text = FIELDS.at(use, "input", str, f"{at}.toolUse")
            taken = self._delta(index, None, text, None)
            if taken is PASS:
                size = block.args + len(text)
                check("max_argument_chars", size, lambda: self.where("toolUse.input"))
            out += self._taken(taken)
        elif "reasoningContent" in delta:
            self._kind(block, "reasoning", index, "reasoningContent")
            rc = FIELDS.at(delta, "reasoningContent", dict, at)
            where = f"{at}.reasoningContent"
            if "text" in rc:
                text = FIELDS.at(rc, "text", str, where)
                out += self._taken(self._delta(index, None, None, text))
            if "signature" in rc:
                block.signature.append(FIELDS.at(rc, "signature", str, where))
            if "redactedContent" in rc:
                block.redacted.append(blob_text(rc["redactedContent"], f"{where}.redactedContent"))
        elif "toolResult" in delta:
            self._kind(block, "result", index, "toolResult")
            block.pieces.extend(FIELDS.at(delta, "toolResult", list, at))
        else:  # a delta kind this version does not know, into a block it does
            kind = next(iter(delta), "?")
            self._drop(
                "delta-dropped", f"{at}: a {kind!r} delta of block {index} has no AG-UI event"
            )
        return out

    @staticmethod
    def _taken(taken: Taken) -> list[BaseEvent]:
        """What the rule made of a fragment the general path checked (never passed)."""
        if taken is PASS:
            raise AssertionError("the rule passed a fragment into its open block of its kind")
        return [] if taken is None else [taken]

    def _drop(self, kind: str, reason: str) -> None:
        self.losses.append(Loss(kind=kind, target="AG-UI", reason=f"{VENDOR}: {reason}"))

    def _kind(self, block: _Block, kind: str, index: int, what: str) -> None:
        if block.kind != kind:
            raise VendorDataError(
                VENDOR,
                self.where("contentBlockDelta.delta"),
                f"a {what} delta for block {index}, a {block.kind} block",
            )

    def _on_contentBlockStop(self, payload: ContentBlockStop) -> list[BaseEvent]:
        index = self._index(payload, "contentBlockStop")
        block = self._blocks.pop(index, None)
        if block is None:
            # a block that never had a delta (an empty text block): nothing to end
            return []
        if block.kind == "text":
            kw: dict[str, Any] = {}
            if block.citations:
                kw["metadata"] = {CITATIONS_KEY: block.citations}
            return [TextMessageEndEvent(message_id=block.ident, **kw)]
        if block.kind == "call":
            return [call_end(block.ident)]
        if block.kind == "reasoning":
            out: list[BaseEvent] = [ReasoningMessageEndEvent(message_id=block.ident)]
            kind, value = REASONING_TEXT, "".join(block.signature)
            if block.redacted:
                kind, value = REDACTED, "".join(block.redacted)
            if value:
                out.append(
                    ReasoningEncryptedValueEvent(
                        subtype="message",
                        entity_id=block.ident,
                        encrypted_value=value,
                        metadata=mark({TYPE_KEY: kind}, VENDOR),
                    )
                )
            out.append(ReasoningEndEvent(message_id=block.ident))
            return out
        if block.kind == "result":
            return [self._result(block)]
        return []

    def _result(self, block: _Block) -> ToolCallResultEvent:
        """A server tool's result (text and JSON pieces) as one ``TOOL_CALL_RESULT``."""
        texts: list[str] = []
        for i, piece in enumerate(block.pieces):
            where = self.where(f"contentBlockDelta.delta.toolResult[{i}]")
            FIELDS.obj(piece, where)
            if "text" in piece:
                texts.append(FIELDS.at(piece, "text", str, where))
            elif "json" in piece:
                texts.append(dumps_compact(piece["json"], VENDOR, f"{where}.json"))
            else:
                kind = next(iter(piece), "?")
                self._drop(
                    "result-part-dropped",
                    f"{where}: a {kind!r} piece of a server tool's result has no AG-UI field",
                )
        content = "".join(texts)
        meta: dict[str, Any] = {}
        if block.result_type:
            meta[TYPE_KEY] = block.result_type
        if block.status:
            meta[STATUS_KEY] = block.status
        if block.status == "error":
            meta[RESULT_ERROR_KEY] = content
        return ToolCallResultEvent(
            message_id=result_message_id(block.ident),
            tool_call_id=block.ident,
            content=content,
            role="tool",
            metadata=meta or None,
        )


#: the event type (the member's name) -> its handler: the one table the decoder dispatches
#: an event through
_HANDLERS: dict[str, Callable[[Decoder, Any], list[BaseEvent]]] = {
    "messageStart": Decoder._on_messageStart,
    "contentBlockStart": Decoder._on_contentBlockStart,
    "contentBlockDelta": Decoder._on_contentBlockDelta,
    "contentBlockStop": Decoder._on_contentBlockStop,
    "messageStop": Decoder._on_messageStop,
    "metadata": Decoder._on_metadata,
}

__all__ = ["Decoder", "reasoning_id"]
