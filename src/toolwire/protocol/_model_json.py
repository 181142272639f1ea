"""SDK objects (pydantic models) as the dicts ``model_dump(mode="json", by_alias=True,
exclude_unset=True)`` gives, read from the models' fields instead of through pydantic's
serializer.

Every vendor SDK hands toolwire pydantic models, and dumping each one through pydantic was
most of toolwire's cost on the SDK path (the serializer, plus pydantic's ``__getattr__`` on
the way in). What a dump holds is known from the class: the fields set on the object
(``__pydantic_fields_set__``), in declaration order, under their serialization aliases,
then the extra fields; values are serialized by their runtime type, as pydantic does for a
value of the declared type. A class is read once (a per-class plan). Whatever this cannot
reproduce exactly is left to ``model_dump`` for that object alone: a class with its own
serializers, computed fields, annotated serialization or typed extras; a value of a type
it does not know; a ``float`` field's integer inside a container. A ``float`` field holding
an integer is written as a float, as pydantic does; bytes, dates and times, a non-finite
float outside a float field, ``Decimal`` and ``UUID`` go through pydantic-core with the
model's ``ser_json_*`` settings.

The dump is checked on the way as ``jsontext.checked`` checks a dict (a lone surrogate, the
depth cap), so ``as_dict`` does not walk the result a second time.
"""

from __future__ import annotations

import datetime as _dt
import math
import types
import typing
from collections.abc import Callable
from decimal import Decimal
from enum import Enum
from typing import Any
from uuid import UUID

from pydantic import BaseModel, RootModel
from pydantic.fields import FieldInfo
from pydantic_core import to_jsonable_python

from toolwire.protocol.jsontext import is_clean
from toolwire.protocol.limits import limits

_PLAIN = 0  # values dumped by their runtime type
_FLOAT = 1  # a float field (maybe optional): an integer in it is written as a float
_DEEP = 2  # a float somewhere inside a container type: a set value is pydantic's to dump

#: value types pydantic-core turns into JSON by the model's ``ser_json_*`` settings
_LEAVES = (bytes, bytearray, _dt.datetime, _dt.date, _dt.time, _dt.timedelta, Decimal, UUID)

Field = tuple[str, str, int]  # (attribute name, key in the dump, kind)
Odd = Callable[[Any], Any]


class _Slow(Exception):
    """This object's dump is pydantic's to make (raised inside the walk, caught per object)."""


class Unclean(Exception):
    """The object holds a lone surrogate or nests to ``limits().max_json_depth``: its dump
    must go through :func:`~toolwire.protocol.jsontext.checked` (which repairs or refuses)."""


class _Plan:
    __slots__ = ("extra_typed", "fields", "odd")

    def __init__(self, fields: tuple[Field, ...], odd: Odd, extra_typed: bool) -> None:
        self.fields = fields
        self.odd = odd
        self.extra_typed = extra_typed


_PLANS: dict[type, _Plan | None] = {}


def model_json(obj: BaseModel) -> Any:
    """``obj.model_dump(mode="json", by_alias=True, exclude_unset=True)``, built directly and
    checked on the way as :func:`~toolwire.protocol.jsontext.checked` checks: ``Unclean``
    when that check would repair or refuse it."""
    return _model(obj, 0, limits().max_json_depth)


def _model(obj: BaseModel, depth: int, cap: int) -> Any:
    if depth >= cap:
        raise Unclean
    cls = type(obj)
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls)
    if plan is not None:
        try:
            return _dump(obj, plan, depth, cap)
        except (_Slow, AttributeError, KeyError):
            pass
    dumped = obj.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if not is_clean(dumped, depth):
        raise Unclean
    return dumped


def _dump(obj: BaseModel, plan: _Plan, depth: int, cap: int) -> dict[str, Any]:
    values = obj.__dict__
    chosen = obj.__pydantic_fields_set__
    odd = plan.odd
    down = depth + 1
    out: dict[str, Any] = {}
    for name, key, kind in plan.fields:
        if name not in chosen:
            continue
        v = values[name]
        t = type(v)
        if kind == _PLAIN:
            if t is str:
                if not v.isascii() and not is_clean(v):
                    raise Unclean
                out[key] = v
            elif t is int or t is bool or v is None:
                out[key] = v
            else:
                out[key] = _value(v, odd, down, cap)
        elif v is None or t is float:
            out[key] = v  # a float field's float as it is (pydantic keeps inf/nan there too)
        elif kind == _FLOAT and t is int:
            out[key] = float(v)  # pydantic writes a float field's integer as a float
        else:
            raise _Slow  # anything else in a float-bearing field: pydantic's to judge
    extra = obj.__pydantic_extra__
    if extra:
        if plan.extra_typed:
            raise _Slow
        for key, v in extra.items():
            if not key.isascii() and not is_clean(key):
                raise Unclean
            out[key] = _value(v, odd, down, cap)
    return out


def _value(v: Any, odd: Odd, depth: int, cap: int) -> Any:
    t = type(v)
    if t is str:
        if not v.isascii() and not is_clean(v):
            raise Unclean
        return v
    if t is int or t is bool or v is None:
        return v
    if t is dict:
        if depth >= cap:
            raise Unclean
        down = depth + 1
        out: dict[str, Any] = {}
        for k, x in v.items():
            if type(k) is not str:
                raise _Slow  # pydantic writes other keys as text its own way
            if not k.isascii() and not is_clean(k):
                raise Unclean
            out[k] = _value(x, odd, down, cap)
        return out
    if t is list or t is tuple:
        if depth >= cap:
            raise Unclean
        down = depth + 1
        return [_value(x, odd, down, cap) for x in v]
    if t is float:
        return v if math.isfinite(v) else odd(v)
    if t in _PLANS or isinstance(v, BaseModel):  # a class met before: no isinstance
        return _model(v, depth, cap)
    if isinstance(v, Enum):
        return _value(v.value, odd, depth, cap)
    dumped = odd(v)
    if not is_clean(dumped, depth):
        raise Unclean
    return dumped


def _plan(cls: type[BaseModel]) -> _Plan | None:
    """How to dump ``cls``, or None when only pydantic can (see the module's docstring)."""
    if issubclass(cls, RootModel):
        return None
    decorators = cls.__pydantic_decorators__
    if decorators.field_serializers or decorators.model_serializers:
        return None
    if cls.__pydantic_computed_fields__:
        return None
    config = cls.model_config
    odd = _odd_for(config)
    fields: list[Field] = []
    for name, info in cls.__pydantic_fields__.items():
        if getattr(info, "exclude_if", None) is not None:
            return None
        if any(not _harmless(m) for m in info.metadata) or _custom(info.annotation):
            return None
        if info.exclude:
            continue
        key = info.serialization_alias if info.serialization_alias is not None else name
        fields.append((name, key, _float_kind(info.annotation)))
    extra_typed = any(
        "__pydantic_extra__" in vars(k).get("__annotations__", {})
        for k in cls.__mro__
        if k is not BaseModel and issubclass(k, BaseModel)
    )
    return _Plan(tuple(fields), odd, extra_typed)


def _odd_for(config: Any) -> Odd:
    """The serializer of the leaves pydantic-core writes by the model's settings."""
    kw: dict[str, Any] = {
        "bytes_mode": config.get("ser_json_bytes", "utf8"),
        "timedelta_mode": config.get("ser_json_timedelta", "iso8601"),
        "inf_nan_mode": config.get("ser_json_inf_nan", "null"),
    }
    if "ser_json_temporal" in config:
        kw["temporal_mode"] = config["ser_json_temporal"]

    def odd(v: Any) -> Any:
        if isinstance(v, _LEAVES) or type(v) is float:
            return to_jsonable_python(v, **kw)
        raise _Slow

    return odd


def _harmless(meta: Any) -> bool:
    """Field metadata that cannot change how a value is dumped: not a pydantic schema
    maker (serializers, validators, encoders have ``__get_pydantic_core_schema__``) nor a
    ``Field``; constraints and the SDKs' own markers (a union's discriminator) are not."""
    return not hasattr(meta, "__get_pydantic_core_schema__") and not isinstance(meta, FieldInfo)


def _custom(annotation: Any) -> bool:
    """The annotation may carry its own serialization (``Annotated`` metadata that is not
    :func:`_harmless`, or a type with its own core schema that is not a model)."""
    if typing.get_origin(annotation) is typing.Annotated:
        _, *meta = typing.get_args(annotation)
        if any(not _harmless(m) for m in meta):
            return True
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return False
        if hasattr(annotation, "__get_pydantic_core_schema__"):
            return True
    return any(_custom(a) for a in typing.get_args(annotation) if not isinstance(a, str))


def _float_kind(annotation: Any) -> int:
    if annotation is float:
        return _FLOAT
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if args == [float]:
            return _FLOAT
        return _DEEP if any(_mentions_float(a) for a in args) else _PLAIN
    return _DEEP if _mentions_float(annotation) else _PLAIN


def _mentions_float(annotation: Any) -> bool:
    """A float (or something not known: a forward reference) inside the annotation; a
    model stops the search (it has its own plan)."""
    if annotation is float or isinstance(annotation, (str, typing.ForwardRef)):
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return False
    if typing.get_origin(annotation) is typing.Literal:
        return any(isinstance(a, float) for a in typing.get_args(annotation))
    return any(_mentions_float(a) for a in typing.get_args(annotation))


__all__ = ["Unclean", "model_json"]
