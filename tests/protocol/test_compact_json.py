"""``compact``/``compact_ascii`` write the very text ``json.dumps`` writes with the same
settings: the SSE writers use them in its place."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.protocol.compact_json import compact, compact_ascii

#: every JSON value, floats' NaN and infinities and every code point (lone surrogates too)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text() | st.integers() | st.booleans() | st.none(), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(values)
def test_compact_is_json_dumps(value: Any) -> None:
    assert compact(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert compact_ascii(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=True)


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
