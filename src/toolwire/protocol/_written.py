"""A chunk already written as its JSON text, for the writers of a vendor stream's bytes.

On the bytes path (a framing's ``write`` of an untouched ``encode_stream`` result) an
encoder may hand a commonest chunk as :class:`Written`: its text, made from a
:func:`template` (the constant text around a chunk's variable values, cut from a sample
chunk the real dict writer wrote, so it cannot drift from the dict form; :class:`Cut`
keeps it for the constants it was cut for), and how to build the chunk's dict, for a
writer that needs more than the text. The writers splice the text as it is; it is
exactly the text the dict writer would write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.protocol._compact_json import compact


class Written:
    """One chunk: its compact JSON text, and how to build it as a dict (``make()``:
    ``maker(*args)``, built only if a writer asks; no closure made per chunk)."""

    __slots__ = ("_args", "_maker", "text")

    def __init__(
        self, text: str, maker: Callable[..., dict[str, Any]], args: tuple[Any, ...] = ()
    ) -> None:
        self.text = text
        self._maker = maker
        self._args = args

    def make(self) -> dict[str, Any]:
        """The chunk as the dict path makes it."""
        return self._maker(*self._args)


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


class Cut:
    """An encoder's :func:`template` of one chunk, kept for the constants (model, ids ...)
    it was cut for: ``sample(*constants)`` is the chunk, a :data:`HOLE` at each of its
    ``holes`` values, as the dict path builds it. Read it as ``cut.pieces if
    cut.constants == constants else cut.cut(constants)`` (no call while they hold)."""

    __slots__ = ("_holes", "_sample", "constants", "pieces")

    def __init__(self, sample: Callable[..., dict[str, Any]], holes: int) -> None:
        self._sample = sample
        self._holes = holes
        #: the constants the pieces were cut for (``None``: not cut yet)
        self.constants: tuple[Any, ...] | None = None
        self.pieces: tuple[str, ...] | None = None

    def cut(self, constants: tuple[Any, ...]) -> tuple[str, ...] | None:
        """The pieces for ``constants``, cut again from a new sample."""
        self.pieces = template(self._sample(*constants), self._holes)
        self.constants = constants
        return self.pieces


__all__ = ["HOLE", "Cut", "Written", "template"]
