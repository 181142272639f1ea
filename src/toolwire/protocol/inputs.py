"""A caller's ``RunAgentInput`` (model or JSON dict), or a toolwire error when it is not one."""

from __future__ import annotations

from typing import Any

from ag_ui.core import RunAgentInput
from pydantic import ValidationError

from toolwire.errors import UnsupportedInput
from toolwire.protocol.jsontext import checked


def as_run_input(value: Any, who: str = "toolwire") -> RunAgentInput:
    """``value`` as a ``RunAgentInput``; ``UnsupportedInput`` naming the first bad field."""
    if isinstance(value, RunAgentInput):
        # the free-form JSON a model holds: bounded nesting, so no encoder recurses too deep
        free = [value.state, value.forwarded_props, [t.parameters for t in value.tools or []]]
        checked(free, who, "RunAgentInput")
        return value
    if not isinstance(value, dict):
        raise UnsupportedInput(
            f"{who}: not a RunAgentInput: expected an object, got {type(value).__name__}"
        )
    value = checked(value, who, "RunAgentInput")
    try:
        return RunAgentInput.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "input"
        raise UnsupportedInput(f"{who}: not a RunAgentInput: {where}: {first['msg']}") from None


__all__ = ["as_run_input"]
