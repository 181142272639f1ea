"""``written_as_is(text)`` says an argument text may stand for its object unread: whenever it
says so, ``arguments_object`` reads an object from the text with no repeated key and no
warning, and ``compact`` writes that object back as the very text. Checked for texts made
to fool it (braces, colons and quotes' neighbours in strings, repeated keys, numbers the
writer spells otherwise, white space, surrogates, escapes, nesting, the ninth key, the
digits Python will not read, a low nesting cap), and the other way: the plain texts a model
writes (flat, strings without escapes, integers, floats of up to 15 digits, literals, arrays of
those) are all taken.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.protocol._compact_json import compact
from toolwire.protocol.arguments import KEPT_KEYS, arguments_object, written_as_is
from toolwire.protocol.limits import configure, limits


def _stands_for_its_object(text: str) -> None:
    """What ``written_as_is(text)`` promises, checked by the general path itself."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a repaired surrogate would warn
        value, repeated = arguments_object(text)
    assert type(value) is dict
    assert repeated == []
    assert compact(value) == text


_KEYS = st.sampled_from(['"a"', '"b"', '"a:b"', '"{"', '"c,d"', '""', '"\\u0061"', '" "'])
_ATOMS = st.sampled_from(
    [
        "0",
        "-0",
        "1",
        "-1",
        "01",
        "1.0",
        "2.5",
        "2.50",
        "1e5",
        "1E5",
        "-0.0",
        "0.0001",
        "0.00001",
        "0.1234567890123",
        "9007199254740993.0",
        "123456789012345.0",
        "1234567.1234567",
        "12345678.5",
        "0.30000000000000004",
        "NaN",
        "Infinity",
        "true",
        "false",
        "null",
        "nul",
        "truex",
        '""',
        '"x"',
        '":"',
        '"{"',
        '"}"',
        '","',
        '"é"',
        '"\u2028"',
        '"\x7f"',
        '"\ud83d"',
        '"\\ud83d"',
        '"a\\"b"',
        '"\\n"',
        '"\t"',
        "9" * 599,
        "9" * 600,
        "-" + "9" * 599,
        "{}",
        '{"a":1}',
    ]
)
_VALUES = st.one_of(
    _ATOMS,
    st.lists(_ATOMS, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]"),
    st.lists(_ATOMS, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
)
_SPACE = st.sampled_from(["", "", "", " ", "\n"])


@st.composite
def _texts(draw: st.DrawFn) -> str:
    pairs = draw(st.lists(st.tuples(_KEYS, _VALUES), max_size=KEPT_KEYS + 2))
    sep = draw(_SPACE)
    body = ",".join(f"{k}{sep}:{v}" for k, v in pairs)
    return draw(_SPACE) + "{" + body + "}" + draw(st.sampled_from(["", "", " ", "x", "}", ","]))


@settings(max_examples=1500)
@given(_texts())
def test_a_text_taken_as_is_is_what_its_object_writes(text: str) -> None:
    if written_as_is(text):
        _stands_for_its_object(text)
    elif text[:1] == "{" and text[-1:] == "}" and "\\" not in text and ", " not in text:
        # (not taken: then something in it is not what the writer writes, or it has no room)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value, repeated = arguments_object(text)
        spelled = value is not None and compact(value) == text
        assert not spelled or repeated or len(value) > KEPT_KEYS or _nested_or_odd(value)


def _nested_or_odd(value: dict[str, Any]) -> bool:
    """A value the taken form leaves out: an object in it, an array in an array, a float
    (those it takes are tested on their own), a surrogate, an integer of 600 digits or
    more."""

    def odd(x: Any, inside: bool) -> bool:
        if isinstance(x, dict):
            return True
        if isinstance(x, list):
            return inside or any(odd(y, True) for y in x)
        if isinstance(x, float):
            return True
        if isinstance(x, str):
            return any(0xD800 <= ord(c) <= 0xDFFF for c in x)
        return isinstance(x, int) and not isinstance(x, bool) and len(str(abs(x))) >= 600

    return any(odd(v, False) for v in value.values())


#: characters a string holds as they stand in compact JSON (no quote, backslash, control
#: character or surrogate)
_PLAIN_CHARS = st.characters(
    blacklist_categories=("Cs",), blacklist_characters='"\\', min_codepoint=0x20
)
#: floats of at most 15 significant digits, written without an exponent
_FLOATS = st.builds(
    lambda sign, whole, part: float(f"{sign}{whole}.{part}"),
    st.sampled_from(["", "-"]),
    st.integers(0, 10**7 - 1),
    st.integers(0, 10**8 - 1),
)
_PLAIN = st.one_of(
    st.text(_PLAIN_CHARS, max_size=6),
    st.integers(-(10**30), 10**30),
    _FLOATS,
    st.booleans(),
    st.none(),
)


@settings(max_examples=600)
@given(
    st.dictionaries(
        st.text(_PLAIN_CHARS, max_size=5),
        st.one_of(_PLAIN, st.lists(_PLAIN, max_size=4)),
        max_size=KEPT_KEYS,
    )
)
def test_a_plain_flat_object_is_taken(value: dict[str, Any]) -> None:
    text = compact(value)
    assert written_as_is(text)
    _stands_for_its_object(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1,"a":2}',
        '{"a":1,"b":2,"a":3}',
        "{" + ",".join(f'"k{i}":{i}' for i in range(KEPT_KEYS + 1)) + "}",
        '{"a":{"b":1}}',
        '{"a":[[1]]}',
        '{"a":[{}]}',
        '{"a":1.50}',
        '{"a":1e5}',
        '{"a":0.00001}',
        '{"a":1234567890123456.0}',
        '{"a":12345678.5}',
        '{"a":1.123456789}',
        '{"a":-0}',
        '{"a": 1}',
        ' {"a":1}',
        '{"a":"\\u00e9"}',
        '{"a":"\ud83d"}',
        '{"a":' + "1" * 600 + "}",
        "[1]",
        "",
        '"x"',
    ],
)
def test_texts_the_writer_would_spell_otherwise_are_not_taken(text: str) -> None:
    assert not written_as_is(text)


def test_the_widest_object_taken_has_its_most_keys() -> None:
    text = "{" + ",".join(f'"k{i}":[{i},"v"]' for i in range(KEPT_KEYS)) + "}"
    assert written_as_is(text)
    _stands_for_its_object(text)


def test_the_same_keys_in_two_texts_are_told_each_time() -> None:
    """The keys' verdict is remembered per set of keys: a repeat is refused every time."""
    for _ in range(3):
        assert written_as_is('{"p":1,"q":2}')
        assert not written_as_is('{"p":1,"p":2}')


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 10])
def test_a_low_nesting_cap_is_followed(cap: int) -> None:
    previous = limits()
    configure(max_json_depth=cap)
    try:
        for text in ('{"a":1}', '{"a":[1]}', '{"a":[1],"b":[2],"c":[3]}', "{}"):
            if written_as_is(text):
                _stands_for_its_object(text)
        if cap > KEPT_KEYS + 1:  # (no text taken opens more containers than that)
            assert written_as_is('{"a":[1],"b":[2],"c":[3]}')
    finally:
        configure(max_json_depth=previous.max_json_depth)


def test_the_lowest_digit_cap_python_allows_reads_the_longest_number_taken() -> None:
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)  # the least Python takes
    try:
        text = '{"n":-' + "9" * 599 + "}"
        assert written_as_is(text)
        _stands_for_its_object(text)
    finally:
        sys.set_int_max_str_digits(before)


def test_a_str_subclass_is_not_taken() -> None:
    """A subclass may format itself otherwise when spliced: only a plain str is taken."""

    class Odd(str):
        def __format__(self, spec: str) -> str:
            return "odd"

    assert written_as_is('{"a":1}')
    assert not written_as_is(Odd('{"a":1}'))
