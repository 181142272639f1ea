"""``arguments_object`` reads a flat object's text with json's own parser when the text shows
no repeated key (one ``{``, as many ``:`` as keys); the answer must be the one a parse with
a pairs hook gives, for texts made to fool the count: colons and braces inside strings, keys
equal once unescaped, ``NaN``, white space, trailing text."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.protocol.arguments import arguments_object


def _hooked(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The plain way: a decoder made for this parse, a hook that sees every object's pairs."""
    if not text or text.isspace():
        return {}, []
    found: set[str] = set()

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        found.update(k for k in keys if keys.count(k) > 1)
        return dict(pairs)

    def no_constant(name: str) -> Any:
        raise ValueError(name)

    try:
        value = json.loads(text, object_pairs_hook=hook, parse_constant=no_constant)
    except (ValueError, RecursionError):
        return None, []
    return (value if isinstance(value, dict) else None), sorted(found)


#: keys, two of which are one key once their escape is read
_KEYS = st.sampled_from(['"a"', '"b"', '"\\u0061"', '"a:b"', '"{"', '"c,d"'])
_VALUES = st.sampled_from(
    ["1", '"x:y"', '"{"', '"}"', "[1,2]", "[]", "NaN", "-Infinity", "null", '"a\\"b:"', "{}", "2.5"]
)
_SPACE = st.sampled_from(["", " ", "\n"])


@st.composite
def _object_texts(draw: st.DrawFn) -> str:
    pairs = draw(st.lists(st.tuples(_KEYS, _VALUES), max_size=5))
    sep = draw(_SPACE)
    body = ",".join(f"{k}{sep}:{sep}{v}" for k, v in pairs)
    text = "{" + body + "}"
    return draw(_SPACE) + text + draw(st.sampled_from(["", " ", "x", "}", ":"]))


@settings(max_examples=400)
@given(_object_texts())
def test_a_flat_object_reads_as_the_hooked_parse_reads_it(text: str) -> None:
    assert arguments_object(text) == _hooked(text)


def test_the_cases_the_count_must_not_miss() -> None:
    cases = {
        '{"a":1,"a":2}': ({"a": 2}, ["a"]),
        '{"a":1,"\\u0061":2}': ({"a": 2}, ["a"]),
        '{"a":"x:y"}': ({"a": "x:y"}, []),
        '{"a:b":1,"a:b":2}': ({"a:b": 2}, ["a:b"]),
        '{"a":NaN}': (None, []),
        '{"a":1} ': ({"a": 1}, []),
        '{"a":1}x': (None, []),
        '{"a":[1,{"b":1,"b":2}]}': ({"a": [1, {"b": 2}]}, ["b"]),
    }
    for text, expected in cases.items():
        assert arguments_object(text) == expected, text
