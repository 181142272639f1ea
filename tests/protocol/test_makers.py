"""The delta events built without a validator are the validator's instances, field for field,
and anything the direct way cannot vouch for goes through the validator."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import (
    ReasoningMessageContentEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolwire.protocol._makers import (
    args_delta,
    call_end,
    call_start,
    pair_maker,
    reasoning_delta,
    text_delta,
    triple_maker,
)

DIRECT = [
    (args_delta, ToolCallArgsEvent, "tool_call_id"),
    (text_delta, TextMessageContentEvent, "message_id"),
    (reasoning_delta, ReasoningMessageContentEvent, "message_id"),
]


def _kept(model: BaseModel) -> tuple[Any, ...]:
    """What pydantic keeps of an instance, in order."""
    return (
        type(model),
        list(model.__dict__.items()),
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        type(model.__pydantic_extra__),
        model.__pydantic_private__,
    )


@pytest.mark.parametrize(("make", "model", "ident"), DIRECT)
def test_the_pinned_ag_ui_takes_the_direct_way(make: Any, model: Any, ident: str) -> None:
    # (its self-check against the validator passed: else it is the validator's way)
    assert make.__name__ == "direct"
    assert pair_maker(_Checked, "ident", "delta").__name__ == "validated"


@pytest.mark.parametrize(("make", "model", "ident"), DIRECT)
@given(a=st.text(), b=st.text())
def test_direct_is_the_validators_instance(
    make: Any, model: Any, ident: str, a: str, b: str
) -> None:
    made, validated = make(a, b), model.model_validate({ident: a, "delta": b})
    assert _kept(made) == _kept(validated)
    assert made == validated
    assert made.model_dump_json(by_alias=True) == validated.model_dump_json(by_alias=True)
    assert model.model_validate(made.model_dump(by_alias=True)) == made


@pytest.mark.parametrize(("make", "model", "ident"), DIRECT)
def test_instances_share_no_mutable_state(make: Any, model: Any, ident: str) -> None:
    one, two = make("id-1", "x"), make("id-2", "y")
    one.timestamp = 5  # pydantic records the field as set on this instance only
    one.note = "extra"  # an extra attribute (the events allow them) on this one only
    assert "timestamp" in one.model_fields_set and "timestamp" not in two.model_fields_set
    assert two.__pydantic_extra__ == {} and two.timestamp is None
    assert make("id-3", "z").model_fields_set == {ident, "delta"}


class _StrSub(str):
    pass


def _outcome(build: Any) -> Any:
    try:
        return _kept(build())
    except ValidationError as exc:
        return [(e["loc"], e["type"]) for e in exc.errors()]


@pytest.mark.parametrize(("make", "model", "ident"), DIRECT)
@pytest.mark.parametrize("other", [None, 3, b"bytes", ["x"]])
def test_a_value_of_another_type_is_the_validators_to_read(
    make: Any, model: Any, ident: str, other: Any
) -> None:
    # the validator takes bytes as text and refuses the rest: the same either way
    assert _outcome(lambda: make("id", other)) == _outcome(
        lambda: model.model_validate({ident: "id", "delta": other})
    )
    assert _outcome(lambda: make(other, "d")) == _outcome(
        lambda: model.model_validate({ident: other, "delta": "d"})
    )
    with pytest.raises(ValidationError):
        make("id", None)


@pytest.mark.parametrize(("make", "model", "ident"), DIRECT)
def test_a_str_subclass_is_the_validators_to_read(make: Any, model: Any, ident: str) -> None:
    made, validated = (
        make(_StrSub("id"), _StrSub("d")),
        model(**{ident: _StrSub("id"), "delta": "d"}),
    )
    assert _kept(made) == _kept(validated)


class _Checked(BaseModel):
    model_config = ConfigDict(extra="allow")
    ident: str
    delta: str

    @field_validator("delta")
    @classmethod
    def _no_x(cls, value: str) -> str:
        if "x" in value:
            raise ValueError("no x")
        return value


class _Bounded(BaseModel):
    ident: str
    delta: str = Field(min_length=1)


class _Shared(BaseModel):
    ident: str
    delta: str
    tags: list[str] = Field(default_factory=list)


class _Forbids(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ident: str
    delta: str


@pytest.mark.parametrize("model", [_Checked, _Bounded, _Shared])
def test_a_model_with_anything_to_run_keeps_its_validator(model: Any) -> None:
    make = pair_maker(model, "ident", "delta")
    assert make("i", "d") == model(ident="i", delta="d")
    if model is not _Shared:
        with pytest.raises(ValidationError):
            make("i", "x" if model is _Checked else "")
    else:  # a mutable default: each instance its own, as the validator makes it
        one, two = make("i", "d"), make("i", "d")
        one.tags.append("t")
        assert two.tags == []


def test_a_model_without_extras_gets_none_for_them() -> None:
    make = pair_maker(_Forbids, "ident", "delta")
    made, validated = make("i", "d"), _Forbids(ident="i", delta="d")
    assert _kept(made) == _kept(validated)
    assert made.__pydantic_extra__ is None


def test_any_event_with_two_given_strings_is_the_validators() -> None:
    make = pair_maker(ToolCallStartEvent, "tool_call_id", "tool_call_name")
    made = make("c1", "f")
    assert _kept(made) == _kept(ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"))


CALLS = [
    (call_start, ToolCallStartEvent, ("tool_call_id", "tool_call_name", "parent_message_id")),
    (call_end, ToolCallEndEvent, ("tool_call_id",)),
]


@pytest.mark.parametrize(("make", "model", "names"), CALLS)
def test_the_call_makers_take_the_direct_way(make: Any, model: Any, names: Any) -> None:
    assert make.__name__ in ("direct1", "direct3")
    assert triple_maker(_Three, "a", "b", "c").__name__ == "validated"  # (a validator to run)


@pytest.mark.parametrize(("make", "model", "names"), CALLS)
@given(values=st.lists(st.text(), min_size=3, max_size=3))
def test_a_call_maker_makes_the_validators_instance(
    make: Any, model: Any, names: Any, values: list[str]
) -> None:
    given_values = values[: len(names)]
    made = make(*given_values)
    validated = model.model_validate(dict(zip(names, given_values, strict=True)))
    assert _kept(made) == _kept(validated)
    assert made.model_dump_json(by_alias=True) == validated.model_dump_json(by_alias=True)


@pytest.mark.parametrize(("make", "model", "names"), CALLS)
@pytest.mark.parametrize("other", [None, 3, b"bytes", ["x"], _StrSub("s")])
@pytest.mark.parametrize("at", [0, 1, 2])
def test_a_call_makers_other_value_is_the_validators_to_read(
    make: Any, model: Any, names: Any, other: Any, at: int
) -> None:
    if at >= len(names):
        at = len(names) - 1
    values: list[Any] = ["v"] * len(names)
    values[at] = other
    assert _outcome(lambda: make(*values)) == _outcome(
        lambda: model.model_validate(dict(zip(names, values, strict=True)))
    )


def test_a_call_makers_instances_share_nothing() -> None:
    one, two = call_start("c1", "f", "m"), call_start("c2", "g", "m")
    one.metadata = {"k": 1}
    assert two.metadata is None and "metadata" not in two.model_fields_set
    assert call_end("c3").model_fields_set == {"tool_call_id"}


class _Three(BaseModel):
    a: str
    b: str
    c: str

    @field_validator("c")
    @classmethod
    def _no_x(cls, value: str) -> str:
        if "x" in value:
            raise ValueError("no x")
        return value


def test_the_direct_table_names_every_direct_maker() -> None:
    from toolwire.protocol._makers import DIRECT_MAKERS

    for make, model, names in CALLS:
        assert DIRECT_MAKERS[model] == (make, names)
    for make, model, ident in DIRECT:
        assert DIRECT_MAKERS[model] == (make, (ident, "delta"))
