"""``arguments_object`` parses once what ``parse_arguments_object`` + ``repeated_keys`` do
in two parses: the same answer for any text, JSON or not."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.losses import ContentLossWarning
from toolwire.protocol.arguments import arguments_object, parse_arguments_object, repeated_keys
from toolwire.protocol.limits import limits

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


def _repeats_by_a_fresh_hook(text: str) -> list[str]:
    """The repeated keys, found by a decoder built for this one parse (the plain way)."""
    found: set[str] = set()

    def hook(pairs: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in pairs]
        found.update(k for k in keys if keys.count(k) > 1)
        return dict(pairs)

    try:
        json.loads(text, object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return []
    return sorted(found)


@given(_TEXTS)
def test_the_decoder_built_once_finds_the_repeats_a_fresh_one_finds(text: str) -> None:
    assert repeated_keys(text) == _repeats_by_a_fresh_hook(text)
    assert arguments_object(text)[1] == _repeats_by_a_fresh_hook(text)


def test_one_parse_forgets_the_repeats_of_the_last() -> None:
    assert arguments_object('{"a":1,"a":2}')[1] == ["a"]
    assert arguments_object('{"b":1}')[1] == []
    assert arguments_object("not json")[1] == []


def test_arguments_that_break_a_rule_are_still_checked() -> None:
    with pytest.warns(ContentLossWarning, match="surrogate"):
        value, _ = arguments_object('{"s":"half \\ud83d"}')
    assert value == {"s": "half \ufffd"}
    levels = limits().max_json_depth + 1  # one container past the cap
    deep = '{"a":' * levels + "1" + "}" * levels
    assert arguments_object(deep) == (None, [])
