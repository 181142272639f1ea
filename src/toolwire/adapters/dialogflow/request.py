"""Requests and whole responses: ``SuggestionInput`` <-> resume entries, history -> ToolCallInfo.

Dialogflow keeps the conversation on its side, so the only tool-call material
a client sends is the answer to a confirmation: ``SuggestionInput{answerRecord,
action, parameters, sendTime}``, on an ``AnalyzeContentRequest`` or a
``StreamingReactiveCompanionSuggestionsRequest``. :func:`encode_request` maps the
``resume`` entries of a ``RunAgentInput`` to such requests (and a trailing user
message to an ``AnalyzeContentRequest.textInput``); :func:`decode_request` maps
them back. :func:`encode_history` is the AG-UI history as a
``GeneratorSuggestion`` ``{toolCallInfo: [...]}`` (for a store, a few-shot
example, or a UI that renders ToolCallInfo).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    Interrupt,
    Message,
    ReasoningMessage,
    ResumeEntry,
    RunAgentInput,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.capabilities import accepts as capability
from toolwire.errors import UnsupportedInput, VendorDataError
from toolwire.losses import Loss, announce
from toolwire.protocol.arguments import parse_arguments_object
from toolwire.protocol.finite import from_text
from toolwire.protocol.fitting import Accepts, fit_content, flatten
from toolwire.protocol.ids import mint_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.pairing import pair_history
from toolwire.protocol.surface import (
    MEDIA_CHOICES,
    check_choice,
    checked_options,
    encode_surface,
    request_ids,
)

from .parts import TARGET, encode_call, encode_result
from .wire import ACTIONS, FIELDS, META_KEY, VENDOR, enum_name, to_json_dict

_SENDABLE = ("CONFIRM", "REVISE", "CANCEL", "ACTION_UNSPECIFIED")


def _calls(messages: Sequence[Message]) -> tuple[dict[str, ToolCall], dict[str, ToolCall]]:
    by_id: dict[str, ToolCall] = {}
    by_record: dict[str, ToolCall] = {}
    for m in messages:
        if isinstance(m, AssistantMessage):
            for c in m.tool_calls or []:
                by_id[c.id] = c
                df = (c.metadata or {}).get(META_KEY)
                if isinstance(df, dict) and isinstance(df.get("answerRecord"), str):
                    by_record[df["answerRecord"]] = c
    return by_id, by_record


def _params(value: Any, where: str) -> dict[str, Any]:
    if isinstance(value, str):
        parsed = from_text(parse_arguments_object(value))
        if parsed is None:
            raise UnsupportedInput(f"{where}: not a JSON object; SuggestionInput.parameters is one")
        return parsed
    if isinstance(value, dict):
        return value
    raise UnsupportedInput(f"{where}: expected a JSON object, got {type(value).__name__}")


def suggestion_input(
    entry: ResumeEntry,
    *,
    call: ToolCall | None = None,
    interrupt: Interrupt | None = None,
    send_time: str | None = None,
    where: str = "resume entry",
) -> dict[str, Any]:
    """One ``ResumeEntry`` answering a confirmation interrupt -> ``SuggestionInput`` JSON.

    The action comes from ``payload.action`` (``CONFIRM``/``REVISE``/``CANCEL``); a
    ``cancelled`` entry is always ``CANCEL`` and nothing is ever confirmed that the
    entry does not say. ``payload.parameters`` (or ``editedArgs``) are the
    parameters; without them, CONFIRM/REVISE resend the call's original
    ``inputParameters`` (Dialogflow would otherwise call the tool with none).
    The answer record is the call's, else the interrupt id (the decoder makes
    them the same).
    """
    df: dict[str, Any] = {}
    for source in (
        (call.metadata or {}).get(META_KEY) if call is not None else None,
        (interrupt.metadata or {}).get(META_KEY) if interrupt is not None else None,
    ):
        if isinstance(source, dict):
            df = {**source, **df}
    record = df.get("answerRecord")
    if not isinstance(record, str):
        if df.get("idMinted"):
            raise UnsupportedInput(
                f"{where}: the call {call.id if call else entry.interrupt_id!r} came without "
                "an answer record, so no SuggestionInput can address it"
            )
        record = entry.interrupt_id
    payload = entry.payload if entry.payload is not None else {}
    if not isinstance(payload, dict):
        raise UnsupportedInput(f"{where}.payload: expected an object with 'action'")
    if entry.status == "cancelled":
        action = "CANCEL"
    else:
        raw = payload.get("action")
        if raw is None:
            raise UnsupportedInput(
                f"{where}.payload.action: missing; say CONFIRM, REVISE or CANCEL "
                "(a call is never confirmed by default)"
            )
        action = enum_name(raw, ACTIONS, f"{where}.payload.action") or ""
        if action not in _SENDABLE:
            raise UnsupportedInput(
                f"{where}.payload.action: {raw!r} is not a SuggestionInput action"
            )
    params: dict[str, Any] | None = None
    for key in ("parameters", "editedArgs"):
        if payload.get(key) is not None:
            params = _params(payload[key], f"{where}.payload.{key}")
            break
    if params is None and action in ("CONFIRM", "REVISE"):
        original = call.function.arguments if call is not None else df.get("inputParameters")
        if not isinstance(original, str | dict):
            raise UnsupportedInput(
                f"{where}: {action} without parameters, and the call's original parameters "
                "are unknown (pass payload.parameters, or the call in messages)"
            )
        params = _params(original, f"{where}: the call's arguments")
    out: dict[str, Any] = {"answerRecord": record}
    if params is not None:
        out["parameters"] = params
    out["action"] = action
    entry_df = (entry.metadata or {}).get(META_KEY)
    stamp = entry_df.get("sendTime") if isinstance(entry_df, dict) else None
    stamp = stamp if isinstance(stamp, str) else send_time
    if stamp is not None:
        out["sendTime"] = stamp
    return out


@encode_surface(VENDOR)
def encode_request(
    run_input: RunAgentInput | dict[str, Any],
    *,
    model: str | None = None,
    media: str = "drop",
    losses: list[Loss] | None = None,
    interrupts: Sequence[Interrupt] | None = None,
    participant: str | None = None,
    send_time: str | None = None,
) -> dict[str, Any]:
    """``RunAgentInput`` resume entries -> ``{"requests": [{participant?, suggestionInput}]}``.

    Each element is the body of one ``AnalyzeContentRequest`` /
    ``StreamingReactiveCompanionSuggestionsRequest`` (Dialogflow takes one
    ``SuggestionInput`` per request). ``interrupts`` (the previous run's) and
    the calls in ``messages`` locate each entry's call; ``participant`` defaults
    to ``forwardedProps.dialogflow.participant``; ``send_time`` (RFC 3339) is
    added only when given, so the output is deterministic. A history that
    ends with a user message adds one more request, ``{participant?,
    textInput: {text, languageCode?}}`` (an ``AnalyzeContentRequest``: the
    participant's new turn, its text parts joined; Dialogflow keeps the rest
    of the conversation). ``model`` is accepted for the common adapter
    signature and unused; the user message is fitted with ``media="drop"``.
    """
    check_choice(media, MEDIA_CHOICES, option="media", where=f"{VENDOR}.encode_request")
    del model, media
    ri = as_run_input(run_input, VENDOR)
    # the calls are indexed only when there is a confirmation to address (a plain new turn
    # reads the last message alone)
    by_id, by_record = _calls(ri.messages) if ri.resume else ({}, {})
    by_interrupt = {i.id: i for i in interrupts or []}
    props = ri.forwarded_props if isinstance(ri.forwarded_props, dict) else {}
    df_props = props.get(META_KEY) if isinstance(props.get(META_KEY), dict) else {}
    who = participant or (df_props or {}).get("participant")
    requests: list[dict[str, Any]] = []
    for n, entry in enumerate(ri.resume or []):
        intr = by_interrupt.get(entry.interrupt_id)
        call = by_id.get(intr.tool_call_id) if intr and intr.tool_call_id else None
        call = call or by_record.get(entry.interrupt_id) or by_id.get(entry.interrupt_id)
        si = suggestion_input(
            entry, call=call, interrupt=intr, send_time=send_time, where=f"resume[{n}]"
        )
        req: dict[str, Any] = {}
        if isinstance(who, str):
            req["participant"] = who
        req["suggestionInput"] = si
        requests.append(req)
    found: list[Loss] = [] if losses is None else losses  # encode_surface's list
    last = ri.messages[-1] if ri.messages else None
    if isinstance(last, UserMessage):  # a new participant turn: AnalyzeContentRequest.textInput
        fitted = fit_content(last.content, capability(TARGET, place="user_message"))
        found.extend(fitted.losses)
        text, more = flatten(fitted.content, target=TARGET)
        found.extend(more)
        text_input: dict[str, Any] = {"text": text}
        df_meta = (last.metadata or {}).get(META_KEY)
        if isinstance(df_meta, dict) and isinstance(df_meta.get("languageCode"), str):
            text_input["languageCode"] = df_meta["languageCode"]
        req = {"participant": who} if isinstance(who, str) else {}
        req["textInput"] = text_input
        requests.append(req)
    elif not ri.resume and any(
        isinstance(m, AssistantMessage) and m.tool_calls for m in ri.messages
    ):
        found.append(
            Loss(
                kind="history-not-sent",
                target=TARGET,
                reason="Dialogflow keeps the conversation server-side; a request carries only "
                "SuggestionInputs (use encode_history for the calls as ToolCallInfo)",
            )
        )
    return {"requests": requests}


@checked_options(VENDOR)
def decode_request(
    body: Any, *, thread_id: str | None = None, run_id: str | None = None
) -> RunAgentInput:
    """``{"requests": [...]}``, one request, or a bare ``SuggestionInput`` -> ``RunAgentInput``.

    Each ``SuggestionInput`` becomes a ``ResumeEntry`` whose ``interruptId`` is
    the answer record: ``CANCEL`` -> ``cancelled``; anything else -> ``resolved``
    with ``payload = {action, parameters?}``; ``sendTime`` rides in the entry's
    metadata and the participant in ``forwardedProps.dialogflow``.
    """
    doc = to_json_dict(body, "request")
    if "requests" in doc:
        reqs = [
            FIELDS.obj(r, f"requests[{i}]")
            # a list, or one request (Google's JSON reader takes one value for a list)
            for i, r in enumerate(FIELDS.several(doc["requests"], "requests"))
        ]
        where = [f"requests[{i}]" for i in range(len(reqs))]
    else:
        reqs, where = [doc], ["request"]
    entries: list[ResumeEntry] = []
    messages: list[Message] = []
    participants: set[str] = set()
    seed = json.dumps(doc, sort_keys=True, default=str)
    for req, at in zip(reqs, where, strict=True):
        text_input = FIELDS.opt_obj(req.get("textInput"), f"{at}.textInput")
        if text_input is not None:
            text = FIELDS.opt_text(text_input.get("text"), f"{at}.textInput.text") or ""
            lang = FIELDS.opt_text(text_input.get("languageCode"), f"{at}.textInput.languageCode")
            mkw: dict[str, Any] = {"metadata": {META_KEY: {"languageCode": lang}}} if lang else {}
            messages.append(UserMessage(id=mint_id("msg", seed, at), content=text, **mkw))
        si = (
            req
            if "answerRecord" in req
            else FIELDS.opt_obj(req.get("suggestionInput"), f"{at}.suggestionInput")
        )
        who = FIELDS.opt_text(req.get("participant"), f"{at}.participant")
        if who is not None:
            participants.add(who)
        if si is None:
            continue
        sat = at if si is req else f"{at}.suggestionInput"
        record = FIELDS.opt_text(si.get("answerRecord"), f"{sat}.answerRecord")
        if not record:
            raise VendorDataError(VENDOR, f"{sat}.answerRecord", "missing (it is required)")
        action = enum_name(si.get("action"), ACTIONS, f"{sat}.action") or "ACTION_UNSPECIFIED"
        params = FIELDS.opt_obj(si.get("parameters"), f"{sat}.parameters")
        payload: dict[str, Any] = {"action": action}
        if params is not None:
            payload["parameters"] = params
        kw: dict[str, Any] = {}
        stamp = FIELDS.opt_text(si.get("sendTime"), f"{sat}.sendTime")
        if stamp is not None:
            kw["metadata"] = {META_KEY: {"sendTime": stamp}}
        entries.append(
            ResumeEntry(
                interrupt_id=record,
                status="cancelled" if action == "CANCEL" else "resolved",
                payload=payload,
                **kw,
            )
        )
    if len(participants) > 1:
        raise UnsupportedInput("requests for several participants cannot be one run")
    extra: dict[str, Any] = {}
    if participants:
        extra["forwarded_props"] = {META_KEY: {"participant": next(iter(participants))}}
    # the thread is the conversation (a participant's path names it) when the body says
    # which; the run is this request
    who = next(iter(participants), None)
    conversation = who.split("/participants/")[0] if who else seed
    thread, run = request_ids(
        thread_id=thread_id, run_id=run_id, thread_seed=(conversation,), run_seed=(seed,)
    )
    return RunAgentInput(
        thread_id=thread,
        run_id=run,
        messages=messages,
        resume=entries,
        **extra,
    )


def encode_history(
    messages: Sequence[Message | dict[str, Any]],
    *,
    accepts: Accepts | None = None,
    losses: list[Loss] | None = None,
) -> dict[str, Any]:
    """AG-UI history -> ``GeneratorSuggestion`` JSON ``{"toolCallInfo": [...]}``.

    Each call is paired with its result (``pair_history``: the first result
    is kept, a second is a loss); a call without one is ``{toolCall}`` alone,
    a result whose call is absent ``{toolCallResult}`` alone, where it stands.
    Text, reasoning and other messages have no place in ToolCallInfo and are
    recorded as losses.
    """
    from pydantic import TypeAdapter

    parsed = [
        m if not isinstance(m, dict) else TypeAdapter(Message).validate_python(m) for m in messages
    ]
    target = accepts or capability(TARGET)
    # ToolCallInfo pairs a call and its result inside one object and has no adjacency
    # rule: unanswered calls anywhere are representable, and so is a result whose call
    # is not in the history (sent alone, where it stands, instead of dropped).
    paired = pair_history(parsed, target=TARGET, allow_unanswered=True, keep_orphans=True)
    found = list(paired.losses)
    infos: list[dict[str, Any]] = []
    for turn in paired.turns:
        m = turn.message
        if isinstance(m, ToolMessage):  # an orphan result, kept
            infos.append({"toolCallResult": _result_json(m, None, target, found)})
            continue
        text = m.content if isinstance(getattr(m, "content", None), str) else ""
        if isinstance(m, ReasoningMessage) or text:
            found.append(
                Loss(
                    kind="message-dropped",
                    target=TARGET,
                    reason=f"{m.role} message {m.id!r}: ToolCallInfo carries tool calls and "
                    "results only",
                )
            )
        if not isinstance(m, AssistantMessage):
            continue
        for call, result in zip(m.tool_calls or [], turn.results, strict=True):
            info: dict[str, Any] = {}
            df = (call.metadata or {}).get(META_KEY)
            if not (isinstance(df, dict) and df.get("synthesized")):
                info["toolCall"] = encode_call(
                    call.id,
                    call.function.name,
                    call.function.arguments,
                    call.metadata,
                    losses=found,
                )
            if result is not None:
                info["toolCallResult"] = _result_json(result, call.function.name, target, found)
            infos.append(info)
    announce(found)
    if losses is not None:
        losses.extend(found)
    return {"toolCallInfo": infos}


def _result_json(
    m: ToolMessage, call_name: str | None, accepts: Accepts, losses: list[Loss]
) -> dict[str, Any]:
    return encode_result(
        m.content,
        m.error,
        m.metadata,
        call_id=m.tool_call_id,
        call_name=call_name,
        accepts=accepts,
        losses=losses,
    )


__all__ = [
    "decode_request",
    "encode_history",
    "encode_request",
    "suggestion_input",
]
