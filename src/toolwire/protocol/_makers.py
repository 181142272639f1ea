"""AG-UI models built without ``BaseModel.__init__``'s frame, and the delta events built
without a validator at all.

``Model(**fields)`` runs ``BaseModel.__init__``, a Python frame that packs the keywords and
calls the model's validator; for the small events a stream is made of (one id and one
delta) that frame is about a quarter of the cost. ``maker(Model)`` is the validator itself:
the same checks, the same instance (fields set, defaults, extras), from a dict of fields.

The three delta events (text, reasoning text, tool call arguments) are most of every
stream, and their two given fields are plain strings, which is all their validator checks.
``pair_maker`` builds those instances directly (the issue's "model construction where the
input is already known-good"): the instance the validator would make, field for field, for
two ``str`` values, and the validator itself for anything else. It checks itself against
the validator when it is made and falls back to it if the two differ in any way it can see.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Dict, Optional, TypeVar, cast  # noqa: UP035

from ag_ui.core import (
    ReasoningMessageContentEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

#: pydantic's per-instance slots (``BaseModel.__slots__``), set as the validator sets them
_SLOTS = BaseModel.__dict__


def maker(model: type[M]) -> Callable[[dict[str, Any]], M]:
    """``model``'s validator: ``maker(Model)({"field": value})`` is ``Model(field=value)``
    (a ``ValidationError`` on a bad value, as the constructor raises)."""
    return cast(Callable[[dict[str, Any]], M], model.__pydantic_validator__.validate_python)


def _same(a: BaseModel, b: BaseModel) -> bool:
    """Two instances alike in everything pydantic keeps of them (``==`` leaves out the
    fields-set record and the order of the fields)."""
    return (
        type(a) is type(b)
        and list(a.__dict__.items()) == list(b.__dict__.items())
        and a.__pydantic_fields_set__ == b.__pydantic_fields_set__
        and a.__pydantic_extra__ == b.__pydantic_extra__
        and type(a.__pydantic_extra__) is type(b.__pydantic_extra__)
        and a.__pydantic_private__ is None
        and b.__pydantic_private__ is None
        and a.model_dump_json() == b.model_dump_json()
    )


def pair_maker(model: type[M], first: str, second: str) -> Callable[[str, str], M]:
    """``make(a, b)`` is ``Model(first=a, second=b)``: built directly when both are ``str``
    and the model has nothing to run on them (no validators, no private attributes, no
    post-init, both fields plain ``str``), else (and for any value of another type) by the
    validator, with its errors."""
    return cast(Callable[[str, str], M], _fields_maker(model, (first, second)))


def one_maker(model: type[M], field: str) -> Callable[[str], M]:
    """``make(a)`` is ``Model(field=a)``, as :func:`pair_maker` builds it (a call's end)."""
    return cast(Callable[[str], M], _fields_maker(model, (field,)))


def triple_maker(
    model: type[M], first: str, second: str, third: str
) -> Callable[[str, str, str], M]:
    """``make(a, b, c)`` is ``Model(first=a, second=b, third=c)``, as :func:`pair_maker`
    builds it (a call's start: its id, its name, its parent message); a field may also be
    an optional string (``str | None``), which a ``str`` is stored in as it is."""
    return cast(Callable[[str, str, str], M], _fields_maker(model, (first, second, third)))


def meta_maker(
    model: type[M], first: str, second: str, third: str, meta: str
) -> Callable[[str, str, str, dict[str, Any]], M]:
    """``make(a, b, c, m)`` is ``Model(first=a, second=b, third=c, meta=m)``, as
    :func:`triple_maker` builds it, with ``meta`` an optional object of string keys
    (``dict[str, Any] | None``, an event's ``metadata``), which the validator stores as a
    copy of a ``dict`` whose keys are all ``str``: built directly for those (a call's start
    with its metadata), by the validator for anything else."""
    return cast(
        Callable[[str, str, str, dict[str, Any]], M],
        _fields_maker(model, (first, second, third), meta),
    )


#: the annotations a direct maker fills with a ``str`` as it is (the validator stores it so)
_STRING_FIELDS = (str, Optional[str])  # noqa: UP045 (the annotation as pydantic keeps it)
#: the annotation a direct maker fills with a copy of a ``dict`` of ``str`` keys
_OBJECT_FIELDS: tuple[Any, ...] = (
    Optional[dict[str, Any]],  # noqa: UP045 (the annotation as pydantic keeps it)
    Optional[Dict[str, Any]],  # noqa: UP006, UP045 (ag_ui.core's spelling)
)


def _fields_maker(
    model: type[M], names: tuple[str, ...], meta: str | None = None
) -> Callable[..., M]:
    validate = maker(model)
    given = names if meta is None else (*names, meta)

    def validated(*values: Any) -> M:
        return validate(dict(zip(given, values, strict=True)))

    fields = model.model_fields
    decorators = model.__pydantic_decorators__
    plain = (
        all(fields[f].annotation in _STRING_FIELDS and not fields[f].metadata for f in names)
        and (
            meta is None
            or (fields[meta].annotation in _OBJECT_FIELDS and not fields[meta].metadata)
        )
        and not decorators.model_validators
        and not decorators.field_validators
        and not model.__private_attributes__
        and model.__pydantic_post_init__ is None
    )
    sample_values: tuple[Any, ...] = tuple("abc"[: len(names)])
    if meta is not None:
        sample_values = (*sample_values, {"d": 1, "e": {"f": [2]}})
    sample = validated(*sample_values)
    defaults = dict(sample.__dict__)
    others = [(k, v) for k, v in defaults.items() if k not in given]
    if not plain or not all(v is None or k == "type" for k, v in others):
        return validated  # a default that might be shared and changed: the validator's way
    extra = sample.__pydantic_extra__
    if extra is not None and (type(extra) is not dict or extra):
        return validated
    if meta is None:
        direct = _direct(model, names, defaults, extra is not None, validate)
    else:
        direct = _direct_meta(model, names, meta, defaults, extra is not None, validate)
    made = direct(*sample_values)
    if meta is not None and made.__dict__[meta] is sample_values[-1]:
        return validated  # (the object stored as given: shared, not the validator's copy)
    return direct if _same(made, sample) else validated


def _direct(
    model: type[M],
    names: tuple[str, ...],
    defaults: dict[str, Any],
    allows_extra: bool,
    validate: Callable[[dict[str, Any]], M],
) -> Callable[..., M]:
    """The direct maker of ``names`` (one, two or three fields), written out per count (a
    loop over the names was a fifth of its time): the instance the validator would make
    for ``str`` values, the validator for others."""
    new = object.__new__
    set_dict = _SLOTS["__dict__"].__set__  # (its descriptor: no attribute look-up by name)
    set_fields = _SLOTS["__pydantic_fields_set__"].__set__
    set_extra = _SLOTS["__pydantic_extra__"].__set__
    set_private = _SLOTS["__pydantic_private__"].__set__

    if len(names) == 1:
        (first,) = names

        def direct1(a: str) -> M:
            if type(a) is not str:
                return validate({first: a})
            values = defaults.copy()
            values[first] = a
            made = new(model)
            set_dict(made, values)
            set_fields(made, {first})
            set_extra(made, {} if allows_extra else None)
            set_private(made, None)
            return made

        return direct1
    if len(names) == 2:
        first, second = names

        def direct(a: str, b: str) -> M:
            if type(a) is not str or type(b) is not str:
                return validate({first: a, second: b})
            values = defaults.copy()
            values[first] = a
            values[second] = b
            made = new(model)
            set_dict(made, values)
            set_fields(made, {first, second})
            set_extra(made, {} if allows_extra else None)
            set_private(made, None)
            return made

        return direct
    first, second, third = names

    def direct3(a: str, b: str, c: str) -> M:
        if type(a) is not str or type(b) is not str or type(c) is not str:
            return validate({first: a, second: b, third: c})
        values = defaults.copy()
        values[first] = a
        values[second] = b
        values[third] = c
        made = new(model)
        set_dict(made, values)
        set_fields(made, {first, second, third})
        set_extra(made, {} if allows_extra else None)
        set_private(made, None)
        return made

    return direct3


def _direct_meta(
    model: type[M],
    names: tuple[str, ...],
    meta: str,
    defaults: dict[str, Any],
    allows_extra: bool,
    validate: Callable[[dict[str, Any]], M],
) -> Callable[..., M]:
    """The direct maker of three string fields and an object of string keys (a copy of it
    stored, as the validator stores one), the validator for any other values."""
    new = object.__new__
    set_dict = _SLOTS["__dict__"].__set__
    set_fields = _SLOTS["__pydantic_fields_set__"].__set__
    set_extra = _SLOTS["__pydantic_extra__"].__set__
    set_private = _SLOTS["__pydantic_private__"].__set__
    first, second, third = names

    def direct_meta(a: str, b: str, c: str, m: dict[str, Any]) -> M:
        if type(a) is not str or type(b) is not str or type(c) is not str or type(m) is not dict:
            return validate({first: a, second: b, third: c, meta: m})
        for k in m:  # (a loop, not all() of a generator: most objects hold one or two keys)
            if type(k) is not str:
                return validate({first: a, second: b, third: c, meta: m})
        values = defaults.copy()
        values[first] = a
        values[second] = b
        values[third] = c
        values[meta] = m.copy()
        made = new(model)
        set_dict(made, values)
        set_fields(made, {first, second, third, meta})
        set_extra(made, {} if allows_extra else None)
        set_private(made, None)
        return made

    return direct_meta


#: ``args_delta(tool_call_id, delta)``: the events most of a stream is made of
args_delta = pair_maker(ToolCallArgsEvent, "tool_call_id", "delta")
#: ``text_delta(message_id, delta)``
text_delta = pair_maker(TextMessageContentEvent, "message_id", "delta")
#: ``reasoning_delta(message_id, delta)``
reasoning_delta = pair_maker(ReasoningMessageContentEvent, "message_id", "delta")

#: ``call_start(tool_call_id, tool_call_name, parent_message_id)``: a call that comes whole
#: (Gemini, Mistral, Ollama) is most of its stream's events with its end
call_start = triple_maker(ToolCallStartEvent, "tool_call_id", "tool_call_name", "parent_message_id")
#: ``call_start_meta(tool_call_id, tool_call_name, parent_message_id, metadata)``: a call's
#: start that carries metadata (Ollama's index of each call)
call_start_meta = meta_maker(
    ToolCallStartEvent, "tool_call_id", "tool_call_name", "parent_message_id", "metadata"
)
#: ``call_end(tool_call_id)``
call_end = one_maker(ToolCallEndEvent, "tool_call_id")

#: each event class with a direct maker -> that maker and the fields it takes, in order (a
#: bench's floor builds the events it can this way, as toolwire does)
DIRECT_MAKERS: dict[type[BaseModel], tuple[Callable[..., Any], tuple[str, ...]]] = {
    ToolCallArgsEvent: (args_delta, ("tool_call_id", "delta")),
    TextMessageContentEvent: (text_delta, ("message_id", "delta")),
    ReasoningMessageContentEvent: (reasoning_delta, ("message_id", "delta")),
    ToolCallStartEvent: (call_start, ("tool_call_id", "tool_call_name", "parent_message_id")),
    ToolCallEndEvent: (call_end, ("tool_call_id",)),
}

__all__ = [
    "DIRECT_MAKERS",
    "args_delta",
    "call_end",
    "call_start",
    "call_start_meta",
    "maker",
    "meta_maker",
    "one_maker",
    "pair_maker",
    "reasoning_delta",
    "text_delta",
    "triple_maker",
]
