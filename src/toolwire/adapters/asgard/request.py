"""``RunAgentInput`` <-> Asgard's ``FetchSsePayload`` (the POST that opens a run).

Asgard keeps the conversation on the server, keyed by ``customChannelId``: a
request carries only the new user text, or the answers to a consent
(``action: RESPONSE_TOOL_CALL_CONSENT`` with ``toolCallConsents``). The thread
id is the channel; the rest of the history stays where it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ag_ui.core import ResumeEntry, RunAgentInput, ToolMessage, UserMessage

from toolwire.errors import UnsupportedInput
from toolwire.losses import Loss
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.ids import mint_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.surface import (
    MEDIA_CHOICES,
    check_choice,
    checked_options,
    encode_surface,
    request_ids,
)

from .parts import content_text
from .wire import CONSENT_RESULTS, FIELDS, VENDOR

ACTION_NONE = "NONE"
ACTION_CONSENT = "RESPONSE_TOOL_CALL_CONSENT"


def _consent(entry: ResumeEntry) -> dict[str, Any]:
    """One resume entry as a ``toolCallConsents`` answer; abandoning never approves."""
    if entry.status == "cancelled":
        return {"toolCallId": entry.interrupt_id, "result": "DENY_ONCE", "denyReason": ""}
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    result = payload.get("result")
    if result not in CONSENT_RESULTS:
        raise UnsupportedInput(
            f"asgard: resume entry for interrupt {entry.interrupt_id!r}: payload.result must be "
            f"one of {', '.join(CONSENT_RESULTS)}, got {result!r}"
        )
    reason = payload.get("denyReason")
    return {
        "toolCallId": entry.interrupt_id,
        "result": result,
        "denyReason": reason if isinstance(reason, str) else "",
    }


@encode_surface(VENDOR)
def encode_request(
    run_input: RunAgentInput | dict[str, Any],
    *,
    model: str | None = None,
    media: str = "drop",
    losses: list[Loss] | None = None,
    already_allowed: Iterable[str] = (),
    custom_message_id: str | None = None,
) -> dict[str, Any]:
    """The POST body for ``run_input``: the last user message, or the consent answers.

    ``model`` is not sent (the bot provider picks it); ``media`` only ``"drop"``
    (Asgard takes no media inline: files travel as uploaded ``blobIds``).
    ``already_allowed`` names consent calls that needed no answer: each is
    answered ``ALLOW_ONCE``, as the SDK does. ``run_input`` may be the model or its
    JSON dict.
    """
    check_choice(media, MEDIA_CHOICES, option="media", where=f"{VENDOR}.encode_request")
    run_input = as_run_input(run_input, VENDOR)
    lost: list[Loss] = [] if losses is None else losses  # encode_surface's list
    extra = (
        (run_input.forwarded_props or {}).get("asgard")
        if isinstance(run_input.forwarded_props, dict)
        else None
    )
    extra = extra if isinstance(extra, dict) else {}
    # only the tail after the last user message matters: read from the end, not the thread
    last_user = None
    tail_results: list[ToolMessage] = []
    for m in reversed(run_input.messages):
        if isinstance(m, UserMessage):
            last_user = m
            break
        if isinstance(m, ToolMessage):
            tail_results.append(m)
    tail_results.reverse()
    body: dict[str, Any] = {"customChannelId": run_input.thread_id}
    if run_input.resume:
        answers = [_consent(e) for e in run_input.resume]
        seen = {a["toolCallId"] for a in answers}
        answers += [
            {"toolCallId": i, "result": "ALLOW_ONCE", "denyReason": ""}
            for i in already_allowed
            if i not in seen
        ]
        body["action"] = ACTION_CONSENT
        body["text"] = ""
        body["toolCallConsents"] = answers
        mid = custom_message_id or extra.get("customMessageId")
        if mid is None and last_user is not None:
            mid = last_user.id
        if isinstance(mid, str):
            body["customMessageId"] = mid
    else:
        text = ""
        if last_user is not None:
            text, dropped = content_text(last_user.content, place="user_message")
            lost.extend(dropped)
            body["customMessageId"] = custom_message_id or last_user.id
        body["action"] = (
            extra.get("action") if isinstance(extra.get("action"), str) else ACTION_NONE
        )
        body["text"] = text
    for key in ("payload", "blobIds"):
        if extra.get(key) is not None:
            body[key] = extra[key]
    for m in tail_results:
        lost.append(
            Loss(
                kind="result-dropped",
                target=VENDOR,
                reason="Asgard runs its tools on the backend; a result from the client "
                "has no place in the request",
                tool_call_id=m.tool_call_id,
            )
        )
    if run_input.tools:
        lost.append(
            Loss(
                kind="tools-dropped",
                target=VENDOR,
                reason="Asgard's toolsets are configured on the bot provider; the request "
                "carries no tool list",
            )
        )
    return body


@checked_options(VENDOR)
def decode_request(
    body: Any, *, thread_id: str | None = None, run_id: str | None = None
) -> RunAgentInput:
    """A ``FetchSsePayload`` -> ``RunAgentInput`` (user text, or consent answers as ``resume``)."""
    body = as_dict(body, VENDOR, "request")
    channel = FIELDS.at(body, "customChannelId", str, "request")
    text = FIELDS.opt_text(body.get("text"), "request.text") or ""
    mid = FIELDS.opt_text(body.get("customMessageId"), "request.customMessageId")
    messages: list[Any] = []
    if text:
        uid = mid if isinstance(mid, str) and mid else mint_id("msg", channel, text)
        messages.append(UserMessage(id=uid, content=text))
    resume: list[ResumeEntry] = []
    for n, item in enumerate(FIELDS.list_at(body, "toolCallConsents", "request")):
        where = f"request.toolCallConsents[{n}]"
        tcid = FIELDS.at(item, "toolCallId", str, where)
        result = FIELDS.at(item, "result", str, where)
        payload: dict[str, Any] = {"result": result}
        if isinstance(item.get("denyReason"), str) and item["denyReason"]:
            payload["denyReason"] = item["denyReason"]
        resume.append(ResumeEntry(interrupt_id=tcid, status="resolved", payload=payload))
    extra = {
        k: body[k]
        for k in ("action", "payload", "blobIds", "customMessageId")
        if body.get(k) is not None and (k != "action" or body[k] != ACTION_NONE)
    }
    kw: dict[str, Any] = {}
    if resume:
        kw["resume"] = resume
    if extra:
        kw["forwarded_props"] = {"asgard": extra}
    tid, rid = request_ids(
        thread_id=thread_id or channel,  # the channel is the vendor's own thread id
        run_id=run_id,
        thread_seed=(),
        run_seed=(channel, mid or "", text),
    )
    return RunAgentInput(
        thread_id=tid,
        run_id=rid,
        messages=messages,
        tools=[],
        context=[],
        **kw,
    )


__all__ = ["ACTION_CONSENT", "ACTION_NONE", "decode_request", "encode_request"]
