"""How a turn ended, in one vocabulary for every vendor (``toolwire.finishReason``).

Each decoder puts the vendor's own stop reason on ``RUN_FINISHED`` / ``RUN_ERROR``
metadata under its vendor key (``anthropic.stop_reason``, ...) and, beside it, the
normalized reason under :data:`FINISH_REASON_KEY`; the mapping of each vendor is one
``map_*_stop_reason`` in its ``wire.py`` (the table: docs/decisions.md). An encoder
that finds no key of its own vendor reads this one, so a run decoded from one vendor
re-encodes with the right reason for another.
"""

from __future__ import annotations

from typing import Any, Literal

FINISH_REASON_KEY = "toolwire.finishReason"

#: ``RUN_FINISHED.metadata`` key: the calls the run started that the *vendor* will answer
#: (a server tool still running, whose result comes in a later response), in order. They
#: are left out of ``pendingToolCallIds``: the application must not answer them, it sends
#: the conversation back and the vendor does. The stream validator takes the stated list
#: as the stream's pending calls less these.
VENDOR_PENDING_KEY = "toolwire.vendorPending"

FinishReason = Literal[
    "stop", "tool_calls", "length", "content_filter", "pause", "refusal", "error", "other"
]

#: Every value ``toolwire.finishReason`` takes.
FINISH_REASONS: tuple[FinishReason, ...] = (
    "stop",
    "tool_calls",
    "length",
    "content_filter",
    "pause",
    "refusal",
    "error",
    "other",
)


def stated_finish_reason(metadata: Any) -> FinishReason | None:
    """The normalized reason ``metadata`` states (None: none, or a value not in the list)."""
    if isinstance(metadata, dict):
        value = metadata.get(FINISH_REASON_KEY)
        for reason in FINISH_REASONS:
            if value == reason:
                return reason
    return None


def vendor_pending(metadata: Any) -> list[str]:
    """The call ids ``metadata`` states the vendor will answer (``[]``: none stated)."""
    if isinstance(metadata, dict):
        value = metadata.get(VENDOR_PENDING_KEY)
        if isinstance(value, list):
            return [v for v in value if isinstance(v, str)]
    return []


__all__ = [
    "FINISH_REASONS",
    "FINISH_REASON_KEY",
    "VENDOR_PENDING_KEY",
    "FinishReason",
    "stated_finish_reason",
    "vendor_pending",
]
