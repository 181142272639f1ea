"""What every model turn of one ``toolwire.run`` is called with, as one value.

A plain run is one turn; a run with backend tools (``_tool_loop.ToolRun``) starts a turn
per model call with the same arguments. Both take them as a :class:`TurnArgs`, so the
list is written once; the turn checks them (``_runner._Run``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from toolwire.driver._policy import RetryPolicy
from toolwire.errors import UnsupportedInput
from toolwire.losses import Loss


@dataclass(frozen=True)
class TurnArgs:
    """``run()``'s arguments that each turn takes alike: all but the client, the run
    input, the caller's ``losses`` list and the backend-tool options. The field names
    are ``run()``'s parameter names."""

    model: str
    vendor: str | None
    api: str | None
    retry: RetryPolicy | None
    on_cancel: str
    forward_losses: bool
    vendor_params: dict[str, Any]
    #: seconds the whole run may take (``None``: no deadline)
    deadline: float | None = None

    @classmethod
    def take(cls, given: dict[str, Any]) -> TurnArgs:
        """The fields popped from ``run()``'s bound arguments (what is left is the rest)."""
        return cls(**{f.name: given.pop(f.name) for f in fields(cls)})


def losses_list(losses: Any) -> list[Loss]:
    """The caller's ``losses=`` (records are appended to it), else a new list."""
    if losses is not None and not isinstance(losses, list):
        raise UnsupportedInput("toolwire.run: losses must be a list (records are appended)")
    return losses if losses is not None else []


__all__ = ["TurnArgs", "losses_list"]
