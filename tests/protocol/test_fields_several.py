"""``Fields.several`` / ``text_or_several``: the looser request shapes vendors take (issue 36)."""

from __future__ import annotations

import pytest

from toolwire.errors import VendorDataError
from toolwire.protocol.fields import Fields

F = Fields("v")


def test_a_list_is_read_as_it_is() -> None:
    parts = [{"text": "a"}, {"text": "b"}]
    assert F.several(parts, "x") is parts


def test_one_object_stands_for_a_list_of_it() -> None:
    assert F.several({"text": "a"}, "x") == [{"text": "a"}]


def test_absent_or_null_is_empty() -> None:
    assert F.several(None, "x") == []


def test_a_string_is_one_element_only_when_told_what_it_stands_for() -> None:
    assert F.several("hi", "x", text=lambda t: {"text": t}) == [{"text": "hi"}]
    with pytest.raises(VendorDataError, match=r"v: x: expected a list or an object, got str"):
        F.several("hi", "x")


def test_another_type_names_the_place_and_the_shapes_taken() -> None:
    with pytest.raises(VendorDataError, match=r"a\.b: expected a list or an object, got int"):
        F.several(3, "a.b")
    with pytest.raises(
        VendorDataError, match=r"a\.b: expected a string or a list or an object, got bool"
    ):
        F.several(True, "a.b", text=str)


def test_text_or_several_keeps_text_as_text() -> None:
    assert F.text_or_several("plain", "c") == "plain"
    assert F.text_or_several([{"type": "text"}], "c") == [{"type": "text"}]
    assert F.text_or_several({"type": "text"}, "c") == [{"type": "text"}]
    assert F.text_or_several(None, "c") == []
    with pytest.raises(VendorDataError, match=r"c: expected a string or a list or an object"):
        F.text_or_several(1.5, "c")
