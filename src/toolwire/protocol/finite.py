"""Whether a request body can hold NaN or an infinity, told from what entered it.

JSON has no NaN and no infinity, so ``encode_request`` refuses a body holding one
(:func:`toolwire.protocol.surface.encode_surface`). Walking the whole body for that costs a
third of a ``json.dumps`` of it; yet only a caller's free-form values can hold a float: the
AG-UI models' typed fields are strings, and toolwire writes no float of its own. So the
body is walked only when something that entered it may hold one:

- the run input's free-form slots (every field typed ``Any``, a dict or a float: state,
  forwarded props, tool schemas, resume payloads, every model's metadata and extra fields),
  scanned where the input is read (:func:`input_read`, called by ``as_run_input``);
- the encoder's other arguments (its options, vendor keywords), scanned by the surface;
- a value parsed from a caller's text on its way into the body (argument text: json reads
  ``1e999`` as an infinity), noted where it is parsed (:func:`from_text`).

A slot holding anything but plain JSON data (an SDK object, a value too deep) counts as
"may hold one". When nothing may, the body is not walked; otherwise it is walked as before,
so the error and the place it names are the same. An encoder that never reads its input
through ``as_run_input`` (MCP's) leaves the body walked.
"""

from __future__ import annotations

import types
import typing
from contextvars import ContextVar
from typing import Any, Literal, TypeVar, Union

from ag_ui.core import (
    AssistantMessage,
    AudioPart,
    DataSource,
    DeveloperMessage,
    DocumentPart,
    FileSource,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
    VideoPart,
)
from pydantic import BaseModel

from toolwire.protocol._compact_json import check_finite

T = TypeVar("T")


class Entered:
    """One ``encode_request``'s record: whether its input was scanned, and whether
    anything that entered its body may hold NaN or an infinity."""

    __slots__ = ("scanned", "suspect")

    def __init__(self) -> None:
        self.scanned = False
        self.suspect = False


#: the record of the ``encode_request`` under way in this context (None outside one)
_ENTERED: ContextVar[Entered | None] = ContextVar("toolwire_request_entered", default=None)


def begin() -> tuple[Entered, Any]:
    """Start a request's record (the token gives the outer one back: :func:`end`)."""
    entered = Entered()
    return entered, _ENTERED.set(entered)


def end(token: Any) -> None:
    _ENTERED.reset(token)


def from_text(value: T) -> T:
    """``value``, parsed from a caller's text on its way into a request body: noted when it
    is not plain finite JSON data, so the body is walked."""
    entered = _ENTERED.get()
    if entered is not None and not entered.suspect and not _plain_finite(value):
        entered.suspect = True
    return value


def input_read(run: RunAgentInput) -> None:
    """Scan the free-form slots of a request's run input (called where it is read)."""
    entered = _ENTERED.get()
    if entered is None:
        return
    entered.scanned = True
    if not entered.suspect and not free_finite(run):
        entered.suspect = True


def options_finite(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether an encoder's arguments past the run input hold only finite JSON data
    (``losses`` is the caller's list, not sent; any other object, an ``Accepts`` given as a
    rule too, counts as "may hold one")."""
    free: list[Any] = []
    for value in args[1:]:
        _collect(value, free)
    for key, value in kwargs.items():
        if key != "losses":
            _collect(value, free)
    return _plain_finite(free)


def _plain_finite(value: Any) -> bool:
    """Whether ``value`` is JSON data with finite numbers only (an object of another type,
    a non-string key or a value too deep: no). A small value is walked here (the C
    encoder's set-up costs more than a parsed argument object's walk); past
    :data:`_WALKED` nodes the rest goes to the C encoder."""
    if type(value) is dict and _STR.issuperset(map(type, value)):
        if _SCALARS.issuperset(map(type, value.values())):
            return True  # (a flat object, as most arguments are: no walk)
    stack = [value]
    pop, push = stack.pop, stack.extend
    budget = _WALKED
    while stack:
        budget -= 1
        if not budget:
            return _c_finite(stack)
        v = pop()
        t = type(v)
        if t is str or t is int or t is bool or v is None:
            continue
        if t is float:
            if v - v != 0.0:  # NaN and the infinities (inf - inf is NaN)
                return False
        elif t is dict:
            if not all(type(k) is str for k in v):
                return False
            push(v.values())
        elif t is list or t is tuple:
            push(v)
        else:
            return False
    return True


_STR = frozenset((str,))
_SCALARS = frozenset((str, int, bool, type(None)))
#: the most nodes :func:`_plain_finite` walks itself
_WALKED = 64


def _c_finite(value: Any) -> bool:
    try:
        check_finite(value)  # NaN/infinity: ValueError; an object: TypeError
    except (TypeError, ValueError, RecursionError):
        return False
    return True


# -- the scan ---------------------------------------------------------------------------------

_PLAIN, _MODELS, _FREE = 0, 1, 2
_PLAIN_TYPES: tuple[type, ...] = (str, int, bool, type(None))


def _kind(annotation: Any) -> int:
    """What a field of ``annotation`` holds: only plain scalars (str, int, bool, None), models
    (or lists of them, beside plain scalars), or anything else (free-form)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _kind(typing.get_args(annotation)[0])
    if origin is Literal:
        return _PLAIN
    if origin in (Union, types.UnionType, list):
        return max((_kind(a) for a in typing.get_args(annotation)), default=_FREE)
    if annotation in _PLAIN_TYPES:
        return _PLAIN
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _MODELS
    return _FREE


_plans: dict[type, tuple[tuple[str, int], ...]] = {}


def _plan(cls: type[BaseModel]) -> tuple[tuple[str, int], ...]:
    """The fields of ``cls`` that are not plain scalars, with their kind (made once a class)."""
    plan = _plans.get(cls)
    if plan is None:
        fields = cls.model_fields.items()
        plan = tuple((n, k) for n, f in fields if (k := _kind(f.annotation)) != _PLAIN)
        _plans[cls] = plan
    return plan


def _collect(value: Any, free: list[Any]) -> None:
    """Add to ``free`` every free-form value ``value`` holds, walking models (by their
    fields' types) and lists; a plain scalar is skipped, anything else is added whole."""
    stack = [value]
    while stack:
        v = stack.pop()
        if v is None or type(v) in _PLAIN_TYPES:
            continue
        if isinstance(v, BaseModel):
            extra = getattr(v, "__pydantic_extra__", None)
            if extra:
                free.append(extra)
            d = v.__dict__
            for name, kind in _plan(type(v)):
                field = d.get(name)
                if field is None:
                    continue
                if kind == _FREE:
                    free.append(field)
                else:
                    stack.append(field)
        elif type(v) is list or type(v) is tuple:
            stack.extend(v)
        else:
            free.append(v)


#: the message, part, source and call classes whose shape :func:`_messages_free` reads
#: directly (checked below against the fields' types); any other is walked by its plan
_MESSAGES: tuple[type[BaseModel], ...] = (UserMessage, ToolMessage, AssistantMessage)
_MESSAGES += (SystemMessage, DeveloperMessage, ReasoningMessage)
_PARTS: tuple[type[BaseModel], ...] = (TextPart, ImagePart, AudioPart, VideoPart, DocumentPart)
_SOURCES: tuple[type[BaseModel], ...] = (DataSource, UrlSource, FileSource)


def _shape_known() -> bool:
    """Whether the AG-UI classes have the shape :func:`_messages_free` assumes: in a message,
    only ``metadata`` free-form, ``content`` and ``tool_calls`` models; in a part,
    ``metadata`` and ``source``; in a call, ``metadata`` and ``function``; sources and
    ``FunctionCall`` plain scalars only."""
    for cls in _MESSAGES:
        plan = dict(_plan(cls))
        if plan.pop("metadata", None) != _FREE or not set(plan.items()) <= {
            ("content", _MODELS),
            ("tool_calls", _MODELS),
        }:
            return False
    for cls in _PARTS:
        if dict(_plan(cls)) not in ({"metadata": _FREE}, {"metadata": _FREE, "source": _MODELS}):
            return False
    plain: tuple[type[BaseModel], ...] = (*_SOURCES, FunctionCall)
    call = {"metadata": _FREE, "function": _MODELS}
    return all(_plan(cls) == () for cls in plain) and dict(_plan(ToolCall)) == call


_FAST_MESSAGES = frozenset(_MESSAGES) if _shape_known() else frozenset()
_FAST_PARTS = frozenset(_PARTS) if _FAST_MESSAGES else frozenset()
_FAST_SOURCES = frozenset(_SOURCES)


def _messages_free(messages: list[Any], free: list[Any]) -> None:
    """:func:`_collect` of a history, the common classes read without their plans (a long
    history is most of an input: one pass, no call per message)."""
    add = free.append
    for m in messages:
        if type(m) not in _FAST_MESSAGES:
            _collect(m, free)
            continue
        d = m.__dict__
        if m.__pydantic_extra__:
            add(m.__pydantic_extra__)
        if d["metadata"] is not None:
            add(d["metadata"])
        content = d["content"]
        if type(content) is list:
            for p in content:
                if type(p) not in _FAST_PARTS:
                    _collect(p, free)
                    continue
                pd = p.__dict__
                if pd["metadata"] is not None:
                    add(pd["metadata"])
                if p.__pydantic_extra__:
                    add(p.__pydantic_extra__)
                source = pd.get("source")
                if source is not None:
                    if type(source) not in _FAST_SOURCES:
                        _collect(source, free)
                    elif source.__pydantic_extra__:
                        add(source.__pydantic_extra__)
        elif content is not None and type(content) is not str:
            add(content)  # (not what the model's type says: walked whole)
        calls = d.get("tool_calls")
        if calls:
            for c in calls:
                if type(c) is not ToolCall or type(c.function) is not FunctionCall:
                    _collect(c, free)
                    continue
                if c.metadata is not None:
                    add(c.metadata)
                if c.__pydantic_extra__:
                    add(c.__pydantic_extra__)
                if c.function.__pydantic_extra__:
                    add(c.function.__pydantic_extra__)


def free_finite(run: RunAgentInput) -> bool:
    """Whether every free-form slot of ``run`` holds only finite JSON data."""
    free: list[Any] = []
    extra = run.__pydantic_extra__
    if extra:
        free.append(extra)
    d = run.__dict__
    for name, kind in _plan(type(run)):
        if name == "messages" and type(d[name]) is list:
            _messages_free(d[name], free)
        elif d.get(name) is not None:
            if kind == _FREE:
                free.append(d[name])
            else:
                _collect(d[name], free)
    return _plain_finite(free)


__all__ = ["Entered", "begin", "end", "free_finite", "from_text", "input_read", "options_finite"]
