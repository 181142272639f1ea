"""Request bodies both ways: ``RunAgentInput`` <-> the ``/api/chat`` body.

Ollama messages hold a string ``content`` and, for images, a list of base64 strings
(``images``). The capability rows say which model families take images in a user
message; tool results take text only, so a result's media is dropped (with a warning) or,
with ``media="relocate"``, moved into a ``role:"user"`` message right after the tool
messages. A tool message names its call by ``tool_name`` (what every server reads) and by
``tool_call_id`` (what newer servers read; older ones ignore it), and follows its
assistant message in call order. ``function.arguments`` is a JSON object on the wire.
A ``ReasoningMessage`` becomes the ``thinking`` of the assistant message that follows it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    AssistantMessage,
    ContentPart,
    DataSource,
    DeveloperMessage,
    FunctionCall,
    ImagePart,
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
from toolwire.protocol.arguments import (
    REPEATED_KEYS,
    arguments_object,
    dumps_compact,
    repeated_keys_reason,
)
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
from toolwire.protocol.surface import MEDIA_CHOICES, check_choice, checked_options, encode_surface

from .wire import (
    CALL_ID_RULE,
    FIELDS,
    INDEX_KEY,
    VENDOR,
    ChatMessage,
    FunctionDefinition,
    ToolDefinition,
)
from .wire import FunctionCall as WireFunction
from .wire import ToolCall as WireCall

#: the MIME type a decoded image is given: Ollama's ``images`` say nothing of theirs
IMAGE_MIME = "image/png"

# ------------------------------------------------------------------ encode


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
    """A ``/api/chat`` body (``model``, ``messages``, ``tools``, options).

    ``media`` is ``"drop"`` or ``"relocate"``; ``tool_result`` / ``user_message``
    override the capability rows for ``model``. ``unanswered`` says what to do with a
    call that has no result (``"error"``, ``"drop"``, ``"answer"``).
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
    for turn in paired.turns:
        m = turn.message
        if isinstance(m, ReasoningMessage):
            thinking.append(m.content)
            if m.encrypted_value:
                lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS))
            continue
        if thinking and not isinstance(m, AssistantMessage):
            lost.append(_loss("reasoning-dropped", "no assistant message follows the reasoning"))
            thinking = []
        if isinstance(m, AssistantMessage):
            messages.append(_assistant(m, ids, thinking, lost))
            thinking = []
            moved: list[ContentPart] = []
            for call, result in zip(m.tool_calls or (), turn.results, strict=True):
                assert result is not None  # settled above
                fitted = fit_content(
                    result.content, in_tool, tool_call_id=result.tool_call_id, relocate=relocate
                )
                lost += fitted.losses
                messages.append(
                    _tool(result, call.function.name, fitted.content, in_tool, ids, lost)
                )
                if fitted.relocated:
                    moved += labelled(
                        fitted.relocated,
                        media_label,
                        tool_call_id=ids(result.tool_call_id),
                        tool_name=call.function.name,
                        target=VENDOR,
                    )
            if moved:
                messages.append(_with_media({"role": "user"}, moved, in_user, None, lost))
            continue
        if isinstance(m, UserMessage):
            content = m.content
            if isinstance(content, str):
                messages.append({"role": "user", "content": content})
            else:
                fitted = fit_content(content, in_user)
                lost += fitted.losses
                messages.append(_with_media({"role": "user"}, fitted.content, in_user, None, lost))
        elif isinstance(m, (SystemMessage, DeveloperMessage)):
            messages.append({"role": "system", "content": m.content})
        else:
            lost.append(_loss("message-dropped", f"a {m.role} message has no Ollama form"))
    if thinking:
        lost.append(_loss("reasoning-dropped", "no assistant message follows the reasoning"))
    body: dict[str, Any] = {"model": model, "messages": messages}
    if run.tools:
        body["tools"] = [_tool_spec(t) for t in run.tools]
    if run.context:
        lost.append(
            _loss(
                "context-dropped", "Ollama has no field for run context; put it in a system message"
            )
        )
    body.update(vendor_options)
    lost += ids.losses
    return body


_NO_ARTEFACTS = "Ollama has no field for a provider's opaque artefact"


def _loss(kind: str, reason: str, tool_call_id: str | None = None) -> Loss:
    return Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id)


def _with_media(
    out: ChatMessage,
    content: Any,
    place: Accepts,
    tool_call_id: str | None,
    lost: list[Loss],
) -> ChatMessage:
    """``content`` as Ollama's text plus ``images`` (base64 only: a URL or a file handle
    cannot be sent, whatever a caller's table allows)."""
    if isinstance(content, str):
        out["content"] = content
        return out
    texts: list[str] = []
    images: list[str] = []
    for i, p in enumerate(content):
        if isinstance(p, TextPart):
            texts.append(p.text)
        elif isinstance(p, ImagePart) and isinstance(p.source, DataSource):
            images.append(p.source.value)
        else:
            why = "Ollama messages hold text and base64 images only"
            lost.append(part_loss(p, i, place.target, why, tool_call_id))
    out["content"] = "\n".join(texts) if len(texts) > 1 else "".join(texts)
    if images:
        out["images"] = images
    return out


def _assistant(
    m: AssistantMessage, ids: IdMapper, thinking: list[str], lost: list[Loss]
) -> ChatMessage:
    out: ChatMessage = {"role": "assistant", "content": m.content or ""}
    if thinking:
        out["thinking"] = "".join(thinking)
    if m.encrypted_value:
        lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS))
    calls: list[WireCall] = []
    for c in m.tool_calls or ():
        args, keys = arguments_object(c.function.arguments)
        if keys:
            reason = repeated_keys_reason(keys, "function.arguments")
            lost.append(_loss(REPEATED_KEYS, reason, c.id))
        if args is None:
            lost.append(
                _loss(
                    "arguments-not-object",
                    "Ollama takes arguments as a JSON object; this text is not one, so the "
                    "call is sent with {}",
                    c.id,
                )
            )
            args = {}
        if c.encrypted_value:
            lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS, c.id))
        fn: WireFunction = {"name": c.function.name, "arguments": args}
        index = c.metadata.get(INDEX_KEY) if isinstance(c.metadata, dict) else None
        if type(index) is int:
            fn = {"index": index, **fn}
        calls.append({"id": ids(c.id, c.metadata), "function": fn})
    if calls:
        out["tool_calls"] = calls
    return out


def _tool(
    result: ToolMessage,
    name: str,
    content: Any,
    place: Accepts,
    ids: IdMapper,
    lost: list[Loss],
) -> ChatMessage:
    """One ``role:"tool"`` message; the error travels in the text (the API has no flag)."""
    out = _with_media({"role": "tool"}, content, place, result.tool_call_id, lost)
    if result.error:
        note = f"Error: {result.error}"
        out["content"] = f"{out['content']}\n\n{note}" if out["content"] else note
    out["tool_name"] = name
    out["tool_call_id"] = ids(result.tool_call_id)
    return out


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
    """A ``/api/chat`` body -> ``RunAgentInput``.

    Message ids are minted from each message's position and content (the same history
    prefix, the same ids); calls without an ``id`` (older clients) get one minted from
    their message and place. A tool message answers the call its ``tool_call_id`` names,
    else the first unanswered call of its ``tool_name``, else the first unanswered call.
    Body options other than ``messages`` and ``tools`` go to ``forwardedProps``.
    """
    req = as_dict(body, VENDOR, "request")
    raw = FIELDS.at(req, "messages", list, "request")
    lost: list[Loss] = []
    messages = _decode_messages(raw, lost)
    announce(lost)
    kw: dict[str, Any] = {}
    if req.get("tools") is not None:
        raw_tools = FIELDS.list_at(req, "tools", "request")
        kw["tools"] = [_decode_tool(t, f"request.tools[{i}]") for i, t in enumerate(raw_tools)]
    rest = {k: v for k, v in req.items() if k not in ("messages", "tools")}
    if rest:
        kw["forwarded_props"] = rest
    first = _json(raw[:1], "request.messages[0]")
    return RunAgentInput(
        thread_id=thread_id or mint_id("thread", VENDOR, first),
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


def _content(m: dict[str, Any], where: str) -> str | list[ContentPart]:
    text = FIELDS.opt_text(m.get("content"), f"{where}.content") or ""
    images = FIELDS.list_at(m, "images", where) if m.get("images") is not None else []
    if not images:
        return text
    parts: list[ContentPart] = [TextPart(text=text)] if text else []
    for j, img in enumerate(images):
        data = FIELDS.text(img, f"{where}.images[{j}]")
        parts.append(ImagePart(source=DataSource(value=data, mime_type=IMAGE_MIME)))
    return parts


#: the message fields each role's AG-UI message has no place for
_UNREAD = {
    "system": ("images", "thinking", "tool_calls"),
    "developer": ("images", "thinking", "tool_calls"),
    "user": ("thinking", "tool_calls"),
    "assistant": ("images",),
    "tool": ("thinking", "tool_calls"),
}


def _unread(m: dict[str, Any], role: Any, where: str, lost: list[Loss]) -> None:
    """Fields Ollama takes on a message of this role that its AG-UI message cannot hold:
    each dropped with a loss naming it."""
    for key in _UNREAD.get(role, ()) if isinstance(role, str) else ():
        if m.get(key):
            lost.append(
                Loss(
                    kind="content-dropped",
                    target="AG-UI",
                    reason=f"{VENDOR}: {where}.{key}: a {role} message's {key} has no place in "
                    "its AG-UI message",
                )
            )


def _decode_messages(raw: list[Any], lost: list[Loss]) -> list[Message]:
    out: list[Message] = []
    open_calls: list[tuple[str, str]] = []  # (id, name) of the last assistant's unanswered calls
    for i, m in enumerate(raw):
        where = f"request.messages[{i}]"
        m = FIELDS.obj(m, where)
        role = m.get("role")
        mid = mint_id("msg", VENDOR, i, _json(m, where))
        _unread(m, role, where, lost)
        if role in ("system", "developer"):
            text = text_of(_content(m, where))
            cls = SystemMessage if role == "system" else DeveloperMessage
            out.append(cls(id=mid, content=text))
        elif role == "user":
            out.append(UserMessage(id=mid, content=_content(m, where)))
        elif role == "assistant":
            thinking = FIELDS.opt_text(m.get("thinking"), f"{where}.thinking")
            if thinking:
                out.append(ReasoningMessage(id=mint_id("reasoning", mid), content=thinking))
            calls = [
                _decode_call(c, f"{where}.tool_calls[{j}]", mid, j)
                for j, c in enumerate(FIELDS.list_at(m, "tool_calls", where))
            ]
            open_calls = [(c.id, c.function.name) for c in calls]
            kw: dict[str, Any] = {}
            said = FIELDS.opt_text(m.get("content"), f"{where}.content")
            if calls:
                kw["tool_calls"] = calls
                if said:
                    kw["content"] = said
            else:
                kw["content"] = said or ""
            out.append(AssistantMessage(id=mid, **kw))
        elif role == "tool":
            call_id = _answered(m, where, open_calls)
            body = _content(m, where)
            out.append(
                ToolMessage(id=result_message_id(call_id), tool_call_id=call_id, content=body)
            )
        else:
            raise VendorDataError(VENDOR, f"{where}.role", f"unknown role {role!r}")
    return out


def _answered(m: dict[str, Any], where: str, open_calls: list[tuple[str, str]]) -> str:
    stated = FIELDS.opt_text(m.get("tool_call_id"), f"{where}.tool_call_id")
    name = FIELDS.opt_text(m.get("tool_name"), f"{where}.tool_name")
    pick = None
    for k, (cid, cname) in enumerate(open_calls):
        if (stated and cid == stated) or (not stated and name and cname == name):
            pick = k
            break
    if pick is None and stated:
        return stated  # a call this body does not hold: pairing reports it where it matters
    if pick is None and open_calls:
        pick = 0
    if pick is None:
        raise VendorDataError(VENDOR, where, "a tool message answers no earlier tool call")
    return open_calls.pop(pick)[0]


def _decode_call(c: Any, where: str, mid: str, j: int) -> ToolCall:
    c = FIELDS.obj(c, where)
    fn = FIELDS.at(c, "function", dict, where)
    name = FIELDS.at(fn, "name", str, f"{where}.function")
    args = fn.get("arguments")
    if args is None:
        text = ""
    elif isinstance(args, dict):
        text = dumps_compact(args, VENDOR, f"{where}.function.arguments")
    elif isinstance(args, str):
        text = args
    else:
        raise FIELDS.wrong(args, (dict, str), f"{where}.function.arguments")
    cid = FIELDS.opt_text(c.get("id"), f"{where}.id") or mint_id("call", mid, j)
    index = FIELDS.opt_int(fn.get("index"), f"{where}.function.index")
    kw: dict[str, Any] = {"metadata": {INDEX_KEY: index}} if index is not None else {}
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=text), **kw)


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
