"""``jsontext.checked`` and ``load_json`` against the rules they state: a lone surrogate
anywhere (value or key, at any depth) is repaired with a warning, nesting past the cap is a
named error, and a clean value comes back as the same object. The expectations are computed
here from the values' construction, not by toolwire."""

from __future__ import annotations

import copy
import json
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.errors import VendorDataError
from toolwire.losses import ContentLossWarning
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.jsontext import CheckedObject, checked, load_json
from toolwire.protocol.limits import configure, limits

_TEXT = st.text(max_size=6)  # surrogates included (category Cs is drawn too)
_LEAF = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT
_VALUE = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(_TEXT, inner, max_size=4)
    ),
    max_leaves=30,
)


def _depth(value: Any) -> int:
    """Levels of containers (a scalar: 0)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, (list, tuple)):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _lone(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _dirty(value: Any) -> bool:
    if isinstance(value, str):
        return _lone(value)
    if isinstance(value, dict):
        return any(_lone(k) or _dirty(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_dirty(v) for v in value)
    return False


def _run_under_cap(
    cap: int, value: Any, read: Callable[[], Any]
) -> tuple[Any, list[warnings.WarningMessage]] | None:
    """``read()`` with the depth cap at ``cap``: ``None`` once it raised the depth error
    ``value``'s nesting calls for, else what it gave and the warnings it raised."""
    previous = limits()
    configure(max_json_depth=cap)
    try:
        if _depth(value) > cap:
            with pytest.raises(VendorDataError, match=f"nested deeper than {cap}"):
                read()
            return None
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = read()
    finally:
        configure(max_json_depth=previous.max_json_depth)
    return got, seen


@given(_VALUE, st.integers(1, 6))
def test_checked_follows_its_rules(value: Any, cap: int) -> None:
    result = _run_under_cap(cap, value, lambda: checked(value, "v", "w"))
    if result is None:
        return
    got, seen = result
    if _dirty(value):
        assert any(issubclass(w.category, ContentLossWarning) for w in seen)
        assert not _dirty(got)
    else:
        assert got is value and not seen


def _nested(levels: int, leaf: Any) -> Any:
    value = leaf
    for i in range(levels):
        value = [value] if i % 2 else {"k": value}
    return value


@pytest.mark.parametrize("levels", [47, 48, 49, 199, 200])
def test_the_cap_is_exact_on_both_sides_of_the_recursion_bound(levels: int) -> None:
    assert checked(_nested(levels, "x"), "v", "w") is not None
    with pytest.raises(VendorDataError, match="nested deeper than 200"):
        checked(_nested(201, "x"), "v", "w")
    with pytest.warns(ContentLossWarning):
        got = checked(_nested(levels, "cut \ud83d"), "v", "w")
    assert "\ud83d" not in repr(got)


def test_a_cap_beyond_the_interpreters_recursion_limit_is_safe() -> None:
    previous = limits()
    configure(max_json_depth=20_000)
    try:
        deep = _nested(19_999, "x")
        assert checked(deep, "v", "w") is deep
        with pytest.raises(VendorDataError, match="nested deeper than 20000"):
            checked(_nested(20_001, "x"), "v", "w")
    finally:
        configure(max_json_depth=previous.max_json_depth)


# strings that often hold what the text check looks for: lone surrogates (escaped or raw in
# the text), other escapes (non-ASCII under ensure_ascii), a pair, brackets inside strings
_TRICKY = st.text(st.sampled_from(["a", "é", "\ud83d", "\udc00", "😀", "[", "{", "\\"]), max_size=4)
_TRICKY_VALUE = st.recursive(
    st.none() | st.integers() | _TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TRICKY, inner, max_size=3),
    max_leaves=12,
)


@given(_TRICKY_VALUE | _VALUE, st.integers(1, 6), st.booleans())
def test_load_json_gives_what_checked_gives_for_the_same_text(
    value: Any, cap: int, ascii_only: bool
) -> None:
    # load_json skips the walk when the text shows no rule can fail: it must still follow
    # the rules exactly (escaped surrogates with ensure_ascii, raw ones in text without)
    text = json.dumps(value, ensure_ascii=ascii_only)
    # what the text holds once parsed (an escaped high and low surrogate in a row read back
    # as one character): the expectations are the rules applied to that, as checked() would
    parsed = json.loads(text)
    result = _run_under_cap(cap, parsed, lambda: load_json(text, "v", "w"))
    if result is None:
        return
    got, seen = result
    warned = any(issubclass(w.category, ContentLossWarning) for w in seen)
    assert warned == _dirty(parsed)
    assert not _dirty(got)
    if not _dirty(parsed):
        assert got == parsed


def test_an_escaped_pair_is_one_character_and_no_loss() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_json('{"k": "\\ud83d\\udc00"}') == {"k": "\U0001f400"}
    assert load_json(bytearray(b'{"k": 1}')) == {"k": 1}  # any bytes-like input
    assert load_json(memoryview(b"[1]")) == [1]


def test_a_reader_object_is_trusted_but_none_of_its_copies() -> None:
    from toolwire.adapters import anthropic

    body = (
        b"event: message_start\ndata: "
        b'{"type":"message_start","message":{"id":"m","role":"assistant","content":[],'
        b'"model":"c","usage":{"input_tokens":1,"output_tokens":0}}}\n\n'
    )
    (chunk,) = anthropic.sse_chunks(body)
    assert isinstance(chunk, CheckedObject) and as_dict(chunk, "v") is chunk
    for twin in (copy.copy(chunk), copy.deepcopy(chunk), dict(chunk), chunk.copy()):
        assert type(twin) is dict and twin == chunk
    assert type(pickle.loads(pickle.dumps(chunk))) is dict
    assert type(CheckedObject.fromkeys(["a"])) is dict
    # built by calling the class, it vouches for nothing: its content is checked when fed
    forged = CheckedObject({"type": "ping", "x": _nested(limits().max_json_depth + 1, "x")})
    with pytest.raises(VendorDataError, match="nested deeper than"):
        as_dict(forged, "v")
    # checked under one cap, walked again when fed under a lower one
    body = b'event: message_delta\ndata: {"type":"message_delta","usage":{"a":{"b":1}}}\n\n'
    (deep,) = anthropic.sse_chunks(body)
    assert as_dict(deep, "v") is deep
    previous = limits()
    configure(max_json_depth=2)
    try:
        with pytest.raises(VendorDataError, match="nested deeper than 2"):
            as_dict(deep, "v")
    finally:
        configure(max_json_depth=previous.max_json_depth)
    # a copy edited past the rules is checked when it is fed, as any caller's dict is
    edited = copy.deepcopy(chunk)
    edited["message"]["model"] = _nested(limits().max_json_depth + 1, "x")
    with pytest.raises(VendorDataError, match="nested deeper than"):
        anthropic.Decoder().feed(edited)
    edited["message"]["model"] = "cut \ud83d"
    with pytest.warns(ContentLossWarning, match="surrogate"):
        anthropic.Decoder().feed(edited)
