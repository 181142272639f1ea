"""What a translation lost, as data and as a standard Python warning.

Every loss is returned as a :class:`Loss` record whether or not warnings are
shown; :func:`announce` turns records into ``warnings.warn`` calls so the usual
filters can silence them (they are on by default, as the protocol requires).
"""

from __future__ import annotations

import sys
import warnings
from collections import Counter
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass

from toolwire.errors import redact


class ToolwireWarning(UserWarning):
    """Base of every warning toolwire emits."""


class PartsDroppedWarning(ToolwireWarning):
    """A content part was dropped because the target or peer cannot take it."""


class ContentLossWarning(ToolwireWarning):
    """Something other than a whole part was lost or reshaped (arguments, metadata, a flag)."""


class UnrecognizedMaterialWarning(ToolwireWarning):
    """Unknown event types, properties or union members were stripped (AG-UI processing model)."""


class VersionWarning(ToolwireWarning):
    """A peer declared a protocol version this library does not speak exactly."""


@dataclass(frozen=True)
class Loss:
    """One thing a translation could not carry to its target.

    ``kind`` is ``"part-dropped"`` for a dropped content part; other kinds name
    other losses (``"arguments-not-object"``, ``"metadata-dropped"``, ...).
    """

    kind: str
    target: str
    reason: str
    tool_call_id: str | None = None
    part_index: int | None = None
    part_kind: str | None = None
    mime_type: str | None = None
    source_kind: str | None = None
    upgrade: str | None = None
    #: what went out instead (``"call-id-remapped"``: the id the target was sent)
    sent_as: str | None = None

    @property
    def message(self) -> str:
        if self.kind == "part-dropped":
            what = f"{self.part_kind} part"
            if self.part_index is not None:
                what += f" #{self.part_index}"
            details = ", ".join(
                x
                for x in (
                    self.mime_type or "no MIME type",
                    f"{self.source_kind} source" if self.source_kind else None,
                )
                if x
            )
            head = f"toolwire: dropped {what} ({details})"
        else:
            head = f"toolwire: {self.kind}"
        if self.tool_call_id is not None:
            head += f" of tool call {self.tool_call_id!r}"
        text = f"{head} for {self.target}: {self.reason}"
        if self.upgrade:
            text += f". To keep it: {self.upgrade}"
        return redact(text)  # a reason may quote a URI or a header

    @property
    def category(self) -> type[ToolwireWarning]:
        return PartsDroppedWarning if self.kind == "part-dropped" else ContentLossWarning


def snapshot_dropped(target: str, stream: str) -> Loss:
    """The loss of a ``MESSAGES_SNAPSHOT`` by an encoder whose ``stream`` has no place for
    restated history (the history belongs in the next request)."""
    return Loss(
        kind="messages-snapshot-dropped",
        target=target,
        reason=f"a MESSAGES_SNAPSHOT restates history, which {stream} cannot carry; "
        "send history with encode_request",
    )


#: the list of the innermost :func:`held` block, when one is open in this context
_HELD: ContextVar[list[Loss] | None] = ContextVar("toolwire_losses_held", default=None)


class held:
    """A surface above the translation (the run driver, the server, the CLI) speaks for it.

    Inside the block :func:`announce` warns about nothing: it appends to the list this
    yields instead. The surface reads the translation's losses as values
    (``Encoded.losses``, ``Encoder.losses``, ``Decoder.losses``) and warns once itself,
    at its own caller; :func:`unseen` gives what was announced but not in those values,
    so nothing is lost if a translation only warned. A context variable, not
    ``warnings.catch_warnings``: it is safe across threads and tasks, and other
    warnings still show. A class, not a generator: the driver and the server open one
    per chunk and per event.
    """

    __slots__ = ("_found", "_token")

    def __init__(self) -> None:
        self._found: list[Loss] = []

    def __enter__(self) -> list[Loss]:
        self._token = _HELD.set(self._found)
        return self._found

    def __exit__(self, *exc: object) -> None:
        _HELD.reset(self._token)


def unseen(announced: Iterable[Loss], values: Iterable[Loss]) -> list[Loss]:
    """The losses ``announced`` inside :func:`held` that ``values`` does not hold (as many
    times as they are missing, in order)."""
    have = Counter(values)
    out: list[Loss] = []
    for loss in announced:
        if have[loss]:
            have[loss] -= 1
        else:
            out.append(loss)
    return out


def announce(losses: Iterable[Loss], *, stacklevel: int | None = None) -> None:
    """Emit one warning per loss, in the category that fits it.

    By default the warning points at the first caller outside toolwire, however deep
    inside the library the loss was found (a wrapper or helper in between does not move
    it); ``stacklevel`` counts frames instead. Inside :func:`held` nothing is warned:
    the losses go to its list, for the surface to announce.
    """
    collecting = _HELD.get()
    if collecting is not None:
        collecting.extend(losses)
        return
    level = _outside_level() if stacklevel is None else stacklevel
    for loss in losses:
        if not _ignored(loss.category):  # a loss's text is built only to be shown
            warnings.warn(loss.message, loss.category, stacklevel=level)


def _ignored(category: type[Warning]) -> bool:
    """The warning filters surely drop ``category`` whatever its text and place.

    The first filter that matches decides, as in :mod:`warnings`; a filter that looks at
    the message or the module before it could decide otherwise, so the answer is then
    "not surely" and the warning is made as usual (the filters judge it themselves).
    """
    for action, message, kind, module, lineno in warnings.filters:
        if not issubclass(category, kind):
            continue
        if message is not None or module is not None or lineno:
            return False
        return action == "ignore"
    return False


def _outside_level() -> int:
    """The ``stacklevel`` (as ``announce`` passes it) of the first frame outside toolwire."""
    frame = sys._getframe(2)  # announce's caller
    level = 2
    while frame.f_back is not None and _in_toolwire(frame.f_globals.get("__name__", "")):
        frame = frame.f_back
        level += 1
    return level


def _in_toolwire(module: str) -> bool:
    return module == "toolwire" or module.startswith("toolwire.")


__all__ = [
    "ContentLossWarning",
    "Loss",
    "PartsDroppedWarning",
    "ToolwireWarning",
    "UnrecognizedMaterialWarning",
    "VersionWarning",
    "announce",
    "held",
    "snapshot_dropped",
    "unseen",
]
