"""Small facts about Gemini's JSON that both directions need.

The REST wire is camelCase; the SDK's own dicts (and the Vertex request bodies
some recorders keep) are snake_case. Readers accept both spellings; writers
emit camelCase for the response stream and snake_case for SDK request kwargs.
"""

from __future__ import annotations

import re
from typing import Any

from toolwire.errors import VendorDataError
from toolwire.protocol.arguments import dumps_compact, whole_numbers
from toolwire.protocol.callids import IdRule
from toolwire.protocol.finish import FinishReason
from toolwire.recordings import ModelRoute

VENDOR = "gemini"
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
FINISH_KEY = "gemini.finishReason"  # how the turn ended (on RUN_FINISHED.metadata)
RESPONSE_FORM_KEY = "gemini.responseForm"  # how functionResponse.response was shaped
DISPLAY_NAME_KEY = "gemini.displayName"  # inline_data / file_data display_name

CODE_EXECUTION = "code_execution"
GOOGLE_SEARCH = "google_search"

#: Finish reasons that end a turn normally; every other one is surfaced as an error.
NORMAL_FINISH = frozenset({"STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"})

_CAMEL = re.compile(r"_([a-z])")


def snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def camel(name: str) -> str:
    return _CAMEL.sub(lambda m: m.group(1).upper(), name)


def get(obj: dict[str, Any], name: str, default: Any = None) -> Any:
    """``obj[name]`` under its camelCase or snake_case spelling."""
    if name in obj:
        return obj[name]
    other = snake(name) if any(c.isupper() for c in name) else camel(name)
    return obj.get(other, default)


def has(obj: dict[str, Any], name: str) -> bool:
    return name in obj or (snake(name) if any(c.isupper() for c in name) else camel(name)) in obj


def obj_at(value: Any, where: str) -> dict[str, Any]:
    """``value`` checked to be a JSON object, else a ``VendorDataError`` naming ``where``."""
    if not isinstance(value, dict):
        raise VendorDataError(VENDOR, where, f"expected an object, got {type(value).__name__}")
    return value


def list_at(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise VendorDataError(VENDOR, where, f"expected a list, got {type(value).__name__}")
    return value


def str_at(value: Any, where: str, *, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise VendorDataError(VENDOR, where, f"expected a string, got {type(value).__name__}")
    return value


def canonical(value: Any) -> Any:
    """``value`` with whole floats as ints (the SDK turns ``3`` into ``3.0``): the shared
    ``whole_numbers`` rule, exact integers only."""
    return whole_numbers(value)


def json_text(value: Any, where: str) -> str:
    """``value`` as compact JSON text (``canonical`` numbers); a value JSON cannot hold (a NaN
    or an infinity: ``json.loads`` reads them, SDK objects hold them) is a VendorDataError
    naming the field, never a bare ValueError."""
    return dumps_compact(canonical(value), VENDOR, where)


def b64_signature(value: Any, where: str) -> str | None:
    """A thought signature as standard base64 (the wire's alphabet).

    google-genai holds signatures as bytes and dumps them URL-safe; the wire uses
    the standard alphabet. Both spell the same bytes, so SDK objects and recorded
    JSON decode to the same text.
    """
    if value is None:
        return None
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode("ascii")
    if not isinstance(value, str):
        raise VendorDataError(VENDOR, where, "expected a base64 string")
    return value.replace("-", "+").replace("_", "/")


def model_name(model: str | None) -> str | None:
    """``models/x`` or ``projects/.../models/x`` -> ``x`` (what the capability table matches)."""
    if model is None:
        return None
    return model.rsplit("/models/", 1)[-1].removeprefix("models/")


_FINISH_REASONS: dict[str, FinishReason] = {
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


def map_gemini_stop_reason(finish_reason: str | None, *, made_calls: bool = False) -> FinishReason:
    """``finishReason`` -> ``toolwire.finishReason`` (the table: docs/decisions.md).

    Gemini ends a turn that calls functions with ``STOP``: such a turn is ``tool_calls``.
    """
    reason = _FINISH_REASONS.get(finish_reason or "", "other")
    return "tool_calls" if reason == "stop" and made_calls else reason


def gemini_finish_reason_for(reason: FinishReason | None) -> str | None:
    """The ``finishReason`` a normal end is written with (None: ``STOP``)."""
    return "MAX_TOKENS" if reason == "length" else None


__all__ = [
    "CODE_EXECUTION",
    "DISPLAY_NAME_KEY",
    "FINISH_KEY",
    "GOOGLE_SEARCH",
    "GROUNDING_KEY",
    "NORMAL_FINISH",
    "OUTCOME_KEY",
    "PART_KEY",
    "PROVIDER",
    "RESPONSE_FORM_KEY",
    "TOOL_TYPE_KEY",
    "VENDOR",
    "b64_signature",
    "camel",
    "canonical",
    "gemini_finish_reason_for",
    "get",
    "has",
    "list_at",
    "map_gemini_stop_reason",
    "model_name",
    "obj_at",
    "snake",
    "str_at",
]
