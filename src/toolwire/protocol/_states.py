"""The run lifecycle of an AG-UI stream: its states and every transition, in one table.

Nothing else changes a :class:`RunState` (h11 keeps its connection states the same way):
``SequenceRules`` looks the next state up here, event by event.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ag_ui.core import EventType


class RunState(Enum):
    """Where the stream is in the run lifecycle."""

    IDLE = "idle"  # no run yet
    ACTIVE = "active"  # inside a run
    FINISHED = "finished"  # the last run ended with RUN_FINISHED
    ERRORED = "errored"  # the last run ended with RUN_ERROR


@dataclass(frozen=True, slots=True)
class Refused:
    """An event the state does not allow: the violation code, the reason (``{type}``: its type)."""

    code: str
    reason: str


#: In a state's row: every event type the row does not name.
OTHER = "*"

_S = RunState
_E = EventType
_BEFORE = Refused("event-before-run-started", "{type} before RUN_STARTED")

#: Every transition of the run lifecycle: state -> event type -> next state or refusal.
TRANSITIONS: dict[RunState, dict[EventType | str, RunState | Refused]] = {
    _S.IDLE: {_E.RUN_STARTED: _S.ACTIVE, _E.RUN_ERROR: _S.ERRORED, OTHER: _BEFORE},
    _S.ACTIVE: {
        _E.RUN_STARTED: Refused("run-already-started", "RUN_STARTED while a run is active"),
        _E.RUN_FINISHED: _S.FINISHED,
        _E.RUN_ERROR: _S.ERRORED,
        OTHER: _S.ACTIVE,
    },
    _S.FINISHED: {
        _E.RUN_STARTED: _S.ACTIVE,
        _E.RUN_ERROR: _S.ERRORED,
        OTHER: Refused("event-after-run-closed", "{type} after RUN_FINISHED"),
    },
    _S.ERRORED: {
        _E.RUN_STARTED: _S.ACTIVE,
        OTHER: Refused("event-after-run-closed", "{type} after RUN_ERROR"),
    },
}

#: The table with every event type spelled out: one look-up per event.
ROWS: dict[RunState, dict[EventType, RunState | Refused]] = {
    state: {t: row.get(t, row[OTHER]) for t in EventType} for state, row in TRANSITIONS.items()
}


__all__ = ["OTHER", "ROWS", "TRANSITIONS", "Refused", "RunState"]
