"""AG-UI events -> Ollama ``/api/chat`` lines (frame them with ``FRAMING.write``).

Text and thinking go out as they come, one line per delta. A tool call goes out whole on
one line at its ``TOOL_CALL_END`` (Ollama never streams a call's arguments), its argument
text parsed into the object the wire holds: text that is not a JSON object is sent as
``{}`` and reported. ``RUN_FINISHED`` (or ``close()`` of a bare turn) writes the last
line, ``done: true`` with ``done_reason`` and the counts; ``RUN_ERROR`` an ``error``
line. What a chat stream cannot carry (tool results, non-assistant messages, snapshots)
is a loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    ReasoningMessageContentEvent,
    RunErrorEvent,
    RunFinishedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.losses import Loss
from toolwire.protocol._compact_json import compact, quote
from toolwire.protocol._written import HOLE, Cut, Written
from toolwire.protocol.arguments import (
    REPEATED_KEYS,
    arguments_object,
    repeated_keys_reason,
    written_as_is,
)
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import CheckedEncoder, OutputStreamEncoder
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.machine import StreamMachine

from .wire import (
    CALL_ID_RULE,
    INDEX_KEY,
    STOP_REASON_KEY,
    VENDOR,
    stop_reason_for,
    usage_fields,
)


@dataclass
class _Call:
    id: str
    name: str
    index: int
    metadata: dict[str, Any]
    args: list[str] = field(default_factory=list)


class Encoder(CheckedEncoder, OutputStreamEncoder):
    """Sans-I/O encoder: ``feed(event)`` and ``close()`` return ``ChatResponse`` dicts."""

    vendor = VENDOR
    stream_name = "a chat stream"
    #: a whole call's line handed as its text (``Written``): set on the bytes path only
    writes_text = False

    def __init__(
        self, *, model: str = "toolwire", created_at: str = "1970-01-01T00:00:00Z"
    ) -> None:
        super().__init__()
        self._handlers = handlers_by_type(type(self))
        self.model = model
        self.created_at = created_at
        self._machine = StreamMachine(run_open="auto", history=False)
        self._lost_kinds: set[str] = set()
        #: the text around a call line's id, index, name and arguments, for its constants
        self._call_cut = Cut(_call_sample, 4)
        self._reset()

    def _reset(self) -> None:
        self._messages: set[str] = set()
        self._calls: dict[str, _Call] = {}
        self._ordinal = 0
        self._ids = IdMapper(CALL_ID_RULE)
        self._open = False

    # ----------------------------------------------------------------- API

    def _close(self) -> list[dict[str, Any]]:
        out = [c for ev in self._machine.end_input() for c in self._on(ev)]
        if self._open:
            out.append(self._last(None))
        return out

    # ------------------------------------------------------------ dispatch

    def _on_run_started(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self._open = True
        return []

    def _on_text_message_start(self, ev: TextMessageStartEvent) -> list[dict[str, Any]]:
        self._open = True
        if ev.role not in (None, "assistant"):
            self._lose("message-dropped", f"a {ev.role} text message is not model output")
            return []
        self._messages.add(ev.message_id)
        return []

    def _on_text_message_content(self, ev: TextMessageContentEvent) -> list[dict[str, Any]]:
        if ev.message_id not in self._messages or not ev.delta:
            return []
        return [self._line({"role": "assistant", "content": ev.delta})]

    def _on_reasoning_message_content(
        self, ev: ReasoningMessageContentEvent
    ) -> list[dict[str, Any]]:
        self._open = True
        if not ev.delta:
            return []
        return [self._line({"role": "assistant", "content": "", "thinking": ev.delta})]

    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> list[dict[str, Any]]:
        self._open = True
        if ev.tool_call_id not in self._calls:
            meta = ev.metadata if isinstance(ev.metadata, dict) else {}
            self._calls[ev.tool_call_id] = _Call(
                ev.tool_call_id, ev.tool_call_name, self._ordinal, meta
            )
            self._ordinal += 1
        return []

    def _on_tool_call_args(self, ev: ToolCallArgsEvent) -> list[dict[str, Any]]:
        call = self._calls.get(ev.tool_call_id)
        if call is not None and ev.delta:
            call.args.append(ev.delta)
        return []

    def _on_tool_call_end(self, ev: ToolCallEndEvent) -> list[dict[str, Any]]:
        call = self._calls.pop(ev.tool_call_id, None)
        if call is None:
            return []
        return [self._call_line(call.id, call.name, call.index, call.metadata, "".join(call.args))]

    def _whole_call(
        self, start: ToolCallStartEvent, args: ToolCallArgsEvent, end: ToolCallEndEvent
    ) -> list[dict[str, Any]] | None:
        """The three handlers' work for a call fed whole, without its ``_Call``."""
        call_id = start.tool_call_id
        if call_id in self._calls:
            return None
        self._open = True
        meta = start.metadata if isinstance(start.metadata, dict) else {}
        ordinal = self._ordinal
        self._ordinal = ordinal + 1
        return [self._call_line(call_id, start.tool_call_name, ordinal, meta, args.delta)]

    def _call_line(
        self, call_id: str, name: str, ordinal: int, metadata: dict[str, Any], text: str
    ) -> dict[str, Any]:
        """The line carrying one whole call, its argument text parsed into an object (on
        the bytes path, a text that is what writing its object gives goes as it is)."""
        kept = self.writes_text and written_as_is(text)
        args: dict[str, Any] | None
        if kept:
            args = None  # (read only if the writer asks for the line's dict)
        else:
            args, keys = arguments_object(text)
            if keys:
                self._lose(REPEATED_KEYS, repeated_keys_reason(keys, "function.arguments"), call_id)
            if args is None:
                self._lose(
                    "arguments-not-object",
                    "Ollama carries arguments as a JSON object; this text is not one, so the "
                    "call is sent with {}",
                    call_id,
                )
                args = {}
        index = metadata.get(INDEX_KEY)
        if type(index) is not int:
            index = ordinal
        ids = self._ids
        fid = ids(call_id, metadata)
        if ids.losses:
            self.losses += ids.take_losses()
        if self.writes_text:
            written = self._written_line(fid, index, name, args, text)
            if written is not None:
                return written  # type: ignore[return-value]  # (the bytes path only)
        if args is None:
            args = arguments_object(text)[0]
        return _call_chunk(self.model, self.created_at, fid, index, name, args)

    def _written_line(
        self, fid: str, index: int, name: str, args: dict[str, Any] | None, text: str
    ) -> Written | None:
        """A call's line as its text, cut from the text of a sample of the dict form;
        ``None`` where it cannot be. The arguments are ``args``, or ``text`` when ``args``
        is ``None`` (it is then what writing them gives)."""
        key = (self.model, self.created_at)
        cut = self._call_cut
        pieces = cut.pieces if cut.constants == key else cut.cut(key)
        if pieces is None or type(fid) is not str or type(name) is not str:
            return None
        head, a, b, c, end = pieces
        written = text if args is None else compact(args)
        line = f"{head}{quote(fid)}{a}{index!r}{b}{quote(name)}{c}{written}{end}"
        return Written(line, _made_call, (*key, fid, index, name, args, text))

    def _on_run_finished(self, ev: RunFinishedEvent) -> list[dict[str, Any]]:
        return [self._last(ev)]

    def _on_run_error(self, ev: RunErrorEvent) -> list[dict[str, Any]]:
        self._reset()
        if ev.code and ev.code != "error":  # a message alone: a reader sees the type "error"
            self.losses.append(
                Loss(
                    kind="error-code-dropped",
                    target=VENDOR,
                    reason=f"an Ollama error line carries a message only; the code {ev.code!r} "
                    "is not sent",
                )
            )
        return [{"error": ev.message}]

    # ------------------------------------------------------------- helpers

    def _line(self, message: dict[str, Any]) -> dict[str, Any]:
        return _line_of(self.model, self.created_at, message)

    def _last(self, ev: RunFinishedEvent | None) -> dict[str, Any]:
        meta = ev.metadata if ev is not None and isinstance(ev.metadata, dict) else {}
        stated = meta.get(STOP_REASON_KEY)
        reason = (
            stated
            if isinstance(stated, str) and stated
            else stop_reason_for(stated_finish_reason(meta))
        )
        out = self._line({"role": "assistant", "content": ""})
        out["done"] = True
        out["done_reason"] = reason
        if ev is not None and ev.usage:
            out.update(usage_fields(list(ev.usage)))
        self._reset()
        return out

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))


def _line_of(model: Any, created_at: Any, message: dict[str, Any]) -> dict[str, Any]:
    """A line of the stream (not the last) carrying ``message``."""
    return {"model": model, "created_at": created_at, "message": message, "done": False}


def _call_chunk(
    model: Any, created_at: Any, fid: Any, index: Any, name: Any, args: Any
) -> dict[str, Any]:
    """The line of one call, as the dict path makes it."""
    fn = {"index": index, "name": name, "arguments": args}
    return _line_of(
        model,
        created_at,
        {"role": "assistant", "content": "", "tool_calls": [{"id": fid, "function": fn}]},
    )


def _call_sample(model: Any, created_at: Any) -> dict[str, Any]:
    return _call_chunk(model, created_at, HOLE, HOLE, HOLE, HOLE)


def _made_call(
    model: Any,
    created_at: Any,
    fid: str,
    index: int,
    name: str,
    args: dict[str, Any] | None,
    text: str,
) -> dict[str, Any]:
    """A ``Written`` call line's dict: its arguments ``args``, or read from ``text``."""
    value = arguments_object(text)[0] if args is None else args
    return _call_chunk(model, created_at, fid, index, name, value)


__all__ = ["Encoder"]
