"""Reading AG-UI events from JSON under the protocol's processing model (§1.9).

Unrecognised material is not an error: an unknown event type is dropped and an
unknown property or union member is stripped, each with a warning naming it. A
malformed known value is fatal (:class:`~toolwire.errors.ProtocolViolation`).
A ``null`` in an optional field is malformed, except the few the protocol's
deprecation list still converts to absent (with a warning).
"""

from __future__ import annotations

import warnings
from functools import cache
from typing import Any

from ag_ui.core import BaseEvent, Event, EventType
from pydantic import BaseModel, TypeAdapter, ValidationError

from toolwire.errors import ProtocolViolation, VendorDataError
from toolwire.losses import UnrecognizedMaterialWarning
from toolwire.protocol.jsontext import checked

_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
_KNOWN_TYPES = {e.value for e in EventType}
_ENVELOPE = {"type", "timestamp", "rawEvent", "metadata"}

# (event type or "*", key): a null there is converted to absent, with a warning.
_NULL_TOLERATED = {
    ("TOOL_CALL_START", "parentMessageId"),
    ("TOOL_CALL_CHUNK", "parentMessageId"),
    ("*", "rawEvent"),
    ("*", "subagentRunId"),
    ("RUN_FINISHED", "outcome"),
    ("RUN_FINISHED", "result"),
    ("TOOL_CALL_RESULT", "role"),
}

_PART_TYPES = {"text", "image", "audio", "video", "document"}
_SOURCE_TYPES = {"data", "url", "file"}


@cache
def _fields_of(event_type: str) -> dict[str, bool]:
    """Wire names of the event class's fields -> whether the field is required."""
    cls = _CLASS_BY_TYPE[event_type]
    out: dict[str, bool] = {}
    for name, info in cls.model_fields.items():
        out[info.alias or name] = info.is_required()
    return out


def _class_by_type() -> dict[str, type[BaseModel]]:
    import ag_ui.core as core

    found: dict[str, type[BaseModel]] = {}
    for attr in dir(core):
        obj = getattr(core, attr)
        if isinstance(obj, type) and issubclass(obj, BaseEvent) and obj is not BaseEvent:
            default = obj.model_fields["type"].default
            if isinstance(default, EventType):
                found[default.value] = obj
    return found


_CLASS_BY_TYPE = _class_by_type()


def _warn(text: str) -> None:
    warnings.warn(f"toolwire: {text}", UnrecognizedMaterialWarning, stacklevel=4)


def _strip_parts(value: Any, path: str) -> Any:
    """Drop unknown content parts and parts with an unknown source kind (§1.9 depth rule)."""
    if not isinstance(value, list):
        return value
    kept: list[Any] = []
    for i, part in enumerate(value):
        if isinstance(part, dict) and part.get("type") == "binary":
            part = _upgrade_binary(part, f"{path}[{i}]")
            if part is None:
                continue
        if isinstance(part, dict):
            ptype = part.get("type")
            if isinstance(ptype, str) and ptype not in _PART_TYPES:
                _warn(f"stripped content part of unknown type {ptype!r} at {path}[{i}]")
                continue
            src = part.get("source")
            if isinstance(src, dict):
                stype = src.get("type")
                if isinstance(stype, str) and stype not in _SOURCE_TYPES:
                    _warn(f"stripped {ptype} part with unknown source {stype!r} at {path}[{i}]")
                    continue
        kept.append(part)
    return kept


def _upgrade_binary(part: dict[str, Any], path: str) -> dict[str, Any] | None:
    """A pre-1.0 ``{"type": "binary"}`` part as the media part it stands for.

    The kind follows the MIME prefix; ``data`` wins over ``url``; ``filename``
    moves to metadata. An id-only part cannot be converted and is dropped.
    """
    mime = part.get("mimeType")
    if not isinstance(mime, str):
        _warn(f"dropped legacy binary part without mimeType at {path}")
        return None
    top = mime.split("/", 1)[0].lower()
    kind = top if top in ("image", "audio", "video") else "document"
    if isinstance(part.get("data"), str):
        source = {"type": "data", "value": part["data"], "mimeType": mime}
    elif isinstance(part.get("url"), str):
        source = {"type": "url", "value": part["url"], "mimeType": mime}
    else:
        _warn(f"dropped legacy binary part with only an id at {path} (a 1.0 peer cannot take it)")
        return None
    out: dict[str, Any] = {"type": kind, "source": source}
    if isinstance(part.get("filename"), str):
        out["metadata"] = {"filename": part["filename"]}
    _warn(f"converted legacy binary part at {path} to a {kind} part (deprecated shape)")
    return out


def _strip_messages(messages: Any, path: str) -> Any:
    if not isinstance(messages, list):
        return messages
    out = []
    for i, msg in enumerate(messages):
        if isinstance(msg, dict) and "content" in msg:
            msg = dict(msg)
            msg["content"] = _strip_parts(msg["content"], f"{path}[{i}].content")
        out.append(msg)
    return out


def parse_event(obj: Any, index: int | None = None) -> BaseEvent | None:
    """One JSON event -> an ``ag_ui.core`` event, or ``None`` when it was unknown and dropped."""
    if isinstance(obj, BaseEvent):
        return obj
    if not isinstance(obj, dict):
        raise ProtocolViolation(
            "malformed-event",
            f"an event must be a JSON object, got {type(obj).__name__}",
            index=index,
        )
    try:
        obj = checked(obj, "AG-UI", "event" if index is None else f"event {index}")
    except VendorDataError as exc:  # nesting past the cap: no schema holds it
        raise ProtocolViolation("malformed-value", exc.reason, index=index) from None
    etype = obj.get("type")
    if not isinstance(etype, str):
        raise ProtocolViolation("malformed-event", "the event has no string 'type'", index=index)
    if etype not in _KNOWN_TYPES or etype not in _CLASS_BY_TYPE:
        _warn(f"dropped event of unknown type {etype!r}" + (f" (event {index})" if index else ""))
        return None
    fields = _fields_of(etype)
    clean: dict[str, Any] = {}
    for key, value in obj.items():
        if key not in fields:
            _warn(f"stripped unknown property {etype}.{key}")
            continue
        if value is None and not fields[key] and key not in ("value",):
            if (etype, key) in _NULL_TOLERATED or ("*", key) in _NULL_TOLERATED:
                _warn(f"converted null {etype}.{key} to absent (deprecated spelling)")
                continue
            raise ProtocolViolation(
                "null-optional-field",
                f"{etype}.{key} is null; an optional field without a value must be omitted",
                index=index,
            )
        clean[key] = value
    if etype == "TOOL_CALL_RESULT" and "content" in clean:
        clean["content"] = _strip_parts(clean["content"], "content")
    if etype == "MESSAGES_SNAPSHOT" and "messages" in clean:
        clean["messages"] = _strip_messages(clean["messages"], "messages")
    if etype == "RUN_STARTED" and isinstance(clean.get("input"), dict):
        run_input = dict(clean["input"])
        run_input["messages"] = _strip_messages(run_input.get("messages"), "input.messages")
        clean["input"] = run_input
    if etype == "RUN_FINISHED" and isinstance(clean.get("outcome"), dict):
        outcome = clean["outcome"]
        if outcome.get("type") not in ("success", "interrupt", "cancelled"):
            _warn(f"stripped unknown outcome {outcome.get('type')!r} (read as success)")
            del clean["outcome"]
        elif outcome.get("pendingToolCallIds", 0) is None:
            _warn("converted null RUN_FINISHED.outcome.pendingToolCallIds to absent")
            clean["outcome"] = {k: v for k, v in outcome.items() if k != "pendingToolCallIds"}
    try:
        event: BaseEvent = _EVENT.validate_python(clean)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(x) for x in first["loc"][1:]) or etype
        raise ProtocolViolation(
            "malformed-value", f"{etype}: {loc}: {first['msg']}", index=index
        ) from None
    return event


__all__ = ["parse_event"]
