"""A caller's AG-UI value (model or JSON dict), or a toolwire error when it is not one."""

from __future__ import annotations

from typing import Any, TypeVar

from ag_ui.core import RunAgentInput
from pydantic import BaseModel, ValidationError

from toolwire.errors import UnsupportedInput
from toolwire.protocol import finite
from toolwire.protocol.jsontext import checked

M = TypeVar("M", bound=BaseModel)


def as_agui(cls: type[M], value: Any, who: str = "toolwire") -> M:
    """``value`` as an ``ag_ui.core`` model ``cls``; ``UnsupportedInput`` naming the first bad
    field."""
    name = cls.__name__
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict):
        raise UnsupportedInput(
            f"{who}: not a {name}: expected an object, got {type(value).__name__}"
        )
    value = checked(value, who, name)  # bounded nesting, lone surrogates repaired
    try:
        return cls.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "input"
        raise UnsupportedInput(f"{who}: not a {name}: {where}: {first['msg']}") from None


def as_run_input(value: Any, who: str = "toolwire") -> RunAgentInput:
    """``value`` as a ``RunAgentInput``; ``UnsupportedInput`` naming the first bad field."""
    if isinstance(value, RunAgentInput):
        # the free-form JSON a model holds: bounded nesting, so no encoder recurses too deep
        free = [value.state, value.forwarded_props, [t.parameters for t in value.tools or []]]
        checked(free, who, "RunAgentInput")
    run = as_agui(RunAgentInput, value, who)
    finite.input_read(run)  # (inside an encode_request: may its body hold a NaN?)
    return run


__all__ = ["as_agui", "as_run_input"]
