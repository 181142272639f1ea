"""Anthropic's wire: SSE framing, the metadata keys toolwire uses, usage both ways, the
stop-reason map and the field reader (:data:`FIELDS`) every module reads the JSON with.

Anthropic names every SSE event (``event: message_start`` ...) and its SDK acts
on the name: ``ping`` is skipped, ``error`` is raised, an unnamed event is
ignored. :func:`sse_chunks` keeps that information in the chunk dicts the
:class:`~toolwire.adapters.anthropic.decoder.Decoder` takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from re import Match
from typing import Any, Literal, TypedDict

from ag_ui.core import TokenUsage

from toolwire.errors import VendorDataError
from toolwire.protocol._fastpath import DeltaForm, Index, Later, SSEChunks, Text, Word, reached
from toolwire.protocol.callids import IdRule
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.framing import sse_framing
from toolwire.protocol.ids import mint_id
from toolwire.protocol.jsontext import CheckedObject, clean_object, clean_objects, load_json
from toolwire.protocol.recorded import ModelRoute, Recorded
from toolwire.protocol.sse import (
    SSEEvent,
    SSEParser,
    event_places,
    frame_sse,
    piece_objects,
    sse_event_lists,
)
from toolwire.protocol.usage import summed_count, token_count

VENDOR = "anthropic"
#: The one reader of Anthropic's JSON fields (absent, null and wrong types alike everywhere).
FIELDS = Fields(VENDOR)


# ---------------------------------------------------------------- the wire's shapes
# As the Messages API documents them (``anthropic.types``); what the code reads and writes is
# typed with these, and every read of input from the network is still checked at run time.


class Usage(TypedDict, total=False):
    """``Usage`` (``message_start.message.usage``) and ``MessageDeltaUsage`` (cumulative)."""

    input_tokens: int | None
    output_tokens: int
    cache_creation_input_tokens: int | None
    cache_read_input_tokens: int | None
    server_tool_use: dict[str, Any] | None
    service_tier: str | None


class TextBlock(TypedDict, total=False):
    type: Literal["text"]
    text: str
    citations: list[Any] | None
    cache_control: dict[str, Any]


class ToolUseBlock(TypedDict, total=False):
    """``tool_use`` (and the server's ``server_tool_use`` / ``mcp_tool_use``)."""

    type: str
    id: str
    name: str
    input: dict[str, Any]
    caller: dict[str, Any]
    toolset_name: str
    server_name: str
    cache_control: dict[str, Any]


class ToolResultBlock(TypedDict, total=False):
    """``tool_result`` (``content`` omitted: the documented empty result)."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[dict[str, Any]]
    is_error: bool
    cache_control: dict[str, Any]


class ThinkingBlock(TypedDict, total=False):
    """``thinking`` (``thinking`` + ``signature``) or ``redacted_thinking`` (``data``)."""

    type: str
    thinking: str
    signature: str
    data: str


class Message(TypedDict, total=False):
    """A whole (non-streamed) response, and ``message_start.message``."""

    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    model: str
    content: list[dict[str, Any]]
    stop_reason: str | None
    stop_sequence: str | None
    usage: Usage


class MessageStart(TypedDict, total=False):
    type: Literal["message_start"]
    message: Message


class ContentBlockStart(TypedDict, total=False):
    type: Literal["content_block_start"]
    index: int
    content_block: dict[str, Any]


class BlockDelta(TypedDict, total=False):
    """``text_delta`` / ``input_json_delta`` / ``thinking_delta`` / ``signature_delta`` /
    ``citations_delta``: ``type`` and the one field :data:`DELTA_FORM` names."""

    type: str
    text: str
    partial_json: str
    thinking: str
    signature: str
    citation: dict[str, Any]


class ContentBlockDelta(TypedDict, total=False):
    type: Literal["content_block_delta"]
    index: int
    delta: BlockDelta


class ContentBlockStop(TypedDict, total=False):
    type: Literal["content_block_stop"]
    index: int


class MessageDeltaBody(TypedDict, total=False):
    stop_reason: str | None
    stop_sequence: str | None


class MessageDelta(TypedDict, total=False):
    type: Literal["message_delta"]
    delta: MessageDeltaBody
    usage: Usage


class MessageStop(TypedDict, total=False):
    type: Literal["message_stop"]


class ErrorBody(TypedDict, total=False):
    type: str
    message: str


class StreamError(TypedDict, total=False):
    type: Literal["error"]
    error: ErrorBody


#: One event of a stream (``ping`` aside), as its ``type`` says.
StreamEvent = (
    MessageStart
    | ContentBlockStart
    | ContentBlockDelta
    | ContentBlockStop
    | MessageDelta
    | MessageStop
    | StreamError
)


class ToolParam(TypedDict, total=False):
    """A client tool of the request (``tools[]``)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    cache_control: dict[str, Any]


class MessageParam(TypedDict):
    """One message of the request: ``user`` or ``assistant``, text or blocks."""

    role: Literal["user", "assistant"]
    content: str | list[dict[str, Any]]


class MessagesRequest(TypedDict, total=False):
    """The request body of ``POST /v1/messages`` (what ``encode_request`` returns)."""

    model: str
    max_tokens: int
    system: str | list[dict[str, Any]]
    messages: list[MessageParam]
    tools: list[dict[str, Any]]
    tool_choice: dict[str, Any]
    thinking: dict[str, Any]
    stream: bool


# Metadata keys (vendor-prefixed, as the protocol asks for invented keys).
TYPE_KEY = "anthropic.type"  # the vendor block type behind a call, part or reasoning message
BLOCK_KEY = "anthropic.block"  # a server-tool result block kept verbatim on its tool message
SERVER_NAME_KEY = "anthropic.server_name"  # mcp_tool_use.server_name
CALLER_KEY = "anthropic.caller"  # tool_use.caller
TOOLSET_KEY = "anthropic.toolset_name"  # tool_use.toolset_name
ERROR_CODE_KEY = "anthropic.error_code"  # *_tool_result_error.error_code
CITATIONS_KEY = "anthropic.citations"  # citations of one text block
CACHE_CONTROL_KEY = "anthropic.cache_control"  # tool_result.cache_control
GROUP_KEY = "anthropic.group"  # which search_result block a text part came from
CONTEXT_KEY = "anthropic.context"  # document.context
ENCRYPTED_CONTENT_KEY = "anthropic.encrypted_content"  # web_search_result.encrypted_content
# RUN_FINISHED.metadata: how the message ended (message_delta.delta), put there by frame_run
STOP_REASON_KEY = "anthropic.stop_reason"
STOP_SEQUENCE_KEY = "anthropic.stop_sequence"

#: Content-block types that are calls Anthropic itself runs (their results arrive in-stream).
SERVER_CALL_TYPES = ("server_tool_use", "mcp_tool_use")
CALL_TYPES = ("tool_use", *SERVER_CALL_TYPES)

#: In-stream error types worth retrying (DESIGN.md: an overloaded error inside the stream).
RETRYABLE_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})


def reasoning_id(message_id: str, index: int) -> str:
    """The id of the reasoning message a thinking block becomes (Anthropic gives none)."""
    return mint_id("reasoning", message_id, index)


def call_metadata(btype: str, block: dict[str, Any]) -> dict[str, Any]:
    """What a call block carries beyond id, name and input, as call metadata (decode side)."""
    meta: dict[str, Any] = {}
    if btype != "tool_use":
        meta[TYPE_KEY] = btype
    if isinstance(block.get("server_name"), str):
        meta[SERVER_NAME_KEY] = block["server_name"]
    if isinstance(block.get("caller"), dict):
        meta[CALLER_KEY] = block["caller"]
    if isinstance(block.get("toolset_name"), str):
        meta[TOOLSET_KEY] = block["toolset_name"]
    return meta


#: Messages calls, under any host and prefix, and Vertex AI's raw predict for Claude
#: (not ``/v1/messages/count_tokens``, files or models).
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/messages",), verbs=("rawPredict", "streamRawPredict"))


#: ``tool_use.id`` / ``tool_result.tool_use_id``: 400 "String should match pattern
#: '^[a-zA-Z0-9_-]+$'"; 64 characters is the length Claude's toolUseId takes on Bedrock
#: (Anthropic documents no longer one), kept as the safe bound.
CALL_ID_RULE = IdRule(
    VENDOR, max_length=64, pattern=r"[a-zA-Z0-9_-]+", source="Messages request validation"
)


def is_model_exchange(exchange: Recorded) -> bool:
    """True for a recorded Messages call (the shared rule, :data:`MODEL_ROUTE`)."""
    return MODEL_ROUTE.admits(exchange)


def _chunk(ev: SSEEvent, n: int, fine: CheckedObject | None = None) -> dict[str, Any]:
    name = ev.event
    if name is None:
        raise VendorDataError(
            VENDOR,
            f"SSE event {n}",
            "no 'event:' line; Anthropic names every event and its SDK ignores unnamed ones",
        )
    if name == "ping":
        return {"type": "ping"}
    if fine is not None:  # parsed with the rest of its piece (``piece_objects``)
        if name != "error" and "type" in fine:
            return fine
    else:
        plain = clean_object(ev.data)  # most events: no place spelled out, no second look
        if plain is not None and name != "error" and "type" in plain:
            return CheckedObject.made(plain)
    try:
        payload = load_json(ev.data, VENDOR, f"SSE event {n} ({name})")
    except VendorDataError as exc:
        if name == "error":  # the SDK raises with the raw text as the message
            return {"type": "error", "error": {"type": "error", "message": ev.data}}
        raise VendorDataError(VENDOR, f"SSE event {n} ({name})", f"data: {exc.reason}") from None
    if not isinstance(payload, dict):
        raise VendorDataError(
            VENDOR, f"SSE event {n} ({name})", f"data is a {type(payload).__name__}, not an object"
        )
    if name == "error" and payload.get("type") != "error":
        inner = payload.get("error", payload)
        return {"type": "error", "error": inner}
    if "type" not in payload:  # named by its event line: a dict the decoder checks again
        return {**payload, "type": name}
    return CheckedObject.made(payload)


#: One SSE event of an Anthropic stream (its index, and its data when parsed with its
#: piece's: ``piece_objects``) as the chunk dict :class:`Decoder` takes. Push-style
#: readers call it per event.
sse_event_chunk = _chunk


def iter_sse_chunks(pieces: Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """Chunk dicts from SSE bytes arriving in any pieces (incremental, sans-I/O); its
    decoder reads the content deltas fused (:data:`DELTA_FORM`). An event whose chunk may
    warn or fail is made once the chunks before it are read (its warning or error in
    stream order, as when each event comes alone)."""

    def lists(reader: SSEChunks) -> Iterator[list[Any]]:
        n = 0
        for events in sse_event_lists(pieces, SSEParser(VENDOR), reader=reader):
            if reader.fast is None:
                at: Iterable[int] = range(len(events))
                objects = piece_objects(events)
            else:  # mostly matches, left as they are: the other events made chunks in place
                at = event_places(events)
                objects = clean_objects([events[i].data for i in at])
            later = False  # (an event made when it is reached: its warning or error then)
            for i, fine in zip(at, objects, strict=True):
                ev = events[i]
                if fine is not None:  # clean by the batch parse: made now if the rule takes it
                    try:
                        events[i] = _chunk(ev, n + i, fine)
                        continue
                    except VendorDataError:
                        pass
                events[i] = Later(_chunk, ev, n + i, fine)
                later = True
            yield from reached(events) if later else (events,)
            n += len(events)

    return SSEChunks(lists, _matched, numbered=True)


def _matched(match: Match[str], n: int) -> dict[str, Any]:
    """The chunk dict of a content delta :data:`DELTA_FORM` matched, as ``_chunk`` makes
    it for event ``n`` (a matched text is a clean JSON object: what can be wrong with it
    is a depth cap lowered since its piece was read, named as the general reading names
    it)."""
    return _chunk(SSEEvent(match.group("data"), "content_block_delta"), n)


#: A content delta as Anthropic writes it (compact, its keys in this order): the block's
#: index, the delta type, the name of its text field and the text. The decoder's rule
#: (``Decoder._content_delta``) reads what it becomes; ``protocol._fastpath`` reads it.
DELTA_FORM = DeltaForm(
    {
        "type": "content_block_delta",
        "index": Index("index"),
        "delta": {"type": Word("kind"), Word("field"): Text("text")},
    },
    "content_block_delta",
)


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """An Anthropic SSE body (whole, or its pieces) as the chunk dicts :class:`Decoder` takes."""
    return iter_sse_chunks([body] if isinstance(body, (bytes, str)) else body)


def to_sse(chunks: Iterable[dict[str, Any]]) -> bytes:
    """Anthropic SSE framing: an ``event:`` line naming each payload's type, LF line ends."""
    return frame_sse(chunks, event_of="type", vendor=VENDOR)


def plain(value: Any) -> Any:
    """An SDK model as the JSON-shaped dict of the fields the wire carried.

    ``model_dump`` in python mode: Anthropic's stream events hold only strings,
    numbers, lists and dicts, so it equals the JSON-mode dump the shared
    ``as_dict`` makes, at about two thirds of the cost (a long stream has tens of
    thousands of events).
    """
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="python", by_alias=True, exclude_unset=True)
        except TypeError:
            return dump()
    return value


def _count(usage: dict[str, Any], key: str, where: str) -> int | None:
    return token_count(usage.get(key), VENDOR, f"{where}.{key}")


def _within(total: int, what: str, where: str) -> int:
    return summed_count(total, VENDOR, where, what)


def token_usage(usage: dict[str, Any], model: str | None, where: str) -> TokenUsage | None:
    """Anthropic usage -> ``TokenUsage`` in the protocol's accounting.

    Anthropic reports cache reads and writes *beside* ``input_tokens``; the
    protocol counts them *inside* ``inputTokens``, so they are added in. A count
    Anthropic did not send stays absent (never a made-up zero).
    """
    base = _count(usage, "input_tokens", where)
    read = _count(usage, "cache_read_input_tokens", where)
    write = _count(usage, "cache_creation_input_tokens", where)
    out = _count(usage, "output_tokens", where)
    details = usage.get("output_tokens_details")
    thinking = (
        _count(details, "thinking_tokens", f"{where}.output_tokens_details")
        if isinstance(details, dict)
        else None
    )
    kw: dict[str, Any] = {"provider": VENDOR}
    if model:
        kw["model"] = model
    if base is not None:
        kw["input_tokens"] = _within(
            base + (read or 0) + (write or 0), "input_tokens with the cache counts", where
        )
    if read is not None:
        kw["cached_input_tokens"] = read
    if write is not None:
        kw["cache_write_input_tokens"] = write
    if out is not None:
        kw["output_tokens"] = out
    if thinking is not None:
        kw["reasoning_tokens"] = thinking
    if base is not None and out is not None:
        kw["total_tokens"] = _within(kw["input_tokens"] + out, "the total", where)
    if len(kw) == (2 if model else 1):
        return None
    return TokenUsage(**kw)


def usage_fields(usage: TokenUsage) -> dict[str, Any]:
    """``TokenUsage`` -> Anthropic usage fields (cache counts taken back out of the input)."""
    out: dict[str, Any] = {}
    read = usage.cached_input_tokens
    write = usage.cache_write_input_tokens
    if usage.input_tokens is not None:
        out["input_tokens"] = max(usage.input_tokens - (read or 0) - (write or 0), 0)
    if write is not None:
        out["cache_creation_input_tokens"] = write
    if read is not None:
        out["cache_read_input_tokens"] = read
    out["output_tokens"] = usage.output_tokens or 0
    if usage.reasoning_tokens is not None:
        out["output_tokens_details"] = {"thinking_tokens": usage.reasoning_tokens}
    return out


_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "pause_turn": "pause",
    "refusal": "refusal",
}
#: the stop reason written for a normalized one; stop / tool_calls follow the message's calls
_FOR_REASON = {
    "length": "max_tokens",
    "pause": "pause_turn",
    "refusal": "refusal",
    "content_filter": "refusal",  # the one stop reason Anthropic has for a blocked turn
}


def map_stop_reason(stop_reason: str | None) -> FinishReason:
    """``stop_reason`` -> ``toolwire.finishReason`` (the table: docs/decisions.md)."""
    return _STOP_REASONS.get(stop_reason or "", "other")


def stop_reason_for(reason: FinishReason | None) -> str | None:
    """The ``stop_reason`` for a normalized reason (None: what the message's calls imply)."""
    return _FOR_REASON.get(reason or "")


#: Anthropic's SSE: every event named by its ``event:`` line, no end marker.
FRAMING = sse_framing(VENDOR, sse_chunks, to_sse, chunk_of=sse_event_chunk)
