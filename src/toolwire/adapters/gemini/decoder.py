"""Gemini ``GenerateContentResponse`` chunks -> AG-UI events (the decode direction).

Each streamed chunk is a whole response holding *new* parts. A ``functionCall``
part is a whole call (START + one ARGS + END), except on Vertex with
``streamFunctionCallArguments``, where a call opens with ``{name,
willContinue}``, grows by ``partialArgs`` and ends with a piece that does not
continue. The turn ends with a chunk carrying ``finishReason``; without one the
stream is truncated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ag_ui.core import (
    BaseEvent,
    ContentPart,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TextPart,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.adapters.gemini.partial_args import ArgsWriter
from toolwire.adapters.gemini.wire import (
    CODE_EXECUTION,
    DELTA_FORM,
    FIELDS,
    GOOGLE_SEARCH,
    GROUNDING_KEY,
    NORMAL_FINISH,
    OUTCOME_KEY,
    PART_KEY,
    PART_QUALIFIERS,
    PROVIDER,
    STOP_REASON_KEY,
    TOOL_TYPE_KEY,
    VENDOR,
    CodeExecutionResult,
    ExecutableCode,
    FunctionCall,
    GroundingMetadata,
    ServerToolCall,
    ServerToolResponse,
    b64_signature,
    canonical,
    counted,
    get,
    has_counts,
    json_text,
    map_stop_reason,
    other_spelling,
    read_written,
    token_usage,
)
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss
from toolwire.protocol import RESULT_ERROR_KEY
from toolwire.protocol._fastpath import PASS, TakenMany, read_stream
from toolwire.protocol._makers import args_delta, call_end, call_start, text_delta
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.jsontext import scan_value
from toolwire.protocol.signatures import encrypted_value_event

#: HTTP statuses a Gemini error body may carry that are worth retrying.
_RETRYABLE = {408, 429, 500, 502, 503, 504}

#: The part kinds, in the order a part holding two of them is read by.
_KINDS = (
    "functionCall",
    "text",
    "executableCode",
    "codeExecutionResult",
    "toolCall",
    "toolResponse",
    "inlineData",
    "fileData",
)
#: a part's key, in either spelling -> its kind's rank in :data:`_KINDS` (one look-up per
#: key tells a part's kind, instead of asking for every kind under both spellings)
_RANK = {
    **{name: rank for rank, name in enumerate(_KINDS)},
    **{other_spelling(name): rank for rank, name in enumerate(_KINDS)},
}
_CALL, _TEXT, _CODE, _CODE_RESULT, _TOOL_CALL, _TOOL_RESPONSE = range(6)
_NONE = len(_KINDS)


class _Streamed:
    """A Vertex call whose arguments are arriving as ``partialArgs``."""

    def __init__(self, call_id: str, name: str, given_id: str | None) -> None:
        self.call_id = call_id
        self.name = name
        self.given_id = given_id
        self.writer = ArgsWriter()


class Decoder(BaseDecoder):
    """Sans-I/O decoder for one Gemini turn (Gemini API or Vertex; SDK objects or dicts).

    ``response_id`` names the assistant message when the stream has no
    ``responseId``. Only candidate 0 is decoded; others are reported as a loss.
    """

    vendor = VENDOR

    def __init__(self, *, response_id: str | None = None) -> None:
        super().__init__()
        self._ids = CallIds(VENDOR)  # Gemini 3 names calls; a repeat gets its own id
        self.message_id: str | None = response_id
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.finish_message: str | None = None
        self._block: tuple[str, str] | None = None
        self._text_open = False
        self._reasoning_id: str | None = None
        self._last_reasoning_id: str | None = None
        self._reasoning_count = 0
        self._calls = 0
        self._streamed: _Streamed | None = None
        self._last_code_call: str | None = None
        self._last_server_call: str | None = None
        self._usage_meta: dict[str, Any] | None = None
        self._usage_text: str | None = None  # the usage record the rule last read, as text
        #: the last record with counts the rule took, while it is kept as its text (a
        #: stream's records, one a chunk, are read once: the last one, at the end)
        self._usage_later: str | None = None
        self._grounding: GroundingMetadata | None = None
        self._other_candidates = False

    # ------------------------------------------------------------------ feed

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A whole ``generateContent`` response is one chunk with the same shape."""
        return self.feed(response)

    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
        """The whole stream's events, ``close()``'s included: ``feed``'s, with the common
        chunks (a text part, whole calls: most of a stream) read by :meth:`_common` in the
        shared loop, fused from toolwire's own reader (``protocol._fastpath``)."""
        return read_stream(self, chunks, DELTA_FORM, self._common)

    def _common(
        self,
        text: str | None,
        call_id: str | None,
        name: str | None,
        args: str | None,
        parts: str | None,
        usage: str,
        model: str,
    ) -> TakenMany:
        """The rule of :data:`~toolwire.adapters.gemini.wire.DELTA_FORM`: a chunk of one
        candidate, no finish, whose parts are a text part or whole calls, as ``_feed`` reads
        it. Everything is parsed and checked before any state changes; a chunk the rule does
        not take as it is (the first, a call still streaming, a part of another kind, a
        number JSON cannot give Python) goes the general way, which names what is wrong."""
        if self.message_id is None or self._streamed is not None:
            return PASS
        taken: list[tuple[Any, ...]] = []  # the parts: (text,) or (id, name, args)
        fc_args: Any = None
        new_usage = usage != self._usage_text
        later = new_usage and counted(usage)  # (read at the end, or when another comes)
        try:
            meta = scan_value(usage, 0)[0] if new_usage and not later else None
            if args is not None:  # one whole call (the form: a call has args)
                fc_args, kept = read_written(args)
                if type(fc_args) is not dict or not name:
                    return PASS
            elif parts is not None:
                found = _plain_parts(scan_value(parts, 0)[0])
                if found is None:
                    return PASS
                taken = found
        except (ValueError, StopIteration):  # (a number Python will not read)
            return PASS
        if later:  # the last record with counts so far, as its text
            self._usage_text = self._usage_later = usage
        elif meta is not None:
            self._usage_text = usage
            if type(meta) is dict and (
                type(meta.get("promptTokenCount")) is int or has_counts(meta)
            ):
                self._usage_meta = meta
                self._usage_later = None
        if model:
            self.model = model
        if args is not None:  # (its arguments' text, as the vendor wrote them, kept)
            written = args if kept else None
            return self._whole_call(call_id, name, fc_args, None, _ARGS_AT, written)  # type: ignore[arg-type]
        if text is not None:
            return self._text(text, None)
        out: list[BaseEvent] = []
        for part in taken:
            if len(part) == 1:
                out.extend(self._text(part[0], None))
            else:
                out.extend(self._whole_call(part[0], part[1], part[2], None, _ARGS_AT))
        return out

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if "error" in chunk:
            self._raise_error(chunk["error"])
        out: list[BaseEvent] = []
        if self.message_id is None:
            rid = get(chunk, "responseId")
            if isinstance(rid, str) and rid:
                self.message_id = self.response_id = rid
            else:
                self.message_id = mint_id("gemini_msg", _seed(chunk))
        model = get(chunk, "modelVersion")
        if isinstance(model, str) and model:
            self.model = model
        meta = get(chunk, "usageMetadata")
        if isinstance(meta, dict) and has_counts(meta):
            self._usage_meta = meta
            self._usage_later = None
            self._usage_text = None  # (the rule's record no longer the last one read)
        feedback = get(chunk, "promptFeedback")
        if isinstance(feedback, dict) and get(feedback, "blockReason"):
            reason = str(get(feedback, "blockReason"))
            self._block = (
                f"prompt_blocked:{reason}",
                str(get(feedback, "blockReasonMessage") or f"the prompt was blocked ({reason})"),
            )
        cands = chunk.get("candidates")
        if cands is None:
            return out
        for c, cand in enumerate(FIELDS.lst(cands, self.where("candidates"))):
            if type(cand) is not dict:
                raise FIELDS.wrong(cand, dict, self.where(f"candidates[{c}]"))
            index = cand.get("index", 0)
            if index not in (0, None):
                if not self._other_candidates:
                    self._other_candidates = True
                    self.losses.append(
                        Loss(
                            kind="candidate-dropped",
                            target="AG-UI",
                            reason="a turn is one assistant message; only candidate 0 is decoded",
                        )
                    )
                continue
            content = cand.get("content")
            if content is not None:
                if type(content) is not dict:
                    raise FIELDS.wrong(content, dict, self.where(f"candidates[{c}].content"))
                parts = get(content, "parts")
                if parts is not None:
                    if type(parts) is not list:
                        raise FIELDS.wrong(
                            parts, list, self.where(f"candidates[{c}].content.parts")
                        )
                    for p, part in enumerate(parts):
                        out.extend(self._part(part, c, p))
            grounding = get(cand, "groundingMetadata")
            if grounding is not None:
                at = self.where(f"candidates[{c}].groundingMetadata")
                FIELDS.obj(grounding, at)
                FIELDS.lst(get(grounding, "webSearchQueries"), f"{at}.webSearchQueries")
                FIELDS.lst(get(grounding, "groundingChunks"), f"{at}.groundingChunks")
                self._grounding = grounding
            finish = get(cand, "finishReason")
            if finish is not None:
                self.finish_reason = FIELDS.text(
                    finish, self.where(f"candidates[{c}].finishReason")
                )
                msg = get(cand, "finishMessage")
                self.finish_message = msg if isinstance(msg, str) else None
        return out

    def _part(self, part: Any, c: int, p: int) -> list[BaseEvent]:
        """One part of candidate ``c`` (its ``p``-th); the place is spelled out only for an
        error, so a well-formed part costs no string building."""
        if type(part) is not dict:
            raise FIELDS.wrong(part, dict, self.where(f"candidates[{c}].content.parts[{p}]"))
        rank = _NONE
        for key in part:
            r = _RANK.get(key, _NONE)
            if r < rank:
                rank = r
        sig = get(part, "thoughtSignature")
        if sig is not None:
            sig = b64_signature(sig, self._at(c, p, "thoughtSignature"))
        if self._streamed is not None and rank != _CALL:
            raise VendorDataError(
                VENDOR,
                self._at(c, p),
                f"call {self._streamed.call_id!r} is still streaming its "
                "arguments, but this part is not a functionCall",
            )
        if rank == _NONE:
            unread = sorted(k for k in part if k not in PART_QUALIFIERS)
            if unread:  # content this decoder has no event for (functionResponse, a new kind)
                self.losses.append(
                    Loss(
                        kind="model-part-dropped",
                        target="AG-UI",
                        reason=f"{self._at(c, p)}: a model part holding {', '.join(unread)} "
                        "has no AG-UI event",
                    )
                )
            return [] if sig is None else self._text("", sig)
        name = _KINDS[rank]
        if rank == _TEXT:
            text = part["text"]
            if type(text) is not str:
                text = FIELDS.text(text, self._at(c, p, "text"))
            if part.get("thought") is True:
                return self._thought(text, sig)
            return self._text(text, sig)
        body = get(part, name)
        if type(body) is not dict:
            FIELDS.obj(body, self._at(c, p, name))
        where = self._at(c, p)
        if rank == _CALL:
            return self._function_call(body, sig, where)
        if rank == _CODE:
            return self._executable_code(body, sig, where)
        if rank == _CODE_RESULT:
            return self._code_result(body, where)
        if rank == _TOOL_CALL:
            return self._server_call(body, sig, where)
        if rank == _TOOL_RESPONSE:
            return self._server_result(body, where)
        self.losses.append(
            Loss(
                kind="model-media-dropped",
                target="AG-UI",
                reason="an assistant message holds text only; media the model generated "
                "inside its answer has no place in the stream",
            )
        )
        return []

    def _at(self, c: int, p: int, field: str | None = None) -> str:
        """Where part ``p`` of candidate ``c`` (or its ``field``) is, for a message."""
        where = self.where(f"candidates[{c}].content.parts[{p}]")
        return where if field is None else f"{where}.{field}"

    # ------------------------------------------------------------- text parts

    def _text(self, text: str, sig: str | None) -> list[BaseEvent]:
        out = self._end_reasoning()
        mid = self._mid()
        if text:
            if not self._text_open:
                out.append(TextMessageStartEvent(message_id=mid, role="assistant"))
                self._text_open = True
            out.append(text_delta(mid, text))
        if sig is not None:
            out.append(encrypted_value_event("message", mid, sig, PROVIDER))
        return out

    def _thought(self, text: str, sig: str | None) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        if text or (sig is not None and self._last_reasoning_id is None):
            out.extend(self._end_text())
            if self._reasoning_id is None:
                self._reasoning_count += 1
                rid = f"{self._mid()}-reasoning-{self._reasoning_count}"
                out.append(ReasoningStartEvent(message_id=rid))
                out.append(ReasoningMessageStartEvent(message_id=rid, role="reasoning"))
                self._reasoning_id = self._last_reasoning_id = rid
            if text:
                out.append(ReasoningMessageContentEvent(message_id=self._reasoning_id, delta=text))
        if sig is not None:
            entity = self._reasoning_id or self._last_reasoning_id
            assert entity is not None
            out.append(encrypted_value_event("message", entity, sig, PROVIDER))
        return out

    def _end_text(self) -> list[BaseEvent]:
        if not self._text_open:
            return []
        self._text_open = False
        return [TextMessageEndEvent(message_id=self._mid())]

    def _end_reasoning(self) -> list[BaseEvent]:
        rid = self._reasoning_id
        if rid is None:
            return []
        self._reasoning_id = None
        return [ReasoningMessageEndEvent(message_id=rid), ReasoningEndEvent(message_id=rid)]

    def _end_open(self) -> list[BaseEvent]:
        return self._end_reasoning() + self._end_text()

    # ------------------------------------------------------------------ calls

    def _new_call_id(self, given: Any, prefix: str) -> tuple[str, str | None]:
        """A new call's AG-UI id, and the vendor's own id when it named the call."""
        self._calls += 1
        if isinstance(given, str) and given:
            return self._ids.assign(given, self.known_call_ids), given  # a repeat stays apart
        return mint_id(prefix, self._mid(), self._calls), None

    def _answers(self, given: Any, last: str | None) -> Any:
        """The call a result with the vendor's id ``given`` answers (else the last one)."""
        if isinstance(given, str) and given:
            return self._ids.answer(given) or given
        return last

    def _start(
        self,
        call_id: str,
        given: str | None,
        name: str,
        sig: str | None,
        metadata: dict[str, Any] | None = None,
    ) -> list[BaseEvent]:
        metadata = {**(metadata or {}), **self._ids.metadata(call_id, given or call_id)}
        kw: dict[str, Any] = {"metadata": metadata} if metadata else {}
        out: list[BaseEvent] = [
            ToolCallStartEvent(
                tool_call_id=call_id, tool_call_name=name, parent_message_id=self._mid(), **kw
            )
        ]
        if sig is not None:
            out.append(encrypted_value_event("tool-call", call_id, sig, PROVIDER))
        return out

    def _function_call(self, fc: FunctionCall, sig: str | None, where: str) -> list[BaseEvent]:
        at = f"{where}.functionCall"
        name = FIELDS.opt_text(get(fc, "name"), f"{at}.name")
        given = FIELDS.opt_text(get(fc, "id"), f"{at}.id")
        raw_pieces = get(fc, "partialArgs")
        pieces = [] if raw_pieces is None else FIELDS.lst(raw_pieces, f"{at}.partialArgs")
        cont = get(fc, "willContinue") is True
        out: list[BaseEvent] = []
        streamed = self._streamed
        if streamed is not None:
            if (name is not None and name != streamed.name) or (
                given is not None and streamed.given_id is not None and given != streamed.given_id
            ):
                raise VendorDataError(
                    VENDOR, at, f"a new call began while {streamed.call_id!r} was still streaming"
                )
        else:
            if not name:
                raise FIELDS.missing(f"{at}.name")
            if not cont and not pieces:
                args = FIELDS.opt_obj(get(fc, "args"), f"{at}.args")
                return self._whole_call(given, name, args, sig, f"{at}.args")
            out.extend(self._end_open())
            call_id, vendor_id = self._new_call_id(given, "gemini_call")
            out.extend(self._start(call_id, vendor_id, name, sig))
            streamed = self._streamed = _Streamed(call_id, name, given)
            sig = None
        if sig is not None:
            out.append(encrypted_value_event("tool-call", streamed.call_id, sig, PROVIDER))
        for k, piece in enumerate(pieces):
            piece_at = f"{at}.partialArgs[{k}]"
            delta = streamed.writer.piece(FIELDS.obj(piece, piece_at), piece_at)
            if delta:
                out.append(ToolCallArgsEvent(tool_call_id=streamed.call_id, delta=delta))
        if not cont:
            out.append(
                ToolCallArgsEvent(tool_call_id=streamed.call_id, delta=streamed.writer.finish())
            )
            out.append(ToolCallEndEvent(tool_call_id=streamed.call_id))
            self._streamed = None
        return out

    def _whole_call(
        self,
        given: Any,
        name: str,
        args: dict[str, Any] | None,
        sig: str | None,
        at: str,
        written: str | None = None,
    ) -> list[BaseEvent]:
        """A call that came whole, in one part: its start, its one arguments event, its end
        (the general path's and the common chunk's rule's). ``written``: the arguments'
        JSON text as the vendor wrote it, when it is the text ``json_text`` would write
        (:func:`~toolwire.adapters.gemini.wire.read_written`): the text of the event."""
        ended = self._end_open() if self._text_open or self._reasoning_id is not None else None
        self._calls += 1  # (``_new_call_id`` written out: most of a Gemini stream)
        if isinstance(given, str) and given:
            call_id = self._ids.assign(given, self.known_call_ids)  # a repeat stays apart
        else:
            call_id = mint_id("gemini_call", self._mid(), self._calls)
            given = None
        if written is None:
            written = json_text(args if args is not None else {}, at)
        if ended is None and sig is None and call_id == given:
            # (the commonest: nothing to end, no metadata to carry; one list made)
            return [
                call_start(call_id, name, self.message_id),  # type: ignore[arg-type]
                args_delta(call_id, written),
                call_end(call_id),
            ]
        out = [] if ended is None else ended
        out.extend(self._start(call_id, given, name, sig))
        out.append(args_delta(call_id, written))
        out.append(call_end(call_id))
        return out

    def _executable_code(
        self, code: ExecutableCode, sig: str | None, where: str
    ) -> list[BaseEvent]:
        out = self._end_open()
        call_id, given = self._new_call_id(get(code, "id"), "gemini_code")
        self._last_code_call = call_id
        self.vendor_calls.add(call_id)  # Gemini runs the code: never the application's
        out.extend(self._start(call_id, given, CODE_EXECUTION, sig, {PART_KEY: "executableCode"}))
        args: dict[str, Any] = {}
        for key in ("language", "code"):
            value = FIELDS.opt_text(get(code, key), f"{where}.executableCode.{key}")
            if value is not None:
                args[key] = value
        out.append(ToolCallArgsEvent(tool_call_id=call_id, delta=dumps_compact(args)))
        out.append(ToolCallEndEvent(tool_call_id=call_id))
        return out

    def _code_result(self, result: CodeExecutionResult, where: str) -> list[BaseEvent]:
        call_id = self._answers(get(result, "id"), self._last_code_call)
        if not isinstance(call_id, str):
            raise VendorDataError(
                VENDOR, f"{where}.codeExecutionResult", "a result with no executableCode before it"
            )
        at = f"{where}.codeExecutionResult"
        outcome = FIELDS.opt_text(get(result, "outcome"), f"{at}.outcome")
        output = FIELDS.opt_text(get(result, "output"), f"{at}.output") or ""
        meta: dict[str, Any] = {PART_KEY: "codeExecutionResult"}
        if outcome is not None:
            meta[OUTCOME_KEY] = outcome
        if outcome not in (None, "OUTCOME_OK"):
            # the error, and the content too when there is no output (docs/decisions.md)
            output = meta[RESULT_ERROR_KEY] = output or str(outcome)
        out = self._end_open()
        out.append(
            ToolCallResultEvent(
                message_id=result_message_id(call_id),
                tool_call_id=call_id,
                content=str(output),
                role="tool",
                metadata=meta,
            )
        )
        return out

    def _server_call(self, call: ServerToolCall, sig: str | None, where: str) -> list[BaseEvent]:
        args = FIELDS.opt_obj(get(call, "args"), f"{where}.toolCall.args")
        out = self._end_open()
        call_id, given = self._new_call_id(get(call, "id"), "gemini_tool")
        self._last_server_call = call_id
        self.vendor_calls.add(call_id)  # a tool Gemini runs itself
        tool_type = get(call, "toolType")
        meta: dict[str, Any] = {PART_KEY: "toolCall"}
        if tool_type is not None:
            meta[TOOL_TYPE_KEY] = tool_type
        name = str(tool_type).lower() if tool_type else "server_tool"
        out.extend(self._start(call_id, given, name, sig, meta))
        out.append(
            ToolCallArgsEvent(
                tool_call_id=call_id, delta=json_text(args or {}, f"{where}.toolCall.args")
            )
        )
        out.append(ToolCallEndEvent(tool_call_id=call_id))
        return out

    def _server_result(self, resp: ServerToolResponse, where: str) -> list[BaseEvent]:
        call_id = self._answers(get(resp, "id"), self._last_server_call)
        if not isinstance(call_id, str):
            raise VendorDataError(VENDOR, f"{where}.toolResponse", "answers no toolCall")
        response = FIELDS.opt_obj(get(resp, "response"), f"{where}.toolResponse.response")
        out = self._end_open()
        out.append(
            ToolCallResultEvent(
                message_id=result_message_id(call_id),
                tool_call_id=call_id,
                content=json_text(response or {}, f"{where}.toolResponse.response"),
                role="tool",
                metadata={PART_KEY: "toolResponse"},
            )
        )
        return out

    # ------------------------------------------------------------------ close

    def _close(self) -> list[BaseEvent]:
        if self._usage_later is not None:
            self._usage_meta = scan_value(self._usage_later, 0)[0]
            self._usage_later = None
        if self._usage_meta is not None:
            self.usage = [token_usage(self._usage_meta, self.model)]
        if self._block is not None:
            raise VendorStreamError(VENDOR, *self._block)
        if self._streamed is not None:
            if self.finish_reason is None:
                raise TruncatedStream(
                    VENDOR, f"call {self._streamed.call_id!r} was still streaming its arguments"
                )
            raise VendorStreamError(
                VENDOR,
                self.finish_reason,
                f"the turn finished while call {self._streamed.call_id!r} was incomplete",
            )
        if self.finish_reason is None:
            raise TruncatedStream(VENDOR, "no chunk carried a finishReason")
        made_calls = self._calls > 0
        reason = map_stop_reason(self.finish_reason, made_calls=made_calls)
        self.run_metadata[FINISH_REASON_KEY] = reason
        self.error_metadata[FINISH_REASON_KEY] = reason
        if self.finish_reason not in NORMAL_FINISH:
            raise VendorStreamError(
                VENDOR,
                self.finish_reason,
                self.finish_message or f"Gemini ended the turn with {self.finish_reason}",
            )
        self.run_metadata[STOP_REASON_KEY] = self.finish_reason
        self.error_metadata.pop(FINISH_REASON_KEY, None)  # a normal end: no error
        out = self._end_reasoning()
        if self._text_open:
            self._text_open = False
            kw: dict[str, Any] = {}
            if self.finish_reason != "STOP":
                kw["metadata"] = {STOP_REASON_KEY: self.finish_reason}
            out.append(TextMessageEndEvent(message_id=self._mid(), **kw))
        if self._grounding is not None:
            out.extend(self._grounding_events(self._grounding))
        return out

    def _grounding_events(self, grounding: GroundingMetadata) -> list[BaseEvent]:
        """Search grounding as a vendor-executed ``google_search`` call and its result."""
        call_id = mint_id("gemini_search", self._mid())
        queries = get(grounding, "webSearchQueries") or []
        out = self._start(call_id, None, GOOGLE_SEARCH, None, {PART_KEY: "groundingMetadata"})
        out.append(
            ToolCallArgsEvent(tool_call_id=call_id, delta=dumps_compact({"queries": queries}))
        )
        out.append(ToolCallEndEvent(tool_call_id=call_id))
        parts: list[ContentPart] = []
        for chunk in get(grounding, "groundingChunks") or []:
            src = (
                chunk.get("web") or get(chunk, "retrievedContext")
                if isinstance(chunk, dict)
                else None
            )
            if not isinstance(src, dict):
                continue
            meta = {k: v for k, v in src.items() if v is not None}
            parts.append(
                TextPart(text=str(src.get("title") or src.get("uri") or ""), metadata=meta)
            )
        out.append(
            ToolCallResultEvent(
                message_id=result_message_id(call_id),
                tool_call_id=call_id,
                content=parts if parts else "",
                role="tool",
                metadata={PART_KEY: "groundingMetadata", GROUNDING_KEY: grounding},
            )
        )
        return out

    # ---------------------------------------------------------------- helpers

    def _mid(self) -> str:
        assert self.message_id is not None
        return self.message_id

    def _raise_error(self, error: Any) -> None:
        if not isinstance(error, dict):
            raise VendorStreamError(VENDOR, "error", str(error))
        status = error.get("status") or error.get("code") or "error"
        code = error.get("code")
        raise VendorStreamError(
            VENDOR,
            str(status),
            str(error.get("message", "")),
            retryable=isinstance(code, int) and code in _RETRYABLE,
        )


#: where a call's arguments are, for the message of an error the common chunk's rule cannot
#: meet (its arguments are JSON without NaN: ``json_text`` writes them)
_ARGS_AT = "candidates[0].content.parts: functionCall.args"


def _plain_parts(parts: Any) -> list[tuple[Any, ...]] | None:
    """Parts the common chunk's rule takes (``_common``): each a plain text part or a whole
    call (a name; an id and arguments, an object, when given; nothing else), as ``(text,)``
    or ``(id, name, args)``; ``None`` when any part is another."""
    if type(parts) is not list:
        return None
    out: list[tuple[Any, ...]] = []
    for part in parts:
        if type(part) is not dict or len(part) != 1:
            return None
        fc = part.get("functionCall")
        if fc is None:
            text = part.get("text")
            if type(text) is not str:
                return None
            out.append((text,))
            continue
        if type(fc) is not dict:
            return None
        name = fc.get("name")
        given = fc.get("id")
        args = fc.get("args")
        if (
            type(name) is not str
            or not name
            or (given is not None and type(given) is not str)
            or (args is not None and type(args) is not dict)
            or len(fc) != 1 + (given is not None) + (args is not None)
        ):
            return None
        out.append((given, name, args))
    return out


def _seed(chunk: dict[str, Any]) -> str:
    """Stable text for minting a message id from a chunk with no ``responseId``.

    Only what SDK objects and plain JSON spell alike: the parts' text and calls.
    """
    seen: list[Any] = []
    cands = chunk.get("candidates")
    for cand in cands if isinstance(cands, list) else []:
        content = cand.get("content") if isinstance(cand, dict) else None
        parts = get(content, "parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, dict):
                continue
            fc = get(part, "functionCall")
            call = [get(fc, "name"), canonical(get(fc, "args"))] if isinstance(fc, dict) else None
            seen.append([part.get("text"), call])
    return json.dumps(seen, sort_keys=True, default=str)


__all__ = ["Decoder"]
