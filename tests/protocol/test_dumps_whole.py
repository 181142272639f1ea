"""``dumps_whole``: the text of ``whole_numbers(value)``, walked only when the text needs it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import VendorDataError
from toolwire.protocol.arguments import MAX_EXACT_INTEGER, dumps_compact, dumps_whole, whole_numbers

# strings made of the characters a whole double's text has, so the text test is tried hard
_TRICKY = st.text(alphabet="0123456789.,]}e+- ", max_size=8)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, -0.0, 3.0, -7.0, float(MAX_EXACT_INTEGER), 2.0**53 + 2, 1e16, 1e300])
    | _TRICKY
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY, inner, max_size=4),
    max_leaves=16,
)


@settings(max_examples=500)
@given(_VALUES)
def test_the_same_text_as_the_walk_then_the_dump(value: Any) -> None:
    assert dumps_whole(value) == dumps_compact(whole_numbers(value))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"n": 3.0}, '{"n":3}'),
        ([1.0, 2.5, "3.0]"], '[1,2.5,"3.0]"]'),
        (-0.0, "0"),
        ({"big": 2.0**53 + 2}, '{"big":9007199254740994.0}'),
        ({"s": "v 3.0}"}, '{"s":"v 3.0}"}'),
    ],
)
def test_known_texts(value: Any, text: str) -> None:
    assert dumps_whole(value) == text


def test_a_value_json_cannot_hold_names_the_place() -> None:
    with pytest.raises(VendorDataError, match="args"):
        dumps_whole({"x": float("nan")}, "gemini", "args")
