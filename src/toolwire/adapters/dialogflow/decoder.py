"""Dialogflow responses -> AG-UI events (:class:`Decoder`).

Decoder chunks are proto3 JSON objects (or the SDK's messages) of any of:

* a bare ``ToolCallInfo`` ``{toolCall, toolCallResult}``, or a ``ToolCallSuggestion``
  ``{toolCallInfo, textUpdate}``;
* a ``GeneratorSuggestion`` ``{toolCallInfo: [...], freeFormSuggestion}``,
  ``GenerateSuggestionsResponse``, ``GenerateStatelessSuggestionResponse``,
  ``AnalyzeContentResponse`` (its suggestion results), ``SuggestionResult``,
  ``GenerateCompanionSuggestionsResponse``;
* a streamed ``StreamingReactiveCompanionSuggestionsResponse`` (``responseChunk``,
  ``intermediateToolCallEvents``, ``reactiveModeFinalResponse``, ``status``,
  ``isFinal``, ``textMessageId``).

Dialogflow never streams arguments: each call is one START, one ARGS with the
``inputParameters`` as JSON text, END, then its ``TOOL_CALL_RESULT`` when the
result is there. A call seen again in a later chunk (matched by answer record,
else by its content) only adds the result it did not have yet. A call left in
``NEEDS_CONFIRMATION`` without a result becomes an ``Interrupt`` on
``decoder.interrupts``, which ends the run with the interrupt outcome.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    ActivitySnapshotEvent,
    BaseEvent,
    Interrupt,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.adapters.dialogflow.wire import map_stop_reason
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import Loss, UnrecognizedMaterialWarning
from toolwire.protocol.callids import CallIds
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.jsontext import load_json

from .parts import (
    CallIn,
    read_call,
    read_result,
    synthesized_call,
)
from .wire import (
    CONFIRMATION_REASON,
    CONFIRMATION_SCHEMA,
    FIELDS,
    META_KEY,
    NEEDS_CONFIRMATION,
    REACTIVE_KEYS,
    RPC_CODES,
    TEXT_UPDATE_ACTIVITY,
    VENDOR,
    enum_name,
    from_sdk,
)

#: ``GeneratorSuggestion`` / ``SuggestionResult`` fields with no AG-UI event (summaries,
#: coaching, articles, FAQ answers, smart replies): announced as a loss when present
_UNREAD_GENERATOR = ("summarySuggestion", "agentCoachingSuggestion")
_UNREAD_RESULT = (
    "suggestArticlesResponse",
    "suggestKnowledgeAssistResponse",
    "suggestFaqAnswersResponse",
    "suggestSmartRepliesResponse",
)


@dataclass
class _Seen:
    call_id: str
    name: str
    arguments: str
    state: str | None
    meta: dict[str, Any]


@dataclass
class _Item:
    """One ``ToolCallInfo`` of a list, with its place for error messages."""

    info: dict[str, Any]
    where: str
    text_update: str | None = None


class Decoder(BaseDecoder):
    """Sans-I/O decoder of Dialogflow responses (see the module docstring).

    ``id_seed`` salts minted ids; pass the run or thread name when several
    recordings without answer records share one thread. ``prior_call_ids`` are
    calls an earlier run of the thread already emitted (e.g. the call a
    confirmation resumed): met again, only their result is emitted.
    """

    vendor = VENDOR

    def __init__(self, *, id_seed: str = "", prior_call_ids: Iterable[str] = ()) -> None:
        super().__init__()
        self._seed = id_seed
        self._seen: dict[str, _Seen] = {}  # emitted calls still waiting for their result
        self._answered: set[str] = set()  # answered calls: only their id is kept
        #: calls by answer record: (AG-UI id, name, argument text); a second, different
        #: call under one record is a call of its own (CallIds mints its id), never merged
        self._records: dict[str, list[tuple[str, str, str]]] = {}
        self._ids = CallIds(VENDOR)
        self._prior = set(prior_call_ids)
        self._activities: set[str] = set()
        self._parent: str | None = None
        self._text: str | None = None
        self._texts = 0
        self._streamed = False
        self._final = False
        self._streamed_text = False
        self._deferred: VendorStreamError | None = None

    # ----------------------------------------------------------------- entry

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """One chunk (JSON dict or SDK message) -> AG-UI events."""
        return super().feed(from_sdk(chunk))  # base feed checks the dict (as_dict) once

    def feed_response(self, response: Any) -> list[BaseEvent]:
        """A whole response (one chunk) or a list of chunks -> events."""
        items = response if isinstance(response, list) else [response]
        return [ev for item in items for ev in self.feed(item)]

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        where = f"chunk {self.chunk_index}"
        out: list[BaseEvent] = []
        if "toolCall" in chunk or "toolCallResult" in chunk:
            self._calls(out, [_Item(chunk, where)], anchor=("info", where))
        elif isinstance(chunk.get("toolCallInfo"), dict) or "textUpdate" in chunk:
            self._suggestions(out, [chunk], where, anchor=("suggestion", where), indexed=False)
        elif any(k in chunk for k in REACTIVE_KEYS):
            self._reactive(out, chunk, where)
        elif "generatorSuggestionAnswers" in chunk or "latestMessage" in chunk:
            self._generate_response(out, chunk, where)
        elif "generatorSuggestion" in chunk:
            gs = FIELDS.opt_obj(chunk["generatorSuggestion"], f"{where}.generatorSuggestion")
            if gs is not None:
                self._generator(out, gs, f"{where}.generatorSuggestion", (where,))
        elif any(
            k in chunk
            for k in (
                "humanAgentSuggestionResults",
                "endUserSuggestionResults",
                "replyText",
                "automatedAgentReply",
                "message",
            )
        ):
            self._analyze(out, chunk, where)
        elif "companionSuggestion" in chunk:
            self._companion(out, chunk, where)
        elif isinstance(chunk.get("toolCallInfo"), list) or "freeFormSuggestion" in chunk:
            self._generator(out, chunk, where, (where,))
        elif "generateSuggestionsResponse" in chunk or "error" in chunk:
            self._suggestion_result(out, chunk, where)
        else:
            keys = ", ".join(sorted(chunk)) or "(none)"
            warnings.warn(
                f"toolwire: {where}: not a Dialogflow response this decoder knows "
                f"(keys: {keys}); skipped",
                UnrecognizedMaterialWarning,
                stacklevel=3,
            )
        return out

    def _close(self) -> list[BaseEvent]:
        if self._deferred is not None:
            raise self._deferred
        if self.chunk_index < 0:
            raise TruncatedStream(VENDOR, "the stream ended before its first response")
        if self._streamed and not self._final:
            raise TruncatedStream(
                VENDOR, "the reactive stream ended without isFinal or a status response"
            )
        out: list[BaseEvent] = []
        self._end_text(out)
        for seen in self._seen.values():
            if seen.state == NEEDS_CONFIRMATION:
                self.interrupts.append(self._interrupt(seen))
        self.run_metadata[FINISH_REASON_KEY] = map_stop_reason(
            confirming=bool(self.interrupts), calls_open=bool(self._seen)
        )
        return out

    # ---------------------------------------------------------- response kinds

    def _generate_response(self, out: list[BaseEvent], chunk: dict[str, Any], where: str) -> None:
        latest = FIELDS.opt_text(chunk.get("latestMessage"), f"{where}.latestMessage") or ""
        answers = FIELDS.lst(
            chunk.get("generatorSuggestionAnswers"), f"{where}.generatorSuggestionAnswers"
        )
        for i, raw in enumerate(answers):
            at = f"{where}.generatorSuggestionAnswers[{i}]"
            answer = FIELDS.obj(raw, at)
            record = FIELDS.opt_text(answer.get("answerRecord"), f"{at}.answerRecord")
            gs = FIELDS.opt_obj(answer.get("generatorSuggestion"), f"{at}.generatorSuggestion")
            if gs is not None:
                anchor = (record,) if record else (latest, i, where)
                self._generator(out, gs, f"{at}.generatorSuggestion", anchor)

    def _generator(
        self, out: list[BaseEvent], gs: dict[str, Any], where: str, anchor: tuple[Any, ...]
    ) -> None:
        infos = FIELDS.lst(gs.get("toolCallInfo"), f"{where}.toolCallInfo")
        items = [
            _Item(FIELDS.obj(x, f"{where}.toolCallInfo[{i}]"), f"{where}.toolCallInfo[{i}]")
            for i, x in enumerate(infos)
        ]
        self._calls(out, items, anchor=anchor)
        self._unread(gs, _UNREAD_GENERATOR, where)
        free = FIELDS.opt_obj(gs.get("freeFormSuggestion"), f"{where}.freeFormSuggestion")
        if free is not None:
            text = FIELDS.opt_text(free.get("response"), f"{where}.freeFormSuggestion.response")
            if text:
                self._whole_text(out, text, (*anchor, text))

    def _analyze(self, out: list[BaseEvent], chunk: dict[str, Any], where: str) -> None:
        reply = FIELDS.opt_text(chunk.get("replyText"), f"{where}.replyText")
        if reply:
            message = FIELDS.opt_obj(chunk.get("message"), f"{where}.message") or {}
            name = FIELDS.opt_text(message.get("name"), f"{where}.message.name") or ""
            self._whole_text(out, reply, (name, "replyText", reply))
        for key in ("humanAgentSuggestionResults", "endUserSuggestionResults"):
            for i, raw in enumerate(FIELDS.lst(chunk.get(key), f"{where}.{key}")):
                result = FIELDS.obj(raw, f"{where}.{key}[{i}]")
                self._suggestion_result(out, result, f"{where}.{key}[{i}]")

    def _unread(self, obj: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
        """A loss naming the suggestions of ``keys`` that ``obj`` holds: kinds of Agent Assist
        output that are not tool calls, text or errors, and so have no AG-UI event."""
        held = [k for k in keys if obj.get(k)]
        if held:
            self.losses.append(
                Loss(
                    kind="suggestion-dropped",
                    target="AG-UI",
                    reason=f"{where}: {', '.join(held)} has no AG-UI event",
                )
            )

    def _suggestion_result(self, out: list[BaseEvent], result: dict[str, Any], where: str) -> None:
        self._unread(result, _UNREAD_RESULT, where)
        error = FIELDS.opt_obj(result.get("error"), f"{where}.error")
        if error is not None:
            code = enum_name(error.get("code", 0), RPC_CODES, f"{where}.error.code") or "UNKNOWN"
            message = FIELDS.opt_text(error.get("message"), f"{where}.error.message") or ""
            if self._deferred is None:
                # Other features of the same response still decode; the run then errors.
                self._deferred = VendorStreamError(VENDOR, code, f"{where}: {message}")
            return
        gen = FIELDS.opt_obj(
            result.get("generateSuggestionsResponse"), f"{where}.generateSuggestionsResponse"
        )
        if gen is not None:
            self._generate_response(out, gen, f"{where}.generateSuggestionsResponse")
        comp = FIELDS.opt_obj(
            result.get("generateCompanionSuggestionsResponse"),
            f"{where}.generateCompanionSuggestionsResponse",
        )
        if comp is not None:
            self._companion(out, comp, f"{where}.generateCompanionSuggestionsResponse")

    def _companion(self, out: list[BaseEvent], chunk: dict[str, Any], where: str) -> None:
        record = FIELDS.opt_text(chunk.get("answerRecord"), f"{where}.answerRecord") or where
        cs = FIELDS.opt_obj(chunk.get("companionSuggestion"), f"{where}.companionSuggestion")
        if cs is None:
            return
        for i, raw in enumerate(
            FIELDS.lst(cs.get("guidances"), f"{where}.companionSuggestion.guidances")
        ):
            at = f"{where}.companionSuggestion.guidances[{i}]"
            guidance = FIELDS.obj(raw, at)
            calls = FIELDS.lst(guidance.get("toolCalls"), f"{at}.toolCalls")
            self._suggestions(out, calls, f"{at}.toolCalls", anchor=(record, i))

    def _reactive(self, out: list[BaseEvent], chunk: dict[str, Any], where: str) -> None:
        self._streamed = True
        turn = FIELDS.opt_text(chunk.get("textMessageId"), f"{where}.textMessageId") or ""
        text = FIELDS.opt_text(chunk.get("responseChunk"), f"{where}.responseChunk")
        if text:
            self._streamed_text = True
            self._delta(out, text, (turn,))
        events = FIELDS.opt_obj(
            chunk.get("intermediateToolCallEvents"), f"{where}.intermediateToolCallEvents"
        )
        if events is not None:
            at = f"{where}.intermediateToolCallEvents.toolCallSuggestions"
            self._suggestions(
                out, FIELDS.lst(events.get("toolCallSuggestions"), at), at, anchor=(turn,)
            )
        final = FIELDS.opt_obj(
            chunk.get("reactiveModeFinalResponse"), f"{where}.reactiveModeFinalResponse"
        )
        if final is not None:
            at = f"{where}.reactiveModeFinalResponse"
            self._suggestions(
                out,
                FIELDS.lst(final.get("toolCalls"), f"{at}.toolCalls"),
                f"{at}.toolCalls",
                anchor=(turn,),
            )
            response = FIELDS.opt_text(final.get("response"), f"{at}.response")
            if response and not self._streamed_text:
                self._delta(out, response, (turn,))
        status = FIELDS.opt_obj(chunk.get("status"), f"{where}.status")
        if status is not None:
            code = enum_name(status.get("code", 0), RPC_CODES, f"{where}.status.code") or "OK"
            if code == "CANCELLED":
                # the answer to cancel_reactive_query: the run ends cancelled (close() closes
                # what is open), neither an error nor a success
                self.cancelled = True
            elif code != "OK":
                message = FIELDS.opt_text(status.get("message"), f"{where}.status.message") or ""
                raise VendorStreamError(VENDOR, code, message, retryable=code == "UNAVAILABLE")
            self._final = True
        if chunk.get("isFinal") is True:
            self._final = True

    # ------------------------------------------------------------------ pieces

    def _suggestions(
        self,
        out: list[BaseEvent],
        raws: list[Any],
        where: str,
        *,
        anchor: tuple[Any, ...],
        indexed: bool = True,
    ) -> None:
        items: list[_Item] = []
        for i, raw in enumerate(raws):
            at = f"{where}[{i}]" if indexed else where
            sug = FIELDS.obj(raw, at)
            info = FIELDS.opt_obj(sug.get("toolCallInfo"), f"{at}.toolCallInfo")
            update = FIELDS.opt_text(sug.get("textUpdate"), f"{at}.textUpdate")
            if info is None:
                if update:
                    self._activity(out, update, None)
                continue
            items.append(_Item(info, f"{at}.toolCallInfo", update or None))
        self._calls(out, items, anchor=anchor)

    def _calls(self, out: list[BaseEvent], items: list[_Item], *, anchor: tuple[Any, ...]) -> None:
        """Emit the new calls of a list (one assistant message), then the new results."""
        if not items:
            return
        occurrences: dict[str, int] = {}
        pending: list[tuple[_Seen, dict[str, Any], str]] = []
        updates: list[tuple[str, str]] = []
        for item in items:
            tc = FIELDS.opt_obj(item.info.get("toolCall"), f"{item.where}.toolCall")
            res = FIELDS.opt_obj(item.info.get("toolCallResult"), f"{item.where}.toolCallResult")
            if tc is None and res is None:
                raise VendorDataError(VENDOR, item.where, "neither toolCall nor toolCallResult")
            call = (
                read_call(tc, f"{item.where}.toolCall")
                if tc is not None
                else synthesized_call(res or {}, f"{item.where}.toolCallResult")
            )
            call_id = self._call_id(call, anchor, occurrences)
            if item.text_update:
                updates.append((item.text_update, call_id))
            if call_id in self._answered:
                continue
            seen = self._seen.get(call_id)
            if seen is None:
                seen = _Seen(call_id, call.name, call.arguments, call.state, call.meta)
                self._seen[call_id] = seen
                if call_id not in self._prior and call_id not in self.known_call_ids:
                    self._end_text(out)
                    parent = self._parent or mint_id("msg", self._seed, call_id)
                    self._parent = parent
                    self._emit_call(out, seen, parent, call.timestamp)
            elif tc is not None and call.state is not None:
                seen.state = call.state
            if res is not None:
                del self._seen[call_id]
                self._answered.add(call_id)
                pending.append((seen, res, f"{item.where}.toolCallResult"))
        for text, call_id in updates:
            self._activity(out, text, call_id)
        if pending:
            self._end_text(out)
        for seen, res, where in pending:
            result = read_result(res, where)
            kw: dict[str, Any] = {}
            if result.timestamp is not None:
                kw["timestamp"] = result.timestamp
            out.append(
                ToolCallResultEvent(
                    message_id=result_message_id(seen.call_id),
                    tool_call_id=seen.call_id,
                    content=result.content,
                    role="tool",
                    metadata=result.metadata,
                    **kw,
                )
            )
        if pending:
            self._parent = None  # calls made after results belong to a new message

    def _call_id(self, call: CallIn, anchor: tuple[Any, ...], occ: dict[str, int]) -> str:
        if call.answer_record:
            return self._record_call(call)
        n = occ.get(call.fingerprint, 0)
        occ[call.fingerprint] = n + 1
        call.meta["idMinted"] = True
        return mint_id("call", self._seed, *anchor, call.fingerprint, n)

    def _record_call(self, call: CallIn) -> str:
        """The AG-UI id of a call named by its answer record.

        The same call restated (same tool, same or absent arguments) keeps its id; a
        different call sharing the record gets a minted one; a result with no call
        answers the record's first call still open.
        """
        record = call.answer_record or ""
        calls = self._records.setdefault(record, [])
        if call.meta.get("synthesized"):
            open_ = [cid for cid, _, _ in calls if cid not in self._answered]
            return open_[0] if open_ else (calls[-1][0] if calls else record)
        args = call.arguments
        for cid, name, known in calls:
            if name == call.name and (args == known or not args or not known):
                return cid
        cid = self._ids.assign(record)
        calls.append((cid, call.name, args))
        return cid

    def _emit_call(
        self, out: list[BaseEvent], seen: _Seen, parent: str, timestamp: int | None
    ) -> None:
        kw: dict[str, Any] = {"timestamp": timestamp} if timestamp is not None else {}
        record = seen.meta.get("answerRecord")
        shared = self._ids.metadata(seen.call_id, record) if isinstance(record, str) else {}
        out.append(
            ToolCallStartEvent(
                tool_call_id=seen.call_id,
                tool_call_name=seen.name,
                parent_message_id=parent,
                metadata={META_KEY: seen.meta, **shared},
                **kw,
            )
        )
        if seen.arguments:
            out.append(ToolCallArgsEvent(tool_call_id=seen.call_id, delta=seen.arguments))
        out.append(ToolCallEndEvent(tool_call_id=seen.call_id))

    def _activity(self, out: list[BaseEvent], text: str, call_id: str | None) -> None:
        """A ``textUpdate`` progress note: an activity, not conversation text (once each)."""
        mid = mint_id("activity", self._seed, call_id or "", text)
        if mid in self._activities:
            return
        self._activities.add(mid)
        content: dict[str, Any] = {"text": text}
        if call_id is not None:
            content["toolCallId"] = call_id
        out.append(
            ActivitySnapshotEvent(
                message_id=mid, activity_type=TEXT_UPDATE_ACTIVITY, content=content
            )
        )

    def _delta(self, out: list[BaseEvent], text: str, anchor: tuple[Any, ...]) -> None:
        if self._text is None:
            self._text = mint_id("msg", self._seed, *anchor, "text", self._texts)
            self._texts += 1
            self._parent = self._text  # calls after this text belong to its message
            out.append(TextMessageStartEvent(message_id=self._text, role="assistant"))
        out.append(TextMessageContentEvent(message_id=self._text, delta=text))

    def _whole_text(self, out: list[BaseEvent], text: str, anchor: tuple[Any, ...]) -> None:
        self._delta(out, text, anchor)
        self._end_text(out)
        self._parent = None

    def _end_text(self, out: list[BaseEvent]) -> None:
        if self._text is not None:
            out.append(TextMessageEndEvent(message_id=self._text))
            self._text = None

    def _interrupt(self, seen: _Seen) -> Interrupt:
        meta = dict(seen.meta)
        meta["action"] = seen.name
        if seen.arguments:
            meta["inputParameters"] = load_json(
                seen.arguments, VENDOR, f"tool call {seen.call_id!r}: arguments"
            )
        kw: dict[str, Any] = {}
        details = seen.meta.get("toolDisplayDetails")
        if isinstance(details, str) and details:
            kw["message"] = details
        return Interrupt(
            id=seen.call_id,  # the answer record, or the minted id of a call without one
            reason=CONFIRMATION_REASON,
            tool_call_id=seen.call_id,
            response_schema=CONFIRMATION_SCHEMA,
            metadata={META_KEY: meta},
            **kw,
        )


__all__ = ["Decoder"]
