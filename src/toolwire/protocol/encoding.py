"""What every adapter's stream Encoder shares: feed/close, and losses warned at the surface.

An adapter subclasses :class:`BaseEncoder` and implements ``_feed`` (one AG-UI event, a
model or a dict) and ``_close``; what the vendor cannot hold it appends to ``losses``.
``feed``/``close`` warn once about each new loss, so the translation never warns from
deep inside and a caller reads the same records as values. ``feed_many`` takes a list of
events in one call (``encode_stream`` of a list uses it): the same chunks, losses,
warnings (in the same order) and errors as ``feed`` of each in turn.

An encoder that checks its input with a :class:`~toolwire.protocol.machine.StreamMachine`
and dispatches to ``_on_<type>`` handlers can take :class:`CheckedEncoder`'s loop for
both, with a shorter way for the commonest run of events, a whole tool call (its start,
one arguments delta, its end), which the vendor's ``_whole_call`` writes in one step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.losses import snapshot_dropped
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.translator import Translator

Chunks = list[dict[str, Any]]


class BaseEncoder(Translator):
    """Sans-I/O base: subclasses turn AG-UI events into vendor chunk dicts."""

    def feed(self, event: Any) -> Chunks:
        """One AG-UI event (model or dict) -> vendor chunk dicts."""
        chunks = self._feed(event)
        self.warn_new()
        return chunks

    def feed_many(self, events: Iterable[Any]) -> Chunks:
        """``feed`` of each event in turn, the chunks joined: the same chunks, losses,
        warnings (in the same order) and errors. On an error the chunks of the events
        before it are not returned (:meth:`feed_into` keeps them)."""
        out: Chunks = []
        self._feed_into(events, out)
        return out

    def feed_into(self, events: Iterable[Any], out: Chunks) -> None:
        """:meth:`feed_many`, its chunks appended to ``out``: on an error ``out`` holds the
        chunks of the events before the failing one and their losses have been warned
        about, as ``feed`` of each in turn leaves them."""
        self._feed_into(events, out)

    def close(self) -> Chunks:
        """End of the event stream: whatever the vendor needs to end its stream."""
        chunks = self._close()
        self.warn_new()
        return chunks

    def _feed(self, event: Any) -> Chunks:
        raise NotImplementedError

    def _feed_into(self, events: Iterable[Any], out: Chunks) -> None:
        """``feed`` of each event into ``out`` (a subclass may do the same faster)."""
        losses = self.losses
        feed = self._feed
        for event in events:
            out += feed(event)
            if len(losses) > self._announced:
                self.warn_new()

    def _close(self) -> Chunks:
        return []


#: the classes of a whole call's events, as the machine passes them on unchanged
_START, _ARGS, _END = ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent


class CheckedEncoder(BaseEncoder):
    """An encoder that checks what it is fed with its own ``StreamMachine`` (``_machine``:
    it is also fed unchecked events, dicts, hostile input) and hands each event the machine
    passes on to its ``_on_<type>`` handler (``_handlers``, from
    ``protocol.dispatch.handlers_by_type``), in one loop for a whole list of events.

    A tool call's start, one arguments delta and end, fed in a row and passed on by the
    machine as they are, go to ``_whole_call(start, args, end)`` when the class has one: it
    returns the chunks (and appends the losses) the three handlers would, or ``None``,
    having changed nothing, when the call is not its plain case (the handlers take it then).
    """

    _machine: StreamMachine
    _handlers: dict[EventType, Any]

    def _feed(self, event: Any) -> Chunks:
        out: Chunks = []
        self._feed_into((event,), out)
        return out

    def _feed_into(self, events: Iterable[Any], out: Chunks) -> None:
        self._checked_into(events, out)

    def _whole_call(
        self, start: ToolCallStartEvent, args: ToolCallArgsEvent, end: ToolCallEndEvent
    ) -> Chunks | None:
        """The chunks of a whole call fed in a row, as its three handlers make them (and
        their losses), or ``None``, having changed nothing, for a call that is not the
        plain case. The base has none."""
        return None

    def _calls_opened(self, events: list[Any], at: int, stop: int, out: Chunks) -> int:
        """The chunks of the calls opened in ``events[at:stop]`` (a start, its first
        arguments delta, the next start, ...: calls fed in a row but not followed by their
        end), which the machine took as they are, into ``out``, as their handlers make
        them, in order, stopping after the first call that records a loss: how many events
        it handled (at least two). The base has none (each event goes to its handler)."""
        raise NotImplementedError

    def _calls_ended(self, ends: list[ToolCallEndEvent], at: int, out: Chunks) -> int:
        """The chunks of ``ends[at:]``, which the machine took as they are, into ``out``, as
        their handler makes them, in order, stopping after the first end that records a
        loss (its warning then comes before the next end's chunks, as from ``feed``): how
        many it handled (at least one). The base has none (each end goes to its handler)."""
        raise NotImplementedError

    def _checked_into(self, events: Iterable[Any], out: Chunks) -> None:
        """Check and handle ``events``, their chunks into ``out``, each event's losses
        warned about once it is handled (as ``feed`` does).

        A call's start (and its one arguments event) is held back, unchecked, until the
        next event shows whether it is a whole call; the machine then checks the events held
        in one step (``StreamMachine.feed_call``). Where the class handles runs of them, the
        calls opened but not ended in a row (``_calls_opened``) and the ends in a row
        (``_calls_ended``) are gathered, unchecked, and checked in one step each
        (``feed_opened``, ``feed_ends``). Only where an error is raised depends on holding
        back: the machine's checks depend on nothing a handler does, and on an error the
        events before the failing one are handled first, as ``feed`` would have.
        """
        feed = self._machine.feed
        handlers = self._handlers
        losses = self.losses
        cls = type(self)
        opens = cls._calls_opened is not CheckedEncoder._calls_opened
        hold = opens or cls._whole_call is not CheckedEncoder._whole_call
        gather = cls._calls_ended is not CheckedEncoder._calls_ended
        # (at most one of the two runs is waiting at a time, the other empty)
        opened: list[Any] = []  # calls opened in a row: start, arguments, start, ...
        ends: list[Any] = []  # ends in a row
        start: Any = None
        args: Any = None
        event: Any
        for event in events:
            kind = type(event)
            if hold:
                if start is not None:
                    if kind is _ARGS:
                        if args is None and event.tool_call_id == start.tool_call_id:
                            args = event
                            continue
                    elif kind is _END:
                        if args is not None and event.tool_call_id == start.tool_call_id:
                            if opened:
                                self._opened_in_row(opened, out)
                                opened = []
                            self._call_in_row(start, args, event, out)
                            start = args = None
                            continue
                    # the call held is not whole
                    if opens and args is not None:
                        opened.append(start)
                        opened.append(args)
                    else:
                        if opened:
                            self._opened_in_row(opened, out)
                            opened = []
                        self._flush_held(start, args, out)
                    start = args = None
                if kind is _START:
                    if ends:
                        self._ends_in_row(ends, out)
                        ends = []
                    start = event
                    continue
            if gather and kind is _END:
                if opened:
                    self._opened_in_row(opened, out)
                    opened = []
                ends.append(event)
                continue
            if opened:
                self._opened_in_row(opened, out)
                opened = []
            if ends:
                self._ends_in_row(ends, out)
                ends = []
            got = feed(event)
            if len(got) != 1:
                self._handle_fed(got, out)
                continue
            handler = handlers.get(got[0].type)
            if handler is not None:  # (a handler's list arrives whole or not at all)
                out += handler(self, got[0])
                if len(losses) > self._announced:
                    self.warn_new()
        if start is not None:
            if opens and args is not None:
                opened.append(start)
                opened.append(args)
            else:
                if opened:
                    self._opened_in_row(opened, out)
                    opened = []
                self._flush_held(start, args, out)
        if opened:
            self._opened_in_row(opened, out)
        if ends:
            self._ends_in_row(ends, out)

    def _opened_in_row(self, opened: list[Any], out: Chunks) -> None:
        """Calls opened in a row (start, arguments, ...): checked in one step and handled
        by ``_calls_opened``, else as ``feed`` of each."""
        machine = self._machine
        try:
            fused = machine.feed_opened(opened)
        except BaseException:
            self._opened_handled(opened, machine.call_taken, out)
            raise
        if not fused:
            for at in range(0, len(opened), 2):
                self._flush_held(opened[at], opened[at + 1], out)
            return
        self._opened_handled(opened, len(opened), out)

    def _opened_handled(self, opened: list[Any], taken: int, out: Chunks) -> None:
        """The first ``taken`` events of calls opened in a row, which the machine took,
        through ``_calls_opened`` (a start whose arguments failed, through its handler),
        each loss warned about before the next call's chunks."""
        pairs = taken - taken % 2
        at = 0
        while at < pairs:
            at += self._calls_opened(opened, at, pairs, out)
            if len(self.losses) > self._announced:
                self.warn_new()
        if taken % 2:
            self._handle_fed([opened[taken - 1]], out)

    def _ends_in_row(self, ends: list[ToolCallEndEvent], out: Chunks) -> None:
        """A run of ends fed in a row: checked in one step and handled by ``_calls_ended``,
        else as ``feed`` of each."""
        machine = self._machine
        try:
            fused = machine.feed_ends(ends)
        except BaseException:
            self._ends_handled(ends[: machine.call_taken], out)
            raise
        if not fused:
            for end in ends:
                self._handle_fed(machine.feed(end), out)
            return
        self._ends_handled(ends, out)

    def _ends_handled(self, ends: list[ToolCallEndEvent], out: Chunks) -> None:
        """Ends the machine took, through ``_calls_ended``, each loss warned about before
        the next end's chunks."""
        at = 0
        while at < len(ends):
            at += self._calls_ended(ends, at, out)
            if len(self.losses) > self._announced:
                self.warn_new()

    def _call_in_row(
        self, start: ToolCallStartEvent, args: ToolCallArgsEvent, end: ToolCallEndEvent, out: Chunks
    ) -> None:
        """A call's start, one arguments event and its end, fed in a row: checked in one
        step and written by ``_whole_call`` where it takes them, else as ``feed`` of each."""
        machine = self._machine
        try:
            fused = machine.feed_call(start, args, end)
        except BaseException:
            self._handle_checked(start, args, machine.call_taken, out)
            raise
        if not fused:
            self._flush_held(start, args, out)
            self._handle_fed(machine.feed(end), out)
            return
        chunks = self._whole_call(start, args, end)
        if chunks is None:
            self._handle_checked(start, args, 2, out)
            self._handle_fed([end], out)
            return
        out += chunks
        if len(self.losses) > self._announced:
            self.warn_new()

    def _flush_held(self, start: Any, args: Any, out: Chunks) -> None:
        """The start (and arguments) held back, checked and handled as ``feed`` would."""
        machine = self._machine
        try:
            fused = args is not None and machine.feed_call(start, args)
        except BaseException:
            self._handle_checked(start, args, machine.call_taken, out)
            raise
        if fused:
            self._handle_checked(start, args, 2, out)
            return
        self._handle_fed(machine.feed(start), out)
        if args is not None:
            self._handle_fed(machine.feed(args), out)

    def _handle_checked(self, start: Any, args: Any, passed: int, out: Chunks) -> None:
        """The first ``passed`` of a start and its arguments, which the machine took as they
        are, through their handlers (the two in one step by ``_calls_opened`` when it can)."""
        if passed >= 2 and type(self)._calls_opened is not CheckedEncoder._calls_opened:
            self._opened_handled([start, args], 2, out)
            return
        if passed >= 1:
            self._handle_fed([start], out)
        if passed >= 2:
            self._handle_fed([args], out)

    def _handle_fed(self, events: list[BaseEvent], out: Chunks) -> None:
        """One fed event's output (the events the machine passed on) through their handlers,
        the chunks into ``out`` (none of them when a handler raises, as from ``feed``), its
        losses warned about."""
        handlers = self._handlers
        made: Chunks = []
        for ev in events:
            handler = handlers.get(ev.type)
            if handler is not None:
                made += handler(self, ev)
        out += made
        if len(self.losses) > self._announced:
            self.warn_new()


class OutputStreamEncoder(BaseEncoder):
    """An encoder into a stream that carries the model's output only (a chat or completion
    stream): each event goes to the class's ``_on_<type>`` handler (``_handlers``, from
    ``protocol.dispatch.handlers_by_type``), and the two events such a stream has no place
    for are said as losses. ``stream_name`` names the stream in them; ``_lose`` records one.
    """

    #: what the vendor calls its stream, in a loss ("a chat stream")
    stream_name = "the vendor's stream"
    _handlers: dict[EventType, Any]

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        raise NotImplementedError

    def _on(self, ev: BaseEvent) -> Chunks:
        handler = self._handlers.get(ev.type)
        if handler is not None:
            return handler(self, ev)  # type: ignore[no-any-return]
        return []

    def _on_messages_snapshot(self, ev: BaseEvent) -> Chunks:
        self.losses.append(snapshot_dropped(self.vendor, self.stream_name))
        return []

    def _on_tool_call_result(self, ev: BaseEvent) -> Chunks:
        self._lose(
            "tool-result-dropped",
            f"{self.stream_name} carries the model's output only; results go in the next "
            "request (encode_request)",
            tool_call_id=getattr(ev, "tool_call_id", None),
        )
        return []


__all__ = ["BaseEncoder", "CheckedEncoder", "OutputStreamEncoder"]
