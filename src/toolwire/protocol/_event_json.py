"""AG-UI events as JSON text, byte for byte what ``model_dump_json(by_alias=True)`` writes.

Every ``ag_ui.core`` model serializes through a Python ``model_serializer`` (it leaves out
optional fields without a value), so each event costs a call back into Python from pydantic's
serializer: on a stream of small deltas that was a fifth of the time from vendor bytes to AG-UI
SSE. The events a stream is made of hold only strings, integers, booleans and ``None`` (and
small objects of those: a call's ``metadata``), so for those the text is built here from the
model's own field list (wire names, declaration order, the same omission rule) with the
standard library's C string escaper and encoder. Anything else — a float anywhere, an unknown
extra field, a class from outside ``ag_ui`` — is left to pydantic, as is a string UTF-8
cannot carry (so the error is pydantic's too).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from json.encoder import encode_basestring
from operator import itemgetter
from typing import Any, Dict, Optional  # noqa: UP035

from ag_ui.core import BaseEvent

from toolwire.protocol._compact_json import compact

#: per event class: (attribute, '"wireName":', may be left out when None), or None: pydantic
_Plan = tuple[tuple[str, str, bool], ...]
_PLANS: dict[type, _Plan | None] = {}
_MISSING = object()

#: per event class, its common forms: its ``type``, every field that may be left out left out
#: but at most two, the others (one to five) written: a stream's deltas, a call's start with
#: its parent message and its metadata. Each form: (the getter of the type and the left-out
#: fields' values, their values in that form, the written fields' getter, the text with a
#: ``%s`` for each, how many, and each written field's writer, or ``None`` when all are
#: strings). The form that matched last is tried first.
_Short = tuple[
    Callable[[dict[str, Any]], Any],
    tuple[Any, ...],
    Callable[[dict[str, Any]], Any],
    str,
    int,
    tuple[Callable[[Any], str], ...] | None,
]
#: the most fields that may be left out which a form writes
_FORM_OPTIONALS = 2
_SHORT: dict[type, tuple[_Short, ...]] = {}


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


def _forms(cls: type, plan: _Plan) -> tuple[_Short, ...]:
    """``cls``'s forms: the one with every field that may be left out left out, then one
    for each such field written, then for each two of them."""
    field = cls.model_fields.get("type")  # type: ignore[attr-defined]
    kind = field.default if field is not None else None
    if not isinstance(kind, str) or plan[0][0] != "type":
        return ()
    optional = [name for name, _, omit in plan if omit]
    strings = {
        name
        for name, info in cls.model_fields.items()  # type: ignore[attr-defined]
        if info.annotation in (str, str | None)
    }
    objects = {
        name
        for name, info in cls.model_fields.items()  # type: ignore[attr-defined]
        if info.annotation in _OBJECTS
    }
    written = [
        set(names) for n in range(_FORM_OPTIONALS + 1) for names in combinations(optional, n)
    ]
    forms = (_form(plan, kind, set(optional) - names, strings, objects) for names in written)
    return tuple(form for form in forms if form is not None)


def _form(
    plan: _Plan, kind: str, left: set[str], strings: set[str], objects: set[str]
) -> _Short | None:
    """The form that leaves out the fields ``left`` and writes the others: a field typed
    ``str`` as a string, one typed an object by :func:`_object_json`, any other by
    :func:`_value_json`."""
    kept = [(name, key) for name, key, _ in plan if name not in left and name != "type"]
    if not left or not 1 <= len(kept) <= 5:
        return None
    left_out = [name for name, _, _ in plan if name in left]
    keys = [
        plan[0][1] + encode_basestring(kind),
        *(key.replace("%", "%%") + "%s" for _, key in kept),
    ]
    writers = tuple(
        encode_basestring if name in strings else _object_json if name in objects else _value_json
        for name, _ in kept
    )
    # itemgetter of one name gives the value, of several a tuple
    getter = itemgetter(*(name for name, _ in kept))
    return (
        itemgetter("type", *left_out),
        (kind, *([None] * len(left_out))),
        getter,
        "{" + ",".join(keys) + "}",
        len(kept),
        None if all(w is encode_basestring for w in writers) else writers,
    )


def _value_json(value: Any) -> str:
    """A field's value as pydantic writes it, for what is written alike (:func:`_plain`);
    anything else (``None`` too: a form that writes the field has it set) is a
    ``TypeError``, and the field-by-field walk decides."""
    t = type(value)
    if isinstance(value, str):  # (a ``str`` enum, an event's ``type``, too)
        return encode_basestring(value)
    if t is int:
        return str(value)
    if t is bool:
        return "true" if value else "false"
    if t is dict:
        flat = _flat_json(value)
        if flat is not None:
            return flat
    if (t is dict or t is list) and _plain(value):
        return compact(value)
    raise TypeError("not written by a form")


#: the annotations of a field that holds an object (an event's ``metadata``)
_OBJECTS: tuple[Any, ...] = (
    Optional[dict[str, Any]],  # noqa: UP045 (the annotation as pydantic keeps it)
    Optional[Dict[str, Any]],  # noqa: UP006, UP045 (ag_ui.core's spelling)
)


def _object_json(value: Any) -> str:
    """:func:`_value_json` for a field typed an object: its usual value, an object of
    string keys and plain scalars, written first."""
    if type(value) is dict:
        flat = _flat_json(value)
        if flat is not None:
            return flat
    return _value_json(value)


def _flat_json(value: dict[Any, Any]) -> str | None:
    """An object of string keys and plain scalars (a call's metadata: its index, a vendor's
    id) as :func:`~toolwire.protocol._compact_json.compact` writes it, without entering the
    encoder; ``None`` for any other (``compact`` then)."""
    parts = []
    for k, v in value.items():
        if type(k) is not str:
            return None
        t = type(v)
        if t is str:
            parts.append(f"{encode_basestring(k)}:{encode_basestring(v)}")
        elif t is int:
            parts.append(f"{encode_basestring(k)}:{int.__repr__(v)}")
        elif t is bool:
            parts.append(f"{encode_basestring(k)}:{'true' if v else 'false'}")
        elif v is None:
            parts.append(f"{encode_basestring(k)}:null")
        else:
            return None
    return "{" + ",".join(parts) + "}"


#: how deep an object or array is written here (deeper: pydantic's); one that is plain is
#: written as pydantic writes it (compact, non-ASCII as is, keys in order) by json's C
#: encoder (``_compact_json.compact``)
_PLAIN_DEPTH = 16


def _plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds only what pydantic and json write alike: strings, integers,
    booleans, ``None``, and objects (string keys) and arrays of those, not too deep. A float
    is not (the two spell some differently)."""
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return True
    if depth >= _PLAIN_DEPTH:
        return False
    if t is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    if t is list:
        return all(_plain(v, depth + 1) for v in value)
    return False


def _prepared(cls: type) -> tuple[_Short, ...]:
    """``cls``'s plan and forms, worked out once."""
    plan = _PLANS[cls] = _plan(cls)
    forms = _SHORT[cls] = () if plan is None else _forms(cls, plan)
    return forms


def _other_form(cls: type, forms: tuple[_Short, ...], values: dict[str, Any]) -> str | None:
    """The text of an event in one of its class's other forms (that form is tried first
    from now on), or ``None``: in none of them. A form whose left-out fields are unset but
    that writes a field the event leaves unset (its writer refuses ``None``) is not the
    event's: the next one is tried (so a form that wrote more fields, first since the last
    event, never keeps the next events from theirs)."""
    for at in range(1, len(forms)):
        left, unset, kept, form, n, writers = forms[at]
        try:
            if left(values) != unset:
                continue
            text = _written(form, kept(values), n, writers)
        except Exception:  # (a field None or of another type: not this form)
            continue
        _SHORT[cls] = (forms[at], *forms[:at], *forms[at + 1 :])
        return text
    return None


def _written(form: str, got: Any, n: int, writers: tuple[Callable[[Any], str], ...] | None) -> str:
    """``form`` with the written fields' values (``got``: a value, or a tuple of ``n``)."""
    written = (got,) if n == 1 else got
    if writers is None:
        return form % tuple(map(encode_basestring, written))
    return form % tuple([write(v) for write, v in zip(writers, written)])  # noqa: B905


def _pydantic(event: BaseEvent) -> str:
    return event.model_dump_json(by_alias=True)


def event_json(event: BaseEvent) -> str:
    """The event's JSON text (compact, non-ASCII as is), the same as pydantic's."""
    cls = type(event)
    try:
        forms = _SHORT[cls]
    except KeyError:
        forms = _prepared(cls)
    if forms and not event.__pydantic_extra__:
        values = event.__dict__
        try:
            left, unset, kept, form, n, writers = forms[0]  # (the form they came in last)
            if left(values) != unset:
                text = _other_form(cls, forms, values)
            elif writers is not None:
                text = _written(form, kept(values), n, writers)
            elif n == 2:
                a, b = kept(values)
                text = form % (encode_basestring(a), encode_basestring(b))
            elif n == 1:
                text = form % encode_basestring(kept(values))
            elif n == 3:
                a, b, c = kept(values)
                text = form % (encode_basestring(a), encode_basestring(b), encode_basestring(c))
            else:
                text = form % tuple(map(encode_basestring, kept(values)))
        except Exception:  # a field missing, one not a string or unset, or a value whose
            # comparison with None raises (an array's): another form, else the walk decides
            text = _other_form(cls, forms, values)
        if text is not None:
            return text if text.isascii() or _utf8(text) else _pydantic(event)
    plan = _PLANS[cls]
    if plan is None or event.__pydantic_extra__:
        return _pydantic(event)
    values = event.__dict__
    out = []
    for name, key, omit in plan:
        value = values.get(name, _MISSING)
        if value is None:
            if not omit:
                out.append(key + "null")
            continue
        try:
            out.append(key + _value_json(value))
        except TypeError:  # a value pydantic writes otherwise (a float, a model, missing)
            return _pydantic(event)
    text = "{" + ",".join(out) + "}"
    return text if text.isascii() or _utf8(text) else _pydantic(event)


#: what lies between two events' JSON texts in an SSE body (``data: <json>\n\n`` each)
FRAME_GAP = "\n\ndata: "

#: a call's arguments and its end: their fields a form writes, in order, when every
#: field that may be left out is (the id twice, so written once for both)
_TAIL_FIELDS = (("tool_call_id", "delta"), ("tool_call_id",))


def _bare_form(cls: type) -> tuple[_Short, tuple[str, ...]] | None:
    """``cls``'s form with every field that may be left out left out, and the fields it
    writes; ``None`` when pydantic writes ``cls``."""
    if cls not in _SHORT:
        _prepared(cls)
    plan = _PLANS[cls]
    if plan is None:
        return None
    forms = _forms(cls, plan)
    if not forms:
        return None
    optional = {name for name, _, omit in plan if omit}
    return forms[0], tuple(n for n, _, _ in plan if n not in optional and n != "type")


def _tail(args_cls: type, end_cls: type | None) -> tuple[Any, ...] | None:
    """The text of a call's arguments event and its end (``None``: the arguments alone),
    each in its bare form, joined by :data:`FRAME_GAP` with a ``%s`` for the id, the
    arguments, the id; the getters that check both are bare. ``None`` when their forms
    write other fields."""
    a = _bare_form(args_cls)
    if a is None or a[1] != _TAIL_FIELDS[0]:
        return None
    gap = FRAME_GAP.replace("%", "%%")
    if end_cls is None:
        return a[0][0], a[0][1], None, None, gap + a[0][3]
    e = _bare_form(end_cls)
    if e is None or e[1] != _TAIL_FIELDS[1]:
        return None
    return a[0][0], a[0][1], e[0][0], e[0][1], gap + gap.join((a[0][3], e[0][3]))


#: the classes :func:`call_json` last wrote, the start's form it last wrote, and the text
#: of a call with that start: (the start's, arguments' and end's classes, the start's form,
#: its getter of the left-out fields, their values, its getter of the written ones, how
#: many, their writers, the tail's getters and values, the text); :func:`pair_json`'s,
#: its end's class ``None``
_joined: tuple[Any, ...] = (None, None, None, None)
_paired: tuple[Any, ...] = (None, None, None, None)
_tails: dict[tuple[type, type | None], tuple[Any, ...] | None] = {}


def _join(start: BaseEvent, args_cls: type, end_cls: type | None) -> tuple[Any, ...] | None:
    """The joining for a start in its class's current form (the one it was last written
    in), or ``None``: no form, or no tail for these classes (``end_cls`` ``None``: a
    start and its arguments, kept as :func:`pair_json`'s)."""
    global _joined, _paired
    cls = type(start)
    forms = _SHORT.get(cls)
    key = (args_cls, end_cls)
    tail = _tails[key] if key in _tails else _tails.setdefault(key, _tail(args_cls, end_cls))
    if not forms or tail is None:
        return None
    left, unset, kept, form, n, writers = forms[0]
    joined = (cls, args_cls, end_cls, forms[0], left, unset, kept, n, writers, *tail[:4])
    joined += (form + tail[4],)
    if end_cls is None:
        _paired = joined
    else:
        _joined = joined
    return joined


def call_json(start: BaseEvent, args: BaseEvent, end: BaseEvent) -> str | None:
    """A whole call's three events (its start, its one arguments event, its end: what a
    vendor that sends calls whole gives) as one text, their JSON texts joined by
    :data:`FRAME_GAP`, each what :func:`event_json` writes of it; written by one template
    made of their classes' forms (the start's in the form its class was last written in,
    the others' with every field that may be left out left out, one id for both). ``None``
    when the events are not in those forms, the arguments and end name two ids, or a
    string UTF-8 cannot carry is held: each is then written alone, by :func:`event_json`."""
    forms = _SHORT.get(type(start))
    if not forms:  # (a class not written yet, or written by no form)
        return None
    joined = _joined
    # (the start's class's current form: event_json moves the one an event came in first)
    if joined[3] is not forms[0] or joined[1] is not type(args) or joined[2] is not type(end):
        joined = _join(start, type(args), type(end))  # type: ignore[assignment]
        if joined is None:
            return None
    if start.__pydantic_extra__ or args.__pydantic_extra__ or end.__pydantic_extra__:
        return None
    sd, ad, ed = start.__dict__, args.__dict__, end.__dict__
    try:
        _, _, _, _, left, unset, kept, n, writers, a_left, a_unset, e_left, e_unset, form = joined
        if left(sd) != unset or a_left(ad) != a_unset or e_left(ed) != e_unset:
            return None
        cid = ad["tool_call_id"]
        if ed["tool_call_id"] != cid:
            return None
        c = encode_basestring(cid)
        got = kept(sd)
        if writers is None and n == 3:  # (a start with its parent: the commonest)
            a, b, p = got
            e = encode_basestring
            text: str = form % (e(a), e(b), e(p), c, e(ad["delta"]), c)
        elif n == 4 and writers is not None:  # (a start with its metadata too)
            w0, w1, w2, w3 = writers
            v0, v1, v2, v3 = got
            text = form % (w0(v0), w1(v1), w2(v2), w3(v3), c, encode_basestring(ad["delta"]), c)
        else:
            head = _head(got, n, writers)
            head += (c, encode_basestring(ad["delta"]), c)
            text = form % tuple(head)
    except Exception:  # a field missing, one not a string, a comparison that raises: each
        return None  # event is then written alone, which decides
    return text if text.isascii() or _utf8(text) else None


def pair_json(start: BaseEvent, args: BaseEvent) -> str | None:
    """A call's start and its first arguments event (what a vendor whose calls stay open
    until the turn's end gives a chunk) as one text, as :func:`call_json` writes a whole
    call without its end: their JSON texts joined by :data:`FRAME_GAP`, each what
    :func:`event_json` writes of it. ``None`` when :func:`call_json` would give ``None``
    for these two: each is then written alone."""
    forms = _SHORT.get(type(start))
    if not forms:
        return None
    joined = _paired
    if joined[3] is not forms[0] or joined[1] is not type(args):
        joined = _join(start, type(args), None)  # type: ignore[assignment]
        if joined is None:
            return None
    if start.__pydantic_extra__ or args.__pydantic_extra__:
        return None
    sd, ad = start.__dict__, args.__dict__
    try:
        _, _, _, _, left, unset, kept, n, writers, a_left, a_unset, _, _, form = joined
        if left(sd) != unset or a_left(ad) != a_unset:
            return None
        got = kept(sd)
        e = encode_basestring
        if writers is None and n == 3:  # (a start with its parent: the commonest)
            text: str = _pair_text(form, got, ad["tool_call_id"], ad["delta"])
        else:
            head = _head(got, n, writers)
            head += (e(ad["tool_call_id"]), e(ad["delta"]))
            text = form % tuple(head)
    except Exception:  # a field missing, one not a string, a comparison that raises: each
        return None  # event is then written alone, which decides
    return text if text.isascii() or _utf8(text) else None


def _head(got: Any, n: int, writers: tuple[Callable[[Any], str], ...] | None) -> list[str]:
    """A start's written fields' texts (``got``: its getter's value, one value when ``n`` is
    1), each by its writer (JSON strings when the form has none)."""
    values = got if n != 1 else (got,)
    if writers is not None:
        return [write(v) for write, v in zip(writers, values)]  # noqa: B905
    return list(map(encode_basestring, values))


def _pair_text(form: str, start: tuple[Any, ...], cid: Any, delta: Any) -> str:
    """A start with its parent and its arguments in the commonest form (``start``: the
    start's id, name and parent), the arguments' id written again only when it differs."""
    e = encode_basestring
    a, b, p = start
    ea = e(a)
    same = type(cid) is str and type(a) is str and cid == a  # (the id written once)
    return form % (ea, e(b), e(p), ea if same else e(cid), e(delta))


def pairs_json(events: list[BaseEvent], at: int, out: list[str], deltas: list[str]) -> int:
    """:func:`pair_json` of ``events`` taken two by two from ``at`` on, in one loop, while
    they are a start and its arguments of the first two's classes in the commonest form (a
    start with its parent: what a turn whose calls end at its finish gives a chunk), each
    text into ``out`` and each arguments' delta into ``deltas``; where it stopped (``at``:
    none written)."""
    if at + 1 >= len(events):
        return at
    start, args = events[at], events[at + 1]
    cls, args_cls = type(start), type(args)
    forms = _SHORT.get(cls)
    if not forms:
        return at
    joined = _paired
    if joined[3] is not forms[0] or joined[1] is not args_cls:
        joined = _join(start, args_cls, None)  # type: ignore[assignment]
        if joined is None:
            return at
    _, _, _, _, left, unset, kept, n, writers, a_left, a_unset, _, _, form = joined
    if n != 3 or writers is not None:
        return at
    last = len(events) - 1
    while at < last:
        start, args = events[at], events[at + 1]
        if type(start) is not cls or type(args) is not args_cls:
            break
        if start.__pydantic_extra__ or args.__pydantic_extra__:
            break
        sd, ad = start.__dict__, args.__dict__
        try:
            if left(sd) != unset or a_left(ad) != a_unset:
                break
            delta = ad["delta"]
            text = _pair_text(form, kept(sd), ad["tool_call_id"], delta)
        except Exception:  # (pair_json decides, then each event alone)
            break
        if not text.isascii() and not _utf8(text):
            break
        out.append(text)
        deltas.append(delta)
        at += 2
    return at


def run_json(events: list[BaseEvent], at: int, out: list[str]) -> int:
    """The texts of ``events`` from ``at`` on while they are of ``events[at]``'s class and
    in its current form, when that form writes one string (a call's end: a turn whose calls
    end at its finish ends them all in a row), into ``out``, each what :func:`event_json`
    writes of it; where it stopped (``at``: none written)."""
    cls = type(events[at])
    forms = _SHORT.get(cls)
    if not forms:
        return at
    left, unset, kept, form, n, writers = forms[0]
    if n != 1 or writers is not None:
        return at
    e = encode_basestring
    end = len(events)
    while at < end:
        event = events[at]
        if type(event) is not cls or event.__pydantic_extra__:
            break
        values = event.__dict__
        try:
            if left(values) != unset:
                break
            text = form % e(kept(values))
        except Exception:  # (another form, or none: event_json decides)
            break
        if not text.isascii() and not _utf8(text):
            break
        out.append(text)
        at += 1
    return at


def _utf8(text: str) -> bool:
    """False for a text UTF-8 cannot carry (a lone surrogate: pydantic's own error then)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


__all__ = ["FRAME_GAP", "call_json", "event_json", "pair_json", "pairs_json", "run_json"]
