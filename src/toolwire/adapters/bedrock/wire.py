"""Bedrock Converse's wire: the event-stream framing, metadata keys, usage both ways, the
stop-reason map, blobs, and the field reader (:data:`FIELDS`) every module reads JSON with.

``ConverseStream`` answers in the AWS event stream (``application/vnd.amazon.eventstream``),
not SSE: each frame names its event in the ``:event-type`` header and holds the event's
JSON as payload. A chunk here is what boto3 yields for one event, ``{eventType: payload}``
(``{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}}``); an exception
frame becomes ``{exceptionType: {"message": ...}}`` and a bare error frame
``{"error": {"code": ..., "message": ...}}``. Blobs (image bytes, redacted reasoning) are
base64 text in JSON and ``bytes`` in boto3's dicts and keyword arguments: both are read,
and :func:`to_boto3` turns a request body built here into boto3's form.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from re import Match
from typing import Any, TypedDict

from ag_ui.core import TokenUsage

from toolwire.errors import VendorDataError
from toolwire.protocol._compact_json import compact
from toolwire.protocol._fastpath import (
    OTHERS,
    SCALAR,
    DeltaForm,
    Index,
    Later,
    OneOf,
    SSEChunks,
    Text,
    reached,
)
from toolwire.protocol.callids import IdRule
from toolwire.protocol.eventstream import (
    Frame,
    FramePushReader,
    frame_bytes,
    header_block,
    write_frame,
)
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.jsontext import (
    CheckedObject,
    JSONTextError,
    check_depth,
    clean_objects,
    escape_surrogates,
    load_json,
)
from toolwire.protocol.limits import limits
from toolwire.protocol.recorded import Exchange, ModelRoute, Recorded
from toolwire.protocol.usage import summed_count, token_count

VENDOR = "bedrock"
#: The one reader of Bedrock's JSON fields (absent, null and wrong types alike everywhere).
FIELDS = Fields(VENDOR)
MEDIA_TYPE = "application/vnd.amazon.eventstream"

# Metadata keys (vendor-prefixed, as the protocol asks for invented keys).
TYPE_KEY = "bedrock.type"  # toolUse.type (server_tool_use), or the reasoning block kind
STATUS_KEY = "bedrock.status"  # a server tool result's status
CITATIONS_KEY = "bedrock.citations"  # citation deltas of one text block
NAME_KEY = "bedrock.name"  # a document block's name (required by Bedrock)
FORMAT_KEY = "bedrock.format"  # a document's format when no MIME type says it
S3_OWNER_KEY = "bedrock.bucket_owner"  # s3Location.bucketOwner
# RUN_FINISHED.metadata: how the message ended
STOP_REASON_KEY = "bedrock.stop_reason"
RESPONSE_FIELDS_KEY = "bedrock.additional_model_response_fields"
METRICS_KEY = "bedrock.metrics"
TRACE_KEY = "bedrock.trace"
PERFORMANCE_KEY = "bedrock.performance_config"
SERVICE_TIER_KEY = "bedrock.service_tier"

#: the reasoning block kinds (``TYPE_KEY`` on a reasoning message / encrypted value)
REASONING_TEXT = "reasoningText"
REDACTED = "redactedContent"

#: the exception events ConverseStream declares (an exception frame's ``:exception-type``)
EXCEPTIONS = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    }
)
#: in-stream errors worth another attempt (throttling and the 5xx ones)
RETRYABLE_ERRORS = frozenset(
    {"throttlingException", "internalServerException", "serviceUnavailableException"}
)
#: the stream's event types (the members of ``ConverseStreamOutput`` that are events)
EVENTS = (
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
)

#: ``ConverseStream`` and ``Converse`` (``POST /model/{modelId}/converse[-stream]``)
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/converse", "/converse-stream"))

#: ``toolUse.toolUseId``: the Converse reference gives ``[a-zA-Z0-9_-]+``, 1 to 64 characters
#: (botocore's newer model also admits ``.`` and ``:``; the narrower rule is the one every
#: model behind Bedrock takes).
CALL_ID_RULE = IdRule(
    VENDOR, max_length=64, pattern=r"[a-zA-Z0-9_-]+", source="Converse ToolUseBlock.toolUseId"
)


# ---------------------------------------------------------------- the wire's shapes
# As Converse / ConverseStream document them (botocore's service model); the decoder's
# handlers take them, and every read of input from the network is still checked at run time.


class DeltaPayload(TypedDict, total=False):
    """``contentBlockDelta.delta``: one of its members."""

    text: str
    toolUse: dict[str, Any]
    reasoningContent: dict[str, Any]
    citation: dict[str, Any]
    toolResult: list[dict[str, Any]]


class ToolUseStart(TypedDict, total=False):
    """``contentBlockStart.start.toolUse`` (``type``: ``server_tool_use`` for a server tool)."""

    toolUseId: str
    name: str
    type: str


class BlockStart(TypedDict, total=False):
    toolUse: ToolUseStart
    toolResult: dict[str, Any]


class MessageStart(TypedDict, total=False):
    role: str


class ContentBlockStart(TypedDict, total=False):
    contentBlockIndex: int
    start: BlockStart


class ContentBlockDelta(TypedDict, total=False):
    contentBlockIndex: int
    delta: DeltaPayload


class ContentBlockStop(TypedDict, total=False):
    contentBlockIndex: int


class MessageStop(TypedDict, total=False):
    stopReason: str
    additionalModelResponseFields: dict[str, Any]


class Usage(TypedDict, total=False):
    """``TokenUsage`` (cache counts beside ``inputTokens``)."""

    inputTokens: int
    outputTokens: int
    totalTokens: int
    cacheReadInputTokens: int
    cacheWriteInputTokens: int


class Metadata(TypedDict, total=False):
    """``metadata``: the last event, after ``messageStop``."""

    usage: Usage
    metrics: dict[str, Any]
    trace: dict[str, Any]
    performanceConfig: dict[str, Any]
    serviceTier: dict[str, Any]


class StreamEvent(TypedDict, total=False):
    """One ``ConverseStream`` event: exactly one member, named by its event type (an
    exception member instead says what went wrong)."""

    messageStart: MessageStart
    contentBlockStart: ContentBlockStart
    contentBlockDelta: ContentBlockDelta
    contentBlockStop: ContentBlockStop
    messageStop: MessageStop
    metadata: Metadata


class Message(TypedDict, total=False):
    """A message of the request or of ``output.message``: its content blocks."""

    role: str
    content: list[dict[str, Any]]


class ConverseOutput(TypedDict, total=False):
    message: Message


class ConverseResponse(TypedDict, total=False):
    """A whole (non-streamed) ``Converse`` answer."""

    output: ConverseOutput
    stopReason: str
    usage: Usage
    metrics: dict[str, Any]
    additionalModelResponseFields: dict[str, Any]
    trace: dict[str, Any]
    performanceConfig: dict[str, Any]
    serviceTier: dict[str, Any]


class ToolUseBlock(TypedDict, total=False):
    """``{"toolUse": ...}`` of an assistant message."""

    toolUseId: str
    name: str
    input: Any
    type: str


class ToolResultBlock(TypedDict, total=False):
    """``{"toolResult": ...}`` of a user message (``status``: ``success`` | ``error``)."""

    toolUseId: str
    content: list[dict[str, Any]]
    status: str
    type: str


class ToolInputSchema(TypedDict):
    json: dict[str, Any]


class ToolSpec(TypedDict, total=False):
    name: str
    description: str
    inputSchema: ToolInputSchema


class ToolDefinition(TypedDict, total=False):
    """One ``toolConfig.tools[]`` member (a ``toolSpec``; ``cachePoint`` and
    ``systemTool`` are the others)."""

    toolSpec: ToolSpec
    cachePoint: dict[str, Any]
    systemTool: dict[str, Any]


class ConverseRequest(TypedDict, total=False):
    """The request of ``Converse`` / ``ConverseStream`` (``modelId`` in the path)."""

    modelId: str
    messages: list[Message]
    system: list[dict[str, Any]]
    inferenceConfig: dict[str, Any]
    toolConfig: dict[str, Any]
    additionalModelRequestFields: dict[str, Any]
    additionalModelResponseFieldPaths: list[str]
    performanceConfig: dict[str, Any]
    serviceTier: dict[str, Any]


#: ``inferenceConfig`` members a caller may give as options or run params (either spelling)
INFERENCE_OPTIONS = {
    "maxTokens": "maxTokens",
    "max_tokens": "maxTokens",
    "temperature": "temperature",
    "topP": "topP",
    "top_p": "topP",
    "stopSequences": "stopSequences",
    "stop_sequences": "stopSequences",
    "stop": "stopSequences",
}


def add_options(body: dict[str, Any], options: dict[str, Any]) -> None:
    """Options into a Converse body: sampling ones (``temperature``, ``top_p``, ``stop`` ...)
    into ``inferenceConfig``, which is where Converse takes them; the rest at the top level
    as given (``additionalModelRequestFields``, ``guardrailConfig`` ...)."""
    for key, value in options.items():
        member = INFERENCE_OPTIONS.get(key)
        if member is None:
            body[key] = value
            continue
        config = dict(body.get("inferenceConfig") or {})
        config[member] = [value] if member == "stopSequences" and isinstance(value, str) else value
        body["inferenceConfig"] = config


# ------------------------------------------------------------------ blobs


def blob_text(value: Any, where: str) -> str:
    """A blob as base64 text: ``bytes`` (boto3) encoded, a string (JSON) checked as base64."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, str):
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise VendorDataError(VENDOR, where, "a blob that is not base64") from None
        return value
    raise FIELDS.wrong(value, (bytes, str), where)


def blob_bytes(value: str, where: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise VendorDataError(VENDOR, where, "a blob that is not base64") from None


#: where a request body holds blobs: a ``source.bytes`` of image, document, video, audio and
#: ``reasoningContent.redactedContent``
_BLOB_KEYS = ("bytes", "redactedContent")


def to_boto3(body: dict[str, Any]) -> dict[str, Any]:
    """A request body from :func:`~toolwire.adapters.bedrock.encode_request` (blobs as base64
    text, JSON-safe) as boto3's keyword arguments (blobs as ``bytes``): what
    ``client.converse_stream(**to_boto3(body))`` takes. A body without blobs is returned as is.
    """

    def walk(value: Any, key: str | None, where: str) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k, f"{where}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, None, f"{where}[{i}]") for i, v in enumerate(value)]
        if key in _BLOB_KEYS and isinstance(value, str):
            return blob_bytes(value, where)
        return value

    if not _has_blob(body):
        return body
    out: dict[str, Any] = walk(body, None, "request")
    return out


def _has_blob(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if any(k in v for k in _BLOB_KEYS):
                return True
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def json_form(value: Any) -> Any:
    """boto3's dicts as their JSON form (``bytes`` -> base64 text), recursively."""
    if isinstance(value, dict):
        return {k: json_form(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_form(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


# ------------------------------------------------------------------ framing

#: what a frame's headers say it is: ``(what, name)``; ``what`` one of ``event``,
#: ``exception`` (``name``: ``:event-type`` / ``:exception-type``, whatever it holds),
#: ``error`` (``name``: the ``(code, message)`` of its headers), or ``?`` (``name``: the
#: ``:message-type`` no chunk has)
FrameKind = tuple[str, Any]

#: the kind of the commonest frame: a content delta event
_DELTA_KIND: FrameKind = ("event", "contentBlockDelta")


def frame_kind(headers: Mapping[str, Any]) -> FrameKind:
    """A frame's kind by its headers (worked out once per distinct header block by the
    frame reader: ``FrameReader.feed_items``); what is wrong is named by :func:`kind_chunk`."""
    mtype = headers.get(":message-type", "event")
    if mtype == "error":
        code = headers.get(":error-code")
        message = headers.get(":error-message")
        return ("error", (code if isinstance(code, str) else "error",
                          message if isinstance(message, str) else ""))  # fmt: skip
    if mtype == "exception":
        return ("exception", headers.get(":exception-type"))
    if mtype != "event":
        return ("?", mtype)
    kind = ("event", headers.get(":event-type"))
    return _DELTA_KIND if kind == _DELTA_KIND else kind


def kind_chunk(
    kind: FrameKind, payload: bytes, n: int, fine: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Frame ``n`` (its kind and payload) as the chunk dict boto3 would give for it;
    ``fine``: an event's payload parsed with its piece's (:func:`kind_chunks`)."""
    what, name = kind
    where = f"event-stream frame {n}"
    if what == "error":
        code, message = name
        return {"error": {"code": code, "message": message}}
    if what == "exception":
        if not isinstance(name, str):
            raise VendorDataError(VENDOR, where, "an exception frame with no :exception-type")
        try:
            value = load_json(payload, VENDOR, where) if payload else {}
        except VendorDataError:
            value = {"message": payload.decode("utf-8", "replace")}
        if not isinstance(value, dict):
            value = {"message": str(value)}
        return {name: value}
    if what != "event":
        raise VendorDataError(VENDOR, where, f"unknown :message-type {name!r}")
    if not isinstance(name, str):
        raise VendorDataError(VENDOR, where, "an event frame with no :event-type")
    if fine is not None:
        return CheckedObject.made({name: fine})
    value = load_json(payload, VENDOR, f"{where} ({name})") if payload else {}
    if not isinstance(value, dict):
        raise VendorDataError(
            VENDOR, f"{where} ({name})", f"payload is a {type(value).__name__}, not an object"
        )
    return CheckedObject.made({name: value})


def kind_chunks(frames: list[tuple[FrameKind, bytes, int]], made: list[Any]) -> list[Any]:
    """:func:`kind_chunk` of each frame, appended to ``made``, the event payloads parsed in
    batches (``clean_objects``: json's parser entered once per batch, as the SSE readers'
    ``piece_objects``); a frame the batch cannot vouch for (a payload that is no UTF-8, no
    object, or one the rules would change, such as a lone surrogate replaced, with a
    warning; an exception frame; a frame of no known kind) is left to :func:`kind_chunk`
    when it is reached (a ``Later``), which names what is wrong: its warning or error
    comes after the frames before it are handed on, as when each frame is read alone. (A
    vouched frame that names no event raises here, once the chunks before it are made:
    its reader hands them on first.)"""
    at: list[int] = []
    texts: list[str] = []
    for i, (kind, payload, _) in enumerate(frames):
        if kind[0] == "event" and payload:
            try:
                texts.append(payload.decode())
            except UnicodeDecodeError:
                continue
            at.append(i)
    fine: list[dict[str, Any] | None] = [None] * len(frames)
    for i, value in zip(at, clean_objects(texts), strict=True):
        if value is not None:
            fine[i] = dict(value)  # (a plain dict inside the chunk, as ``load_json`` gives)
    add = made.append
    for (kind, payload, n), parsed in zip(frames, fine, strict=True):
        if parsed is not None or kind[0] == "error":  # (nothing to say, or said at once)
            add(kind_chunk(kind, payload, n, parsed))
        else:
            add(Later(kind_chunk, kind, payload, n))
    return made


def frame_chunk(frame: Frame, n: int) -> dict[str, Any]:
    """One event-stream frame as the chunk dict boto3 would give for it."""
    return kind_chunk(frame_kind(frame.headers), frame.payload, n)


def ChunkReader() -> FramePushReader[FrameKind]:  # (the contract's name: once a class)
    """Push-style: event-stream bytes in pieces -> chunk dicts (the contract's
    ``ChunkReader``), a piece's frames made together (:func:`kind_chunks`); its fused feed
    (``feed_all`` with :data:`DELTA_FORM`'s payloads reader: what the driver's pieces are
    read with, ``protocol.pushed``) leaves the delta frames the form takes as its matches
    or tuples, as :func:`sse_chunks` does.

    ``done`` is never set early: every frame is read, and a stream cut inside a frame is
    ``TruncatedStream`` at ``close()`` (a missing ``messageStop`` is the decoder's to name).
    """
    return FramePushReader(VENDOR, frame_kind, kind_chunk, _DELTA_KIND, _matched, kind_chunks)


def _pieces(body: bytes | str | Iterable[bytes | str]) -> Iterable[bytes | str]:
    return [body] if isinstance(body, (bytes, str)) else body


#: A content delta's payload as Bedrock writes it (compact, these keys in this order, the
#: frame's padding ``p`` or any other scalar member after them): its block index and a
#: text, tool-input or reasoning-text fragment. The decoder's rule (``Decoder._delta``)
#: reads what it becomes; the push reader's fused feed reads the payloads with the form's
#: expression of the payload alone (``DELTA_FORM.payload``).
DELTA_FORM = DeltaForm(
    {
        "contentBlockIndex": Index("index"),
        "delta": OneOf(
            {"text": Text("text")},
            {"toolUse": {"input": Text("input")}},
            {"reasoningContent": {"text": Text("reasoning")}},
        ),
        OTHERS: SCALAR,
    }
)


def _matched(match: Match[str], n: int | None = None) -> dict[str, Any]:
    """The chunk dict of a delta payload :data:`DELTA_FORM` matched, as :func:`kind_chunk`
    makes it of frame ``n`` (a matched text is one clean JSON object; an error, under caps
    changed since it was matched, names the frame as the general reading does)."""
    where = "JSON text" if n is None else f"event-stream frame {n} (contentBlockDelta)"
    value = load_json(match.group("data"), VENDOR, where)
    return CheckedObject.made({"contentBlockDelta": value})


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """An event-stream body (whole, or pieces split anywhere) as chunk dicts, lazily.

    (The contract's name for "the vendor's framing, read"; Bedrock's is no SSE.) Text is
    refused: the event stream is binary. While the decoder reads it fused
    (``protocol._fastpath.read_stream``), a delta frame whose payload :data:`DELTA_FORM`
    takes comes as its match or tuple, no JSON parsed and no dict made. A frame whose
    chunk may warn or fail is made once the chunks before it are read (its warning or
    error in stream order, as when each frame comes alone).
    """

    def lists(reader: SSEChunks) -> Iterator[list[Any]]:
        frames = ChunkReader()
        read = DELTA_FORM.payloads_reader()
        for piece in _pieces(body):
            if isinstance(piece, str):
                raise VendorDataError(
                    VENDOR, "stream body", "the AWS event stream is binary; got text"
                )
            if reader.pattern() is DELTA_FORM.pattern:  # read fused
                items = frames.feed_all(piece, read)
            else:
                items = frames.feed_later(piece)
            if frames.later:  # (a frame made once the chunks before it are read)
                yield from reached(items)
            else:
                yield items
        frames.close()

    return SSEChunks(lists, _matched, numbered=True)


def _event_of(chunk: Any, n: int) -> tuple[str, Any]:
    """A chunk's event name and payload: ``{eventType: payload}`` as boto3 gives it, or a
    type-tagged ``{"type": eventType, ...payload}`` (the shape other vendors' chunks have)."""
    where = f"payload {n}"
    if not isinstance(chunk, dict):
        raise VendorDataError(VENDOR, where, f"expected a JSON object, got {type(chunk).__name__}")
    if len(chunk) == 1:
        ((name, payload),) = chunk.items()
        if isinstance(name, str) and isinstance(payload, dict):
            return name, payload
    name = chunk.get("type")
    if not isinstance(name, str) or not name:
        raise VendorDataError(
            VENDOR, where, "names no event: neither {eventType: {...}} nor a string 'type'"
        )
    return name, {k: v for k, v in chunk.items() if k != "type"}


def _blob_text(value: Any) -> str:
    """``json.dumps``'s hook for what JSON has no type for: boto3's blobs as base64 text (what
    :func:`json_form` makes of them, without walking the rest of the payload first)."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


#: one encoder for every payload (``json.dumps`` with options builds one per call)
_PAYLOAD_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=_blob_text)


def _payload_bytes(payload: Any, n: int) -> bytes:
    """A payload's compact JSON; what JSON cannot hold is a ``VendorDataError`` naming it."""
    where = f"payload {n}"
    cap = limits().max_json_depth
    try:
        try:
            text = compact(payload)
        except TypeError:  # (no JSON type: a blob, written as base64 text, or what it names)
            text = _PAYLOAD_JSON.encode(payload)
    except RecursionError:  # (a circular reference nests without end)
        raise JSONTextError(
            VENDOR, where, f"JSON nested deeper than {cap} levels, or circular"
        ) from None
    except ValueError as exc:
        if str(exc).startswith("Circular reference"):  # the encoder's own check
            raise JSONTextError(
                VENDOR, where, f"JSON nested deeper than {cap} levels, or circular"
            ) from None
        check_depth(payload, VENDOR, where)  # a too-deep payload says so first
        raise VendorDataError(VENDOR, where, f"cannot be written as JSON: {exc}") from None
    except TypeError as exc:
        check_depth(payload, VENDOR, where)  # a too-deep payload says so first
        raise VendorDataError(VENDOR, where, f"cannot be written as JSON: {exc}") from None
    if len(text) >= cap and text.count("{") + text.count("[") >= cap:
        check_depth(payload, VENDOR, where)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: written as its \\uXXXX escape
        return escape_surrogates(text).encode("utf-8")


def _header_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _head(name: str) -> bytes:
    """The header block of an event or exception chunk named ``name``."""
    if name in EXCEPTIONS or (name not in EVENTS and name.endswith("Exception")):
        kind = {":message-type": "exception", ":exception-type": name}
    else:
        kind = {":message-type": "event", ":event-type": name}
    return header_block({**kind, ":content-type": "application/json"}, VENDOR)


def to_sse(chunks: Iterable[dict[str, Any]]) -> bytes:
    """Chunk dicts -> event-stream bytes (event frames; exception and error chunks as their
    frames), what botocore's parser reads back. (The contract's "write" name.)"""
    out: list[bytes] = []
    heads: dict[str, bytes] = {}  # a chunk's name -> its frames' header block
    for n, chunk in enumerate(chunks):
        if type(chunk) is dict and len(chunk) == 1:  # (boto3's shape: most chunks)
            ((name, payload),) = chunk.items()
            if type(name) is not str or type(payload) is not dict:
                name, payload = _event_of(chunk, n)
        else:
            name, payload = _event_of(chunk, n)
        if name == "error" and isinstance(payload, dict) and set(payload) <= {"code", "message"}:
            headers = {
                ":message-type": "error",
                ":error-code": _header_text(payload.get("code", "error")),
                ":error-message": _header_text(payload.get("message", "")),
            }
            out.append(write_frame(headers, b"", VENDOR))
            continue
        raw = _payload_bytes(payload, n)
        head = heads.get(name)
        if head is None:
            head = heads[name] = _head(name)
        out.append(frame_bytes(head, raw))
    return b"".join(out)


@dataclass(frozen=True)
class EventStreamFraming:
    """Bedrock's framing as the contract's ``Framing``: the AWS event stream."""

    name: str = "aws-eventstream"
    media_type: str = MEDIA_TYPE

    def read(self, body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
        return sse_chunks(body)

    def reader(self) -> FramePushReader[FrameKind]:
        return ChunkReader()

    def write(self, chunks: Iterable[Any]) -> bytes:
        return to_sse(chunks)


FRAMING = EventStreamFraming()


# ------------------------------------------------------------------ recordings


def is_event_stream(data: bytes) -> bool:
    """``data`` opens with a frame whose prelude CRC holds (a raw capture, not a cassette)."""
    if len(data) < 12:
        return False
    import zlib

    return zlib.crc32(data[:8]) == int.from_bytes(data[8:12], "big")


def load_recording(data: bytes, name: str, /) -> list[Exchange]:
    """A recording: a raw event-stream capture (one streamed exchange), else what the shared
    reader takes (cassettes with binary bodies, JSON, JSONL)."""
    from toolwire.recordings import load_recording as shared  # (late: the reader is above us)

    if is_event_stream(data):
        return [Exchange(response_body=data, content_type=MEDIA_TYPE)]
    return shared(data, name)


def is_streamed(exchange: Recorded, /) -> bool:
    """A recorded body in the event stream (its content type, or its first frame)."""
    ctype = getattr(exchange, "content_type", "")
    if isinstance(ctype, str) and MEDIA_TYPE in ctype.lower():
        return True
    return is_event_stream(exchange.response_body)


# ------------------------------------------------------------------ usage


def _count(usage: dict[str, Any], key: str, where: str) -> int | None:
    return token_count(usage.get(key), VENDOR, f"{where}.{key}")


def token_usage(usage: dict[str, Any], model: str | None, where: str) -> TokenUsage | None:
    """Bedrock usage -> ``TokenUsage`` in the protocol's accounting.

    Bedrock counts cache reads and writes beside ``inputTokens`` (as Anthropic does); the
    protocol counts them inside ``inputTokens``, so they are added in, and the total is the
    input so counted plus the output. A count Bedrock did not send stays absent.
    """
    base = _count(usage, "inputTokens", where)
    read = _count(usage, "cacheReadInputTokens", where)
    write = _count(usage, "cacheWriteInputTokens", where)
    out = _count(usage, "outputTokens", where)
    total = _count(usage, "totalTokens", where)
    kw: dict[str, Any] = {"provider": VENDOR}
    if model:
        kw["model"] = model
    if base is not None:
        kw["input_tokens"] = summed_count(
            base + (read or 0) + (write or 0), VENDOR, where, "inputTokens with the cache counts"
        )
    if read is not None:
        kw["cached_input_tokens"] = read
    if write is not None:
        kw["cache_write_input_tokens"] = write
    if out is not None:
        kw["output_tokens"] = out
    if base is not None and out is not None:
        kw["total_tokens"] = summed_count(kw["input_tokens"] + out, VENDOR, where, "the total")
    elif total is not None:
        kw["total_tokens"] = total
    if len(kw) == (2 if model else 1):
        return None
    return TokenUsage(**kw)


def usage_fields(usage: TokenUsage | None) -> dict[str, Any]:
    """``TokenUsage`` -> Bedrock usage (cache counts taken back out; the three required
    counts zero when the run stated none)."""
    if usage is None:
        return {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}
    read = usage.cached_input_tokens
    write = usage.cache_write_input_tokens
    inp = usage.input_tokens or 0
    out: dict[str, Any] = {
        "inputTokens": max(inp - (read or 0) - (write or 0), 0),
        "outputTokens": usage.output_tokens or 0,
    }
    out["totalTokens"] = (
        usage.total_tokens if usage.total_tokens is not None else inp + out["outputTokens"]
    )
    if read is not None:
        out["cacheReadInputTokens"] = read
    if write is not None:
        out["cacheWriteInputTokens"] = write
    return out


# ------------------------------------------------------------------ stop reasons

_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}
_FOR_REASON = {
    "length": "max_tokens",
    "content_filter": "content_filtered",
}


def map_stop_reason(stop_reason: str | None) -> FinishReason:
    """``stopReason`` -> ``toolwire.finishReason`` (``malformed_*`` and unknown: ``other``)."""
    return _STOP_REASONS.get(stop_reason or "", "other")


def stop_reason_for(reason: FinishReason | None) -> str | None:
    """The ``stopReason`` for a normalized reason (None: what the message's calls imply)."""
    return _FOR_REASON.get(reason or "")


#: the names every adapter's ``wire.py`` gives these two jobs


__all__ = [
    "CALL_ID_RULE",
    "FIELDS",
    "FRAMING",
    "MODEL_ROUTE",
    "VENDOR",
    "ChunkReader",
    "EventStreamFraming",
    "frame_chunk",
    "is_streamed",
    "load_recording",
    "map_stop_reason",
    "sse_chunks",
    "stop_reason_for",
    "to_boto3",
    "to_sse",
    "token_usage",
    "usage_fields",
]
