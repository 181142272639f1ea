"""Gemini ``GenerateContentResponse`` chunks -> AG-UI events (the decode direction).

Each streamed chunk is a whole response holding *new* parts. A ``functionCall``
part is a whole call (START + one ARGS + END), except on Vertex with
``streamFunctionCallArguments``, where a call opens with ``{name,
willContinue}``, grows by ``partialArgs`` and ends with a piece that does not
continue. The turn ends with a chunk carrying ``finishReason``; without one the
stream is truncated.
"""

from __future__ import annotations

import itertools
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
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TextPart,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.adapters.gemini.json_array import is_json_array, json_array_chunks
from toolwire.adapters.gemini.partial_args import ArgsWriter
from toolwire.adapters.gemini.usage import has_counts, to_token_usage
from toolwire.adapters.gemini.wire import (
    CODE_EXECUTION,
    FINISH_KEY,
    GOOGLE_SEARCH,
    GROUNDING_KEY,
    MODEL_ROUTE,
    NORMAL_FINISH,
    OUTCOME_KEY,
    PART_KEY,
    PROVIDER,
    TOOL_TYPE_KEY,
    VENDOR,
    b64_signature,
    canonical,
    get,
    has,
    json_text,
    list_at,
    map_gemini_stop_reason,
    obj_at,
    str_at,
)
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss, announce
from toolwire.protocol import (
    RESULT_ERROR_KEY,
    BaseDecoder,
    dumps_compact,
    mint_id,
)
from toolwire.protocol.callids import CallIds
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.jsontext import decode_utf8, load_json
from toolwire.protocol.signatures import encrypted_value_event
from toolwire.protocol.sse import sse_json_objects
from toolwire.recordings import Exchange

#: HTTP statuses a Gemini error body may carry that are worth retrying.
_RETRYABLE = {408, 429, 500, 502, 503, 504}


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
        self._given: dict[str, str] = {}  # AG-UI id -> the vendor's, where they differ
        self.message_id: str | None = response_id
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.finish_message: str | None = None
        self.losses: list[Loss] = []
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
        self._grounding: dict[str, Any] | None = None
        self._other_candidates = False

    # ------------------------------------------------------------------ feed

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A whole ``generateContent`` response is one chunk with the same shape."""
        return self.feed(response)

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if "error" in chunk:
            self._raise_error(chunk["error"])
        out: list[BaseEvent] = []
        if self.message_id is None:
            rid = get(chunk, "responseId")
            if isinstance(rid, str) and rid:
                self.message_id = rid
            else:
                self.message_id = mint_id("gemini_msg", _seed(chunk))
        model = get(chunk, "modelVersion")
        if isinstance(model, str) and model:
            self.model = model
        meta = get(chunk, "usageMetadata")
        if isinstance(meta, dict) and has_counts(meta):
            self._usage_meta = meta
        feedback = get(chunk, "promptFeedback")
        if isinstance(feedback, dict) and get(feedback, "blockReason"):
            reason = str(get(feedback, "blockReason"))
            self._block = (
                f"prompt_blocked:{reason}",
                str(get(feedback, "blockReasonMessage") or f"the prompt was blocked ({reason})"),
            )
        for c, cand in enumerate(list_at(chunk.get("candidates"), self.where("candidates"))):
            where = self.where(f"candidates[{c}]")
            cand = obj_at(cand, where)
            index = cand.get("index", 0)
            if index not in (0, None):
                if not self._other_candidates:
                    self._other_candidates = True
                    loss = Loss(
                        kind="candidate-dropped",
                        target="AG-UI",
                        reason="a turn is one assistant message; only candidate 0 is decoded",
                    )
                    self.losses.append(loss)
                    announce([loss])
                continue
            content = cand.get("content")
            if content is not None:
                parts = get(obj_at(content, f"{where}.content"), "parts")
                for p, part in enumerate(list_at(parts, f"{where}.content.parts")):
                    out.extend(
                        self._part(
                            obj_at(part, f"{where}.content.parts[{p}]"),
                            f"{where}.content.parts[{p}]",
                        )
                    )
            grounding = get(cand, "groundingMetadata")
            if grounding is not None:
                at = f"{where}.groundingMetadata"
                obj_at(grounding, at)
                list_at(get(grounding, "webSearchQueries"), f"{at}.webSearchQueries")
                list_at(get(grounding, "groundingChunks"), f"{at}.groundingChunks")
                self._grounding = grounding
            finish = str_at(get(cand, "finishReason"), f"{where}.finishReason")
            if finish is not None:
                self.finish_reason = finish
                msg = get(cand, "finishMessage")
                self.finish_message = msg if isinstance(msg, str) else None
        return out

    def _part(self, part: dict[str, Any], where: str) -> list[BaseEvent]:
        sig = b64_signature(get(part, "thoughtSignature"), f"{where}.thoughtSignature")
        if self._streamed is not None and not has(part, "functionCall"):
            raise VendorDataError(
                VENDOR,
                where,
                f"call {self._streamed.call_id!r} is still streaming its "
                "arguments, but this part is not a functionCall",
            )
        if has(part, "functionCall"):
            return self._function_call(
                obj_at(get(part, "functionCall"), f"{where}.functionCall"), sig, where
            )
        if "text" in part:
            text = str_at(part["text"], f"{where}.text", optional=False) or ""
            if part.get("thought") is True:
                return self._thought(text, sig)
            return self._text(text, sig)
        if has(part, "executableCode"):
            return self._executable_code(
                obj_at(get(part, "executableCode"), f"{where}.executableCode"), sig, where
            )
        if has(part, "codeExecutionResult"):
            return self._code_result(
                obj_at(get(part, "codeExecutionResult"), f"{where}.codeExecutionResult"), where
            )
        if has(part, "toolCall"):
            return self._server_call(obj_at(get(part, "toolCall"), f"{where}.toolCall"), sig, where)
        if has(part, "toolResponse"):
            return self._server_result(
                obj_at(get(part, "toolResponse"), f"{where}.toolResponse"), where
            )
        if has(part, "inlineData") or has(part, "fileData"):
            loss = Loss(
                kind="model-media-dropped",
                target="AG-UI",
                reason="an assistant message holds text only; media the model generated "
                "inside its answer has no place in the stream",
            )
            self.losses.append(loss)
            announce([loss])
            return []
        if sig is not None:
            return self._text("", sig)
        return []  # a part kind this adapter does not know: skipped

    # ------------------------------------------------------------- text parts

    def _text(self, text: str, sig: str | None) -> list[BaseEvent]:
        out = self._end_reasoning()
        mid = self._mid()
        if text:
            if not self._text_open:
                out.append(TextMessageStartEvent(message_id=mid, role="assistant"))
                self._text_open = True
            out.append(TextMessageContentEvent(message_id=mid, delta=text))
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

    def _new_call_id(self, given: Any, prefix: str) -> str:
        self._calls += 1
        if isinstance(given, str) and given:
            cid = self._ids.assign(given, self.known_call_ids)  # a repeated id stays apart
            self._given[cid] = given
            return cid
        return mint_id(prefix, self._mid(), self._calls)

    def _answers(self, given: Any, last: str | None) -> Any:
        """The call a result with the vendor's id ``given`` answers (else the last one)."""
        if isinstance(given, str) and given:
            return self._ids.answer(given) or given
        return last

    def _start(
        self, call_id: str, name: str, sig: str | None, metadata: dict[str, Any] | None = None
    ) -> list[BaseEvent]:
        metadata = {
            **(metadata or {}),
            **self._ids.metadata(call_id, self._given.get(call_id, call_id)),
        }
        kw: dict[str, Any] = {"metadata": metadata} if metadata else {}
        out: list[BaseEvent] = [
            ToolCallStartEvent(
                tool_call_id=call_id, tool_call_name=name, parent_message_id=self._mid(), **kw
            )
        ]
        if sig is not None:
            out.append(encrypted_value_event("tool-call", call_id, sig, PROVIDER))
        return out

    def _function_call(self, fc: dict[str, Any], sig: str | None, where: str) -> list[BaseEvent]:
        name = get(fc, "name")
        given = get(fc, "id")
        pieces = list_at(get(fc, "partialArgs"), f"{where}.functionCall.partialArgs")
        cont = get(fc, "willContinue") is True
        if name is not None:
            str_at(name, f"{where}.functionCall.name")
        if given is not None:
            str_at(given, f"{where}.functionCall.id")
        out: list[BaseEvent] = []
        streamed = self._streamed
        if streamed is not None:
            if (name is not None and name != streamed.name) or (
                given is not None and streamed.given_id is not None and given != streamed.given_id
            ):
                raise VendorDataError(
                    VENDOR,
                    f"{where}.functionCall",
                    f"a new call began while {streamed.call_id!r} was still streaming",
                )
        else:
            if not name:
                raise VendorDataError(VENDOR, f"{where}.functionCall.name", "missing")
            out.extend(self._end_open())
            call_id = self._new_call_id(given, "gemini_call")
            out.extend(self._start(call_id, name, sig))
            if not cont and not pieces:
                args = get(fc, "args")
                if args is not None:
                    obj_at(args, f"{where}.functionCall.args")
                text = json_text(args if args is not None else {}, f"{where}.functionCall.args")
                out.append(ToolCallArgsEvent(tool_call_id=call_id, delta=text))
                out.append(ToolCallEndEvent(tool_call_id=call_id))
                return out
            streamed = self._streamed = _Streamed(call_id, name, given)
            sig = None
        if sig is not None:
            out.append(encrypted_value_event("tool-call", streamed.call_id, sig, PROVIDER))
        for k, piece in enumerate(pieces):
            at = f"{where}.functionCall.partialArgs[{k}]"
            delta = streamed.writer.piece(obj_at(piece, at), at)
            if delta:
                out.append(ToolCallArgsEvent(tool_call_id=streamed.call_id, delta=delta))
        if not cont:
            out.append(
                ToolCallArgsEvent(tool_call_id=streamed.call_id, delta=streamed.writer.finish())
            )
            out.append(ToolCallEndEvent(tool_call_id=streamed.call_id))
            self._streamed = None
        return out

    def _executable_code(
        self, code: dict[str, Any], sig: str | None, where: str
    ) -> list[BaseEvent]:
        out = self._end_open()
        call_id = self._new_call_id(get(code, "id"), "gemini_code")
        self._last_code_call = call_id
        out.extend(self._start(call_id, CODE_EXECUTION, sig, {PART_KEY: "executableCode"}))
        args: dict[str, Any] = {}
        for key in ("language", "code"):
            value = str_at(get(code, key), f"{where}.executableCode.{key}")
            if value is not None:
                args[key] = value
        out.append(ToolCallArgsEvent(tool_call_id=call_id, delta=dumps_compact(args)))
        out.append(ToolCallEndEvent(tool_call_id=call_id))
        return out

    def _code_result(self, result: dict[str, Any], where: str) -> list[BaseEvent]:
        call_id = self._answers(get(result, "id"), self._last_code_call)
        if not isinstance(call_id, str):
            raise VendorDataError(
                VENDOR, f"{where}.codeExecutionResult", "a result with no executableCode before it"
            )
        outcome = str_at(get(result, "outcome"), f"{where}.codeExecutionResult.outcome")
        output = str_at(get(result, "output"), f"{where}.codeExecutionResult.output") or ""
        meta: dict[str, Any] = {PART_KEY: "codeExecutionResult"}
        if outcome is not None:
            meta[OUTCOME_KEY] = outcome
        if outcome not in (None, "OUTCOME_OK"):
            # the error, and the content too when there is no output (docs/decisions.md)
            output = meta[RESULT_ERROR_KEY] = output or str(outcome)
        out = self._end_open()
        out.append(
            ToolCallResultEvent(
                message_id=mint_id("gemini_result", call_id),
                tool_call_id=call_id,
                content=str(output),
                role="tool",
                metadata=meta,
            )
        )
        return out

    def _server_call(self, call: dict[str, Any], sig: str | None, where: str) -> list[BaseEvent]:
        args = get(call, "args")
        if args is not None:
            obj_at(args, f"{where}.toolCall.args")
        out = self._end_open()
        call_id = self._new_call_id(get(call, "id"), "gemini_tool")
        self._last_server_call = call_id
        tool_type = get(call, "toolType")
        meta: dict[str, Any] = {PART_KEY: "toolCall"}
        if tool_type is not None:
            meta[TOOL_TYPE_KEY] = tool_type
        name = str(tool_type).lower() if tool_type else "server_tool"
        out.extend(self._start(call_id, name, sig, meta))
        out.append(
            ToolCallArgsEvent(
                tool_call_id=call_id, delta=json_text(args or {}, f"{where}.toolCall.args")
            )
        )
        out.append(ToolCallEndEvent(tool_call_id=call_id))
        return out

    def _server_result(self, resp: dict[str, Any], where: str) -> list[BaseEvent]:
        call_id = self._answers(get(resp, "id"), self._last_server_call)
        if not isinstance(call_id, str):
            raise VendorDataError(VENDOR, f"{where}.toolResponse", "answers no toolCall")
        response = get(resp, "response")
        if response is not None:
            obj_at(response, f"{where}.toolResponse.response")
        out = self._end_open()
        out.append(
            ToolCallResultEvent(
                message_id=mint_id("gemini_result", call_id),
                tool_call_id=call_id,
                content=json_text(response or {}, f"{where}.toolResponse.response"),
                role="tool",
                metadata={PART_KEY: "toolResponse"},
            )
        )
        return out

    # ------------------------------------------------------------------ close

    def _close(self) -> list[BaseEvent]:
        if self._usage_meta is not None:
            self.usage = [to_token_usage(self._usage_meta, self.model)]
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
        reason = map_gemini_stop_reason(self.finish_reason, made_calls=made_calls)
        self.run_metadata[FINISH_REASON_KEY] = reason
        self.error_metadata[FINISH_REASON_KEY] = reason
        if self.finish_reason not in NORMAL_FINISH:
            raise VendorStreamError(
                VENDOR,
                self.finish_reason,
                self.finish_message or f"Gemini ended the turn with {self.finish_reason}",
            )
        self.run_metadata[FINISH_KEY] = self.finish_reason
        self.error_metadata.pop(FINISH_REASON_KEY, None)  # a normal end: no error
        out = self._end_reasoning()
        if self._text_open:
            self._text_open = False
            kw: dict[str, Any] = {}
            if self.finish_reason != "STOP":
                kw["metadata"] = {FINISH_KEY: self.finish_reason}
            out.append(TextMessageEndEvent(message_id=self._mid(), **kw))
        if self._grounding is not None:
            out.extend(self._grounding_events(self._grounding))
        return out

    def _grounding_events(self, grounding: dict[str, Any]) -> list[BaseEvent]:
        """Search grounding as a vendor-executed ``google_search`` call and its result."""
        call_id = mint_id("gemini_search", self._mid())
        queries = get(grounding, "webSearchQueries") or []
        out = self._start(call_id, GOOGLE_SEARCH, None, {PART_KEY: "groundingMetadata"})
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
                message_id=mint_id("gemini_result", call_id),
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


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """A ``streamGenerateContent?alt=sse`` body (whole, or its pieces) as chunk dicts.

    Like google-genai: a last event without its blank line still counts, and
    lines that are not ``data:`` lines are a JSON error body the server wrote
    into the stream (yielded last, as the ``{"error": ...}`` chunk it is). A body
    that is plain JSON (an error, or a JSON-array stream) is read as such. Pieces
    are read incrementally (:func:`iter_chunks`).
    """
    if isinstance(body, str):
        body = body.encode("utf-8")
    if not isinstance(body, bytes):
        yield from iter_chunks(p.encode("utf-8") if isinstance(p, str) else p for p in body)
        return
    if is_json_array(body[:64]):  # streamGenerateContent without alt=sse
        yield from json_array_chunks([body])
        return
    stripped = body.lstrip()
    if stripped[:1] in (b"{", b"["):
        try:
            whole = load_json(stripped, VENDOR, "body")
        except ValueError:
            whole = None
        if isinstance(whole, dict):
            yield whole
            return
        if isinstance(whole, list):
            for n, item in enumerate(whole):
                yield obj_at(item, f"body[{n}]")
            return
    for _event, value in sse_json_objects(body, VENDOR, flush_incomplete=True):
        yield value
    raw = [
        line
        for line in decode_utf8(body, VENDOR, "body").splitlines()
        if line.strip() and not line.startswith(("data:", ":", "event:", "id:", "retry:"))
    ]
    if raw:
        try:
            value = load_json("\n".join(raw), VENDOR, "body (text outside data: lines)")
        except ValueError as exc:
            raise VendorDataError(VENDOR, "body", f"text outside data: lines: {exc}") from None
        yield obj_at(value, "body (text outside data: lines)")


def iter_chunks(pieces: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """Chunk dicts from a streamed body arriving in any pieces, either framing.

    ``alt=sse`` gives SSE; without it Gemini streams one JSON array. The first byte
    that is not white space tells which; both are read incrementally.
    """
    it = iter(pieces)
    head: list[bytes] = []
    for piece in it:
        head.append(piece)
        if piece.strip():
            break
    rest = itertools.chain(head, it)
    if is_json_array(b"".join(head)):
        yield from json_array_chunks(rest)
        return
    raw = _RawLines()
    for _event, value in sse_json_objects(map(raw.see, rest), VENDOR, flush_incomplete=True):
        yield value
    text = raw.text()
    if text.strip():  # as sse_chunks: an error body the server wrote into the stream
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise VendorDataError(VENDOR, "body", f"text outside data: lines: {exc}") from None
        yield obj_at(value, "body (text outside data: lines)")


class _RawLines:
    """Keeps the lines of an SSE body that are no SSE field (and only those) as they pass.

    A line is told by its first bytes; a ``data:`` line is never held, so memory stays
    bounded by the error text a server wrote into the stream.
    """

    _FIELDS = (b"data:", b":", b"event:", b"id:", b"retry:")

    def __init__(self) -> None:
        self._kept: list[bytes] = []
        self._pending = b""  # the start of the current line, until it says what it is
        self._raw: bool | None = None  # whether the current line is kept

    def see(self, piece: bytes) -> bytes:
        at = 0
        while at <= len(piece):
            end = piece.find(b"\n", at)
            stop = len(piece) if end < 0 else end
            self._part(piece[at:stop], complete=end >= 0)
            if end < 0:
                break
            at = end + 1
        return piece

    def _part(self, part: bytes, *, complete: bool) -> None:
        if self._raw is None:
            self._pending += part
            if len(self._pending) < 7 and not complete:
                return
            line, self._pending = self._pending, b""
            self._raw = not line.startswith(self._FIELDS)
            part = line
        if self._raw:
            self._kept.append(part)
        if complete:
            if self._raw:
                self._kept.append(b"\n")
            self._raw = None

    def text(self) -> str:
        if self._raw is None and not self._pending.startswith(self._FIELDS):
            self._kept.append(self._pending)  # a short last line without its line end
        return b"".join(self._kept).decode("utf-8", errors="replace")


def is_streamed(exchange: Exchange) -> bool:
    """A recorded body in the JSON-array framing is a stream, though its type says JSON."""
    return is_json_array(exchange.response_body[:64])


def is_model_exchange(exchange: Exchange) -> bool:
    """A recorded ``generateContent``/``streamGenerateContent`` call (:data:`MODEL_ROUTE`)."""
    return MODEL_ROUTE.admits(exchange)


__all__ = [
    "Decoder",
    "is_model_exchange",
    "is_streamed",
    "iter_chunks",
    "sse_chunks",
]
