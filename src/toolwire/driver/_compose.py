"""One AG-UI run made of several model turns and tool results: :class:`RunComposer`.

A framework that owns its agent loop (call the model, run the tools it asked for, call the
model again) still owes the UI ONE run: one ``RUN_STARTED``, every turn's events, a
``TOOL_CALL_RESULT`` per answered call, one ``RUN_FINISHED`` naming what is left to the UI.
The composer is that bookkeeping, sans-I/O: turns go in as the events of a
``toolwire.run``-style run (its own ``RUN_STARTED``/``RUN_FINISHED`` taken off) or a bare
turn (a decoder's output, an SDK stream through a ``Decoder``), results as content; out
comes one run checked by one :class:`~toolwire.protocol.StreamMachine` from its start to
its end.

What it keeps across turns:

- ids: a message or tool call id a turn reuses from earlier in the thread (a replayed
  vendor id, a vendor that numbers its messages per response) is given a fresh one for
  that turn, so the run never merges two messages or two calls;
- the history (:meth:`RunComposer.next_input`: the input's messages plus everything the
  run said so far), for the next turn's ``encode_request``;
- usage, summed over the turns per provider and model; the last turn's metadata (its
  ``toolwire.finishReason``); the losses the turns forwarded (``toolwire.losses``), merged
  into one event before the terminal one, each loss once.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    ContentPart,
    CustomEvent,
    EventType,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TokenUsage,
    Tool,
    ToolCallResultEvent,
)

from toolwire.errors import ToolwireError
from toolwire.failures import classify, metadata_of
from toolwire.protocol._compact_json import compact
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.machine import RESULT_ERROR_KEY, StreamMachine
from toolwire.protocol.runs import DECODING_FAILURES, turn_outcome

#: The ``CUSTOM`` event a run forwards its losses in (``toolwire.run(forward_losses=True)``).
LOSSES_EVENT = "toolwire.losses"

_USAGE_COUNTS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "reasoning_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
)

# the events that name a message / a tool call, and the fields that do
_MESSAGE_FIELDS = ("message_id", "parent_message_id", "entity_id")
_SKIPPED = frozenset({EventType.RUN_STARTED})
_CONTENT = frozenset({EventType.TEXT_MESSAGE_CONTENT, EventType.REASONING_MESSAGE_CONTENT})
_ENDS = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})


@dataclass(frozen=True)
class TurnCall:
    """A tool call a turn made: its id, tool name and argument text (JSON)."""

    id: str
    name: str
    arguments: str


class RunComposer:
    """One checked AG-UI run over several turns; each method returns the events to send.

    ``start()``, then any number of turns (:meth:`turn` / :meth:`aturn` over events,
    :meth:`stream` over a vendor stream and its decoder, or :meth:`feed` event by event
    with :meth:`end_turn`) and results (:meth:`result`), then :meth:`finish` (or
    :meth:`error`, :meth:`cancel`). A turn that ends the run itself (its ``RUN_ERROR``, a
    cancelled outcome) ends the composed run: :attr:`ended` tells.
    """

    def __init__(
        self,
        run_input: RunAgentInput | dict[str, Any],
        *,
        thread_id: str | None = None,
        run_id: str | None = None,
    ) -> None:
        self.input = as_run_input(run_input, "RunComposer")
        self.thread_id = thread_id or self.input.thread_id
        self.run_id = run_id or self.input.run_id
        self.machine = StreamMachine(history=True)
        self.steps = 0  #: turns begun so far
        self.ended = False
        self.metadata: dict[str, Any] = {}  #: the last turn's run metadata
        self.turn_outcome: Any = None  #: the last turn's outcome (None: success)
        self.turn_calls: list[TurnCall] = []  #: the calls the last turn made, in order
        self.loss_records: list[dict[str, Any]] = []  #: the losses turns forwarded, each once
        self._loss_keys: set[str] = set()
        self._usage: dict[tuple[str | None, str | None], dict[str, int | None]] = {}
        self._taken_messages: set[str] = set()
        self._taken_calls: set[str] = set()
        for m in self.input.messages:
            self._taken_messages.add(m.id)
            for call in getattr(m, "tool_calls", None) or ():
                self._taken_calls.add(call.id)
        self._in_turn = False
        self._started = False
        self._renamed: dict[str, str] = {}
        self._turn_ids: set[str] = set()
        self._args: dict[str, list[str]] = {}
        self._names: dict[str, str] = {}

    # -- the run ---------------------------------------------------------------------------

    def start(self) -> list[BaseEvent]:
        """``RUN_STARTED``, with the protocol version and the run's input."""
        if self._started:
            raise ToolwireError("RunComposer: the run has already started")
        self._started = True
        started = RunStartedEvent(
            thread_id=self.thread_id,
            run_id=self.run_id,
            protocol_version=PROTOCOL_VERSION,
            input=self.input,
        )
        return self.machine.feed(started)

    @property
    def usage(self) -> list[TokenUsage]:
        """The usage so far: one entry per provider and model, summed over the turns."""
        out = []
        for (provider, model), counts in self._usage.items():
            kw = {k: v for k, v in counts.items() if v is not None}
            out.append(TokenUsage(provider=provider, model=model, **kw))
        return out

    @property
    def finish_reason(self) -> str | None:
        """The last turn's ``toolwire.finishReason``."""
        value = self.metadata.get(FINISH_REASON_KEY)
        return value if isinstance(value, str) else None

    @property
    def pending_tool_call_ids(self) -> list[str]:
        """The calls of this run that no result answers yet."""
        return self.machine.pending_tool_call_ids

    def next_input(self, *, tools: Sequence[Tool] | None = None, **update: Any) -> RunAgentInput:
        """The input for the next turn's request: the conversation so far (the input's
        messages and this run's), with ``tools`` in place of the input's when given."""
        fields: dict[str, Any] = {"messages": self.machine.messages, **update}
        if tools is not None:
            fields["tools"] = list(tools)
        return self.input.model_copy(update=fields)

    # -- turns -----------------------------------------------------------------------------

    def begin_turn(self) -> None:
        """A new turn starts (:meth:`feed` does it on a turn's ``RUN_STARTED`` or first event)."""
        self._check_open()
        if self._in_turn:
            raise ToolwireError("RunComposer: a turn is open; end it first")
        self._in_turn = True
        self.steps += 1
        self._renamed = {}
        self._turn_ids = set()
        self._args = {}
        self._names = {}
        self.turn_calls = []
        self.turn_outcome = None

    def feed(self, event: BaseEvent) -> list[BaseEvent]:
        """One event of a turn. A whole run's own ``RUN_STARTED`` begins the turn and is
        not sent; its ``RUN_FINISHED`` ends the turn (usage, metadata and outcome kept, not
        sent); its ``RUN_ERROR`` ends the composed run. A forwarded losses event is kept
        for the merged one :meth:`finish` sends."""
        kind = event.type
        if kind in _CONTENT and self._in_turn and not self._renamed:
            return self.machine.feed(event)  # the commonest events: nothing to rename or note
        if kind in _SKIPPED:
            self.begin_turn()
            return []
        if not self._in_turn:
            self.begin_turn()
        if kind == EventType.RUN_FINISHED:
            assert isinstance(event, RunFinishedEvent)
            self._end(event.usage or (), event.metadata or {}, event.outcome)
            return []
        if kind == EventType.RUN_ERROR:
            assert isinstance(event, RunErrorEvent)
            self._end(event.usage or (), {}, None)
            return self.error(event.message, event.code, metadata=event.metadata)
        if kind == EventType.CUSTOM and getattr(event, "name", None) == LOSSES_EVENT:
            self._keep_losses(getattr(event, "value", None))
            return []
        out = self.machine.feed(self._renamed_ids(event))
        for ev in out:
            self._note_call(ev)
        return out

    def end_turn(
        self,
        *,
        usage: Iterable[TokenUsage] = (),
        metadata: dict[str, Any] | None = None,
        outcome: Any = None,
    ) -> list[BaseEvent]:
        """End a bare turn (no ``RUN_FINISHED`` of its own): what its chunk streams left open
        is closed; ``usage``/``metadata``/``outcome`` are the turn's (a decoder's)."""
        if not self._in_turn:
            return []
        out = self.machine.end_turn()
        for ev in out:
            self._note_call(ev)
        self._end(usage, metadata or {}, outcome)
        return out

    def turn(self, events: Iterable[BaseEvent]) -> Iterator[BaseEvent]:
        """A whole turn: the events of a ``toolwire.run``-style run or of a bare turn."""
        for event in events:
            yield from self.feed(event)
            if self.ended:
                return
        yield from self.end_turn()

    async def aturn(self, events: AsyncIterable[BaseEvent]) -> AsyncIterator[BaseEvent]:
        """:meth:`turn` over an async iterable (``toolwire.arun``'s events)."""
        async for event in events:
            for ev in self.feed(event):
                yield ev
            if self.ended:
                return
        for ev in self.end_turn():
            yield ev

    def stream(self, decoder: BaseDecoder, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """A vendor turn read with the adapter's ``decoder`` (SDK stream objects or chunk
        dicts). A decoding failure, or the stream's own, ends the run with ``RUN_ERROR``."""
        self.begin_turn()
        decoder.known_call_ids = decoder.known_call_ids | self._taken_calls
        try:
            for event in decoder.events(chunks):
                yield from self.feed(event)
        except DECODING_FAILURES as exc:
            f = classify(exc)
            yield from self.error(f.message, f.code)
            return
        except ToolwireError:
            raise
        except Exception as exc:
            f = classify(exc)
            yield from self.error(f.message, f.code, metadata=metadata_of(f))
            return
        yield from self.end_turn(
            usage=decoder.usage or (),
            metadata=dict(decoder.run_metadata),
            outcome=turn_outcome(decoder),
        )

    # -- results ---------------------------------------------------------------------------

    def result(
        self,
        tool_call_id: str,
        content: str | list[ContentPart],
        error: str | None = None,
        *,
        message_id: str | None = None,
    ) -> list[BaseEvent]:
        """``TOOL_CALL_RESULT`` answering ``tool_call_id`` (its own ``messageId``: given, or
        the one recipe toolwire uses for a result the vendor names none of); ``error``
        travels as the result's error (``toolwire.error``, ``ToolMessage.error``)."""
        self._check_open()
        if self._in_turn:
            raise ToolwireError("RunComposer: a turn is open; end it before adding results")
        mid = message_id or result_message_id(tool_call_id)
        if mid in self._taken_messages:
            mid = mint_id("result", self.run_id, self.steps, tool_call_id)
        kw: dict[str, Any] = {"metadata": {RESULT_ERROR_KEY: error}} if error is not None else {}
        event = ToolCallResultEvent(
            message_id=mid, tool_call_id=tool_call_id, content=content, role="tool", **kw
        )
        out = self.machine.feed(event)
        self._taken_messages.add(mid)
        return out

    # -- the end ---------------------------------------------------------------------------

    def finish(
        self, *, outcome: Any = None, metadata: dict[str, Any] | None = None
    ) -> list[BaseEvent]:
        """The merged losses event (when a turn forwarded any), then ``RUN_FINISHED``: the
        last turn's outcome when it was not a success, else success with the calls no result
        answered as pending; usage summed; the last turn's metadata (and ``metadata``)."""
        self._check_open()
        out = self.end_turn() if self._in_turn else []
        out.extend(self._loss_event())
        outcome = outcome or self.turn_outcome
        if outcome is None:
            pending = self.machine.pending_tool_call_ids
            outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=pending or None)
        kw: dict[str, Any] = {}
        usage = self.usage
        if usage:
            kw["usage"] = usage
        meta = {**self.metadata, **(metadata or {})}
        if meta:
            kw["metadata"] = meta
        finished = RunFinishedEvent(
            thread_id=self.thread_id, run_id=self.run_id, outcome=outcome, **kw
        )
        out.extend(self.machine.feed(finished))
        self.ended = True
        return out

    def cancel(self) -> list[BaseEvent]:
        """The run was stopped: what is open is closed, ``RUN_FINISHED`` with the cancelled
        outcome."""
        self._check_open()
        out = self.machine.open_item_ends()
        self._in_turn = False
        return out + self.finish(outcome=RunFinishedCancelledOutcome())

    def error(
        self, message: str, code: str | None = None, *, metadata: dict[str, Any] | None = None
    ) -> list[BaseEvent]:
        """``RUN_ERROR`` (it closes what is open), with the usage summed so far."""
        self._check_open()
        self._in_turn = False
        out = self._loss_event()
        kw: dict[str, Any] = {}
        usage = self.usage
        if usage:
            kw["usage"] = usage
        if metadata:
            kw["metadata"] = metadata
        out.extend(self.machine.feed(RunErrorEvent(message=message, code=code, **kw)))
        self.ended = True
        return out

    # -- inside ----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if not self._started:
            raise ToolwireError("RunComposer: start() the run first")
        if self.ended:
            raise ToolwireError("RunComposer: the run has ended")

    def _end(self, usage: Iterable[TokenUsage], metadata: dict[str, Any], outcome: Any) -> None:
        self._in_turn = False
        for entry in usage:
            counts = self._usage.setdefault((entry.provider, entry.model), {})
            for key in _USAGE_COUNTS:
                value = getattr(entry, key)
                if value is not None:
                    counts[key] = (counts.get(key) or 0) + value
        if metadata:
            self.metadata = dict(metadata)
        if outcome is not None and not isinstance(outcome, RunFinishedSuccessOutcome):
            self.turn_outcome = outcome
        self._taken_messages |= self._turn_ids
        self._taken_calls |= set(self._names)

    def _renamed_ids(self, event: BaseEvent) -> BaseEvent:
        """The event with any id reused from before this turn replaced by the turn's own."""
        update: dict[str, str] = {}
        for name in _MESSAGE_FIELDS:
            value = getattr(event, name, None)
            if value is None:
                continue
            new = self._renamed.get(value)
            if new is None and value in self._taken_messages and value not in self._turn_ids:
                new = self._renamed[value] = mint_id("msg", self.run_id, self.steps, value)
            if new is not None:
                update[name] = new
            elif name != "entity_id":
                self._turn_ids.add(value)
        call = getattr(event, "tool_call_id", None)
        if call is not None:
            new = self._renamed.get(call)
            if new is None and call in self._taken_calls and call not in self._names:
                if event.type in (EventType.TOOL_CALL_START, EventType.TOOL_CALL_CHUNK):
                    new = self._renamed[call] = mint_id("call", self.run_id, self.steps, call)
            if new is not None:
                update["tool_call_id"] = new
        return event.model_copy(update=update) if update else event

    def _note_call(self, event: BaseEvent) -> None:
        """Keep the turn's calls (name and argument text) for :attr:`turn_calls`."""
        kind = event.type
        if kind == EventType.TOOL_CALL_START:
            cid = event.tool_call_id  # type: ignore[attr-defined]
            self._names[cid] = event.tool_call_name  # type: ignore[attr-defined]
            self._args[cid] = []
        elif kind == EventType.TOOL_CALL_ARGS:
            pieces = self._args.get(event.tool_call_id)  # type: ignore[attr-defined]
            if pieces is not None:
                pieces.append(event.delta)  # type: ignore[attr-defined]
        elif kind == EventType.TOOL_CALL_END:
            cid = event.tool_call_id  # type: ignore[attr-defined]
            if cid in self._names:
                args = "".join(self._args.pop(cid, ()))
                self.turn_calls.append(TurnCall(cid, self._names[cid], args))
        elif kind == EventType.TOOL_CALL_RESULT:
            self._turn_ids.add(event.message_id)  # type: ignore[attr-defined]

    def _keep_losses(self, value: Any) -> None:
        if not isinstance(value, list):
            return
        for record in value:
            if isinstance(record, dict):
                key = compact(record)
                if key not in self._loss_keys:
                    self._loss_keys.add(key)
                    self.loss_records.append(record)

    def _loss_event(self) -> list[BaseEvent]:
        if not self.loss_records:
            return []
        return self.machine.feed(CustomEvent(name=LOSSES_EVENT, value=list(self.loss_records)))


__all__ = ["LOSSES_EVENT", "RunComposer", "TurnCall"]
