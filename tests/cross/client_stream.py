"""What a vendor client's raw stream gave, read back in tests of any vendor."""

from __future__ import annotations

from typing import Any

from toolwire import clients
from toolwire.protocol.pushed import Piece


def flat(got: list[Any]) -> list[Any]:
    """The chunks a client's stream gave: a piece's (``protocol.pushed.Piece``, the raw
    body's, which the driver reads fused) as its dicts; keep-alive ticks left out."""
    out: list[Any] = []
    for item in got:
        if isinstance(item, Piece):
            out.extend(item)
        elif item is not clients.TICK:
            out.append(item)
    return out


def after_first_event(raw: bytes, insert: bytes) -> bytes:
    """An SSE body with ``insert`` put after its first event."""
    cut = raw.index(b"\n\n") + 2
    return raw[:cut] + insert + raw[cut:]
