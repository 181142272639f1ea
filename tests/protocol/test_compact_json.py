"""The stdlib's JSON without its per-call setup: ``compact``/``compact_ascii`` write the very
text ``json.dumps`` writes with the same settings (the SSE writers use them in its place), and
``whole_value`` reads what ``json.loads`` reads, failing where it fails."""

from __future__ import annotations

import json
from enum import Enum, IntEnum
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.protocol._compact_json import compact, compact_ascii, compact_finite
from toolwire.protocol.jsontext import whole_value
from toolwire.protocol.sse import frame_sse


class _Kind(str, Enum):
    A = "a"


class _Level(IntEnum):
    ONE = 1


class _Dict(dict[Any, Any]):
    pass


#: every JSON value, floats' NaN and infinities and every code point (lone surrogates too),
#: and what json.dumps also takes: tuples, float keys, str and int enums, dict subclasses
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.sampled_from([_Kind.A, _Level.ONE]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(
            st.text() | st.integers() | st.floats() | st.booleans() | st.none(), inner, max_size=4
        )
        | st.dictionaries(st.text(), inner, max_size=3).map(_Dict)
    ),
    max_leaves=12,
)


@given(values)
def test_compact_is_json_dumps(value: Any) -> None:
    assert compact(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert compact_ascii(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    strict = {"separators": (",", ":"), "ensure_ascii": False, "allow_nan": False}
    try:
        expected = json.dumps(value, **strict)  # type: ignore[arg-type]
    except ValueError as exc:
        with pytest.raises(ValueError) as caught:
            compact_finite(value)
        assert str(caught.value) == str(exc)
        return
    assert compact_finite(value) == expected


@pytest.mark.parametrize("dumps", [compact, compact_ascii])
def test_what_json_cannot_hold_is_refused_as_json_dumps_refuses_it(dumps: Any) -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"a": [object()]})
    with pytest.raises(TypeError, match="keys must be"):
        dumps({(1, 2): 1})
    circular: dict[str, Any] = {}
    circular["self"] = circular
    with pytest.raises(RecursionError):  # no marker table: the caller says "too deep"
        dumps(circular)
    assert dumps("plain") == '"plain"'  # a bare value too, as json.dumps writes it


#: objects whose strings hold lone surrogates (category Cs) among other text and controls
mixed = st.characters(categories=["Cs", "Ll", "Lo", "So", "Cc"])
surrogate_objects = st.dictionaries(
    st.text(mixed, max_size=4),
    st.text(mixed, max_size=6) | st.lists(st.text(mixed), max_size=3),
    min_size=1,
    max_size=4,
)


@given(st.lists(surrogate_objects, min_size=1, max_size=4), st.booleans())
def test_frame_sse_writes_a_lone_surrogate_as_the_escape_json_dumps_writes(
    payloads: list[dict[str, Any]], named: bool
) -> None:
    """UTF-8 out always, and each payload reads back as ``json.dumps``' ASCII text does;
    its event name, when it has one, as it was."""
    for n, payload in enumerate(payloads):
        payload["type"] = f"kind-{n % 2}"
    body = frame_sse(payloads, done="[DONE]", event_of="type" if named else None)
    blocks = body.decode("utf-8").split("\n\n")
    assert blocks[-2:] == ["data: [DONE]", ""]
    read = []
    for block, payload in zip(blocks[:-2], payloads, strict=True):
        lines = block.split("\n")
        assert lines[:-1] == ([f"event: {payload['type']}"] if named else [])
        read.append(json.loads(lines[-1].removeprefix("data: ")))
    assert read == [json.loads(json.dumps(p)) for p in payloads]


#: JSON texts and near misses: whitespace around, a BOM, extra data, bad and empty text
json_texts = st.one_of(
    values.map(json.dumps),
    st.tuples(
        st.sampled_from(["", " ", "\n\t", "\r\n "]),
        values.map(json.dumps),
        st.sampled_from(["", " ", "\n", " x", " 1", "{}"]),
    ).map("".join),
    st.text(max_size=8),
    st.sampled_from(
        ["", " ", "\ufeff{}", "{", "[1,]", "nul", "1 2", '"a" "b"', "NaN", "-Infinity"]
    ),
)


@given(json_texts)
def test_whole_value_is_json_loads(text: str) -> None:
    """The same value, or the same error at the same place, as ``json.loads``."""
    try:
        expected: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        with pytest.raises(json.JSONDecodeError) as caught:
            whole_value(text)
        assert (caught.value.msg, caught.value.pos) == (exc.msg, exc.pos)
        return
    got = whole_value(text)
    assert json.dumps(got) == json.dumps(expected)  # (NaN != NaN: compared as text)
