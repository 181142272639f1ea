"""AG-UI events -> Mistral ``CompletionChunk`` dicts (frame them with ``to_sse``).

One run is one completion: each assistant message a choice, numbered in the order
messages appear; the completion id is the first message's id. Text goes out as
``content`` strings, reasoning as ``thinking`` chunks, and each tool call whole in one
delta at its ``TOOL_CALL_END`` (as Mistral sends them), its id mapped to the nine letters
and digits Mistral takes and its argument text unchanged. A choice ends with
``finish_reason`` ``tool_calls`` or ``stop`` (or the run's stated reason), the last chunk
carrying the usage. What a completion stream cannot carry is a loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    BaseEvent,
    ReasoningEncryptedValueEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.losses import Loss
from toolwire.protocol._compact_json import quote
from toolwire.protocol._written import HOLE, Cut, Written
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import CheckedEncoder, OutputStreamEncoder
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.signatures import usable_encrypted

from .wire import (
    CALL_ID_RULE,
    CHOICE_KEY,
    PROVIDER,
    STOP_REASONS_KEY,
    VENDOR,
    stop_reason_for,
    usage_fields,
)


@dataclass
class _Choice:
    index: int
    announced: bool = False
    calls: int = 0


#: an open call: its message's id (its choice's key), its id, name, index in the choice,
#: metadata and argument text (a plain tuple; most calls have one text, a call given more
#: has the list of them)
_Call = tuple[str, str, str, int, dict[str, Any], str | list[str]]


#: the metadata of a call that has none (read, never changed)
_NO_METADATA: dict[str, Any] = {}


class Encoder(CheckedEncoder, OutputStreamEncoder):
    """Sans-I/O encoder: ``feed(event)`` and ``close()`` return ``CompletionChunk`` dicts."""

    vendor = VENDOR
    stream_name = "a completion stream"

    #: a call's chunk handed as its text (``Written``): set on the bytes path only
    writes_text = False

    def __init__(self, *, model: str = "toolwire", created: int = 0) -> None:
        super().__init__()
        self._handlers = handlers_by_type(type(self))
        self.model = model
        self.created = created
        self._machine = StreamMachine(run_open="auto", history=False)
        #: the text around a call chunk's choice index, id, name, arguments and call index
        self._call_cut = Cut(_call_sample, 5)
        self._reset()

    def _reset(self) -> None:
        self._completion_id: str | None = None
        self._choices: dict[str, _Choice] = {}
        self._calls: dict[str, _Call] = {}
        self._reasoning: dict[str, str] = {}  # reasoning message id -> its choice's message
        self._last_message: str | None = None
        self._ids = IdMapper(CALL_ID_RULE)
        self._open = False

    def _close(self) -> list[dict[str, Any]]:
        out = [c for ev in self._machine.end_input() for c in self._on(ev)]
        if self._open:
            out += self._finish(None)
        return out

    def _on_reasoning_encrypted_value(
        self, ev: ReasoningEncryptedValueEvent
    ) -> list[dict[str, Any]]:
        """A thinking signature Mistral issued goes back on a thinking chunk; another
        provider's is a loss (only its issuer reads it)."""
        parent = self._reasoning.get(ev.entity_id) or self._last_message
        meta = ev.metadata if isinstance(ev.metadata, dict) else None
        kept = usable_encrypted(
            ev.encrypted_value,
            meta,
            PROVIDER,
            target=VENDOR,
            entity="a reasoning item",
            losses=self.losses,
        )
        if not kept or parent is None or parent not in self._choices:
            if kept:
                self._lose("encrypted-value-dropped", "no message to carry the signature")
            return []
        think = {"type": "thinking", "thinking": [], "signature": kept}
        return [self._chunk(self._choices[parent], {"content": [think]})]

    def _on_run_started(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self._open = True
        return []

    def _on_text_message_start(self, ev: TextMessageStartEvent) -> list[dict[str, Any]]:
        self._open = True
        if ev.role not in (None, "assistant"):
            self._lose("message-dropped", f"a {ev.role} text message is not model output")
            return []
        return self._announce(self._choice(ev.message_id, ev.metadata))

    def _on_text_message_content(self, ev: TextMessageContentEvent) -> list[dict[str, Any]]:
        choice = self._choices.get(ev.message_id)
        if choice is None or not ev.delta:
            return []
        return [self._chunk(choice, {"content": ev.delta})]

    def _on_reasoning_message_start(self, ev: ReasoningMessageStartEvent) -> list[dict[str, Any]]:
        self._open = True
        parent = self._last_message or mint_id("msg", VENDOR, ev.message_id)
        self._reasoning[ev.message_id] = parent
        return self._announce(self._choice(parent))

    def _on_reasoning_message_content(
        self, ev: ReasoningMessageContentEvent
    ) -> list[dict[str, Any]]:
        parent = self._reasoning.get(ev.message_id)
        if parent is None or not ev.delta:
            return []
        thinking = [{"type": "thinking", "thinking": [{"type": "text", "text": ev.delta}]}]
        return [self._chunk(self._choices[parent], {"content": thinking})]

    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> list[dict[str, Any]]:
        self._open = True
        if ev.tool_call_id in self._calls:
            return []
        return self._opened(ev, "")

    def _opened(self, ev: ToolCallStartEvent, args: str) -> list[dict[str, Any]]:
        """A new call opened with the argument text ``args`` (its choice announced)."""
        cid = ev.tool_call_id
        parent = ev.parent_message_id or self._last_message or mint_id("msg", cid)
        meta = ev.metadata
        choice = self._choice(parent, meta)
        if type(meta) is not dict:
            meta = meta if isinstance(meta, dict) else _NO_METADATA
        index = choice.calls
        self._calls[cid] = (parent, cid, ev.tool_call_name, index, meta, args)
        choice.calls = index + 1
        return [] if choice.announced else self._announce(choice)

    def _on_tool_call_args(self, ev: ToolCallArgsEvent) -> list[dict[str, Any]]:
        call = self._calls.get(ev.tool_call_id)
        if call is not None and ev.delta:
            texts = call[5]
            if isinstance(texts, list):
                texts.append(ev.delta)
            elif texts:  # a second text: the call keeps the list of them from now
                self._calls[ev.tool_call_id] = (*call[:5], [texts, ev.delta])
            else:
                self._calls[ev.tool_call_id] = (*call[:5], ev.delta)
        return []

    def _on_tool_call_end(self, ev: ToolCallEndEvent) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._end_calls([ev], 0, out)
        return out

    def _end_calls(self, ends: list[ToolCallEndEvent], at: int, out: list[dict[str, Any]]) -> int:
        """The ends ``ends[at:]`` handled in one loop (a message's calls all end at its
        finish), stopping after one whose id mapping recorded a loss: how many it took."""
        calls = self._calls
        choices = self._choices
        chunk = self._call_chunk
        losses = self.losses
        had = len(losses)
        n = len(ends)
        i = at
        while i < n:
            call = calls.pop(ends[i].tool_call_id, None)
            i += 1
            if call is not None:
                parent, cid, name, index, meta, args = call
                text = args if type(args) is str else "".join(args)
                out.append(chunk(choices[parent], cid, name, index, meta, text))
                if len(losses) > had:
                    break
        return i - at

    #: the hook the checked loop hands a run of ends to: the handler's own loop under the
    #: hook's name (a class that turns the hook off still ends its calls by the handler)
    _calls_ended = _end_calls

    def _calls_opened(
        self, events: list[Any], at: int, stop: int, out: list[dict[str, Any]]
    ) -> int:
        """The start and arguments handlers' work for each call opened in
        ``events[at:stop]`` (start, arguments, ...) in one loop (Mistral's calls stay open
        until their message ends, so their ends come later)."""
        calls = self._calls
        losses = self.losses
        had = len(losses)
        self._open = True
        i = at
        while i < stop:
            start = events[i]
            args = events[i + 1]
            i += 2
            if start.tool_call_id in calls:  # (not a new call: its handlers say what to do)
                out += self._on_tool_call_start(start)
                out += self._on_tool_call_args(args)
            else:
                out += self._opened(start, args.delta)
            if len(losses) > had:
                break
        return i - at

    def _whole_call(
        self, start: ToolCallStartEvent, args: ToolCallArgsEvent, end: ToolCallEndEvent
    ) -> list[dict[str, Any]] | None:
        """The three handlers' work for a call fed whole, without its ``_Call``."""
        call_id = start.tool_call_id
        if call_id in self._calls:
            return None
        self._open = True
        parent = start.parent_message_id or self._last_message or mint_id("msg", call_id)
        choice = self._choice(parent, start.metadata)
        meta = start.metadata if isinstance(start.metadata, dict) else {}
        index = choice.calls
        choice.calls = index + 1
        out = self._announce(choice)
        out.append(self._call_chunk(choice, call_id, start.tool_call_name, index, meta, args.delta))
        return out

    def _call_chunk(
        self,
        choice: _Choice,
        call_id: str,
        name: str,
        index: int,
        metadata: dict[str, Any],
        text: str,
    ) -> dict[str, Any]:
        """The chunk carrying one whole call, its id mapped to one Mistral takes."""
        ids = self._ids
        sent_id = ids(call_id, metadata)
        if ids.losses:
            self.losses += ids.take_losses()
        key = (self._completion_id or mint_id("cmpl", VENDOR, self.model), self.created, self.model)
        if self.writes_text and type(name) is str and type(text) is str:
            cut = self._call_cut
            pieces = cut.pieces if cut.constants == key else cut.cut(key)
            if pieces is not None:
                a, b, c, d, e, end = pieces
                line = (
                    f"{a}{choice.index!r}{b}{quote(sent_id)}{c}{quote(name)}{d}{quote(text)}"
                    f"{e}{index!r}{end}"
                )
                args = (*key, choice.index, sent_id, name, text, index)
                return Written(line, _call_chunk, args)  # type: ignore[return-value]
        return _call_chunk(*key, choice.index, sent_id, name, text, index)

    def _on_run_finished(self, ev: RunFinishedEvent) -> list[dict[str, Any]]:
        return self._finish(ev)

    def _on_run_error(self, ev: RunErrorEvent) -> list[dict[str, Any]]:
        self._reset()
        return [{"object": "error", "message": ev.message, "type": ev.code or "server_error"}]

    # ------------------------------------------------------------- helpers

    def _choice(self, message_id: str, metadata: Any = None) -> _Choice:
        self._last_message = message_id
        choice = self._choices.get(message_id)
        if choice is not None:
            return choice
        meta = metadata if isinstance(metadata, dict) else {}
        taken = {c.index for c in self._choices.values()}
        stated = meta.get(CHOICE_KEY)
        if type(stated) is int and stated > 0 and stated not in taken:
            index = stated
        else:
            index = next(i for i in range(len(taken) + 1) if i not in taken)
        if self._completion_id is None:
            self._completion_id = message_id
        choice = _Choice(index)
        self._choices[message_id] = choice
        return choice

    def _announce(self, choice: _Choice) -> list[dict[str, Any]]:
        if choice.announced:
            return []
        choice.announced = True
        return [self._chunk(choice, {"role": "assistant", "content": ""})]

    def _chunk(
        self, choice: _Choice | None, delta: dict[str, Any], finish: str | None = None
    ) -> dict[str, Any]:
        return _envelope(
            self._completion_id or mint_id("cmpl", VENDOR, self.model),
            self.created,
            self.model,
            []
            if choice is None
            else [{"index": choice.index, "delta": delta, "finish_reason": finish}],
        )

    def _finish(self, ev: RunFinishedEvent | None) -> list[dict[str, Any]]:
        meta = ev.metadata if ev is not None and isinstance(ev.metadata, dict) else {}
        stated = meta.get(STOP_REASONS_KEY)
        normalized = stop_reason_for(stated_finish_reason(meta))
        out = []
        choices = sorted(self._choices.values(), key=lambda c: c.index)
        if not choices:  # a turn with nothing in it still ends as a completion
            choices = [self._choice(mint_id("msg", VENDOR, "empty"))]
            out += self._announce(choices[0])
        for pos, c in enumerate(choices):
            reason: str | None = None
            if isinstance(stated, list) and len(stated) == len(choices):
                reason = stated[pos] if isinstance(stated[pos], str) and stated[pos] else None
            reason = reason or normalized or ("tool_calls" if c.calls else "stop")
            out.append(self._chunk(c, {"content": ""}, reason))
        usage = info = usage_fields(list(ev.usage or [])) if ev is not None else None
        if info is not None:
            out[-1]["usage"] = usage
        elif ev is not None and ev.usage:
            self._lose("usage-dropped", "usage without input and output totals cannot be sent")
        self._reset()
        return out

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))


def _call_chunk(
    cmpl: Any, created: Any, model: Any, choice: Any, sent: Any, name: Any, text: Any, index: Any
) -> dict[str, Any]:
    """The chunk of one whole call (``Encoder._chunk``'s form), as the dict path makes it."""
    call = {
        "id": sent,
        "type": "function",
        "function": {"name": name, "arguments": text},
        "index": index,
    }
    delta = {"tool_calls": [call]}
    return _envelope(
        cmpl, created, model, [{"index": choice, "delta": delta, "finish_reason": None}]
    )


def _envelope(cmpl: Any, created: Any, model: Any, choices: list[Any]) -> dict[str, Any]:
    """A chunk of the stream around its ``choices``."""
    return {
        "id": cmpl,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": choices,
    }


def _call_sample(cmpl: Any, created: Any, model: Any) -> dict[str, Any]:
    return _call_chunk(cmpl, created, model, HOLE, HOLE, HOLE, HOLE, HOLE)


__all__ = ["Encoder"]
