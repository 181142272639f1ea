"""The ordered record of a reading (warnings, events and the error, interleaved), for the
tests that hold every reading of a stream to the order one event a piece gives."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

from toolwire.errors import ToolwireError


class Record:
    """The ordered record of a reading: the warnings said since the last entry, each event
    as it is handed on, the error that ended it."""

    def __init__(self, caught: list[warnings.WarningMessage]) -> None:
        self.caught = caught
        self.seen = 0
        self.entries: list[Any] = []

    def _said(self) -> None:
        for w in self.caught[self.seen :]:
            self.entries.append(("warning", w.category.__name__, str(w.message)))
        self.seen = len(self.caught)

    def events(self, events: list[Any]) -> list[Any]:
        for event in events:
            self._said()
            self.entries.append(("event", event.model_dump(mode="json", by_alias=True)))
        return events

    def checked(self, events: Iterator[Any]) -> Iterator[Any]:
        """A lazy check that passes every event (``gather_checked``'s), each recorded."""
        for event in events:
            self.events([event])
            yield event

    def error(self, exc: ToolwireError) -> None:
        self._said()
        self.entries.append(("error", type(exc).__name__, str(exc)))

    def end(self) -> list[Any]:
        self._said()
        return self.entries


def recorded(read: Callable[[Record], None]) -> list[Any]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record = Record(caught)
        try:
            read(record)
        except ToolwireError as exc:
            record.error(exc)
        return record.end()


def push_step(reading: Any, how: str, record: Record) -> Callable[[Any], None]:
    """The driver's step over one piece (``PushReading``): ``one`` chunk, a ``unit`` (up to
    the first chunk giving events), a ``gather`` (each chunk's events handed to the sink)
    or a ``checked`` gather (the events pulled by a lazy check) a step, each recorded; a
    failure the reading reports is raised."""

    def step(piece: Any) -> None:
        while piece.left:
            failed: list[Exception] = []
            if how == "gather":
                reading.gather(piece, record.events, 3, failed)
            elif how == "checked":
                reading.gather_checked(piece, record.checked, 3, failed)
            else:
                record.events(reading.events(piece, how == "one"))
            if failed:
                raise failed[0]

    return step
