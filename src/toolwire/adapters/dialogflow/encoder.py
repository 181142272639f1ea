"""AG-UI events -> Dialogflow ``ToolCallInfo`` dicts (:class:`Encoder`).

ToolCallInfo pairs one call with its result, so a call is emitted when its result
arrives, and the calls still open when the run ends after it. One call and one
result are mapped by :mod:`.parts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.capabilities import accepts as capability
from toolwire.losses import Loss, snapshot_dropped
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import BaseEncoder
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.fitting import Accepts
from toolwire.protocol.machine import RESULT_ERROR_KEY, StreamMachine

from .parts import TARGET, encode_call, encode_result
from .wire import (
    CONFIRMATION_REASON,
    CONFIRMATION_SCHEMA,
    META_KEY,
    NEEDS_CONFIRMATION,
    TEXT_UPDATE_ACTIVITY,
    VENDOR,
)


@dataclass
class _Out:
    call_id: str
    name: str | None = None
    arguments: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    state: str | None = None
    emitted: bool = False


class Encoder(BaseEncoder):
    """AG-UI events -> ``ToolCallInfo`` JSON dicts (``{toolCall, toolCallResult}``).

    Stable surface (used by cross-peer tests): ``Encoder(accepts=None, losses=None)``,
    ``feed(event) -> list[dict]``, ``close() -> list[dict]``, ``losses``.

    A call is emitted with its result when ``TOOL_CALL_RESULT`` arrives (results
    are fitted to Dialogflow's capabilities first); calls still unanswered when
    the run ends are emitted as ``{toolCall}`` alone, in call order, with
    ``state: NEEDS_CONFIRMATION`` when the run's interrupt outcome names them.
    What ToolCallInfo cannot hold (text and reasoning messages, arguments that
    are not a JSON object, parts beyond one string or one blob, foreign
    metadata, interrupt fields beyond the state, the run's usage, metadata and
    failure) is recorded in ``losses`` and warned about once (by ``feed``/``close``).
    Events may be models or dicts, a whole run or just a turn (``run_open="auto"``:
    the first event says which; a bare turn's chunk streams are closed at ``close``).
    """

    vendor = VENDOR

    def __init__(self, *, accepts: Accepts | None = None, losses: list[Loss] | None = None) -> None:
        super().__init__()
        self.accepts = accepts or capability(TARGET)
        if losses is not None:
            self.losses = losses  # the caller's list is filled in place, as before
        self._machine = StreamMachine(run_open="auto", history=False)  # a bare turn or a framed run
        self._calls: dict[str, _Out] = {}
        self._text: dict[str, bool] = {}
        self._reasoning: set[str] = set()
        #: ``EventType`` -> this class's ``_on_<type>`` method (a subclass's own included)
        self._handlers = handlers_by_type(type(self))

    def _feed(self, event: Any) -> list[dict[str, Any]]:
        """One AG-UI event (model or dict) -> the ToolCallInfo dicts it completes."""
        out: list[dict[str, Any]] = []
        for ev in self._machine.feed(event):
            out.extend(self._on(ev))
        return out

    def _close(self) -> list[dict[str, Any]]:
        """End of stream: every call not yet emitted, as ``{toolCall}`` alone.

        A framed run cut before its terminal event raises; a bare turn's chunk streams
        are closed first (their synthesized ends count, e.g. a chunked text's loss).
        """
        out: list[dict[str, Any]] = []
        for ev in self._machine.end_input():
            out.extend(self._on(ev))
        out.extend(self._flush())
        return out

    def _on(self, ev: BaseEvent) -> list[dict[str, Any]]:
        handler = self._handlers.get(ev.type)
        if handler is None:
            return []
        result: list[dict[str, Any]] = handler(self, ev)
        return result

    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> list[dict[str, Any]]:
        call = self._calls.setdefault(ev.tool_call_id, _Out(ev.tool_call_id))
        call.name = ev.tool_call_name
        self._merge(call, ev)
        return []

    def _on_tool_call_args(self, ev: ToolCallArgsEvent) -> list[dict[str, Any]]:
        call = self._calls[ev.tool_call_id]
        call.arguments.append(ev.delta)
        self._merge(call, ev)
        return []

    def _on_tool_call_end(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self._merge(self._calls[getattr(ev, "tool_call_id", "")], ev)
        return []

    def _on_tool_call_result(self, ev: ToolCallResultEvent) -> list[dict[str, Any]]:
        return [self._result(ev)]

    def _on_text_message_content(self, ev: BaseEvent) -> list[dict[str, Any]]:
        mid = getattr(ev, "message_id", "")
        self._text[mid] = self._text.get(mid, False) or bool(getattr(ev, "delta", ""))
        return []

    def _on_text_message_end(self, ev: BaseEvent) -> list[dict[str, Any]]:
        mid = getattr(ev, "message_id", "")
        if self._text.pop(mid, False):
            self._lose(
                "text-message-dropped",
                f"assistant text message {mid!r}: ToolCallInfo carries tool calls and results only",
                None,
            )
        return []

    def _on_reasoning_message_start(self, ev: BaseEvent) -> list[dict[str, Any]]:
        key = str(getattr(ev, "message_id", None) or getattr(ev, "entity_id", ""))
        if key not in self._reasoning:
            self._reasoning.add(key)
            self._lose(
                "reasoning-dropped",
                f"reasoning {key!r}: ToolCallInfo has no reasoning or signature field",
                None,
            )
        return []

    #: an encrypted value names its entity: the same loss, once per reasoning or call
    _on_reasoning_encrypted_value = _on_reasoning_message_start

    def _on_messages_snapshot(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self.losses.append(snapshot_dropped(TARGET, "ToolCallInfo"))
        return []

    def _on_activity_snapshot(self, ev: BaseEvent) -> list[dict[str, Any]]:
        if getattr(ev, "activity_type", None) == TEXT_UPDATE_ACTIVITY:
            self._lose(
                "text-update-dropped",
                "a Dialogflow textUpdate travels on ToolCallSuggestion, not ToolCallInfo",
                None,
            )
        return []

    def _on_run_finished(self, ev: BaseEvent) -> list[dict[str, Any]]:
        outcome = getattr(ev, "outcome", None)
        for intr in getattr(outcome, "interrupts", None) or []:
            self._interrupt(intr)
        if getattr(outcome, "type", None) == "cancelled":
            self._lose(
                "outcome-cancelled-dropped",
                "the run was cancelled; ToolCallInfo has no field for a cancelled run",
                None,
            )
        self._run_end(ev)
        return self._flush()

    def _on_run_error(self, ev: BaseEvent) -> list[dict[str, Any]]:
        self._lose(
            "run-error-dropped",
            f"the run failed ({getattr(ev, 'code', None) or 'no code'}: "
            f"{getattr(ev, 'message', '')}); ToolCallInfo has no field for a failed run",
            None,
        )
        self._run_end(ev)
        return self._flush()

    def _run_end(self, ev: BaseEvent) -> None:
        """Usage and vendor facts of the run: ToolCallInfo has no field for either."""
        if getattr(ev, "usage", None):
            self._lose("usage-dropped", "ToolCallInfo has no field for token usage", None)
        # toolwire.finishReason: the calls' states say how the turn ended (no field needed)
        dropped = [k for k in ev.metadata or {} if k != FINISH_REASON_KEY]
        if dropped:
            keys = ", ".join(map(repr, dropped))
            self._lose(
                "metadata-dropped", f"run metadata keys {keys} have no Dialogflow field", None
            )

    def _merge(self, call: _Out, ev: BaseEvent) -> None:
        if ev.metadata:
            call.metadata.update(ev.metadata)

    def _lose(self, kind: str, reason: str, call_id: str | None) -> None:
        self.losses.append(Loss(kind=kind, target=TARGET, reason=reason, tool_call_id=call_id))

    def _interrupt(self, intr: Interrupt) -> None:
        cid = intr.tool_call_id
        if cid is None or cid not in self._calls:
            self._lose(
                "interrupt-dropped",
                f"interrupt {intr.id!r} concerns no tool call of "
                "this stream; Dialogflow asks only about tool calls",
                cid,
            )
            return
        call = self._calls[cid]
        call.state = NEEDS_CONFIRMATION
        df = call.metadata.get(META_KEY)
        if intr.message is not None and not (isinstance(df, dict) and "toolDisplayDetails" in df):
            # what the decoder reads back as the interrupt's message (a new dict: the event's
            # metadata is not ours to change)
            df = {**(df if isinstance(df, dict) else {}), "toolDisplayDetails": intr.message}
            call.metadata = {**call.metadata, META_KEY: df}
        lost = []
        if intr.id != cid:  # decoding names the interrupt after its call
            lost.append("id")
        if intr.reason != CONFIRMATION_REASON:
            lost.append("reason")
        for name in ("message", "expires_at", "subagent_run_id"):
            if getattr(intr, name) is not None and not (
                name == "message"
                and isinstance(df, dict)
                and intr.message == df.get("toolDisplayDetails")
            ):
                lost.append(name)
        if intr.response_schema is not None and intr.response_schema != CONFIRMATION_SCHEMA:
            lost.append("responseSchema")
        if intr.metadata and any(k != META_KEY for k in intr.metadata):
            lost.append("metadata")
        if lost:
            self._lose(
                "interrupt-reshaped",
                f"interrupt {intr.id!r} becomes state "
                f"NEEDS_CONFIRMATION; its {', '.join(lost)} has no Dialogflow field",
                cid,
            )

    def _call_json(self, call: _Out) -> dict[str, Any]:
        return encode_call(
            call.call_id,
            call.name or "",
            "".join(call.arguments),
            call.metadata,
            state=call.state,
            losses=self.losses,
        )

    def _result(self, ev: ToolCallResultEvent) -> dict[str, Any]:
        meta = ev.metadata or {}
        error = meta.get(RESULT_ERROR_KEY)
        call = self._calls.get(ev.tool_call_id)
        info: dict[str, Any] = {}
        if call is not None and not (
            isinstance(call.metadata.get(META_KEY), dict)
            and call.metadata[META_KEY].get("synthesized")
        ):
            info["toolCall"] = self._call_json(call)
        if call is not None:
            call.emitted = True
        info["toolCallResult"] = encode_result(
            ev.content,
            error if isinstance(error, str) else None,
            meta,
            call_id=ev.tool_call_id,
            call_name=call.name if call is not None else None,
            accepts=self.accepts,
            losses=self.losses,
        )
        return info

    def _flush(self) -> list[dict[str, Any]]:
        out = []
        for call in self._calls.values():
            if not call.emitted:
                call.emitted = True
                out.append({"toolCall": self._call_json(call)})
        return out


__all__ = ["Encoder"]
