"""Gemini's wire: its vocabulary, the stream framing, usage both ways, the stop-reason map.

The REST wire is camelCase; the SDK's own dicts (and the Vertex request bodies
some recorders keep) are snake_case. Readers accept both spellings (:func:`get`,
the other spelling of a name worked out once per name); writers emit camelCase
for the response stream and snake_case for SDK request kwargs. Every field is
read through :data:`FIELDS`. A stream arrives as SSE (``alt=sse``) or as one JSON
array (:mod:`~toolwire.protocol.json_array`); :func:`sse_chunks` and
:func:`iter_chunks` read either.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from re import Match
from typing import Any, TypedDict

from ag_ui.core import TokenUsage

from toolwire.errors import VendorDataError
from toolwire.protocol._fastpath import (
    ABSENT,
    OTHERS,
    SCALAR,
    DeltaForm,
    OneOf,
    SSEChunks,
    Text,
    Whole,
)
from toolwire.protocol._kept_json import read_written
from toolwire.protocol.arguments import dumps_whole, whole_numbers
from toolwire.protocol.callids import IdRule
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.framing import PushReader, SSEReader, StreamFraming, json_chunk
from toolwire.protocol.json_array import JsonArrayPush, is_json_array, json_array_chunks
from toolwire.protocol.jsontext import decode_utf8, load_json
from toolwire.protocol.recorded import ModelRoute, Recorded
from toolwire.protocol.sse import (
    SSEEvent,
    SSEParser,
    frame_sse,
    json_object,
    piece_objects,
    sse_event_lists,
)
from toolwire.protocol.usage import summed_count, token_count

VENDOR = "gemini"
#: The one reader of Gemini's JSON fields (absent, null and wrong types alike everywhere).
FIELDS = Fields(VENDOR)


# ---------------------------------------------------------------- the wire's shapes
# A stream chunk and a whole answer are one ``GenerateContentResponse``, in the REST API's
# camelCase (the SDK's objects dump as that; :func:`get` reads the snake_case spelling too).
# What ``encode_request`` writes is ``generate_content``'s keyword arguments, in the SDK's
# snake_case. Every read of input from the network is still checked at run time.


class FunctionCall(TypedDict, total=False):
    """``functionCall`` (Vertex streams its arguments as ``partialArgs`` while
    ``willContinue``)."""

    id: str
    name: str
    args: dict[str, Any]
    partialArgs: list[dict[str, Any]]
    willContinue: bool


class ExecutableCode(TypedDict, total=False):
    id: str
    language: str
    code: str


class CodeExecutionResult(TypedDict, total=False):
    id: str
    outcome: str
    output: str


class ServerToolCall(TypedDict, total=False):
    """``toolCall``: a call a server-side tool ran (``toolType``)."""

    id: str
    toolType: str
    args: dict[str, Any]


class ServerToolResponse(TypedDict, total=False):
    """``toolResponse``: what that server-side tool returned."""

    id: str
    toolType: str
    response: dict[str, Any]


class Part(TypedDict, total=False):
    """One part of a content: one of its data members, with qualifiers
    (:data:`PART_QUALIFIERS`: ``thought``, ``thoughtSignature`` ...)."""

    text: str
    thought: bool
    thoughtSignature: str
    functionCall: FunctionCall
    functionResponse: dict[str, Any]
    executableCode: ExecutableCode
    codeExecutionResult: CodeExecutionResult
    toolCall: ServerToolCall
    toolResponse: ServerToolResponse
    inlineData: dict[str, Any]
    fileData: dict[str, Any]


class Content(TypedDict, total=False):
    role: str
    parts: list[Part]


class GroundingMetadata(TypedDict, total=False):
    webSearchQueries: list[str]
    groundingChunks: list[dict[str, Any]]
    groundingSupports: list[dict[str, Any]]
    searchEntryPoint: dict[str, Any]


class Candidate(TypedDict, total=False):
    index: int
    content: Content
    finishReason: str
    finishMessage: str
    groundingMetadata: GroundingMetadata
    safetyRatings: list[dict[str, Any]]


class UsageMetadata(TypedDict, total=False):
    promptTokenCount: int
    candidatesTokenCount: int
    totalTokenCount: int
    cachedContentTokenCount: int
    thoughtsTokenCount: int
    toolUsePromptTokenCount: int


class PromptFeedback(TypedDict, total=False):
    blockReason: str
    blockReasonMessage: str


class GenerateContentResponse(TypedDict, total=False):
    """One chunk of a stream, or a whole answer (``error``: an in-stream error)."""

    candidates: list[Candidate]
    usageMetadata: UsageMetadata
    modelVersion: str
    responseId: str
    promptFeedback: PromptFeedback
    error: dict[str, Any]


class FunctionDeclaration(TypedDict, total=False):
    """A client tool (``config.tools[].function_declarations[]``)."""

    name: str
    description: str | None
    parameters_json_schema: dict[str, Any]


class FunctionResponse(TypedDict, total=False):
    """``function_response`` of a user part: a tool result (``parts``: its media)."""

    id: str
    name: str
    response: dict[str, Any]
    parts: list[dict[str, Any]]


class CodeExecutionResultParam(TypedDict, total=False):
    outcome: str
    output: str


class GenerateContentRequest(TypedDict, total=False):
    """``generate_content``'s keyword arguments (``config``: ``system_instruction``,
    ``tools``, the generation fields)."""

    model: str
    contents: list[dict[str, Any]]
    config: dict[str, Any]


#: Gemini API and Vertex model calls (``models/M:generateContent``, streamed or not), not
#: ``:countTokens``, file uploads or fetches of a ``fileUri``.
MODEL_ROUTE = ModelRoute(VENDOR, verbs=("generateContent", "streamGenerateContent"))
#: ``functionCall.id`` / ``functionResponse.id``: documented as a string the client echoes,
#: with no length or character rule; only an empty id is refused.
CALL_ID_RULE = IdRule(VENDOR, source="FunctionCall.id (google-genai types)")
PROVIDER = "google"

#: Metadata keys toolwire puts on AG-UI items that came from Gemini.
PART_KEY = "gemini.part"  # which Gemini part a vendor-executed call came from
OUTCOME_KEY = "gemini.outcome"  # codeExecutionResult.outcome
TOOL_TYPE_KEY = "gemini.toolType"  # server-side toolCall.toolType
GROUNDING_KEY = "gemini.groundingMetadata"  # a candidate's groundingMetadata, whole
STOP_REASON_KEY = "gemini.finishReason"  # how the turn ended (on RUN_FINISHED.metadata)
RESPONSE_FORM_KEY = "gemini.responseForm"  # how functionResponse.response was shaped
DISPLAY_NAME_KEY = "gemini.displayName"  # inline_data / file_data display_name

CODE_EXECUTION = "code_execution"
GOOGLE_SEARCH = "google_search"

#: Finish reasons that end a turn normally; every other one is surfaced as an error.
NORMAL_FINISH = frozenset({"STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"})

_CAMEL = re.compile(r"_([a-z])")
#: SSE line ends (CRLF, LF, CR): never str.splitlines, which also splits at U+2028 and U+0085
_SSE_LINE_END = re.compile(r"\r\n|\r|\n")
_ABSENT = object()


def snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def camel(name: str) -> str:
    return _CAMEL.sub(lambda m: m.group(1).upper(), name)


#: name -> its other spelling (camelCase <-> snake_case); filled once per name the code
#: reads (the names are this package's own constants, so it stays small)
_OTHER: dict[str, str] = {}


def other_spelling(name: str) -> str:
    """``name`` in the other spelling (``fileData`` <-> ``file_data``), worked out once."""
    other = _OTHER.get(name)
    if other is None:
        other = _OTHER[name] = snake(name) if name != name.lower() else camel(name)
    return other


#: ``Part`` fields that qualify a part's content rather than being content of their own
#: (both spellings): a part holding nothing else has nothing to lose
PART_QUALIFIERS = frozenset(
    name
    for base in (
        "thought",
        "thoughtSignature",
        "mediaResolution",
        "videoMetadata",
        "partMetadata",
        "mediaProcessing",
        "speechMetadata",
        "documentMetadata",
        "spreadsheetMetadata",
        "audioMetadata",
    )
    for name in (base, other_spelling(base))
)


def get(obj: Mapping[str, Any], name: str, default: Any = None) -> Any:
    """``obj[name]`` under its camelCase or snake_case spelling.

    Every field of every chunk is read through here: no string is built per read
    (the other spelling comes from :data:`_OTHER`).
    """
    value = obj.get(name, _ABSENT)
    if value is _ABSENT:
        return obj.get(_OTHER.get(name) or other_spelling(name), default)
    return value


def has(obj: Mapping[str, Any], name: str) -> bool:
    return name in obj or (_OTHER.get(name) or other_spelling(name)) in obj


def canonical(value: Any) -> Any:
    """``value`` with whole floats as ints (the SDK turns ``3`` into ``3.0``): the shared
    ``whole_numbers`` rule, exact integers only."""
    return whole_numbers(value)


def json_text(value: Any, where: str) -> str:
    """``value`` as compact JSON text (``canonical`` numbers); a value JSON cannot hold (a NaN
    or an infinity: ``json.loads`` reads them, SDK objects hold them) is a VendorDataError
    naming the field, never a bare ValueError."""
    return dumps_whole(value, VENDOR, where)


def b64_signature(value: Any, where: str) -> str | None:
    """A thought signature as standard base64 (the wire's alphabet).

    google-genai holds signatures as bytes and dumps them URL-safe; the wire uses
    the standard alphabet. Both spell the same bytes, so SDK objects and recorded
    JSON decode to the same text.
    """
    if value is None:
        return None
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if not isinstance(value, str):
        raise FIELDS.wrong(value, str, where)
    return value.replace("-", "+").replace("_", "/")


def model_name(model: str | None) -> str | None:
    """``models/x`` or ``projects/.../models/x`` -> ``x`` (what the capability table matches)."""
    if model is None:
        return None
    return model.rsplit("/models/", 1)[-1].removeprefix("models/")


_STOP_REASONS: dict[str, FinishReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
}


def map_stop_reason(finish_reason: str | None, *, made_calls: bool = False) -> FinishReason:
    """``finishReason`` -> ``toolwire.finishReason`` (the table: docs/decisions.md).

    Gemini ends a turn that calls functions with ``STOP``: such a turn is ``tool_calls``.
    """
    reason = _STOP_REASONS.get(finish_reason or "", "other")
    return "tool_calls" if reason == "stop" and made_calls else reason


def stop_reason_for(reason: FinishReason | None) -> str | None:
    """The ``finishReason`` a normal end is written with (None: ``STOP``)."""
    return "MAX_TOKENS" if reason == "length" else None


# ------------------------------------------------------------------------------ usage
# ``usageMetadata`` <-> AG-UI ``TokenUsage`` (provider ``google``). Gemini counts thoughts
# apart from ``candidatesTokenCount``; the protocol counts reasoning inside output, so
# ``output = candidates + thoughts``. Tool-use prompt tokens are prompt tokens. A count
# Gemini did not send stays absent (never 0).

_COUNTS = (
    "promptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
    "cachedContentTokenCount",
    "totalTokenCount",
)


#: a usage record whose first member is ``promptTokenCount``, an integer
_COUNTED = re.compile(r'\{"promptTokenCount": ?-?[0-9]+[,}]')


def counted(text: str) -> bool:
    """Whether a usage record's JSON text (matched by the fused reading: JSON, strings as
    JSON spells them) is provably one the decoder keeps, without reading it: an object
    whose ``promptTokenCount`` is an integer. Its first member is that, and no other
    member repeats the key (it is written once in the text, and no escape spells it)."""
    return (
        _COUNTED.match(text) is not None
        and "\\" not in text
        and text.count('"promptTokenCount"') == 1
    )


def has_counts(meta: dict[str, Any]) -> bool:
    """True when ``usageMetadata`` carries any token count (Vertex sends bare ``trafficType``)."""
    return any(isinstance(get(meta, k), (int, float)) for k in _COUNTS)


def _count(meta: dict[str, Any], key: str) -> int | None:
    return token_count(get(meta, key), VENDOR, f"usageMetadata.{key}")


def _add(a: int | None, b: int | None, what: str) -> int | None:
    if a is None:
        return b
    return a if b is None else summed_count(a + b, VENDOR, "usageMetadata", what)


def token_usage(meta: dict[str, Any], model: str | None) -> TokenUsage:
    prompt = _add(
        _count(meta, "promptTokenCount"), _count(meta, "toolUsePromptTokenCount"), "input"
    )
    thoughts = _count(meta, "thoughtsTokenCount")
    output = _add(_count(meta, "candidatesTokenCount"), thoughts, "output")
    kw: dict[str, Any] = {"provider": PROVIDER}
    if model:
        kw["model"] = model
    for name, value in (
        ("input_tokens", prompt),
        ("output_tokens", output),
        ("total_tokens", _count(meta, "totalTokenCount")),
        ("reasoning_tokens", thoughts),
        ("cached_input_tokens", _count(meta, "cachedContentTokenCount")),
    ):
        if value is not None:
            kw[name] = value
    return TokenUsage(**kw)


def usage_fields(usage: TokenUsage) -> dict[str, Any]:
    """The ``usageMetadata`` a ``TokenUsage`` stands for (inverse of :func:`token_usage`)."""
    out: dict[str, Any] = {}
    if usage.input_tokens is not None:
        out["promptTokenCount"] = usage.input_tokens
    if usage.output_tokens is not None:
        out["candidatesTokenCount"] = usage.output_tokens - (usage.reasoning_tokens or 0)
    if usage.total_tokens is not None:
        out["totalTokenCount"] = usage.total_tokens
    if usage.reasoning_tokens is not None:
        out["thoughtsTokenCount"] = usage.reasoning_tokens
    if usage.cached_input_tokens is not None:
        out["cachedContentTokenCount"] = usage.cached_input_tokens
    return out


# ---------------------------------------------------------------------------- framing


#: A chunk as Gemini writes most of a stream (``"key": value``, keys in this order, or
#: compact): one candidate (index 0, no finish) whose parts are one text part, one whole
#: ``functionCall`` (id, name, args) or several parts (read whole), the usage record whole,
#: the model; any other member a scalar (``role``, ``responseId``, ``createTime``, ...), and
#: none the decoder reads elsewhere. The decoder's rule (``Decoder._common``) reads what it
#: becomes; a chunk written otherwise (thoughts, signatures, a finish) goes the general way.
DELTA_FORM = DeltaForm(
    {
        "candidates": [
            {
                OTHERS: SCALAR,
                "content": {
                    OTHERS: SCALAR,
                    "parts": OneOf(
                        [
                            OneOf(
                                {"text": Text("text")},
                                {
                                    "functionCall": {
                                        "id": Text("call_id"),
                                        "name": Text("name"),
                                        "args": Whole("args", 4),
                                    }
                                },
                            )
                        ],
                        Whole("parts", 5),
                    ),
                },
                "finishReason": ABSENT,
                "finish_reason": ABSENT,
                "finishMessage": ABSENT,
                "finish_message": ABSENT,
                "index": 0,
            }
        ],
        "usageMetadata": Whole("usage", 3),
        "modelVersion": Text("model"),
        OTHERS: SCALAR,
        "error": ABSENT,
    },
    spaced=True,
    many=True,
)


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """A ``streamGenerateContent?alt=sse`` body (whole, or its pieces) as chunk dicts.

    Like google-genai: a last event without its blank line still counts, and
    lines that are not ``data:`` lines are a JSON error body the server wrote
    into the stream (yielded last, as the ``{"error": ...}`` chunk it is). A body
    that is plain JSON (an error, or a JSON-array stream) is read as such. Pieces
    are read incrementally (:func:`iter_chunks`). Read lazily, as an :class:`SSEChunks`
    its decoder may read fused (:data:`DELTA_FORM`).
    """
    if isinstance(body, str):
        body = body.encode("utf-8")
    if not isinstance(body, bytes):
        return iter_chunks(p.encode("utf-8") if isinstance(p, str) else p for p in body)
    whole_body = body

    def lists(reader: SSEChunks) -> Iterator[list[Any]]:
        body = whole_body
        if is_json_array(body[:64]):  # streamGenerateContent without alt=sse
            yield from map(_one, json_array_chunks([body], FIELDS))
            return
        stripped = body.lstrip()
        if stripped[:1] in (b"{", b"["):
            try:
                whole = load_json(stripped, VENDOR, "body")
            except ValueError:
                whole = None
            if isinstance(whole, dict):
                yield [whole]
                return
            if isinstance(whole, list):
                for n, item in enumerate(whole):
                    yield [FIELDS.obj(item, f"body[{n}]")]
                return
        pieces = (body[i : i + _PIECE] for i in range(0, len(body), _PIECE))
        yield from _sse_lists(pieces, reader)
        if _only_fields(body):  # (every line an SSE field: nothing else to read)
            return
        raw = [
            line
            for line in _SSE_LINE_END.split(decode_utf8(body, VENDOR, "body"))
            if line.strip() and not line.startswith(_SSE_FIELDS)
        ]
        if raw:
            try:
                value = load_json("\n".join(raw), VENDOR, "body (text outside data: lines)")
            except ValueError as exc:
                raise VendorDataError(VENDOR, "body", f"text outside data: lines: {exc}") from None
            yield [FIELDS.obj(value, "body (text outside data: lines)")]

    return SSEChunks(lists, _matched)


#: how much of a whole body the SSE parser is handed at a time
_PIECE = 1 << 16
#: how the lines of an SSE body that are its fields start (any other, not blank, is text a
#: server wrote into the stream)
_SSE_FIELDS = ("data:", ":", "event:", "id:", "retry:")
_SSE_FIELD_BYTES = tuple(f.encode() for f in _SSE_FIELDS)


def _only_fields(body: bytes) -> bool:
    """True when every line of ``body`` that is not empty starts as an SSE field does:
    then no line is text outside the fields, and the body need not be decoded and split
    again by an expression (a tenth of a whole body's bytes -> AG-UI SSE).
    ``bytes.splitlines`` breaks at ``\\r\\n``, ``\\r`` and ``\\n`` only, as that split
    does (no UTF-8 character holds those bytes); a line it cannot clear (one of spaces, a
    byte-order mark) leaves the answer to that split."""
    lines = filter(None, body.splitlines())
    return all(map(bytes.startswith, lines, itertools.repeat(_SSE_FIELD_BYTES)))


def _one(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    return [chunk]


def _sse_lists(pieces: Iterable[bytes], reader: SSEChunks) -> Iterator[list[Any]]:
    """The ``data:`` objects of an SSE body's pieces, a list per piece (Gemini's SDK
    flushes an event its blank line never ended), read with :data:`DELTA_FORM` while the
    ``reader`` is fused; an event whose payload is not a clean object is read alone, so an
    error is raised only once the events before it are handed on."""
    n = 0
    for events in sse_event_lists(pieces, SSEParser(VENDOR), True, reader):
        objects = piece_objects(events, reader.fast is not None)
        if None in objects:
            for i, value in enumerate(objects):
                yield [value if value is not None else json_object(events[i], VENDOR, n + i)]
        else:
            yield objects
        n += len(events)


def _matched(match: Match[str]) -> dict[str, Any]:
    """The chunk dict of an event :data:`DELTA_FORM` matched (a clean JSON object)."""
    return json_object(SSEEvent(match.group("data")), VENDOR, 0)


def iter_chunks(pieces: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """Chunk dicts from a streamed body arriving in any pieces, either framing.

    ``alt=sse`` gives SSE; without it Gemini streams one JSON array. The first byte
    that is not white space tells which; both are read incrementally, lazily, as an
    :class:`SSEChunks` its decoder may read fused (:data:`DELTA_FORM`).
    """

    def lists(reader: SSEChunks) -> Iterator[list[Any]]:
        it = iter(pieces)
        head: list[bytes] = []
        for piece in it:
            head.append(piece)
            if piece.strip():
                break
        rest = itertools.chain(head, it)
        if is_json_array(b"".join(head)):
            yield from map(_one, json_array_chunks(rest, FIELDS))
            return
        raw = _RawLines()
        yield from _sse_lists(map(raw.see, rest), reader)
        text = raw.text()
        if text.strip():  # as sse_chunks: an error body the server wrote into the stream
            try:
                value = json.loads(text)
            except ValueError as exc:
                raise VendorDataError(VENDOR, "body", f"text outside data: lines: {exc}") from None
            yield [FIELDS.obj(value, "body (text outside data: lines)")]

    return SSEChunks(lists, _matched)


class _RawLines:
    """Keeps the lines of an SSE body that are no SSE field (and only those) as they pass.

    A line is told by its first bytes; a ``data:`` line is never held, so memory stays
    bounded by the error text a server wrote into the stream.
    """

    _FIELDS = (b"data:", b":", b"event:", b"id:", b"retry:")

    def __init__(self) -> None:
        # one buffer, not a list of lines: a blank CRLF line (a bare ``\r``) is raw text
        # too, and a list held two entries for it, every event (~3 MB at 20,000 calls)
        self._kept = bytearray()
        self._pending = b""  # the start of the current line, until it says what it is
        self._raw: bool | None = None  # whether the current line is kept

    def see(self, piece: bytes) -> bytes:
        at = 0
        while at <= len(piece):
            end = piece.find(b"\n", at)
            stop = len(piece) if end < 0 else end
            self._part(piece[at:stop], complete=end >= 0)
            if end < 0:
                break
            at = end + 1
        return piece

    def _part(self, part: bytes, *, complete: bool) -> None:
        if self._raw is None:
            self._pending += part
            if len(self._pending) < 7 and not complete:
                return
            line, self._pending = self._pending, b""
            self._raw = not line.startswith(self._FIELDS)
            part = line
        if self._raw:
            self._kept += part
            if complete:
                self._kept += b"\n"
        if complete:
            self._raw = None

    def text(self) -> str:
        if self._raw is None and not self._pending.startswith(self._FIELDS):
            self._kept += self._pending  # a short last line without its line end
        return self._kept.decode("utf-8", errors="replace")


def is_streamed(exchange: Recorded) -> bool:
    """A recorded body in the JSON-array framing is a stream, though its type says JSON."""
    return is_json_array(exchange.response_body[:64])


def is_model_exchange(exchange: Recorded) -> bool:
    """A recorded ``generateContent``/``streamGenerateContent`` call (:data:`MODEL_ROUTE`)."""
    return MODEL_ROUTE.admits(exchange)


def to_sse(chunks: Iterable[dict[str, Any]]) -> bytes:
    """Gemini's own SSE framing: ``data: <json>`` and CRLF line ends, no terminator."""
    return frame_sse(chunks, line_end="\r\n", vendor=VENDOR)


class _Push:
    """The push form of :func:`iter_chunks` (``FRAMING.reader()``, what a driver feeds the
    HTTP body to): the first byte that is not white space picks the framing, and in SSE the
    lines that are no SSE field are the error body a server wrote into the stream, read at
    the close as ``iter_chunks`` reads it."""

    def __init__(self) -> None:
        self._head = b""
        self._inner: PushReader | None = None
        self._raw: _RawLines | None = None

    @property
    def done(self) -> bool:
        return self._inner is not None and self._inner.done

    def feed(self, piece: bytes) -> list[dict[str, Any]]:
        piece = self._seen(piece)
        return self._inner.feed(piece) if self._inner is not None else []

    def feed_later(self, piece: bytes) -> list[Any]:
        """``feed``, an SSE event whose chunk may warn or fail left as a ``Later`` made in
        its turn (``SSEReader.feed_later``), for the driver's push reading: its warning
        after the chunks before it. The JSON-array reader makes its elements whole."""
        piece = self._seen(piece)
        inner = self._inner
        if inner is None:
            return []
        return inner.feed_later(piece) if isinstance(inner, SSEReader) else inner.feed(piece)

    def _seen(self, piece: bytes) -> bytes:
        """``piece`` to the framing's reader, picked by the first byte that is not white
        space (held until one comes: nothing is read before)."""
        if self._inner is None:
            self._head += piece
            if not self._head.strip():
                return b""
            piece, self._head = self._head, b""
            if is_json_array(piece):
                self._inner = JsonArrayPush(FIELDS)
            else:
                self._raw = _RawLines()
                self._inner = SSEReader(json_chunk(VENDOR), flush_incomplete=True, vendor=VENDOR)
        if self._raw is not None:
            self._raw.see(piece)
        return piece

    def close(self) -> list[dict[str, Any]]:
        if self._inner is None:
            return []
        out = self._inner.close()
        text = self._raw.text() if self._raw is not None else ""
        if text.strip():
            try:
                value = json.loads(text)
            except ValueError as exc:
                raise VendorDataError(VENDOR, "body", f"text outside data: lines: {exc}") from None
            out.append(FIELDS.obj(value, "body (text outside data: lines)"))
        return out


#: Gemini's ``alt=sse`` SSE (``read`` and the push reader also take the JSON-array framing a
#: REST client gets without ``alt=sse``: :mod:`toolwire.protocol.json_array`).
FRAMING = StreamFraming("sse", "text/event-stream", sse_chunks, to_sse, _Push)


__all__ = [
    "CODE_EXECUTION",
    "DELTA_FORM",
    "DISPLAY_NAME_KEY",
    "FIELDS",
    "FRAMING",
    "GOOGLE_SEARCH",
    "GROUNDING_KEY",
    "NORMAL_FINISH",
    "OUTCOME_KEY",
    "PART_KEY",
    "PART_QUALIFIERS",
    "PROVIDER",
    "RESPONSE_FORM_KEY",
    "STOP_REASON_KEY",
    "TOOL_TYPE_KEY",
    "VENDOR",
    "Candidate",
    "CodeExecutionResult",
    "CodeExecutionResultParam",
    "Content",
    "ExecutableCode",
    "FunctionCall",
    "FunctionDeclaration",
    "FunctionResponse",
    "GenerateContentRequest",
    "GenerateContentResponse",
    "GroundingMetadata",
    "Part",
    "PromptFeedback",
    "ServerToolCall",
    "ServerToolResponse",
    "UsageMetadata",
    "b64_signature",
    "camel",
    "canonical",
    "get",
    "has",
    "has_counts",
    "is_model_exchange",
    "is_streamed",
    "iter_chunks",
    "map_stop_reason",
    "model_name",
    "other_spelling",
    "read_written",
    "snake",
    "sse_chunks",
    "stop_reason_for",
    "to_sse",
    "token_usage",
    "usage_fields",
]
