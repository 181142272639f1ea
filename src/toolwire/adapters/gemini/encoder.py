"""AG-UI events -> Gemini ``GenerateContentResponse`` chunks and SSE (the encode direction).

Gemini streams whole function calls, so a call is buffered from
``TOOL_CALL_START`` to ``TOOL_CALL_END`` and sent as one ``functionCall`` part
(its thought signature on the same part). Text and thoughts go out as they
come. Code execution goes back to ``executableCode``/``codeExecutionResult``.
The last chunk carries ``finishReason`` (``RUN_FINISHED.metadata``'s
``gemini.finishReason`` when it names a normal end, else ``STOP``) and the usage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    ReasoningEncryptedValueEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire.adapters.gemini.parts import code_output
from toolwire.adapters.gemini.wire import (
    CALL_ID_RULE,
    GROUNDING_KEY,
    NORMAL_FINISH,
    OUTCOME_KEY,
    PART_KEY,
    STOP_REASON_KEY,
    TOOL_TYPE_KEY,
    VENDOR,
    stop_reason_for,
    usage_fields,
)
from toolwire.losses import Loss, snapshot_dropped
from toolwire.protocol import RESULT_ERROR_KEY, StreamMachine
from toolwire.protocol._compact_json import compact, quote
from toolwire.protocol._written import HOLE, Cut, Written
from toolwire.protocol.arguments import (
    REPEATED_KEYS,
    arguments_object,
    parse_arguments_object,
    repeated_keys_reason,
    written_as_is,
)
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.dispatch import handlers_by_type
from toolwire.protocol.encoding import CheckedEncoder
from toolwire.protocol.finish import stated_finish_reason
from toolwire.protocol.parts import text_of


@dataclass
class _Call:
    id: str
    name: str
    metadata: dict[str, Any] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)
    signature: str | None = None


class Encoder(CheckedEncoder):
    """Sans-I/O encoder: ``feed(event)`` -> Gemini chunk dicts (camelCase, as on the wire).

    ``response_id`` overrides the ``responseId`` (by default the first assistant
    message id, which the decoder turns back into that message id);
    ``model_version`` fills ``modelVersion``. What Gemini cannot carry in a model
    stream (a client tool's result, a signature that arrives after its call was
    sent) is recorded in ``losses`` and warned about (once, by ``feed``/``close``).
    """

    vendor = VENDOR
    #: a whole call's chunk handed as its text (``Written``): set on the bytes path only
    writes_text = False

    def __init__(self, *, response_id: str | None = None, model_version: str | None = None) -> None:
        super().__init__()
        self._rid = response_id
        self._model = model_version
        self._machine = StreamMachine(run_open="auto", history=False)  # a bare turn or a framed run
        self._calls: dict[str, _Call] = {}
        self._ids = IdMapper(CALL_ID_RULE)
        #: the calls sent so far (a start reopening one is a loss, a signature after it too)
        self._sent: set[str] = set()
        self._usage: dict[str, Any] | None = None
        self._grounding: dict[str, Any] | None = None
        self._finished = False
        self._finish = "STOP"
        self._error: dict[str, Any] | None = None
        self._held: list[dict[str, Any]] = []
        self._early_sigs: dict[str, str] = {}
        #: the text around a call chunk's id, name and arguments, for (model, responseId)
        self._call_cut = Cut(_call_sample, 3)
        #: ``EventType`` -> this class's ``_on_<type>`` method (a subclass's own included)
        self._handlers = handlers_by_type(type(self))

    def _feed_into(self, events: Any, out: list[dict[str, Any]]) -> None:
        made: list[dict[str, Any]] = []
        try:
            self._checked_into(events, made)
        except BaseException:
            if made:  # the chunks of the events before the failing one
                out += self._release(made)
            raise
        out += self._release(made)

    def _release(
        self, chunks: list[dict[str, Any]], *, final: bool = False
    ) -> list[dict[str, Any]]:
        """Hold chunks until the assistant message id (the ``responseId``) is known.

        Thoughts usually come before the first text or call names the message; the
        decoder turns ``responseId`` back into that message id, so it must be on
        every chunk. At the end (``final``) what is held goes out in any case.
        """
        self._held.extend(chunks)
        if self._rid is None and not final:
            return []
        out, self._held = self._held, []
        rid = self._rid
        if rid is not None:
            for chunk in out:  # (a Written chunk was written with it)
                if type(chunk) is dict and "error" not in chunk:
                    chunk["responseId"] = rid
        return out

    def _close(self) -> list[dict[str, Any]]:
        if self._finished:
            return []
        self._finished = True
        tail: list[dict[str, Any]] = []
        # chunk-form calls and messages of a bare turn end with it (the machine synthesizes
        # END); a framed run cut before its terminal event raises instead of finishing STOP
        for ev in self._machine.end_input():
            tail.extend(self._event(ev))
        for call in self._calls.values():
            self._lose(
                "call-unfinished",
                call.id,
                "the call never ended, so Gemini cannot carry it (it sends whole calls only)",
            )
        if self._error is not None:
            return [*self._release(tail, final=True), {"error": self._error}]
        cand: dict[str, Any] = {
            "content": {"role": "model", "parts": []},
            "finishReason": self._finish,
            "index": 0,
        }
        if self._grounding is not None:
            cand["groundingMetadata"] = self._grounding
        chunk = self._chunk(cand)
        if self._usage:
            chunk["usageMetadata"] = self._usage
        return self._release([*tail, chunk], final=True)

    # ---------------------------------------------------------------- events

    def _event(self, ev: Any) -> list[dict[str, Any]]:
        handler = self._handlers.get(ev.type)
        if handler is None:
            return []
        result: list[dict[str, Any]] = handler(self, ev)
        return result

    def _on_messages_snapshot(self, ev: Any) -> list[dict[str, Any]]:
        self.losses.append(snapshot_dropped(VENDOR, "a Gemini stream"))
        return []

    def _on_text_message_start(self, ev: Any) -> list[dict[str, Any]]:
        self._take_id(ev.message_id)
        return []

    def _on_text_message_content(self, ev: Any) -> list[dict[str, Any]]:
        self._take_id(ev.message_id)
        return [self._parts({"text": ev.delta})] if ev.delta else []

    def _on_reasoning_message_content(self, ev: Any) -> list[dict[str, Any]]:
        return [self._parts({"text": ev.delta, "thought": True})] if ev.delta else []

    def _on_reasoning_encrypted_value(self, ev: Any) -> list[dict[str, Any]]:
        return self._signature(ev)

    def _on_tool_call_start(self, ev: Any) -> list[dict[str, Any]]:
        if ev.parent_message_id:
            self._take_id(ev.parent_message_id)
        if ev.tool_call_id in self._sent:
            self._sent.discard(ev.tool_call_id)
            self._lose(
                "call-reopened",
                ev.tool_call_id,
                "Gemini sends whole calls; the "
                "arguments after the reopening are sent as a second call",
            )
        self._calls[ev.tool_call_id] = _Call(
            ev.tool_call_id, ev.tool_call_name, dict(ev.metadata or {})
        )
        self._calls[ev.tool_call_id].signature = self._early_sigs.pop(ev.tool_call_id, None)
        return []

    def _on_tool_call_args(self, ev: Any) -> list[dict[str, Any]]:
        self._calls[ev.tool_call_id].args.append(ev.delta)
        self._calls[ev.tool_call_id].metadata.update(ev.metadata or {})
        return []

    def _on_tool_call_end(self, ev: Any) -> list[dict[str, Any]]:
        call = self._calls.pop(ev.tool_call_id)
        call.metadata.update(ev.metadata or {})
        self._sent.add(call.id)
        text = "".join(call.args)
        return self._send_call(call.id, call.name, call.metadata, text, call.signature)

    def _whole_call(
        self, start: ToolCallStartEvent, args: ToolCallArgsEvent, end: ToolCallEndEvent
    ) -> list[dict[str, Any]] | None:
        """The three handlers' work for a call fed whole (not a reopening)."""
        call_id = start.tool_call_id
        if call_id in self._sent or call_id in self._calls:
            return None
        if start.parent_message_id and self._rid is None:
            self._take_id(start.parent_message_id)
        meta = dict(start.metadata) if start.metadata else {}
        if args.metadata:
            meta.update(args.metadata)
        if end.metadata:
            meta.update(end.metadata)
        signature = self._early_sigs.pop(call_id, None) if self._early_sigs else None
        self._sent.add(call_id)
        return self._send_call(call_id, start.tool_call_name, meta, args.delta, signature)

    def _on_tool_call_result(self, ev: Any) -> list[dict[str, Any]]:
        return self._result(ev)

    def _on_run_finished(self, ev: Any) -> list[dict[str, Any]]:
        finish = (ev.metadata or {}).get(STOP_REASON_KEY)
        if finish is None:  # another vendor's run: its normalized reason, if any
            finish = stop_reason_for(stated_finish_reason(ev.metadata))
        if finish in NORMAL_FINISH:  # how the decoded turn ended (e.g. MAX_TOKENS)
            self._finish = finish
        if ev.usage:
            self._usage = usage_fields(ev.usage[0])
            if self._model is None and ev.usage[0].model:
                self._model = ev.usage[0].model
        return []

    def _on_run_error(self, ev: Any) -> list[dict[str, Any]]:
        self._error = {"code": 500, "message": ev.message, "status": ev.code or "INTERNAL"}
        return []

    def _send_call(
        self,
        call_id: str,
        name: str,
        metadata: dict[str, Any],
        text: str,
        signature: str | None,
    ) -> list[dict[str, Any]]:
        kind = metadata.get(PART_KEY)
        as_text = self.writes_text and signature is None and self._rid is not None
        args: dict[str, Any] | None
        if as_text and kind is None and written_as_is(text):
            # on the bytes path a plain call whose argument text is what writing its
            # object gives goes as that text: not read (no loss can come of it), not written
            args = None
        else:
            args, keys = arguments_object(text)
            if keys:
                self._lose(REPEATED_KEYS, call_id, repeated_keys_reason(keys, "functionCall.args"))
            if args is None:
                self._lose(
                    "arguments-not-object",
                    call_id,
                    "Gemini carries arguments as a JSON "
                    "object; this text is not one, so the call is sent with {}",
                )
                args = {}
            if kind == "executableCode":
                code = {k: args[k] for k in ("language", "code") if k in args}
                return self._signed({"executableCode": {**code, "id": call_id}}, signature)
            if kind == "toolCall":
                body: dict[str, Any] = {"id": call_id, "args": args}
                if metadata.get(TOOL_TYPE_KEY):
                    body["toolType"] = metadata[TOOL_TYPE_KEY]
                return self._signed({"toolCall": body}, signature)
            if kind == "groundingMetadata":
                return []  # carried by the result's groundingMetadata on the last chunk
        fid = self._ids(call_id, metadata)  # the vendor's own id back, if it repeated
        if as_text:
            written = self._written_call(fid, name, args, text)
            if written is not None:
                return [written]  # type: ignore[list-item]  # (the bytes path only)
        if args is None:
            args = arguments_object(text)[0]  # (an object: written_as_is said so)
        return self._signed({"functionCall": {"id": fid, "name": name, "args": args}}, signature)

    def _signed(self, part: dict[str, Any], signature: str | None) -> list[dict[str, Any]]:
        """The chunk of a call's ``part``, its thought signature on it when it has one."""
        if signature is not None:
            part["thoughtSignature"] = signature
        return [self._parts(part)]

    def _written_call(
        self, fid: str, name: str, args: dict[str, Any] | None, text: str
    ) -> Written | None:
        """A function call's chunk (no signature, the responseId known) as its text, cut
        from the text of a sample of the dict form; ``None`` where it cannot be. The
        arguments are ``args``, or ``text`` when ``args`` is ``None`` (it is then what
        writing them gives, and is read only if the writer asks for the dict)."""
        key = (self._model, self._rid)
        cut = self._call_cut
        pieces = cut.pieces if cut.constants == key else cut.cut(key)
        if pieces is None or type(fid) is not str or type(name) is not str:
            return None
        head, mid, tail, end = pieces
        written = text if args is None else compact(args)
        chunk = f"{head}{quote(fid)}{mid}{quote(name)}{tail}{written}{end}"
        return Written(chunk, _made_call, (fid, name, args, text, key))

    def _signature(self, ev: ReasoningEncryptedValueEvent) -> list[dict[str, Any]]:
        if ev.subtype == "tool-call":
            call = self._calls.get(ev.entity_id)
            if call is not None:
                call.signature = ev.encrypted_value
                return []
            if ev.entity_id not in self._sent:  # the call is still to come
                self._early_sigs[ev.entity_id] = ev.encrypted_value
                return []
            self._lose(
                "signature-dropped",
                ev.entity_id,
                "the signature came after its call "
                "was sent, and Gemini carries it only on the call's own part",
            )
            return []
        return [
            self._parts(
                {
                    "text": "",
                    "thoughtSignature": ev.encrypted_value,
                    **({"thought": True} if ev.entity_id != self._rid else {}),
                }
            )
        ]

    def _result(self, ev: Any) -> list[dict[str, Any]]:
        meta = ev.metadata or {}
        kind = meta.get(PART_KEY)
        if kind == "codeExecutionResult":
            body: dict[str, Any] = {"id": ev.tool_call_id}
            if meta.get(OUTCOME_KEY):
                body["outcome"] = meta[OUTCOME_KEY]
            body["output"] = code_output(text_of(ev.content), meta.get(OUTCOME_KEY))
            return [self._parts({"codeExecutionResult": body})]
        if kind == "toolResponse":
            resp = parse_arguments_object(text_of(ev.content))
            return [self._parts({"toolResponse": {"id": ev.tool_call_id, "response": resp or {}}})]
        if kind == "groundingMetadata" and isinstance(meta.get(GROUNDING_KEY), dict):
            self._grounding = meta[GROUNDING_KEY]
            return []
        why = "a Gemini model stream carries no function results (they travel in the next request)"
        if meta.get(RESULT_ERROR_KEY):
            why += "; its error too"
        self._lose("result-dropped", ev.tool_call_id, why)
        return []

    # --------------------------------------------------------------- helpers

    def _take_id(self, message_id: str) -> None:
        if self._rid is None:
            self._rid = message_id

    def _chunk(self, cand: dict[str, Any]) -> dict[str, Any]:
        return _chunk_of(cand, self._model)

    def _parts(self, *parts: dict[str, Any]) -> dict[str, Any]:
        return _parts_chunk(list(parts), self._model)

    def _lose(self, kind: str, call_id: str, reason: str) -> None:
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=call_id))


def _call_chunk(fid: Any, name: Any, args: Any, model: Any, rid: Any) -> dict[str, Any]:
    """A function call's chunk as the dict path makes it (``_parts``, then ``_release``),
    for the model and responseId given (a ``Written`` chunk's dict keeps its own)."""
    chunk = _parts_chunk([{"functionCall": {"id": fid, "name": name, "args": args}}], model)
    chunk["responseId"] = rid
    return chunk


def _call_sample(model: Any, rid: Any) -> dict[str, Any]:
    return _call_chunk(HOLE, HOLE, HOLE, model, rid)


def _made_call(
    fid: str, name: str, args: dict[str, Any] | None, text: str, key: tuple[Any, Any]
) -> dict[str, Any]:
    """A ``Written`` call chunk's dict: its arguments ``args``, or read from ``text``."""
    value = arguments_object(text)[0] if args is None else args
    return _call_chunk(fid, name, value, *key)


def _chunk_of(cand: dict[str, Any], model: str | None) -> dict[str, Any]:
    """A chunk of one candidate (``modelVersion`` when the model is known)."""
    chunk: dict[str, Any] = {"candidates": [cand]}
    if model:
        chunk["modelVersion"] = model
    return chunk


def _parts_chunk(parts: list[dict[str, Any]], model: str | None) -> dict[str, Any]:
    """A chunk whose one candidate holds ``parts`` of the model's content."""
    return _chunk_of({"content": {"role": "model", "parts": parts}, "index": 0}, model)


__all__ = ["Encoder"]
