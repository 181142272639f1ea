"""AG-UI events -> Anthropic Messages stream events (sans-I/O).

The inverse of the decoder: each text message, tool call and reasoning message
becomes one content block with the next ``index``; a reasoning message's
encrypted value becomes its ``signature_delta`` (or, for a redacted one, the
``redacted_thinking`` block's ``data``); a server-tool result goes back as the
vendor block it came from. Events go through the shared
:class:`~toolwire.protocol.StreamMachine` first, so chunk events are expanded
and a malformed stream is refused before anything is encoded.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningEncryptedValueEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageStartEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.adapters.anthropic.wire import (
    BLOCK_KEY,
    CALL_ID_RULE,
    CALLER_KEY,
    CITATIONS_KEY,
    SERVER_CALL_TYPES,
    SERVER_NAME_KEY,
    STOP_REASON_KEY,
    STOP_SEQUENCE_KEY,
    TOOLSET_KEY,
    TYPE_KEY,
    VENDOR,
    stop_reason_for,
    usage_fields,
)
from toolwire.losses import Loss
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import BaseEncoder
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.signatures import usable_encrypted

_SILENT = {
    EventType.STEP_STARTED,
    EventType.STEP_FINISHED,
    EventType.RAW,
    EventType.REASONING_START,
}


def _meta(ev: BaseEvent) -> dict[str, Any]:
    return ev.metadata if isinstance(ev.metadata, dict) else {}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


class Encoder(BaseEncoder):
    """Feed AG-UI events (models or JSON dicts); get Anthropic stream event dicts.

    ``model`` fills ``message_start.message.model``. Usage comes from
    ``RUN_FINISHED.usage`` (zero counts when the stream states none, since
    Anthropic's events require them). What Anthropic's stream cannot carry is
    recorded in ``losses`` and warned about (once, by ``feed``/``close``).
    """

    vendor = VENDOR

    def __init__(self, *, model: str = "unknown") -> None:
        super().__init__()
        #: ``EventType`` -> this class's ``_on_<type>`` method (a subclass's own included)
        self._handlers = handlers_by_type(type(self))
        self.model = model
        self._machine = StreamMachine(run_open="auto", history=False)  # a bare turn or a framed run
        self._framed_here = False  # inside a bare turn's implicit run
        self._lost_kinds: set[str] = set()
        self._reset()

    def _reset(self) -> None:
        self._mid: str | None = None
        self._seed: str | None = None
        self._run_id: str | None = None
        self._buffer: list[dict[str, Any]] = []
        self._started = False  # message_start has gone out
        self._active = False  # a message is being built
        self._index = 0
        self._texts: dict[str, int] = {}
        self._calls: dict[str, int] = {}
        self._call_types: dict[str, str] = {}
        self._ids = IdMapper(CALL_ID_RULE)
        self._client_calls = 0
        self._thinking: dict[str, int] = {}  # open thinking blocks (content or awaiting signature)
        self._redacted: set[str] = set()

    # ---------------------------------------------------------------- API

    def _feed(self, event: BaseEvent | dict[str, Any]) -> list[dict[str, Any]]:
        """One AG-UI event -> the Anthropic events it becomes (possibly none yet)."""
        machine = self._machine
        was_bare = machine.bare
        expanded = machine.feed(event)
        if machine.bare and not was_bare:  # the first event told: a bare turn
            self._framed_here = True
        if len(expanded) == 1:  # most events stand for themselves
            return self._event(expanded[0])
        out: list[dict[str, Any]] = []
        for ev in expanded:
            out.extend(self._event(ev))
        return out

    def _close(self) -> list[dict[str, Any]]:
        """End of input: finish a message still being built.

        A text or call the input left open is not closed for it: the output then
        ends without ``message_stop``, which Anthropic's consumers read as a cut
        stream, as the input was.
        """
        out: list[dict[str, Any]] = []
        if not self._machine.bare:
            self._machine.end_input()  # a framed run cut before its terminal event raises
        if self._framed_here:
            # A bare turn that did not end itself: close its chunk streams (their END is
            # synthesized), without claiming the explicit items it left open finished.
            self._framed_here = False
            for ev in self._machine.end_turn():
                out.extend(self._event(ev))
        if self._active and not self._texts and not self._calls:
            out.extend(self._finish(None))
        elif self._active:
            out.extend(self._route([]))
        return out

    # -------------------------------------------------------------- plumbing

    def _lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        key = f"{kind}\x1f{tool_call_id}"
        if key in self._lost_kinds:
            return
        self._lost_kinds.add(key)
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))

    def _learn(self, mid: str | None, seed: str) -> None:
        self._active = True
        if self._seed is None:
            self._seed = seed
        if mid is None:
            return
        if self._mid is None:
            self._mid = mid
        elif mid != self._mid:
            self._lose(
                "message-merged",
                f"message {mid!r} goes into Anthropic message {self._mid!r}: one Anthropic "
                "response is one message",
            )

    def _route(self, chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send chunks out once the message id is known (``message_start`` needs it)."""
        if self._started:
            return chunks
        if self._mid is None:
            self._buffer.extend(chunks)
            return []
        self._started = True
        head = {
            "type": "message_start",
            "message": {
                "id": self._mid,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            },
        }
        out = [head, *self._buffer, *chunks]
        self._buffer = []
        return out

    def _open_block(self, block: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        index = self._index
        self._index += 1
        return index, {"type": "content_block_start", "index": index, "content_block": block}

    def _whole_block(self, block: dict[str, Any]) -> list[dict[str, Any]]:
        """A block sent complete: its start, then its stop."""
        index, chunk = self._open_block(block)
        return [chunk, _stop(index)]

    @staticmethod
    def _stream(
        open_blocks: dict[str, int], key: str, delta_type: str, field: str, text: str
    ) -> list[dict[str, Any]]:
        """``text`` appended to the open block ``key`` names (nothing when it is not open)."""
        index = open_blocks.get(key)
        if index is None or not text:
            return []
        return [_delta(index, {"type": delta_type, field: text})]

    # ---------------------------------------------------------------- events

    def _event(self, ev: BaseEvent) -> list[dict[str, Any]]:
        handler = self._handlers.get(ev.type)
        if handler is not None:
            return self._route(handler(self, ev))
        if isinstance(ev, RunStartedEvent):
            out = self._finish(None) if self._active else []
            self._reset()
            self._run_id = ev.run_id
            return out
        if isinstance(ev, RunFinishedEvent):
            self._framed_here = False
            return self._finish(ev)
        if isinstance(ev, RunErrorEvent):
            self._framed_here = False
            self._reset()
            return [
                {"type": "error", "error": {"type": ev.code or "api_error", "message": ev.message}}
            ]
        if ev.type not in _SILENT:
            self._lose(
                f"{ev.type.value.lower()}-dropped",
                f"an Anthropic message stream has no counterpart of {ev.type.value}",
            )
        return []

    def _finish(self, ev: RunFinishedEvent | None) -> list[dict[str, Any]]:
        if self._mid is None:
            self._mid = mint_id("msg", self._seed or self._run_id or "empty")
        out = self._route([])
        for index in sorted(self._thinking.values()):
            out.append(_stop(index))
        usage: dict[str, Any] = {"output_tokens": 0}
        if ev is not None and ev.usage:
            picked = next((u for u in ev.usage if u.provider == VENDOR), ev.usage[0])
            usage = usage_fields(picked)
        # The stop reason the run states (a decoded Anthropic turn's, via RUN_FINISHED.metadata:
        # max_tokens, pause_turn, refusal ...), else what the message's calls imply.
        stated = _meta(ev) if ev is not None else {}
        stop = stated.get(STOP_REASON_KEY)
        if not isinstance(stop, str):  # another vendor's run: its normalized reason, if any
            stop = stop_reason_for(stated_finish_reason(stated))
        if not isinstance(stop, str):
            stop = "tool_use" if self._client_calls else "end_turn"
        sequence = stated.get(STOP_SEQUENCE_KEY)
        out.append(
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": stop,
                    "stop_sequence": sequence if isinstance(sequence, str) else None,
                },
                "usage": usage,
            }
        )
        out.append({"type": "message_stop"})
        self._reset()
        return out

    # text
    def _on_text_message_start(self, ev: TextMessageStartEvent) -> list[dict[str, Any]]:
        if ev.role not in (None, "assistant"):
            self._lose(
                "text-dropped",
                f"a {ev.role} text message cannot be part of an Anthropic assistant response",
            )
            return []
        self._learn(ev.message_id, ev.message_id)
        index, chunk = self._open_block({"type": "text", "text": ""})
        self._texts[ev.message_id] = index
        return [chunk]

    def _on_text_message_content(self, ev: Any) -> list[dict[str, Any]]:
        return self._stream(self._texts, ev.message_id, "text_delta", "text", ev.delta)

    def _on_text_message_end(self, ev: Any) -> list[dict[str, Any]]:
        index = self._texts.pop(ev.message_id, None)
        if index is None:
            return []
        cites = _meta(ev).get(CITATIONS_KEY)
        out = [
            _delta(index, {"type": "citations_delta", "citation": c})
            for c in (cites if isinstance(cites, list) else [])
        ]
        return [*out, _stop(index)]

    # tool calls
    def _on_tool_call_start(self, ev: ToolCallStartEvent) -> list[dict[str, Any]]:
        cid = ev.tool_call_id
        if cid in self._call_types:
            self._lose(
                "tool-call-reopen-dropped",
                "an Anthropic tool_use block cannot be reopened once stopped; the further "
                "arguments are not carried",
                cid,
            )
            return []
        self._learn(ev.parent_message_id, cid)
        meta = _meta(ev)
        btype = meta.get(TYPE_KEY)
        btype = btype if btype in SERVER_CALL_TYPES else "tool_use"
        # a client call's id must pass Anthropic's rule; a server call's id is Anthropic's own
        sent = self._ids(cid, ev.metadata) if btype == "tool_use" else cid
        self.losses.extend(self._ids.take_losses())
        block: dict[str, Any] = {"type": btype, "id": sent, "name": ev.tool_call_name, "input": {}}
        if btype == "mcp_tool_use" and isinstance(meta.get(SERVER_NAME_KEY), str):
            block["server_name"] = meta[SERVER_NAME_KEY]
        if isinstance(meta.get(CALLER_KEY), dict):
            block["caller"] = meta[CALLER_KEY]
        if isinstance(meta.get(TOOLSET_KEY), str):
            block["toolset_name"] = meta[TOOLSET_KEY]
        self._call_types[cid] = btype
        if btype == "tool_use":
            self._client_calls += 1
        index, chunk = self._open_block(block)
        self._calls[cid] = index
        return [chunk]

    def _on_tool_call_args(self, ev: Any) -> list[dict[str, Any]]:
        # ``_stream`` written out: the one event of a tool-heavy turn
        index = self._calls.get(ev.tool_call_id)
        if index is None or not ev.delta:
            return []
        delta = {"type": "input_json_delta", "partial_json": ev.delta}
        return [{"type": "content_block_delta", "index": index, "delta": delta}]

    def _on_tool_call_end(self, ev: Any) -> list[dict[str, Any]]:
        index = self._calls.pop(ev.tool_call_id, None)
        return [] if index is None else [_stop(index)]

    def _on_tool_call_result(self, ev: ToolCallResultEvent) -> list[dict[str, Any]]:
        block = _meta(ev).get(BLOCK_KEY)
        if (
            self._call_types.get(ev.tool_call_id) in SERVER_CALL_TYPES
            and isinstance(block, dict)
            and block.get("tool_use_id") == ev.tool_call_id
        ):
            return self._whole_block(block)
        self._lose(
            "tool-result-dropped",
            "an Anthropic response carries results only of tools Anthropic ran itself "
            "(server tools, MCP), with their original result block",
            ev.tool_call_id,
        )
        return []

    # reasoning
    def _on_reasoning_message_start(self, ev: Any) -> list[dict[str, Any]]:
        self._learn(None, ev.message_id)
        if _meta(ev).get(TYPE_KEY) == "redacted_thinking":
            self._redacted.add(ev.message_id)
            return []
        index, chunk = self._open_block({"type": "thinking", "thinking": "", "signature": ""})
        self._thinking[ev.message_id] = index
        return [chunk]

    def _on_reasoning_message_content(self, ev: Any) -> list[dict[str, Any]]:
        return self._stream(self._thinking, ev.message_id, "thinking_delta", "thinking", ev.delta)

    def _on_reasoning_message_end(self, ev: Any) -> list[dict[str, Any]]:
        return []  # the block stays open for its signature until REASONING_END

    def _on_reasoning_encrypted_value(
        self, ev: ReasoningEncryptedValueEvent
    ) -> list[dict[str, Any]]:
        if ev.subtype != "message":
            self._lose(
                "encrypted-value-dropped",
                "Anthropic signs thinking blocks, not tool calls; a tool call's encrypted "
                "value has no place in its stream",
                ev.entity_id,
            )
            return []
        kept = usable_encrypted(
            ev.encrypted_value,
            _meta(ev),
            VENDOR,
            target=VENDOR,
            entity=f"reasoning message {ev.entity_id!r}",
            losses=self.losses,
        )
        if kept is None:
            return []
        rid = ev.entity_id
        open_at = self._thinking.get(rid)
        if rid in self._redacted or open_at is None:
            if rid in self._redacted:
                self._redacted.discard(rid)
            else:
                self._learn(None, rid)
            return self._whole_block({"type": "redacted_thinking", "data": ev.encrypted_value})
        return [_delta(open_at, {"type": "signature_delta", "signature": ev.encrypted_value})]

    def _on_reasoning_end(self, ev: Any) -> list[dict[str, Any]]:
        index = self._thinking.pop(ev.message_id, None)
        if ev.message_id in self._redacted:
            self._redacted.discard(ev.message_id)
            self._lose(
                "reasoning-dropped",
                "a redacted thinking block without its encrypted data cannot be sent",
            )
        return [] if index is None else [_stop(index)]


__all__ = ["Encoder"]
