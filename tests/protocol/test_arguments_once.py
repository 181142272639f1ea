"""``arguments_object`` parses once what ``parse_arguments_object`` + ``repeated_keys`` do
in two parses: the same answer for any text, JSON or not."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from toolwire.protocol.arguments import arguments_object, parse_arguments_object, repeated_keys

_KEYS = st.sampled_from(["a", "b", "c", "\u00e9"])
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=4))


def _object_text(pairs: list[tuple[str, object]]) -> str:
    return "{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in pairs) + "}"


_TEXTS = st.one_of(
    st.lists(st.tuples(_KEYS, _SCALARS), max_size=5).map(_object_text),
    st.lists(st.lists(st.tuples(_KEYS, _SCALARS), max_size=3).map(_object_text), max_size=3).map(
        lambda objs: "[" + ",".join(objs) + "]"
    ),
    st.text(max_size=12),
    st.sampled_from(["", "  ", "{", '{"a":1,"a":2}', '{"a":{"b":1,"b":2},"a":3}', "[1]", "3"]),
)


@given(_TEXTS)
def test_one_parse_answers_as_the_two_do(text: str) -> None:
    assert arguments_object(text) == (parse_arguments_object(text), repeated_keys(text))


def test_a_repeated_key_is_named_and_the_last_value_kept() -> None:
    value, keys = arguments_object('{"city":"Oslo","unit":"C","city":"Bergen"}')
    assert value == {"city": "Bergen", "unit": "C"}
    assert keys == ["city"]
