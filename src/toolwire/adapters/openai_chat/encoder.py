"""AG-UI events -> ``chat.completion.chunk`` dicts (frame them with ``to_sse``).

One run is one completion. Each assistant message becomes a choice, numbered
in the order messages first appear; the completion id is the first message's
id, so a stream this adapter decoded encodes back to the same ids. Calls get
``tool_calls[].index`` in start order within their choice; a choice ends with
``finish_reason`` ``"tool_calls"`` (when it made calls) or ``"stop"`` at
``RUN_FINISHED`` or ``close()``, followed by a usage chunk when the run
reported usage. What a completion stream cannot carry (tool results,
reasoning, non-assistant messages) is recorded as a loss (``feed``/``close`` warn).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunErrorEvent,
    RunFinishedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)

from toolwire.losses import Loss
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import OutputStreamEncoder
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import StreamMachine

from .wire import (
    CALL_ID_RULE,
    CHOICE_KEY,
    COMPLETION_ID_KEY,
    REFUSAL_KEY,
    STOP_REASONS_KEY,
    TOOL_TYPE_KEY,
    VENDOR,
    stop_reason_for,
    usage_fields,
)


@dataclass
class _Choice:
    index: int
    calls: int = 0
    announced: bool = False
    #: call ids are unique per choice (choices of ``n > 1`` may share the vendor's)
    ids: IdMapper = field(default_factory=lambda: IdMapper(CALL_ID_RULE))


@dataclass
class _Slot:
    choice: _Choice
    index: int
    custom: bool


class Encoder(OutputStreamEncoder):
    """Sans-I/O encoder: ``feed(event)`` and ``close()`` return chunk dicts.

    Events may be ``ag_ui.core`` models or their JSON dicts, in chunked or
    explicit form; a :class:`~toolwire.protocol.StreamMachine` expands and
    checks them first. A bare turn (no ``RUN_STARTED``) is taken as one run.
    ``losses`` lists what could not be carried.
    """

    vendor = VENDOR
    stream_name = "a completion stream"

    def __init__(self, *, model: str = "toolwire", created: int = 0) -> None:
        super().__init__()
        #: ``EventType`` -> this class's ``_on_<type>`` method (a subclass's own included)
        self._handlers = handlers_by_type(type(self))
        self.model = model
        self.created = created
        self._machine = StreamMachine(run_open="auto", history=False)  # a bare turn or a framed run
        self._reasoning_lost: set[str] = set()
        self._reset()

    def _reset(self) -> None:
        self._completion_id: str | None = None
        self._choices: dict[str, _Choice] = {}
        self._slots: dict[str, _Slot] = {}
        self._last_message: str | None = None

    # ----------------------------------------------------------------- API

    def _feed(self, event: BaseEvent | dict[str, Any]) -> list[dict[str, Any]]:
        expanded = self._machine.feed(event)
        if len(expanded) == 1:  # most events stand for themselves
            return self._on(expanded[0])
        out: list[dict[str, Any]] = []
        for ev in expanded:
            out.extend(self._on(ev))
        return out

    def _close(self) -> list[dict[str, Any]]:
        """End of the events: finish every choice still open (a framed run cut before its
        terminal event raises ``ProtocolViolation("truncated")``, never ``[DONE]``)."""
        out = [c for ev in self._machine.end_input() for c in self._on(ev)]
        return out + self._finish(None)

    # ------------------------------------------------------------ dispatch

    def _on_reasoning_start(self, ev: BaseEvent) -> list[dict[str, Any]]:
        item = str(getattr(ev, "message_id", None) or getattr(ev, "entity_id", ""))
        if item not in self._reasoning_lost:  # one loss per reasoning item
            self._reasoning_lost.add(item)
            self._lose("reasoning-dropped", "Chat Completions streams no reasoning")
        return []

    # every reasoning event: the same one loss per item
    _on_reasoning_message_start = _on_reasoning_start
    _on_reasoning_message_content = _on_reasoning_start
    _on_reasoning_message_end = _on_reasoning_start
    _on_reasoning_message_chunk = _on_reasoning_start
    _on_reasoning_encrypted_value = _on_reasoning_start
    _on_reasoning_end = _on_reasoning_start

    def _on_text_message_start(self, ev: TextMessageStartEvent) -> list[dict[str, Any]]:
        if ev.role not in (None, "assistant"):
            self._lose("message-dropped", f"a {ev.role} text message is not model output")
            return []
        return self._announce(self._choice(ev.message_id, ev.metadata))

    def _on_text_message_content(self, ev: TextMessageContentEvent) -> list[dict[str, Any]]:
        choice = self._choices.get(ev.message_id)
        if choice is None or not ev.delta:
            return []
        refusal = bool(ev.metadata and ev.metadata.get(REFUSAL_KEY))
        return [self._chunk(choice, {"refusal" if refusal else "content": ev.delta})]

    def _on_tool_call_args(self, ev: ToolCallArgsEvent) -> list[dict[str, Any]]:
        slot = self._slots.get(ev.tool_call_id)
        if slot is None or not ev.delta:
            return []
        field = "input" if slot.custom else "arguments"
        frag = {
            "index": slot.index,
            ("custom" if slot.custom else "function"): {field: ev.delta},
        }
        return [self._chunk(slot.choice, {"tool_calls": [frag]})]

    def _on_run_finished(self, ev: RunFinishedEvent) -> list[dict[str, Any]]:
        return self._finish(ev)

    def _on_run_error(self, ev: RunErrorEvent) -> list[dict[str, Any]]:
        self._reset()
        error = {"message": ev.message, "type": ev.code or "server_error"}
        return [{"error": error}]

    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> list[dict[str, Any]]:
        if ev.tool_call_id in self._slots:  # a reopened call continues at its index
            return []
        parent = ev.parent_message_id or self._last_message or mint_id("msg", ev.tool_call_id)
        choice = self._choice(parent, ev.metadata)
        custom = bool(ev.metadata and ev.metadata.get(TOOL_TYPE_KEY) == "custom")
        slot = _Slot(choice, choice.calls, custom)
        choice.calls += 1
        self._slots[ev.tool_call_id] = slot
        frag: dict[str, Any] = {"index": slot.index, "id": choice.ids(ev.tool_call_id, ev.metadata)}
        self.losses += choice.ids.take_losses()
        if custom:
            frag.update(type="custom", custom={"name": ev.tool_call_name, "input": ""})
        else:
            frag.update(type="function", function={"name": ev.tool_call_name, "arguments": ""})
        return [*self._announce(choice), self._chunk(choice, {"tool_calls": [frag]})]

    # ------------------------------------------------------------- helpers

    def _choice(self, message_id: str, metadata: Any = None) -> _Choice:
        """The choice of an assistant message, numbered in the order messages appear;
        a decoded choice *i* > 0 says its index and the completion id in its metadata
        (it may speak before choice 0 does)."""
        self._last_message = message_id
        choice = self._choices.get(message_id)
        if choice is not None:
            return choice
        meta = metadata if isinstance(metadata, dict) else {}
        stated, completion = meta.get(CHOICE_KEY), meta.get(COMPLETION_ID_KEY)
        taken = {c.index for c in self._choices.values()}
        if (
            type(stated) is int
            and stated > 0
            and stated not in taken
            and isinstance(completion, str)
            and self._completion_id in (None, completion)
        ):
            self._completion_id = completion
            index = stated
        elif self._completion_id is None or message_id == self._completion_id:
            self._completion_id = message_id
            index = 0 if 0 not in taken else max(taken) + 1
        else:
            index = next(i for i in range(len(taken) + 1) if i not in taken)
        choice = _Choice(index)
        self._choices[message_id] = choice
        return choice

    def _announce(self, choice: _Choice) -> list[dict[str, Any]]:
        """The role delta the API sends first on every choice."""
        if choice.announced:
            return []
        choice.announced = True
        return [self._chunk(choice, {"role": "assistant", "content": ""})]

    def _chunk(
        self, choice: _Choice | None, delta: dict[str, Any], finish: str | None = None
    ) -> dict[str, Any]:
        choices = []
        if choice is not None:
            choices.append(
                {"index": choice.index, "delta": delta, "logprobs": None, "finish_reason": finish}
            )
        return {
            "id": self._completion_id or mint_id("chatcmpl", VENDOR, self.model),
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
        }

    def _finish(self, ev: RunFinishedEvent | None) -> list[dict[str, Any]]:
        stated = _stated_finish_reasons(ev, len(self._choices))
        out = [
            self._chunk(c, {}, stated.get(c.index) or ("tool_calls" if c.calls else "stop"))
            for c in self._choices.values()
        ]
        if ev is not None and not self._choices:
            # a finished run that said nothing the stream carries: still one choice that
            # finishes, or [DONE] alone would read back as a truncated stream
            empty = _Choice(0)
            out = [
                self._chunk(empty, {"role": "assistant", "content": ""}),
                self._chunk(empty, {}, stated.get(0) or "stop"),
            ]
        usage = usage_fields(list(ev.usage or [])) if ev is not None else None
        if usage is not None:
            chunk = self._chunk(None, {})
            chunk["usage"] = usage
            out.append(chunk)
        elif ev is not None and ev.usage:
            self._lose("usage-dropped", "usage without input and output totals cannot be sent")
        self._reset()
        return out

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))


def _stated_finish_reasons(ev: RunFinishedEvent | None, choices: int) -> dict[int, str]:
    """The finish reasons a run states (``RUN_FINISHED.metadata``, one per choice, as the
    decoder puts them there), by choice index; empty when it states none or not one each.

    A legacy ``function_call`` finish becomes ``tool_calls``: the call goes out as a
    ``tool_calls`` entry.
    """
    meta = ev.metadata if ev is not None and isinstance(ev.metadata, dict) else {}
    reasons = meta.get(STOP_REASONS_KEY)
    if reasons is None:  # another vendor's run: its normalized reason, for every choice
        written = stop_reason_for(stated_finish_reason(meta))
        return {i: written for i in range(choices)} if written else {}
    if not isinstance(reasons, list) or len(reasons) != choices:
        return {}
    return {
        i: ("tool_calls" if r == "function_call" else r)
        for i, r in enumerate(reasons)
        if isinstance(r, str) and r
    }


__all__ = ["Encoder"]
