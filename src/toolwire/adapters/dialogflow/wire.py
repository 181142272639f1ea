"""Dialogflow's JSON vocabulary: field names, enums, timestamps, bytes, SDK objects,
the field reader (``FIELDS``), SSE framing and the stop-reason map.

Everything is translated from proto3 JSON dicts (the wire form). SDK objects
(proto-plus messages or raw protobuf messages) are first turned into the same
JSON with ``json_format.MessageToDict``; ``Struct`` numbers come out of the SDK
as doubles, so a whole double is written back as an integer, which is what the
wire shows for it. The SDK is never imported at module import time.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

from toolwire.errors import VendorDataError
from toolwire.protocol.arguments import whole_numbers
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.framing import sse_framing
from toolwire.protocol.recorded import ModelRoute
from toolwire.protocol.sse import frame_sse, sse_json_values

VENDOR = "dialogflow"
#: Every Dialogflow field is read through this (``null`` is absent, one wording for errors).
FIELDS = Fields(VENDOR)
#: The Dialogflow methods whose answers carry tool calls (REST ``:verb`` form), not an
#: OAuth token fetch or a conversation lookup.
MODEL_ROUTE = ModelRoute(
    VENDOR,
    verbs=(
        "analyzeContent",
        "streamingAnalyzeContent",
        "generate",
        "generateStatelessSuggestion",
        "streamingReactiveCompanionSuggestions",
    ),
)

#: The metadata key under which Dialogflow-only fields ride on AG-UI items.
META_KEY = "dialogflow"

#: The ``source`` oneof of ``ToolCall`` / ``ToolCallResult`` (JSON names).
SOURCE_KEYS: tuple[str, ...] = ("tool", "cesTool", "cesToolset", "cesApp")

#: ``ToolCall.State`` by number (``to_json`` defaults to integers for enums).
STATES: dict[int, str] = {0: "STATE_UNSPECIFIED", 1: "TRIGGERED", 2: "NEEDS_CONFIRMATION"}
NEEDS_CONFIRMATION = "NEEDS_CONFIRMATION"

#: ``SuggestionInput.Action`` by number.
ACTIONS: dict[int, str] = {0: "ACTION_UNSPECIFIED", 1: "CANCEL", 2: "REVISE", 3: "CONFIRM"}

#: The response schema of a confirmation interrupt: what a ``ResumeEntry`` payload holds.
CONFIRMATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["CONFIRM", "REVISE", "CANCEL"]},
        "parameters": {"type": "object"},
    },
    "required": ["action"],
}
CONFIRMATION_REASON = "tool_call_confirmation"
TEXT_UPDATE_ACTIVITY = "dialogflow.textUpdate"

#: The keys only a streamed ``StreamingReactiveCompanionSuggestionsResponse`` has.
REACTIVE_KEYS = (
    "responseChunk",
    "status",
    "reactiveModeFinalResponse",
    "intermediateToolCallEvents",
    "isFinal",
    "textMessageId",
)


#: ``google.rpc.Code`` names, for ``status`` / ``error`` values.
RPC_CODES: dict[int, str] = {
    0: "OK",
    1: "CANCELLED",
    2: "UNKNOWN",
    3: "INVALID_ARGUMENT",
    4: "DEADLINE_EXCEEDED",
    5: "NOT_FOUND",
    6: "ALREADY_EXISTS",
    7: "PERMISSION_DENIED",
    8: "RESOURCE_EXHAUSTED",
    9: "FAILED_PRECONDITION",
    10: "ABORTED",
    11: "OUT_OF_RANGE",
    12: "UNIMPLEMENTED",
    13: "INTERNAL",
    14: "UNAVAILABLE",
    15: "DATA_LOSS",
    16: "UNAUTHENTICATED",
}


def from_sdk(obj: Any) -> Any:
    """An SDK message (proto-plus or raw protobuf) as its proto3 JSON dict; anything else
    as it is (a dict is checked once, where it is read: ``as_dict``)."""
    if isinstance(obj, dict):
        return obj
    pb = getattr(obj, "_pb", None)  # proto-plus wraps the protobuf message here
    if pb is None and hasattr(obj, "DESCRIPTOR") and hasattr(obj, "ListFields"):
        pb = obj
    if pb is None:
        return obj
    from google.protobuf import json_format  # type: ignore[import-untyped]

    return whole_doubles(json_format.MessageToDict(pb), sort=True)


def to_json_dict(obj: Any, where: str) -> dict[str, Any]:
    """A chunk or a request as a proto3 JSON dict: SDK messages are converted, and the
    dict is checked (depth and surrogates) as every decoder's input is."""
    return as_dict(from_sdk(obj), VENDOR, where)


def whole_doubles(value: Any, *, sort: bool = False) -> Any:
    """Whole doubles as integers (the SDK holds every ``Struct`` number as a double): the
    shared ``whole_numbers`` rule; ``sort`` also orders object keys."""
    return whole_numbers(value, sort=sort)


def enum_name(value: Any, names: dict[int, str], where: str) -> str | None:
    """An enum as its name (proto3 JSON allows the number too)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise VendorDataError(VENDOR, where, "expected an enum name or number, got bool")
    if isinstance(value, int):
        return names.get(value, str(value))
    if isinstance(value, str):
        return value
    raise VendorDataError(VENDOR, where, f"expected an enum name, got {type(value).__name__}")


def source_of(message: dict[str, Any], where: str) -> dict[str, str]:
    """The ``source`` oneof member that is set (at most one)."""
    found = {k: message[k] for k in SOURCE_KEYS if message.get(k) is not None}
    for k, v in found.items():
        FIELDS.text(v, f"{where}.{k}")
    if len(found) > 1:
        raise VendorDataError(VENDOR, where, f"more than one source set: {', '.join(found)}")
    return found


_TS = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$"
)


def timestamp_ms(value: str, where: str) -> int:
    """An RFC 3339 ``Timestamp`` as milliseconds since the epoch (AG-UI's convention)."""
    m = _TS.match(value)
    if m is None:
        raise VendorDataError(VENDOR, where, f"not an RFC 3339 timestamp: {value!r}")
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    frac = (m.group(7) or "").ljust(9, "0")
    zone = m.group(8)
    try:
        tz = timezone.utc
        if zone not in ("Z", "z"):
            sign = 1 if zone[0] == "+" else -1
            tz = timezone(sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
        dt = datetime(year, month, day, hour, minute, second, tzinfo=tz)
    except ValueError as exc:
        raise VendorDataError(VENDOR, where, f"not a valid timestamp: {value!r} ({exc})") from None
    whole = int(dt.timestamp())
    return whole * 1000 + int(frac[:3])


def b64_bytes(value: str, where: str) -> bytes:
    """Decode a proto3 JSON ``bytes`` value (standard or URL-safe base64)."""
    text = value.replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise VendorDataError(VENDOR, where, "not valid base64") from None


def b64_text(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


#: Magic numbers whose MIME type is certain; anything else is octet-stream.
_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"%PDF-", 0, "application/pdf"),
    (b"fLaC", 0, "audio/flac"),
    (b"\x1f\x8b\x08", 0, "application/gzip"),
)


def sniff_mime(data: bytes) -> str | None:
    """The MIME type of ``data`` when its magic number makes it certain, else ``None``."""
    for magic, offset, mime in _MAGIC:
        if data[offset : offset + len(magic)] == magic:
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    return None


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """The chunk dicts of an SSE body (toolwire's framing: one JSON object per ``data:``).

    ``body`` is the whole body or its pieces in any split (read lazily by the
    shared ``sse_json_objects``; a ``[DONE]`` line ends it). Dialogflow itself
    streams over gRPC, not SSE; this reads what :func:`to_sse` writes (and any
    capture framed the same way).
    """
    return sse_json_values(body, VENDOR, stop_at="[DONE]")


def to_sse(chunks: Iterable[dict[str, Any]]) -> bytes:
    """ToolCallInfo dicts as SSE, one JSON object a ``data:`` line (read by ``sse_chunks``)."""
    return frame_sse(chunks, vendor=VENDOR)


def map_stop_reason(*, confirming: bool, calls_open: bool) -> FinishReason:
    """How a Dialogflow turn ended: it sends no reason, so the turn's shape says it.

    A call waiting for ``NEEDS_CONFIRMATION`` pauses the turn (the run's interrupt); a
    call with no answer yet hands over to the client's tools; else the turn is done.
    """
    if confirming:
        return "pause"
    return "tool_calls" if calls_open else "stop"


#: Dialogflow streams over gRPC; toolwire's files hold its responses as SSE, one JSON a line.
FRAMING = sse_framing(VENDOR, sse_chunks, to_sse)


__all__ = [
    "ACTIONS",
    "CONFIRMATION_REASON",
    "CONFIRMATION_SCHEMA",
    "FIELDS",
    "FRAMING",
    "META_KEY",
    "MODEL_ROUTE",
    "NEEDS_CONFIRMATION",
    "REACTIVE_KEYS",
    "RPC_CODES",
    "SOURCE_KEYS",
    "STATES",
    "TEXT_UPDATE_ACTIVITY",
    "VENDOR",
    "b64_bytes",
    "b64_text",
    "enum_name",
    "from_sdk",
    "map_stop_reason",
    "sniff_mime",
    "source_of",
    "sse_chunks",
    "timestamp_ms",
    "to_json_dict",
    "to_sse",
    "whole_doubles",
]
