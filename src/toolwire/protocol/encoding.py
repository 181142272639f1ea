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

    def _call_opened(self, start: ToolCallStartEvent, args: ToolCallArgsEvent) -> Chunks | None:
        """The chunks of a call's start and its first arguments delta, fed in a row but not
        followed by the call's end, as their two handlers make them; or ``None``, having
        changed nothing. The base has none."""
        return None

    def _checked_into(self, events: Iterable[Any], out: Chunks) -> None:
        """Check and handle ``events``, their chunks into ``out``, each event's losses
        warned about once it is handled (as ``feed`` does).

        A start (and its arguments) is held back until the next event shows whether it is
        a whole call. The machine's checks depend on nothing a handler does, so holding
        back changes nothing but where an error of a later event is raised: the events
        held are handled first, as ``feed`` would have handled them before it.
        """
        feed = self._machine.feed
        handlers = self._handlers
        losses = self.losses
        cls = type(self)
        whole = cls._whole_call
        hold = whole is not CheckedEncoder._whole_call
        hold = hold or cls._call_opened is not CheckedEncoder._call_opened
        start: Any = None
        args: Any = None
        event: Any
        for event in events:
            try:
                got = feed(event)
            except BaseException:
                if start is not None:
                    self._flush_start(start, args, out)
                raise
            if len(got) != 1:
                if start is not None:
                    self._flush_start(start, args, out)
                    start = args = None
                self._handle_fed(got, out)
                continue
            ev: Any = got[0]
            if hold and ev is event:
                kind = type(event)
                if kind is _START:
                    if start is not None:
                        self._flush_start(start, args, out)
                    start, args = event, None
                    continue
                if (
                    start is not None
                    and (kind is _ARGS or kind is _END)
                    and event.tool_call_id == start.tool_call_id
                ):
                    if kind is _ARGS and args is None:
                        args = event
                        continue
                    if kind is _END and args is not None:
                        chunks = whole(self, start, args, event)
                        if chunks is not None:
                            start = args = None
                            out += chunks
                            if len(losses) > self._announced:
                                self.warn_new()
                            continue
            if start is not None:
                self._flush_start(start, args, out)
                start = args = None
            handler = handlers.get(ev.type)
            if handler is not None:  # (a handler's list arrives whole or not at all)
                out += handler(self, ev)
                if len(losses) > self._announced:
                    self.warn_new()
        if start is not None:
            self._flush_start(start, args, out)

    def _flush_start(self, start: BaseEvent, args: Any, out: Chunks) -> None:
        """The start (and arguments) held back, handled as ``feed`` would."""
        if args is not None:
            chunks = self._call_opened(start, args)  # type: ignore[arg-type]
            if chunks is not None:
                out += chunks
                if len(self.losses) > self._announced:
                    self.warn_new()
                return
        self._handle_fed([start], out)
        if args is not None:
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
