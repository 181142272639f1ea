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

from typing import Any

from ag_ui.core import (
    AssistantMessage,
    ContentPart,
    Message,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.chat_request import (
    BaseForms,
    ChatForms,
    Fitted,
    call_of_function,
    chat_encode_request,
    chat_run_input,
    function_call,
    with_error_note,
)
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.fitting import (
    Accepts,
    part_loss,
)
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.parts import text_of
from toolwire.protocol.signatures import mark, usable_encrypted
from toolwire.protocol.surface import checked_options

from .parts import to_agui, to_vendor
from .wire import (
    CALL_ID_RULE,
    FIELDS,
    PROVIDER,
    VENDOR,
    ChatMessage,
    ThinkChunk,
)

_NO_ARTEFACTS = "Mistral has no field for another provider's opaque artefact"


class _Forms(BaseForms, ChatForms[ChatMessage]):
    """Mistral's messages, for :func:`~toolwire.protocol.chat_request.chat_messages`."""

    label = "Mistral"
    context_hint = "Mistral has no field for run context; put it in a system message"

    def reasoning(self, m: ReasoningMessage) -> str | None:
        meta = m.metadata if isinstance(m.metadata, dict) else None
        return usable_encrypted(
            m.encrypted_value,
            meta,
            PROVIDER,
            target=VENDOR,
            entity="a reasoning message",
            losses=self.h.lost,
        )

    def assistant(
        self, m: AssistantMessage, thinking: list[str], signatures: list[str]
    ) -> ChatMessage:
        return _assistant(m, self.h.ids, thinking, signatures, self.h.lost)

    def tool(self, result: ToolMessage, call: ToolCall, content: Fitted) -> ChatMessage:
        return _tool(result, call.function.name, content, self.h.ids, self.h.lost)

    def parts(self, parts: list[ContentPart]) -> list[Any]:
        return _parts(parts, self.h.in_user, self.h.lost)


encode_request = chat_encode_request(
    VENDOR,
    CALL_ID_RULE,
    _Forms,
    doc="""A ``chat.complete`` / ``chat.stream`` body (``model``, ``messages``, ``tools``, options).

``media`` is ``"drop"`` or ``"relocate"``; ``tool_result`` / ``user_message`` override
the capability rows for ``model``; ``unanswered`` says what to do with a call that has
no result (``"error"``, ``"drop"``, ``"answer"``).
""",
    module=__name__,
)


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
        out["tool_calls"] = [function_call(c, ids(c.id, c.metadata)) for c in calls]
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
            if p.type == "text":
                texts.append(p.text)
            else:
                why = "a Mistral tool message holds text"
                lost.append(part_loss(p, i, VENDOR, why, result.tool_call_id))
        text = "".join(texts)
    text = with_error_note(text, result.error)
    return {"role": "tool", "tool_call_id": ids(result.tool_call_id), "name": name, "content": text}


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
    return chat_run_input(
        req, raw, messages, lost, fields=FIELDS, thread_id=thread_id, run_id=run_id
    )


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
    mid = mint_id("msg", VENDOR, i, dumps_compact(m, VENDOR, where))
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
        call_of_function(c, FIELDS, f"{where}.tool_calls[{j}]")
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


__all__ = ["decode_request", "encode_request"]
