"""AG-UI models built by calling their pydantic validator directly.

``Model(**fields)`` runs ``BaseModel.__init__``, a Python frame that packs the keywords and
calls the model's validator; for the small events a stream is made of (one id and one
delta) that frame is about a quarter of the cost. ``maker(Model)`` is the validator itself:
the same checks, the same instance (fields set, defaults, extras), from a dict of fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from ag_ui.core import ReasoningMessageContentEvent, TextMessageContentEvent, ToolCallArgsEvent
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def maker(model: type[M]) -> Callable[[dict[str, Any]], M]:
    """``model``'s validator: ``maker(Model)({"field": value})`` is ``Model(field=value)``
    (a ``ValidationError`` on a bad value, as the constructor raises)."""
    return cast(Callable[[dict[str, Any]], M], model.__pydantic_validator__.validate_python)


#: the events most of a stream is made of: ``args_event({"tool_call_id": i, "delta": d})``
args_event = maker(ToolCallArgsEvent)
#: ``text_event({"message_id": i, "delta": d})`` (and ``metadata`` where it has one)
text_event = maker(TextMessageContentEvent)
#: ``reasoning_event({"message_id": i, "delta": d})``
reasoning_event = maker(ReasoningMessageContentEvent)

__all__ = ["args_event", "maker", "reasoning_event", "text_event"]
