"""AG-UI events as JSON text, byte for byte what ``model_dump_json(by_alias=True)`` writes.

Every ``ag_ui.core`` model serializes through a Python ``model_serializer`` (it leaves out
optional fields without a value), so each event costs a call back into Python from pydantic's
serializer: on a stream of small deltas that was a fifth of the time from vendor bytes to AG-UI
SSE. The events a stream is made of hold only strings, integers, booleans and ``None``, so for
those the text is built here from the model's own field list (wire names, declaration order,
the same omission rule) with the standard library's C string escaper. Anything else — a nested
value, a float, an unknown extra field, a class from outside ``ag_ui`` — is left to pydantic,
as is a string UTF-8 cannot carry (so the error is pydantic's too).
"""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any

from ag_ui.core import BaseEvent

#: per event class: (attribute, '"wireName":', may be left out when None), or None: pydantic
_Plan = tuple[tuple[str, str, bool], ...]
_PLANS: dict[type, _Plan | None] = {}
_MISSING = object()


def _plan(cls: type) -> _Plan | None:
    if not cls.__module__.startswith("ag_ui."):
        return None
    decorators: Any = getattr(cls, "__pydantic_decorators__", None)
    if decorators is None or decorators.field_serializers or decorators.computed_fields:
        return None
    if set(decorators.model_serializers) != {"_omit_fields_without_value"}:
        return None
    plan = []
    for name, info in cls.model_fields.items():  # type: ignore[attr-defined]
        if info.exclude:
            return None
        wire = info.serialization_alias or info.alias or name
        omit = not info.is_required() and info.default is None
        plan.append((name, encode_basestring(wire) + ":", omit))
    return tuple(plan)


def _pydantic(event: BaseEvent) -> str:
    return event.model_dump_json(by_alias=True)


def event_json(event: BaseEvent) -> str:
    """The event's JSON text (compact, non-ASCII as is), the same as pydantic's."""
    cls = type(event)
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls)
    if plan is None or event.__pydantic_extra__:
        return _pydantic(event)
    values = event.__dict__
    out = []
    for name, key, omit in plan:
        value = values.get(name, _MISSING)
        if value is None:
            if not omit:
                out.append(key + "null")
        elif isinstance(value, str):
            out.append(key + encode_basestring(value))
        elif value is True:
            out.append(key + "true")
        elif value is False:
            out.append(key + "false")
        elif type(value) is int:
            out.append(key + str(value))
        else:
            return _pydantic(event)
    text = "{" + ",".join(out) + "}"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return _pydantic(event)  # a lone surrogate: pydantic's own error
    return text


__all__ = ["event_json"]
