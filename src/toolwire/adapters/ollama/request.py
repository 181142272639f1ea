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

from typing import Any

from ag_ui.core import (
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
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.arguments import (
    REPEATED_KEYS,
    arguments_object,
    dumps_compact,
    repeated_keys_reason,
)
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.chat_request import (
    BaseForms,
    ChatForms,
    Fitted,
    arguments_text,
    chat_encode_request,
    chat_run_input,
    with_error_note,
)
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.finite import from_text
from toolwire.protocol.fitting import (
    Accepts,
    part_loss,
)
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.parts import text_of
from toolwire.protocol.surface import checked_options

from .wire import (
    CALL_ID_RULE,
    FIELDS,
    INDEX_KEY,
    VENDOR,
    ChatMessage,
)
from .wire import FunctionCall as WireFunction
from .wire import ToolCall as WireCall

#: the MIME type a decoded image is given: Ollama's ``images`` say nothing of theirs
IMAGE_MIME = "image/png"

# ------------------------------------------------------------------ encode


_NO_ARTEFACTS = "Ollama has no field for a provider's opaque artefact"


class _Forms(BaseForms, ChatForms[ChatMessage]):
    """Ollama's messages, for :func:`~toolwire.protocol.chat_request.chat_messages`."""

    label = "Ollama"
    context_hint = "Ollama has no field for run context; put it in a system message"

    def reasoning(self, m: ReasoningMessage) -> str | None:
        if m.encrypted_value:
            self.h.lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS))
        return None

    def assistant(
        self, m: AssistantMessage, thinking: list[str], signatures: list[str]
    ) -> ChatMessage:
        return _assistant(m, self.h.ids, thinking, self.h.lost)

    def tool(self, result: ToolMessage, call: ToolCall, content: Fitted) -> ChatMessage:
        h = self.h
        return _tool(result, call.function.name, content, h.in_tool, h.ids, h.lost)

    def user(self, content: Fitted) -> ChatMessage:
        return _with_media({"role": "user"}, content, self.h.in_user, None, self.h.lost)

    def moved(self, parts: list[ContentPart]) -> ChatMessage | None:
        return self.user(parts)


encode_request = chat_encode_request(
    VENDOR,
    CALL_ID_RULE,
    _Forms,
    doc="""A ``/api/chat`` body (``model``, ``messages``, ``tools``, options).

``media`` is ``"drop"`` or ``"relocate"``; ``tool_result`` / ``user_message``
override the capability rows for ``model``. ``unanswered`` says what to do with a
call that has no result (``"error"``, ``"drop"``, ``"answer"``).
""",
    module=__name__,
)


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
        # (the type tags, not isinstance: a failed isinstance on a pydantic class is slow)
        if p.type == "text":
            texts.append(p.text)
        elif p.type == "image" and p.source.type == "data":
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
        args = from_text(args)
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
    out["content"] = with_error_note(out["content"], result.error)
    out["tool_name"] = name
    out["tool_call_id"] = ids(result.tool_call_id)
    return out


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
    return chat_run_input(
        req, raw, messages, lost, fields=FIELDS, thread_id=thread_id, run_id=run_id
    )


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
        mid = mint_id("msg", VENDOR, i, dumps_compact(m, VENDOR, where))
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
    text = arguments_text(fn.get("arguments"), FIELDS, f"{where}.function.arguments")
    cid = FIELDS.opt_text(c.get("id"), f"{where}.id") or mint_id("call", mid, j)
    index = FIELDS.opt_int(fn.get("index"), f"{where}.function.index")
    kw: dict[str, Any] = {"metadata": {INDEX_KEY: index}} if index is not None else {}
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=text), **kw)


__all__ = ["decode_request", "encode_request"]
