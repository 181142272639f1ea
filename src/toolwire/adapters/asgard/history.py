"""The SDK's stored conversation (``ConversationMessage``) <-> AG-UI history.

``ConversationToolCallMessage`` (seed 004) is one call with its state:
pending (``isComplete`` false), completed, or error (``isComplete`` and
``isError || result.error``). In AG-UI a call lives on an ``AssistantMessage``
and its result is a ``ToolMessage``; consecutive tool calls (the SDK's Tool
Call Group) become one assistant message, after the bot message they follow.
"""

from __future__ import annotations

from typing import Any, Literal

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.losses import Loss, announce
from toolwire.protocol.arguments import parse_arguments_object
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.pairing import pair_history

from .parts import (
    arguments_text,
    asgard_meta,
    content_text,
    error_text,
    is_error,
    result_text,
    result_value,
)
from .wire import FIELDS, META_KEY, TOOL_CALL_COMPLETE, TOOL_CALL_START, VENDOR

_CALL_META = ("toolsetName", "processId", "callSeq", "reason", "toolUseId", "parentToolUseId")
_RESULT_META = ("isError", "toolUseResultSidecar")
_KEEP = ("time", "traceId")


def _time(value: Any) -> Any:
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else value


def from_conversation(
    items: list[Any],
    *,
    call_ids: Literal["process_seq", "tool_use_id"] = "process_seq",
    losses: list[Loss] | None = None,
) -> list[Message]:
    """SDK conversation messages (dicts) -> AG-UI history, in order."""
    out: list[Message] = []
    lost: list[Loss] = []
    group: AssistantMessage | None = None
    results: list[ToolMessage] = []

    def flush() -> None:
        nonlocal group
        out.extend(results)
        results.clear()
        group = None

    for n, raw in enumerate(items):
        where = f"conversation[{n}]"
        item = as_dict(raw, VENDOR, where)
        kind = FIELDS.at(item, "type", str, where)
        if kind == "tool-call":
            call, result = _call(item, where, call_ids)
            owner = item.get("parentToolUseId") or None
            if group is None or group.subagent_run_id != owner:
                flush()
                prev = out[-1] if out else None
                if (
                    isinstance(prev, AssistantMessage)
                    and not prev.tool_calls
                    and prev.subagent_run_id == owner
                ):
                    group = prev
                else:
                    kw: dict[str, Any] = {"subagent_run_id": owner} if owner else {}
                    group = AssistantMessage(id=mint_id("msg", call.id), **kw)
                    out.append(group)
            group.tool_calls = [*(group.tool_calls or []), call]
            if result is not None:
                results.append(result)
            continue
        flush()
        mid = FIELDS.at(item, "messageId", str, where)
        meta = {k: _time(item[k]) for k in _KEEP if item.get(k) is not None}
        mkw: dict[str, Any] = {"metadata": {META_KEY: meta}} if meta else {}
        if kind == "user":
            out.append(UserMessage(id=mid, content=FIELDS.at(item, "text", str, where), **mkw))
        elif kind == "bot":
            msg = FIELDS.at(item, "message", dict, where)
            text = FIELDS.at(msg, "text", str, f"{where}.message")
            owner = msg.get("parentToolUseId") or None
            okw: dict[str, Any] = {"subagent_run_id": owner} if owner else {}
            out.append(AssistantMessage(id=mid, content=text, **okw, **mkw))
        elif kind == "thinking":
            text = FIELDS.at(item, "text", str, where)
            out.append(ReasoningMessage(id=mid, content=text, **mkw))
        else:
            lost.append(
                Loss(
                    kind="history-item-dropped",
                    target="AG-UI",
                    reason=f"{where}: a {kind!r} conversation entry has no AG-UI message",
                )
            )
    flush()
    announce(lost)
    if losses is not None:
        losses.extend(lost)
    return out


def _call(item: dict[str, Any], where: str, call_ids: str) -> tuple[ToolCall, ToolMessage | None]:
    pid = FIELDS.at(item, "processId", str, where)
    seq = FIELDS.at(item, "callSeq", int, where)
    name = FIELDS.at(item, "toolName", str, where)
    complete = FIELDS.at(item, "isComplete", bool, where)
    cid = FIELDS.at(item, "messageId", str, where) or f"{pid}-{seq}"
    if call_ids == "tool_use_id" and isinstance(item.get("toolUseId"), str) and item["toolUseId"]:
        cid = item["toolUseId"]
    meta = {k: item[k] for k in _CALL_META if item.get(k) is not None}
    meta.setdefault("toolsetName", "")
    meta.update({k: _time(item[k]) for k in _KEEP if item.get(k) is not None})
    param = item.get("parameter")
    call = ToolCall(
        id=cid,
        function=FunctionCall(
            name=name,
            arguments="" if param is None else arguments_text(param, f"{where}.parameter"),
        ),
        metadata={META_KEY: meta},
    )
    if not complete:
        return call, None  # pending: the call is left unanswered
    result = item.get("result")
    content = result_text(result, f"{where}.result")
    rmeta = {k: item[k] for k in _RESULT_META if item.get(k) is not None}
    kw: dict[str, Any] = {"metadata": {META_KEY: rmeta}} if rmeta else {}
    if is_error({"isError": item.get("isError"), "toolCallResult": result}):
        kw["error"] = error_text(result, content)
    owner = item.get("parentToolUseId") or None
    if owner:
        kw["subagent_run_id"] = owner
    return call, ToolMessage(id=result_message_id(cid), tool_call_id=cid, content=content, **kw)


def to_conversation(
    messages: list[Message], *, losses: list[Loss] | None = None
) -> list[dict[str, Any]]:
    """AG-UI history -> SDK conversation messages (JSON dicts; ``time`` only when known).

    A call not made on Asgard gets ``processId`` = its assistant message id and
    ``callSeq`` = its position, and keeps its AG-UI id in ``toolUseId``.
    """
    # a conversation holds pending calls anywhere; the first result of a call is kept, a
    # second one and a result whose call is absent are losses (pair_history's rule)
    paired = pair_history(messages, target=VENDOR, allow_unanswered=True)
    lost: list[Loss] = list(paired.losses)
    answers: dict[str, ToolMessage] = {
        r.tool_call_id: r for t in paired.turns for r in t.results if r is not None
    }
    out: list[dict[str, Any]] = []
    for m in messages:
        meta = asgard_meta(m.metadata) if not isinstance(m, ToolMessage) else {}
        keep = {k: meta[k] for k in _KEEP if k in meta}
        if isinstance(m, UserMessage):
            text, dropped = content_text(m.content, place="user_message")
            lost.extend(dropped)
            out.append({"type": "user", "messageId": m.id, "text": text, **keep})
        elif isinstance(m, ReasoningMessage):
            out.append(
                {
                    "type": "thinking",
                    "messageId": m.id,
                    "eventType": "asgard.message.thinking.complete",
                    "isStreaming": False,
                    "text": m.content,
                    **keep,
                }
            )
        elif isinstance(m, AssistantMessage):
            if m.content:
                body: dict[str, Any] = {
                    "messageId": m.id,
                    "replyToCustomMessageId": "",
                    "text": m.content,
                    "payload": None,
                    "isDebug": False,
                    "idx": None,
                    "template": {"type": "TEXT", "text": m.content, "quickReplies": []},
                }
                out.append(
                    {
                        "type": "bot",
                        "messageId": m.id,
                        "eventType": "asgard.message.complete",
                        "isTyping": False,
                        "typingText": None,
                        "message": body,
                        **keep,
                    }
                )
            for n, call in enumerate(m.tool_calls or []):
                out.append(_entry(m, n, call, answers.get(call.id), lost))
        elif not isinstance(m, ToolMessage):
            lost.append(
                Loss(
                    kind="history-item-dropped",
                    target=VENDOR,
                    reason=f"a {m.role} message has no Asgard conversation entry",
                )
            )
    announce(lost)
    if losses is not None:
        losses.extend(lost)
    return out


def _entry(
    m: AssistantMessage, n: int, call: ToolCall, answer: ToolMessage | None, lost: list[Loss]
) -> dict[str, Any]:
    meta = asgard_meta(call.metadata)
    pid = meta.get("processId") if isinstance(meta.get("processId"), str) else m.id
    seq = meta.get("callSeq") if isinstance(meta.get("callSeq"), int) else n
    parameter = parse_arguments_object(call.function.arguments)
    if parameter is None:
        lost.append(
            Loss(
                kind="arguments-not-object",
                target=VENDOR,
                reason="a conversation entry's parameter is a JSON object; sent {}",
                tool_call_id=call.id,
            )
        )
        parameter = {}
    entry: dict[str, Any] = {
        "type": "tool-call",
        "messageId": f"{pid}-{seq}",
        "eventType": TOOL_CALL_COMPLETE if answer is not None else TOOL_CALL_START,
        "processId": pid,
        "callSeq": seq,
        "toolName": call.function.name,
        "toolsetName": meta.get("toolsetName") if isinstance(meta.get("toolsetName"), str) else "",
        "parameter": parameter,
        "isComplete": answer is not None,
    }
    for key in ("reason", "parentToolUseId", "time", "traceId"):
        if key in meta:
            entry[key] = meta[key]
    entry["toolUseId"] = meta.get("toolUseId") or call.id
    if m.subagent_run_id and "parentToolUseId" not in entry:
        entry["parentToolUseId"] = m.subagent_run_id
    if answer is not None:
        text, dropped = content_text(answer.content, tool_call_id=call.id)
        lost.extend(dropped)
        result: Any = result_value(text)
        if answer.error is not None and text == "":
            result = answer.error
        entry["result"] = result
        rmeta = asgard_meta(answer.metadata)
        entry["isError"] = answer.error is not None or rmeta.get("isError") is True
        if "toolUseResultSidecar" in rmeta:
            entry["toolUseResultSidecar"] = rmeta["toolUseResultSidecar"]
    return entry


__all__ = ["from_conversation", "to_conversation"]
