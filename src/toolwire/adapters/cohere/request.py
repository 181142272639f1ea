"""Request bodies both ways: ``RunAgentInput`` <-> the v2 chat body.

An assistant message that makes calls carries its text as ``tool_plan`` beside
``tool_calls`` (Cohere's shape for a tool-calling turn); one without calls carries it as
``content``. Each call is answered right after, in call order, by a ``role:"tool"``
message whose ``content`` is a list of ``text`` and ``document`` items: a result whose
text is a JSON object goes as a ``document`` (its ``data`` that object), which Cohere
cites; other text as ``text``. Images travel only in user messages (``image_url``), so a
result's media is dropped (with a warning) or, with ``media="relocate"``, moved into a
user message after the tool messages. A ``ReasoningMessage`` becomes a ``thinking``
content item of the next assistant message.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    AssistantMessage,
    ContentPart,
    DataSource,
    ImagePart,
    Message,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
)

from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact, parse_arguments_object
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.chat_request import (
    BaseForms,
    ChatForms,
    Fitted,
    call_of_function,
    chat_encode_request,
    chat_run_input,
    function_call,
)
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.finite import from_text
from toolwire.protocol.fitting import (
    Accepts,
    part_loss,
)
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.parts import parse_data_url, text_of, to_data_url
from toolwire.protocol.surface import checked_options

from .wire import (
    CALL_ID_RULE,
    DETAIL_KEY,
    DOCUMENT_ID_KEY,
    FIELDS,
    VENDOR,
    ChatMessage,
)

_NO_ARTEFACTS = "Cohere has no field for a provider's opaque artefact"


class _Forms(BaseForms, ChatForms[ChatMessage]):
    """Cohere's messages, for :func:`~toolwire.protocol.chat_request.chat_messages`."""

    label = "Cohere"
    context_hint = (
        "run context has no field of its own; put it in a system message or pass documents="
    )

    def reasoning(self, m: ReasoningMessage) -> str | None:
        if m.encrypted_value:
            self.h.lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS))
        return None

    def assistant(
        self, m: AssistantMessage, thinking: list[str], signatures: list[str]
    ) -> ChatMessage:
        return _assistant(m, self.h.ids, thinking, self.h.lost)

    def tool(self, result: ToolMessage, call: ToolCall, content: Fitted) -> ChatMessage:
        return _tool(result, content, self.h.ids, self.h.lost)

    def parts(self, parts: list[ContentPart]) -> list[Any]:
        return _user_parts(parts, self.h.in_user, self.h.lost)


encode_request = chat_encode_request(
    VENDOR,
    CALL_ID_RULE,
    _Forms,
    doc="""A ``ClientV2.chat`` / ``chat_stream`` body (``model``, ``messages``, ``tools``, options).

``media`` is ``"drop"`` or ``"relocate"``; ``tool_result`` / ``user_message`` override
the capability rows for ``model``; ``unanswered`` says what to do with a call that has
no result (``"error"``, ``"drop"``, ``"answer"``).
""",
    module=__name__,
)


def _loss(kind: str, reason: str, tool_call_id: str | None = None) -> Loss:
    return Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id)


def _user_parts(parts: list[ContentPart], place: Accepts, lost: list[Loss]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, p in enumerate(parts):
        # (the type tags, not isinstance: a failed isinstance on a pydantic class is slow)
        if p.type == "text":
            out.append({"type": "text", "text": p.text})
            continue
        if p.type == "image" and p.source.type != "file":
            src = p.source
            url = src.value if src.type == "url" else to_data_url(src.mime_type, src.value)
            image: dict[str, Any] = {"url": url}
            if p.metadata and isinstance(p.metadata, dict):
                detail = p.metadata.get(DETAIL_KEY)
                if isinstance(detail, str):
                    image["detail"] = detail
            out.append({"type": "image_url", "image_url": image})
            continue
        why = "a Cohere user message takes text and images (image_url) only"
        lost.append(part_loss(p, i, place.target, why, None))
    return out


def _assistant(
    m: AssistantMessage, ids: IdMapper, thinking: list[str], lost: list[Loss]
) -> ChatMessage:
    out: ChatMessage = {"role": "assistant"}
    calls = m.tool_calls or []
    items: list[dict[str, Any]] = []
    if thinking:
        items.append({"type": "thinking", "thinking": "".join(thinking)})
    if calls:
        if m.content:
            out["tool_plan"] = m.content
        out["tool_calls"] = [function_call(c, ids(c.id, c.metadata)) for c in calls]
    elif m.content:
        items.append({"type": "text", "text": m.content})
    if items:
        out["content"] = items if thinking else (m.content or "")  # (text here: m.content is set)
    elif not calls:
        out["content"] = ""
    if m.encrypted_value:
        lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS))
    for c in calls:
        if c.encrypted_value:
            lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS, c.id))
    return out


def _tool_item(text: str, meta: Any) -> dict[str, Any]:
    """One text of a result: a JSON object is a ``document`` (Cohere cites it), else ``text``."""
    # only a text whose first non-space character is "{" can be an object: no parse for others
    data = from_text(parse_arguments_object(text)) if text.lstrip()[:1] == "{" else None
    if data is not None and data:
        document: dict[str, Any] = {"data": data}
        if isinstance(meta, dict) and isinstance(meta.get(DOCUMENT_ID_KEY), str):
            document["id"] = meta[DOCUMENT_ID_KEY]
        return {"type": "document", "document": document}
    return {"type": "text", "text": text}


def _tool(result: ToolMessage, content: Any, ids: IdMapper, lost: list[Loss]) -> ChatMessage:
    """One ``role:"tool"`` message; the error travels as a text item (the API has no flag)."""
    items: list[dict[str, Any]] = []
    if isinstance(content, str):
        if content:
            items.append(_tool_item(content, None))
    else:
        for i, p in enumerate(content):
            if p.type == "text":
                items.append(_tool_item(p.text, p.metadata))
            else:
                why = "a Cohere tool message holds text and documents"
                lost.append(part_loss(p, i, VENDOR, why, result.tool_call_id))
    if result.error:
        items.append({"type": "text", "text": f"Error: {result.error}"})
    if not items:
        items.append({"type": "text", "text": ""})  # every part dropped: still answered
    return {"role": "tool", "tool_call_id": ids(result.tool_call_id), "content": items}


# ------------------------------------------------------------------ decode


@checked_options(VENDOR)
def decode_request(
    body: dict[str, Any] | Any, *, thread_id: str | None = None, run_id: str | None = None
) -> RunAgentInput:
    """A v2 chat body -> ``RunAgentInput``.

    Message ids are minted from each message's position and content. An assistant's
    ``tool_plan`` is its text beside its calls; a ``thinking`` item a ``ReasoningMessage``
    before it; a tool message's ``document`` items text parts holding the document's
    ``data`` as JSON (its ``id`` in metadata). Other body keys go to ``forwardedProps``.
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


def _part(item: Any, where: str) -> ContentPart:
    item = FIELDS.obj(item, where)
    kind = item.get("type")
    if kind == "text":
        return TextPart(text=FIELDS.at(item, "text", str, where))
    if kind == "image_url":
        image = FIELDS.at(item, "image_url", dict, where)
        url = FIELDS.at(image, "url", str, f"{where}.image_url")
        meta = {DETAIL_KEY: image["detail"]} if isinstance(image.get("detail"), str) else None
        inline = parse_data_url(url)
        if inline is not None:
            return ImagePart(source=DataSource(value=inline[1], mime_type=inline[0]), metadata=meta)
        return ImagePart(source=UrlSource(value=url), metadata=meta)
    if kind == "document":
        document = FIELDS.at(item, "document", dict, where)
        data = document.get("data")
        text = (
            data if isinstance(data, str) else dumps_compact(data, VENDOR, f"{where}.document.data")
        )
        doc_id = document.get("id")
        meta = {DOCUMENT_ID_KEY: doc_id} if isinstance(doc_id, str) and doc_id else None
        return TextPart(text=text, metadata=meta)
    raise VendorDataError(VENDOR, f"{where}.type", f"unknown content item type {kind!r}")


def _content(content: Any, where: str) -> str | list[ContentPart]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return [_part(p, f"{where}[{i}]") for i, p in enumerate(content)]
    raise FIELDS.wrong(content, (str, list), where)


def _decode_message(m: Any, where: str, i: int, lost: list[Loss]) -> list[Message]:
    m = FIELDS.obj(m, where)
    role = m.get("role")
    mid = mint_id("msg", VENDOR, i, dumps_compact(m, VENDOR, where))
    content = m.get("content")
    if role == "system":
        return [SystemMessage(id=mid, content=text_of(_content(content, f"{where}.content")))]
    if role == "user":
        return [UserMessage(id=mid, content=_content(content, f"{where}.content"))]
    if role == "assistant":
        return _decode_assistant(m, mid, where, lost)
    if role == "tool":
        call_id = FIELDS.at(m, "tool_call_id", str, where)
        parts = _content(content, f"{where}.content")
        if isinstance(parts, list) and all(
            isinstance(p, TextPart) and not p.metadata for p in parts
        ):
            parts = "".join(p.text for p in parts if isinstance(p, TextPart))
        return [ToolMessage(id=result_message_id(call_id), tool_call_id=call_id, content=parts)]
    raise VendorDataError(VENDOR, f"{where}.role", f"unknown role {role!r}")


def _decode_assistant(m: dict[str, Any], mid: str, where: str, lost: list[Loss]) -> list[Message]:
    out: list[Message] = []
    if m.get("citations"):  # an AG-UI assistant message has no field for them
        lost.append(
            Loss(
                kind="citations-dropped",
                target="AG-UI",
                reason=f"{VENDOR}: {where}.citations: an assistant message's citations have no "
                "place in its AG-UI message",
            )
        )
    content = m.get("content")
    texts: list[str] = []
    if isinstance(content, list):
        thoughts: list[str] = []
        for j, item in enumerate(content):
            item = FIELDS.obj(item, f"{where}.content[{j}]")
            if item.get("type") == "thinking":
                thoughts.append(FIELDS.at(item, "thinking", str, f"{where}.content[{j}]"))
            else:
                texts.append(FIELDS.at(item, "text", str, f"{where}.content[{j}]"))
        if thoughts:
            out.append(ReasoningMessage(id=mint_id("reasoning", mid), content="".join(thoughts)))
    elif isinstance(content, str):
        texts.append(content)
    elif content is not None:
        raise FIELDS.wrong(content, (str, list), f"{where}.content")
    plan = FIELDS.opt_text(m.get("tool_plan"), f"{where}.tool_plan")
    calls = [
        call_of_function(c, FIELDS, f"{where}.tool_calls[{j}]")
        for j, c in enumerate(FIELDS.list_at(m, "tool_calls", where))
    ]
    text = (plan or "") + "".join(texts)
    kw: dict[str, Any] = {}
    if calls:
        kw["tool_calls"] = calls
        if text:
            kw["content"] = text
    else:
        kw["content"] = text
    out.append(AssistantMessage(id=mid, **kw))
    return out


__all__ = ["decode_request", "encode_request"]
