"""A chunk already written as its JSON text, for the writers of a vendor stream's bytes.

On the bytes path (a framing's ``write`` of an untouched ``encode_stream`` result) an
encoder may hand a commonest chunk as :class:`Written`: its text, made from a
:func:`template` (the constant text around a chunk's variable values, cut from a sample
chunk the real dict writer wrote, so it cannot drift from the dict form), and ``make``,
which builds the chunk's dict, for a writer that needs more than the text. The writers
splice the text as it is; it is exactly the text the dict writer would write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.protocol._compact_json import compact


class Written:
    """One chunk: its compact JSON text, and how to build it as a dict."""

    __slots__ = ("make", "text")

    def __init__(self, text: str, make: Callable[[], dict[str, Any]]) -> None:
        self.text = text
        self.make = make


#: the sample values a template's holes are cut at (a string JSON writes as it stands)
HOLE = "\x00hole\x00"


def template(sample: dict[str, Any], holes: int) -> tuple[str, ...] | None:
    """The constant pieces around ``holes`` values of ``sample``, each :data:`HOLE` (the
    dict writer's text cut at each hole's JSON text), or ``None`` when the text does not
    cut into exactly ``holes + 1`` pieces (a constant value that is the hole's value), or
    when it cannot be written (the dict path then says why)."""
    try:
        text = compact(sample)
    except (TypeError, ValueError, RecursionError):
        return None
    pieces = text.split(compact(HOLE))
    return tuple(pieces) if len(pieces) == holes + 1 else None


__all__ = ["HOLE", "Written", "template"]
