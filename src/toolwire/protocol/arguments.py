"""Tool-call argument text: kept as text, parsed only where a vendor demands an object."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from typing import Any

from toolwire.errors import VendorDataError
from toolwire.protocol._compact_json import compact_finite
from toolwire.protocol.jsontext import Scanner, checked, text_is_clean, whole_value
from toolwire.protocol.limits import limits


def dumps_compact(value: Any, vendor: str = "input", where: str = "value") -> str:
    """Compact, stable JSON text (key order kept, no ASCII escaping).

    A value JSON cannot hold (NaN, infinity, a non-JSON object: parsed vendor data can
    carry them) is a ``VendorDataError`` naming ``where``, never a bare ``ValueError``.
    """
    try:
        return compact_finite(value)  # json.dumps(..., allow_nan=False), its encoder built once
    except (ValueError, TypeError, RecursionError) as exc:
        raise VendorDataError(vendor, where, f"not JSON data: {exc}") from None


#: The integers a double holds exactly. A whole double past it stays a double: its digits as an
#: integer would claim a precision the vendor never had.
MAX_EXACT_INTEGER = 2**53


def whole_numbers(value: Any, *, sort: bool = False) -> Any:
    """``value`` with whole doubles as integers, up to :data:`MAX_EXACT_INTEGER`.

    SDKs that hold every JSON number as a double (protobuf ``Struct``: Gemini, Dialogflow)
    turn ``3`` into ``3.0``; this gives the argument text back its integer form. ``sort``
    also orders object keys (a ``Struct`` has no order of its own).
    """
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_EXACT_INTEGER:
        return int(value)
    if isinstance(value, dict):
        keys = sorted(value) if sort else list(value)
        return {k: whole_numbers(value[k], sort=sort) for k in keys}
    if isinstance(value, list):
        return [whole_numbers(v, sort=sort) for v in value]
    return value


#: what a whole double in :func:`whole_numbers`' range looks like in compact JSON: ``repr``
#: writes every one below 1e16 (2**53 is below) as digits, ``.0``, then a delimiter
_WHOLE_DOUBLE = re.compile(r"[0-9]\.0(?:[,\]}]|$)")


def dumps_whole(value: Any, vendor: str = "input", where: str = "value") -> str:
    """``dumps_compact(whole_numbers(value))``, without walking ``value`` when its text shows
    no whole double: dumped first, walked and dumped again only when the text has one (or a
    string holding such digits, which the walk leaves as it is)."""
    text = dumps_compact(value, vendor, where)
    if _WHOLE_DOUBLE.search(text) is None:
        return text
    return dumps_compact(whole_numbers(value), vendor, where)


def parse_arguments_object(text: str) -> dict[str, Any] | None:
    """The arguments as a JSON object, ``{}`` for empty text, ``None`` when they are not one.

    ``None`` means the caller must report a loss: the text is not a JSON object,
    and wrapping it in an invented key would put words in the model's mouth. An encoder
    that sends the object also checks :func:`repeated_keys` (the object keeps only the
    last value of a repeated key).
    """
    if text.strip() == "":
        return {}
    return arguments_object(text)[0]


class _Repeats(threading.local):
    """The keys the parse under way found repeated (one parse at a time per thread)."""

    keys: set[str]


_repeats = _Repeats()


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict; a repeated key is noted (the dict keeps the last value)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                _repeats.keys.add(key)
            seen.add(key)
    return value


def _no_constant(name: str) -> Any:
    """``NaN``, ``Infinity``, ``-Infinity``: Python reads them, JSON has no such values, and
    a request body holding one is invalid JSON; so argument text holding one is not JSON."""
    raise ValueError(f"{name} is not a JSON value")


#: built once: ``json.loads(text, object_pairs_hook=...)`` builds a decoder on every call,
#: most of the cost of parsing a short argument text
_PAIRS_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)


#: its scanner, read through ``jsontext.whole_value`` (as ``decode`` would, without its frames)
_SCAN: Scanner = _PAIRS_DECODER.scan_once  # type: ignore[attr-defined]


#: the scanner of a decoder without the pairs hook (C throughout), for :func:`_plain_object`
_SCAN_PLAIN: Scanner = json.JSONDecoder(parse_constant=_no_constant).scan_once  # type: ignore[attr-defined]


_NOT_JSON = object()


def _parsed(text: str) -> tuple[Any, set[str]]:
    """The value of ``text`` (``_NOT_JSON`` when it is not JSON) and the keys it repeats."""
    found: set[str] = set()
    _repeats.keys = found
    try:
        return whole_value(text, _SCAN), found
    except (ValueError, RecursionError):
        return _NOT_JSON, found


def _plain_object(text: str) -> dict[str, Any] | None:
    """The object ``text`` holds when the text alone shows the hooked parse would find no
    repeated key and nothing to refuse; else ``None`` (that parse then reads it).

    The commonest arguments are one flat object. Its text has one ``{``, and each of its
    pairs one ``:`` outside strings, so a text with one ``{`` and as many ``:`` as the
    parsed object has keys has no pair beyond them: no key repeats, and json's own parser
    (no hook: no Python call per object) gives the same dict. White space around the
    object sends the text the long way (which skips it).
    """
    if text.count("{") != 1:  # (its first character is one)
        return None
    try:
        value, end = _SCAN_PLAIN(text, 0)
    except (ValueError, StopIteration, RecursionError):
        return None
    if end != len(text) or text.count(":") != len(value) or not text_is_clean(text):
        return None
    return value  # type: ignore[no-any-return]


def arguments_object(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """:func:`parse_arguments_object` and :func:`repeated_keys` of ``text`` from one parse.

    An encoder that sends the arguments as an object needs both; parsing once halves
    that part of its cost (a hook sees each object's pairs, a repeat costs nothing more).
    """
    if text[:1] == "{":
        plain = _plain_object(text)
        if plain is not None:
            return plain, []
    elif not text or text.isspace():
        return {}, []
    value, found = _parsed(text)
    if value is _NOT_JSON:
        return None, []
    if not text_is_clean(text):  # (a text too shallow and clean for a rule is not walked)
        try:
            value = checked(value, "input", "arguments")
        except ValueError:  # deeper than the cap: not an object to send, its repeats still told
            return None, sorted(found)
    return (value if isinstance(value, dict) else None), (sorted(found) if found else [])


#: the most keys :func:`written_as_is` reads an object's text for
KEPT_KEYS = 8


def _kept_object(floats: bool) -> Callable[[str], re.Match[str] | None]:
    """The ``fullmatch`` of the text ``compact`` writes of a flat object (at most
    :data:`KEPT_KEYS` keys, a group each): each string a ``"`` and characters written as
    they stand (no ``"``, backslash or control character); each number an integer up to
    599 digits, not ``-0`` (fewer than the least int-to-text digit cap Python allows, 640),
    or (``floats``) a float as ``repr`` writes it (see :data:`_FLOAT`); ``true``,
    ``false``, ``null``; or an array of those. No character can be read two ways (a
    string's characters never include what ends it), so a match is linear in the text."""
    string = r'"[^"\\\x00-\x1f]*"'
    number = rf"{_FLOAT}|-?[1-9][0-9]{{0,598}}|0" if floats else r"-?[1-9][0-9]{0,598}|0"
    scalar = rf"(?:{string}|{number}|true|false|null)"
    value = rf"(?:{scalar}|\[(?:{scalar}(?:,{scalar})*)?\])"
    members = ""
    for _ in range(KEPT_KEYS - 1):
        members = rf"(?:,({string}):{value}{members})?"
    return re.compile(rf"\{{(?:({string}):{value}{members})?\}}").fullmatch


#: a float's text that ``repr`` of the double it reads gives back: at most 15 significant
#: digits (``DBL_DIG``: two such decimals never read as one double, so the shortest text
#: that reads back, which ``repr`` writes, is this one), no trailing zero but a whole
#: value's ``.0``, and a size ``repr`` writes without an exponent (1e-4 up to 1e16)
_FLOAT = (
    r"-?(?:(?:0|[1-9][0-9]{0,14})\.0"  # a whole value
    r"|[1-9][0-9]{0,6}\.[0-9]{0,7}[1-9]"  # at most 7 digits before the point, 8 after
    r"|0\.0{0,3}[1-9](?:[0-9]{0,13}[1-9])?)"  # under 1, from 0.0001
)


#: whether floats are read -> the expression, compiled at its first use (a few
#: milliseconds), not at import; a text with no ``.`` is matched by the one without floats
#: (each alternative costs every number a try)
_kept_match: list[Callable[[str], re.Match[str] | None] | None] = [None, None]

#: a flat object's keys (each as its text, ``None`` past the last) -> whether none repeats,
#: for at most 1,024 sets of keys of texts up to 1,024 characters (so it holds at most ~1 MB)
_distinct: dict[tuple[str | None, ...], bool] = {}
_DISTINCT_KEPT = 1024


def written_as_is(text: str) -> bool:
    """True when ``text`` is exactly what ``compact`` writes of the object
    :func:`arguments_object` reads from it, with no repeated key and nothing the checks
    change: an encoder may then send the text in the object's place, neither parsed nor
    written again. Told from the text (one expression, the keys compared once per set of
    keys); ``False`` says nothing (the text is then read as before)."""
    if type(text) is not str:  # (a subclass may write itself otherwise)
        return False
    floats = "." in text
    match = _kept_match[floats]
    if match is None:
        match = _kept_match[floats] = _kept_object(floats)
    found = match(text)
    if found is None:
        return False
    keys = found.groups()
    distinct = _distinct.get(keys)
    if distinct is None:
        named = [k for k in keys if k is not None]
        distinct = len(set(named)) == len(named)
        if len(text) <= _DISTINCT_KEPT:  # (a long key is compared each time)
            if len(_distinct) >= _DISTINCT_KEPT:
                _distinct.clear()
            _distinct[keys] = distinct
    if text.isascii() and limits().max_json_depth > KEPT_KEYS + 1:
        # (no surrogate; no backslash; at most that many containers: the checks pass)
        return distinct
    # the nesting cap (a low one refuses even these) and surrogates, as the parse checks
    return distinct and text_is_clean(text)


def repeated_keys(text: str) -> list[str]:
    """The keys some object in the JSON ``text`` repeats, sorted (``[]`` for none or not JSON)."""
    value, found = _parsed(text)
    return [] if value is _NOT_JSON else sorted(found)


#: the loss kind for :func:`repeated_keys`
REPEATED_KEYS = "arguments-duplicate-keys"


def repeated_keys_reason(keys: list[str], target: str) -> str:
    """Why the earlier values of repeated argument keys are not sent."""
    return (
        f"the arguments repeat key(s) {', '.join(keys)}; {target} takes a JSON object, which "
        "keeps only the last value of each, so the earlier values are not sent"
    )


__all__ = [
    "MAX_EXACT_INTEGER",
    "REPEATED_KEYS",
    "arguments_object",
    "dumps_compact",
    "parse_arguments_object",
    "repeated_keys",
    "repeated_keys_reason",
    "whole_numbers",
    "written_as_is",
]
