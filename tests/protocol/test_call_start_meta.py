"""A call's start with metadata built directly is the validator's instance, field for field,
its metadata a copy as the validator stores it; anything else is the validator's to read."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import ToolCallStartEvent
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from toolwire.protocol._makers import call_start_meta, meta_maker

NAMES = ("tool_call_id", "tool_call_name", "parent_message_id", "metadata")


class _StrSub(str):
    pass


def _kept(model: BaseModel) -> tuple[Any, ...]:
    """What pydantic keeps of an instance, in order (the metadata's key types too)."""
    meta = model.__dict__.get("metadata")
    return (
        type(model),
        list(model.__dict__.items()),
        [type(k) for k in meta] if isinstance(meta, dict) else None,
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        type(model.__pydantic_extra__),
        model.__pydantic_private__,
    )


def _outcome(build: Any) -> Any:
    try:
        return _kept(build())
    except ValidationError as exc:
        return [(e["loc"], e["type"]) for e in exc.errors()]


def _validated(*values: Any) -> ToolCallStartEvent:
    return ToolCallStartEvent.model_validate(dict(zip(NAMES, values, strict=True)))


def test_the_pinned_ag_ui_takes_the_direct_way() -> None:
    # (its self-check against the validator passed: else it is the validator's way)
    assert call_start_meta.__name__ == "direct_meta"


_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


@given(
    strings=st.lists(st.text(max_size=8), min_size=3, max_size=3),
    meta=st.dictionaries(st.text(max_size=6), _values, max_size=4),
)
def test_a_start_with_metadata_is_the_validators_instance(
    strings: list[str], meta: dict[str, Any]
) -> None:
    made, validated = call_start_meta(*strings, meta), _validated(*strings, meta)
    assert _kept(made) == _kept(validated)
    assert made.model_dump_json(by_alias=True) == validated.model_dump_json(by_alias=True)
    # the values themselves: each the caller's own object exactly where the validator's is
    given = dict(meta)
    for key, value in made.metadata.items():
        assert (value is given[key]) is (validated.metadata[key] is given[key]), key
    # a copy, as the validator's: the caller's dict changed later changes no event
    assert made.metadata is not meta
    meta["added"] = 1
    assert "added" not in made.metadata


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {_StrSub("k"): 1},
        {1: "x"},
        [("k", 1)],
        "k",
        {"k": 1, _StrSub("j"): 2},
    ],
)
def test_other_metadata_is_the_validators_to_read(meta: Any) -> None:
    assert _outcome(lambda: call_start_meta("c", "f", "m", meta)) == _outcome(
        lambda: _validated("c", "f", "m", meta)
    )


@pytest.mark.parametrize("other", [None, 3, b"bytes", _StrSub("s")])
@pytest.mark.parametrize("at", [0, 1, 2])
def test_another_value_of_a_string_field_is_the_validators_to_read(other: Any, at: int) -> None:
    values: list[Any] = ["c", "f", "m", {"k": 1}]
    values[at] = other
    assert _outcome(lambda: call_start_meta(*values)) == _outcome(lambda: _validated(*values))


def test_a_dict_subclass_is_the_validators_to_read() -> None:
    class _Meta(dict[str, Any]):
        pass

    meta = _Meta(k=1)
    assert _kept(call_start_meta("c", "f", "m", meta)) == _kept(_validated("c", "f", "m", meta))


class _Plain(BaseModel):
    a: str
    b: str
    c: str
    meta: dict[str, Any]  # (required: not the optional object the direct way fills)


def test_a_model_whose_object_field_is_another_keeps_its_validator() -> None:
    make = meta_maker(_Plain, "a", "b", "c", "meta")
    assert make.__name__ == "validated"
    assert make("x", "y", "z", {"k": 1}) == _Plain(a="x", b="y", c="z", meta={"k": 1})
    with pytest.raises(ValidationError):
        make("x", "y", "z", None)  # type: ignore[arg-type]
