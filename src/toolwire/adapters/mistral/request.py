"""Request bodies both ways: ``RunAgentInput`` <-> the chat completions body.

Encoding follows the API's rules: an assistant message with ``tool_calls`` is followed at
once by one ``role:"tool"`` message per call, in call order, each with ``tool_call_id``
and ``name``; every call id is nine letters and digits (``CALL_ID_RULE``: an id from
another vendor is mapped deterministically, the call and its result together, and the
mapping reported). A tool message holds text here, so a result's media is dropped (with
a warning) or, with ``media="relocate"``, moved into a ``role:"user"`` message right after
the tool messages. A ``ReasoningMessage`` becomes a ``thinking`` chunk at the start of
the next assistant message's content (Magistral reads its own reasoning back).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    AssistantMessage,
    ContentPart,
    DeveloperMessage,
    FunctionCall,
    Message,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.capabilities import accepts
from toolwire.errors import VendorDataError
from toolwire.losses import Loss, announce
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.fitting import (
    DEFAULT_MEDIA_LABEL,
    Accepts,
    fit_content,
    labelled,
    part_loss,
)
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.pairing import pair_history, settle_unanswered
from toolwire.protocol.parts import text_of
from toolwire.protocol.signatures import mark, usable_encrypted
from toolwire.protocol.surface import MEDIA_CHOICES, check_choice, checked_options, encode_surface

from .parts import to_agui, to_vendor
from .wire import (
    CALL_ID_RULE,
    FIELDS,
    PROVIDER,
    VENDOR,
    ChatMessage,
    FunctionDefinition,
    ThinkChunk,
    ToolDefinition,
)

_NO_ARTEFACTS = "Mistral has no field for another provider's opaque artefact"


@encode_surface(VENDOR)
def encode_request(
    run_input: RunAgentInput | dict[str, Any],
    *,
    model: str,
    media: str = "drop",
    losses: list[Loss] | None = None,
    tool_result: Accepts | None = None,
    user_message: Accepts | None = None,
    unanswered: str = "error",
    unanswered_text: str | None = None,
    media_label: str | None = DEFAULT_MEDIA_LABEL,
    **vendor_options: Any,
) -> dict[str, Any]:
    """A ``chat.complete`` / ``chat.stream`` body (``model``, ``messages``, ``tools``, options).

    ``media`` is ``"drop"`` or ``"relocate"``; ``tool_result`` / ``user_message`` override
    the capability rows for ``model``; ``unanswered`` says what to do with a call that has
    no result (``"error"``, ``"drop"``, ``"answer"``).
    """
    check_choice(media, MEDIA_CHOICES, option="media", where=f"{VENDOR}.encode_request")
    run = as_run_input(run_input, VENDOR)
    in_tool = tool_result or accepts(VENDOR, place="tool_result", model=model)
    in_user = user_message or accepts(VENDOR, place="user_message", model=model)
    if media == "relocate":
        in_tool = replace(in_tool, upgrade=None)
    paired = pair_history(run.messages, target=VENDOR, allow_unanswered=True)
    settle_unanswered(paired, target=VENDOR, policy=unanswered, text=unanswered_text)
    lost: list[Loss] = [] if losses is None else losses
    lost += paired.losses
    ids = IdMapper(CALL_ID_RULE, set(paired.call_ids))
    relocate = in_user if media == "relocate" else None
    messages: list[ChatMessage] = []
    thinking: list[str] = []
    signatures: list[str] = []
    for turn in paired.turns:
        m = turn.message
        if isinstance(m, ReasoningMessage):
            if m.content:
                thinking.append(m.content)
            signed = usable_encrypted(
                m.encrypted_value,
                m.metadata if isinstance(m.metadata, dict) else None,
                PROVIDER,
                target=VENDOR,
                entity="a reasoning message",
                losses=lost,
            )
            if signed:
                signatures.append(signed)
            continue
        if (thinking or signatures) and not isinstance(m, AssistantMessage):
            lost.append(_loss("reasoning-dropped", "no assistant message follows the reasoning"))
            thinking, signatures = [], []
        if isinstance(m, AssistantMessage):
            messages.append(_assistant(m, ids, thinking, signatures, lost))
            thinking, signatures = [], []
            moved: list[ContentPart] = []
            for call, result in zip(m.tool_calls or (), turn.results, strict=True):
                assert result is not None  # settled above
                fitted = fit_content(
                    result.content, in_tool, tool_call_id=result.tool_call_id, relocate=relocate
                )
                lost += fitted.losses
                messages.append(_tool(result, call.function.name, fitted.content, ids, lost))
                if fitted.relocated:
                    moved += labelled(
                        fitted.relocated,
                        media_label,
                        tool_call_id=ids(result.tool_call_id),
                        tool_name=call.function.name,
                        target=VENDOR,
                    )
            if moved:
                parts = _parts(moved, in_user, lost)
                if parts:
                    messages.append({"role": "user", "content": parts})
            continue
        if isinstance(m, UserMessage):
            content: Any = m.content
            if not isinstance(content, str):
                fitted = fit_content(content, in_user)
                lost += fitted.losses
                kept = fitted.content
                content = kept if isinstance(kept, str) else _parts(kept, in_user, lost)
            messages.append({"role": "user", "content": content})
        elif isinstance(m, (SystemMessage, DeveloperMessage)):
            messages.append({"role": "system", "content": m.content})
        else:
            lost.append(_loss("message-dropped", f"a {m.role} message has no Mistral form"))
    if thinking or signatures:
        lost.append(_loss("reasoning-dropped", "no assistant message follows the reasoning"))
    body: dict[str, Any] = {"model": model, "messages": messages}
    if run.tools:
        body["tools"] = [_tool_spec(t) for t in run.tools]
    if run.context:
        lost.append(
            _loss(
                "context-dropped",
                "Mistral has no field for run context; put it in a system message",
            )
        )
    body.update(vendor_options)
    lost += ids.losses
    return body


def _loss(kind: str, reason: str, tool_call_id: str | None = None) -> Loss:
    return Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id)


def _parts(parts: list[ContentPart], place: Accepts, lost: list[Loss]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, p in enumerate(parts):
        mapped = to_vendor(p)
        if mapped is None:
            why = "the Mistral wire has no chunk for this part and source"
            lost.append(part_loss(p, i, place.target, why, None))
        else:
            out.append(mapped)
    return out


def _assistant(
    m: AssistantMessage,
    ids: IdMapper,
    thinking: list[str],
    signatures: list[str],
    lost: list[Loss],
) -> ChatMessage:
    out: ChatMessage = {"role": "assistant"}
    calls = m.tool_calls or []
    if thinking or signatures:
        think: ThinkChunk = {
            "type": "thinking",
            "thinking": [{"type": "text", "text": "".join(thinking)}],
        }
        if signatures:
            think["signature"] = signatures[-1]
        chunks: list[Any] = [think]
        if m.content:
            chunks.append({"type": "text", "text": m.content})
        out["content"] = chunks
    else:
        out["content"] = m.content if m.content else (None if calls else "")
    if calls:
        out["tool_calls"] = [
            {
                "id": ids(c.id, c.metadata),
                "type": "function",
                # empty argument text becomes "{}": the request wants a JSON object there
                "function": {
                    "name": c.function.name,
                    "arguments": c.function.arguments if c.function.arguments.strip() else "{}",
                },
            }
            for c in calls
        ]
    if m.encrypted_value:
        lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS))
    for c in calls:
        if c.encrypted_value:
            lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS, c.id))
    return out


def _tool(
    result: ToolMessage, name: str, content: Any, ids: IdMapper, lost: list[Loss]
) -> ChatMessage:
    """One ``role:"tool"`` message; the error travels in the text (the API has no flag)."""
    if isinstance(content, str):
        text = content
    else:
        texts = []
        for i, p in enumerate(content):
            if isinstance(p, TextPart):
                texts.append(p.text)
            else:
                why = "a Mistral tool message holds text"
                lost.append(part_loss(p, i, VENDOR, why, result.tool_call_id))
        text = "".join(texts)
    if result.error:
        note = f"Error: {result.error}"
        text = f"{text}\n\n{note}" if text else note
    return {"role": "tool", "tool_call_id": ids(result.tool_call_id), "name": name, "content": text}


def _tool_spec(t: Tool) -> ToolDefinition:
    fn: FunctionDefinition = {"name": t.name}
    if t.description:
        fn["description"] = t.description
    fn["parameters"] = t.parameters if t.parameters is not None else {"type": "object"}
    return {"type": "function", "function": fn}


# ------------------------------------------------------------------ decode


@checked_options(VENDOR)
def decode_request(
    body: dict[str, Any] | Any, *, thread_id: str | None = None, run_id: str | None = None
) -> RunAgentInput:
    """A chat completions body -> ``RunAgentInput``.

    Message ids are minted from each message's position and content; a ``thinking``
    chunk of an assistant message becomes a ``ReasoningMessage`` before it. Body options
    other than ``messages`` and ``tools`` go to ``forwardedProps``.
    """
    req = as_dict(body, VENDOR, "request")
    raw = FIELDS.at(req, "messages", list, "request")
    messages: list[Message] = []
    lost: list[Loss] = []
    for i, m in enumerate(raw):
        messages.extend(_decode_message(m, f"request.messages[{i}]", i, lost))
    kw: dict[str, Any] = {}
    if req.get("tools") is not None:
        raw_tools = FIELDS.list_at(req, "tools", "request")
        kw["tools"] = [_decode_tool(t, f"request.tools[{i}]") for i, t in enumerate(raw_tools)]
    rest = {k: v for k, v in req.items() if k not in ("messages", "tools")}
    if rest:
        kw["forwarded_props"] = rest
    announce(lost)
    return RunAgentInput(
        thread_id=thread_id or mint_id("thread", VENDOR, _json(raw[:1], "request.messages[0]")),
        run_id=run_id or mint_id("run", VENDOR, _json(raw, "request.messages")),
        protocol_version=PROTOCOL_VERSION,
        messages=messages,
        **kw,
    )


def _json(value: Any, where: str) -> str:
    try:
        return dumps_compact(value)
    except (TypeError, ValueError) as exc:
        raise VendorDataError(VENDOR, where, f"not JSON data: {exc}") from None


#: the content chunk types AG-UI has a part for (``parts.to_agui``)
_PART_TYPES = ("text", "image_url", "document_url", "file")


def _request_loss(where: str, kind: Any) -> Loss:
    return Loss(
        kind="content-dropped",
        target="AG-UI",
        reason=f"{VENDOR}: {where}: a {kind!r} chunk has no AG-UI message part",
    )


def _content(content: Any, where: str, lost: list[Loss]) -> str | list[ContentPart]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[ContentPart] = []
        for i, p in enumerate(content):
            kind = FIELDS.obj(p, f"{where}[{i}]").get("type")
            if kind in _PART_TYPES:
                parts.append(to_agui(p, f"{where}[{i}]"))
            else:  # a chunk Mistral takes (audio, references, resources) AG-UI cannot hold
                lost.append(_request_loss(f"{where}[{i}]", kind))
        return parts
    raise FIELDS.wrong(content, (str, list), where)


def _decode_message(m: Any, where: str, i: int, lost: list[Loss]) -> list[Message]:
    m = FIELDS.obj(m, where)
    role = m.get("role")
    mid = mint_id("msg", VENDOR, i, _json(m, where))
    content = m.get("content")
    if role in ("system", "developer"):
        return [SystemMessage(id=mid, content=text_of(_content(content, f"{where}.content", lost)))]
    if role == "user":
        return [UserMessage(id=mid, content=_content(content, f"{where}.content", lost))]
    if role == "assistant":
        return _decode_assistant(m, mid, where, lost)
    if role == "tool":
        call_id = FIELDS.at(m, "tool_call_id", str, where)
        body = _content(content, f"{where}.content", lost)
        return [ToolMessage(id=result_message_id(call_id), tool_call_id=call_id, content=body)]
    raise VendorDataError(VENDOR, f"{where}.role", f"unknown role {role!r}")


def _decode_assistant(m: dict[str, Any], mid: str, where: str, lost: list[Loss]) -> list[Message]:
    out: list[Message] = []
    content = m.get("content")
    texts: list[str] = []
    if isinstance(content, list):
        thoughts: list[str] = []
        signature: str | None = None
        for j, part in enumerate(content):
            part = FIELDS.obj(part, f"{where}.content[{j}]")
            if part.get("type") == "thinking":
                at = f"{where}.content[{j}].thinking"
                for k, piece in enumerate(
                    FIELDS.list_at(part, "thinking", f"{where}.content[{j}]")
                ):
                    piece = FIELDS.obj(piece, f"{at}[{k}]")
                    if piece.get("type", "text") != "text":
                        lost.append(_request_loss(f"{at}[{k}]", piece.get("type")))
                    elif isinstance(piece.get("text"), str):
                        thoughts.append(piece["text"])
                found = FIELDS.opt_text(part.get("signature"), f"{where}.content[{j}].signature")
                signature = found or signature
            elif part.get("type") == "text":
                texts.append(text_of([to_agui(part, f"{where}.content[{j}]")]))
            else:  # an AG-UI assistant message holds text only
                lost.append(_request_loss(f"{where}.content[{j}]", part.get("type")))
        if thoughts or signature:
            kw_r: dict[str, Any] = {}
            if signature:
                kw_r = {"encrypted_value": signature, "metadata": mark(None, PROVIDER)}
            out.append(
                ReasoningMessage(id=mint_id("reasoning", mid), content="".join(thoughts), **kw_r)
            )
    elif isinstance(content, str):
        texts.append(content)
    elif content is not None:
        raise FIELDS.wrong(content, (str, list), f"{where}.content")
    calls = [
        _decode_call(c, f"{where}.tool_calls[{j}]")
        for j, c in enumerate(FIELDS.list_at(m, "tool_calls", where))
    ]
    kw: dict[str, Any] = {}
    text = "".join(texts)
    if calls:
        kw["tool_calls"] = calls
        if text:
            kw["content"] = text
    else:
        kw["content"] = text
    out.append(AssistantMessage(id=mid, **kw))
    return out


def _decode_call(c: Any, where: str) -> ToolCall:
    c = FIELDS.obj(c, where)
    cid = FIELDS.at(c, "id", str, where)
    if not cid:
        raise FIELDS.missing(f"{where}.id")
    fn = FIELDS.at(c, "function", dict, where)
    name = FIELDS.at(fn, "name", str, f"{where}.function")
    args = fn.get("arguments")
    if args is None:
        text = ""
    elif isinstance(args, str):
        text = args
    elif isinstance(args, dict):
        text = dumps_compact(args, VENDOR, f"{where}.function.arguments")
    else:
        raise FIELDS.wrong(args, (str, dict), f"{where}.function.arguments")
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=text))


def _decode_tool(t: Any, where: str) -> Tool:
    t = FIELDS.obj(t, where)
    fn = FIELDS.at(t, "function", dict, where)
    name = FIELDS.at(fn, "name", str, f"{where}.function")
    desc = fn.get("description")
    kw: dict[str, Any] = {}
    if fn.get("parameters") is not None:
        kw["parameters"] = fn["parameters"]
    return Tool(name=name, description=desc if isinstance(desc, str) else "", **kw)


__all__ = ["decode_request", "encode_request"]
