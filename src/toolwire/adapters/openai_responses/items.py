"""Responses output/input items that are tool calls, as AG-UI calls and results.

Three families:

* ``function_call`` and ``custom_tool_call``: the application runs the tool and
  answers with ``function_call_output`` / ``custom_tool_call_output``;
* tools OpenAI runs itself (:data:`SERVER_RUN`): one item holds both the call
  and its result, which becomes a ``TOOL_CALL_RESULT`` with parts;
* any other ``*_call`` item with a ``call_id`` (computer use, local shell,
  client tool search, ...): a call the application answers with the matching
  ``*_output`` item.

What a part cannot model rides in metadata: the whole vendor item under
:data:`~.wire.ITEM_KEY` (without an image generation's base64 result, which lives
in the result's ``ImagePart``), so a later request can resend it unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    ContentPart,
    DataSource,
    FileSource,
    ImagePart,
    Interrupt,
    ResumeEntry,
    TextPart,
)

from toolwire.errors import UnsupportedInput
from toolwire.protocol import RESULT_ERROR_KEY
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.parts import Content

from .parts import to_agui_content, url_source
from .wire import CALL_FIELDS_KEY, FIELDS, ITEM_ID_KEY, ITEM_KEY, ITEM_TYPE_KEY, PROVIDER

#: Tools OpenAI runs itself: the item carries the result.
SERVER_RUN = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
    }
)
#: ``function_call`` fields with their own home; the rest ride in :data:`~.wire.CALL_FIELDS_KEY`.
_FUNCTION_FIELDS = frozenset({"type", "id", "call_id", "name", "arguments", "status"})
#: Image generation keys that describe the request, shown as the call's arguments.
_IMAGE_ARGS = ("action", "background", "output_format", "quality", "size", "revised_prompt")


@dataclass
class Call:
    """A vendor item seen as an AG-UI tool call (and, for hosted tools, its result)."""

    id: str
    name: str
    arguments: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    result: Content | None = None
    result_metadata: dict[str, Any] = field(default_factory=dict)


def is_call_item(kind: str, item: dict[str, Any]) -> bool:
    """True for every item type this module reads as a tool call: a ``*_call`` (or a
    ``program``) with a ``call_id``, or, when OpenAI gives none (a server-run
    ``tool_search_call``), an item ``id`` to stand for it."""
    if kind in ("function_call", "custom_tool_call") or kind in SERVER_RUN:
        return True
    if not (kind.endswith("_call") or kind == "program"):
        return False
    return isinstance(item.get("call_id"), str) or isinstance(item.get("id"), str)


def is_vendor_run(kind: str | None, item: dict[str, Any]) -> bool:
    """A call OpenAI runs itself (its result is its own item or a later ``*_output`` OpenAI
    sends): never the application's to answer."""
    return kind in SERVER_RUN or kind == "program" or item.get("execution") == "server"


def is_output_item(kind: str, item: dict[str, Any]) -> bool:
    """True for an item answering a call (``*_output`` with a ``call_id``)."""
    return kind.endswith("_output") and isinstance(item.get("call_id"), str)


def answers_kinds(output_kind: str) -> tuple[str, ...]:
    """The call item types an ``*_output`` item answers (``tool_search_output`` ->
    ``tool_search_call``; ``local_shell_call_output`` -> ``local_shell_call``)."""
    base = output_kind.removesuffix("_output")
    return (base, f"{base}_call")


class Waiting:
    """The calls of one stream or history not answered yet, per call item type, oldest first:
    what an ``*_output`` item without a ``call_id`` answers (OpenAI's server-run tool search
    sends both without one; the output follows its call)."""

    __slots__ = ("_by_kind",)

    def __init__(self) -> None:
        self._by_kind: dict[str, list[str]] = {}

    def add(self, kind: str, call_id: str) -> None:
        self._by_kind.setdefault(kind, []).append(call_id)

    def answered(self, call_id: str) -> None:
        for ids in self._by_kind.values():
            if call_id in ids:
                ids.remove(call_id)
                return

    def answer(self, output_kind: str, call_id: str | None) -> str | None:
        """The call ``output_kind`` answers: ``call_id`` when given, else the oldest call of
        the matching type still waiting (``None``: nothing it can answer)."""
        if call_id is None:
            for kind in answers_kinds(output_kind):
                ids = self._by_kind.get(kind)
                if ids:
                    call_id = ids[0]
                    break
        if call_id is not None:
            self.answered(call_id)
        return call_id


def call_identity(item: dict[str, Any], where: str) -> Call:
    """Id, name and opening metadata of a call item (enough for ``TOOL_CALL_START``)."""
    kind = FIELDS.at(item, "type", str, where)
    if kind in ("function_call", "custom_tool_call"):
        call = Call(
            id=FIELDS.at(item, "call_id", str, where),
            name=FIELDS.at(item, "name", str, where),
        )
        if isinstance(item.get("id"), str):
            call.metadata[ITEM_ID_KEY] = item["id"]
        if kind == "custom_tool_call":
            call.metadata[ITEM_TYPE_KEY] = kind
        else:
            extra = {k: v for k, v in item.items() if k not in _FUNCTION_FIELDS}
            if extra:
                call.metadata[CALL_FIELDS_KEY] = extra
        return call
    if kind in SERVER_RUN:
        ident = FIELDS.at(item, "id", str, where)
        name = item["name"] if kind == "mcp_call" and isinstance(item.get("name"), str) else None
    elif isinstance(item.get("call_id"), str):
        ident = item["call_id"]
        name = None
    else:  # no call_id (a server-run tool search): the item id stands for it, unchanged
        ident = FIELDS.at(item, "id", str, where)
        name = None
    call = Call(id=ident, name=name or kind.removesuffix("_call"))
    call.metadata[ITEM_TYPE_KEY] = kind
    return call


def call_arguments(item: dict[str, Any]) -> str:
    """The argument text of a call item (JSON text for items that hold an object)."""
    kind = item.get("type")
    if kind == "function_call":
        value = item.get("arguments", "")
    elif kind == "custom_tool_call":
        value = item.get("input", "")
    elif kind == "web_search_call":
        value = item.get("action", {})
    elif kind == "file_search_call":
        value = {"queries": item.get("queries", [])}
    elif kind == "code_interpreter_call":
        value = {"code": item.get("code")}
    elif kind == "image_generation_call":
        value = {k: item[k] for k in _IMAGE_ARGS if item.get(k) is not None}
    else:
        value = next(
            (item[k] for k in ("arguments", "action", "actions", "operation", "code") if k in item),
            {},
        )
        if kind == "program" and isinstance(value, str):
            value = {"code": value}
    return value if isinstance(value, str) else dumps_compact(value)


def kept_item(item: dict[str, Any]) -> dict[str, Any]:
    """The vendor item as metadata keeps it: whole, less a generated image's base64."""
    if item.get("type") == "image_generation_call" and "result" in item:
        return {k: v for k, v in item.items() if k != "result"}
    return dict(item)


def finish_call(item: dict[str, Any], where: str) -> Call:
    """A completed call item: identity, argument text, closing metadata and any result."""
    call = call_identity(item, where)
    call.arguments = call_arguments(item)
    kind = item["type"]
    if kind in ("function_call", "custom_tool_call"):
        return call
    call.metadata[ITEM_KEY] = kept_item(item)
    if kind in SERVER_RUN:
        call.result, call.result_metadata = hosted_result(item, where)
    return call


def image_data(content: Any) -> str | None:
    """The base64 image an ``image_generation_call`` result holds (its first inline image):
    the item's ``result`` field, which the item kept in metadata leaves out."""
    if isinstance(content, list):
        for part in content:
            if isinstance(part, ImagePart) and isinstance(part.source, DataSource):
                return part.source.value
    return None


def _error_text(error: Any) -> str | None:
    """A hosted call's ``error`` as text: a string, an error's ``message``, or the text
    of an MCP tool execution error's ``content`` (its MCP content items)."""
    if error is None:
        return None
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        if isinstance(error.get("message"), str):
            return str(error["message"])
        content = error.get("content")
        if isinstance(content, str) and content:
            return content
        if isinstance(content, list):
            texts = [
                c["text"] for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)
            ]
            if texts:
                return "\n".join(texts)
    return dumps_compact(error)


def hosted_result(item: dict[str, Any], where: str) -> tuple[Content, dict[str, Any]]:
    """The result a tool OpenAI ran holds in its item, as parts plus metadata."""
    kind = item["type"]
    meta: dict[str, Any] = {}
    parts: list[ContentPart] = []
    if kind == "web_search_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        sources = action.get("sources") if isinstance(action, dict) else None
        if isinstance(sources, list) and sources:
            urls = [
                s["url"] for s in sources if isinstance(s, dict) and isinstance(s.get("url"), str)
            ]
            parts.append(TextPart(text="\n".join(urls), metadata={"openai.sources": sources}))
    elif kind == "file_search_call":
        for i, hit in enumerate(FIELDS.list_at(item, "results", where)):
            hit = FIELDS.obj(hit, f"{where}.results[{i}]")
            info = {k: v for k, v in hit.items() if k != "text" and v is not None}
            parts.append(TextPart(text=str(hit.get("text") or ""), metadata=info or None))
    elif kind == "code_interpreter_call":
        if isinstance(item.get("container_id"), str):
            meta["openai.container_id"] = item["container_id"]
        for i, out in enumerate(FIELDS.list_at(item, "outputs", where)):
            at = f"{where}.outputs[{i}]"
            out = FIELDS.obj(out, at)
            if out.get("type") == "logs":
                parts.append(TextPart(text=FIELDS.at(out, "logs", str, at)))
            elif out.get("type") == "image":
                src = url_source(FIELDS.at(out, "url", str, at), at, None)
                parts.append(ImagePart(source=src))
    elif kind == "image_generation_call":
        if isinstance(item.get("result"), str) and item["result"]:
            fmt = item.get("output_format") or "png"
            mime = "image/svg+xml" if fmt == "svg" else f"image/{fmt}"
            parts.append(ImagePart(source=DataSource(value=item["result"], mime_type=mime)))
    elif kind == "mcp_call":
        if isinstance(item.get("output"), str) and item["output"]:
            parts.append(TextPart(text=item["output"]))
        if isinstance(item.get("server_label"), str):
            meta["openai.server_label"] = item["server_label"]
    error = _error_text(item.get("error"))
    if error is None and item.get("status") == "failed":
        error = f"{kind} failed"
    if error is not None:
        meta[RESULT_ERROR_KEY] = error
        if not parts:  # the content says it too (docs/decisions.md), for readers of text only
            return error, meta
    return (parts if parts else ""), meta


def output_item_result(
    item: dict[str, Any], where: str, *, target: str
) -> tuple[Content, dict[str, Any], list[Any]]:
    """An answering ``*_output`` item (other than ``function_call_output``) as a result."""
    meta: dict[str, Any] = {"openai.output_item": dict(item)}
    output = item.get("output")
    if isinstance(output, list) and not all(isinstance(o, dict) and "type" in o for o in output):
        # not content parts (a shell call's stdout / stderr / outcome records): as JSON text
        return dumps_compact(output), meta, []
    if isinstance(output, (str, list)):
        content, losses = to_agui_content(
            output, f"{where}.output", target=target, tool_call_id=item.get("call_id")
        )
        return content, meta, losses
    if isinstance(output, dict) and output.get("type") == "computer_screenshot":
        if isinstance(output.get("file_id"), str):
            src: Any = FileSource(value=output["file_id"], provider=PROVIDER)
        else:
            src = url_source(FIELDS.at(output, "image_url", str, f"{where}.output"), where, None)
        return [ImagePart(source=src)], meta, []
    if isinstance(item.get("result"), str):  # a program's output
        return item["result"], meta, []
    rest = {k: v for k, v in item.items() if k not in ("type", "id", "call_id", "status")}
    return (dumps_compact(rest) if rest else ""), meta, []


#: ``Interrupt.reason`` of an MCP approval request, and what its answer looks like
#: (``ResumeEntry.payload``): OpenAI waits for an ``mcp_approval_response`` before it calls
#: the MCP tool
APPROVAL_REASON = "mcp_approval"
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approve": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approve"],
}


def approval_interrupt(item: dict[str, Any], where: str) -> Interrupt:
    """An ``mcp_approval_request`` item as the interrupt the application answers."""
    ident = FIELDS.at(item, "id", str, where)
    name = FIELDS.opt_text(item.get("name"), f"{where}.name") or "a tool"
    server = FIELDS.opt_text(item.get("server_label"), f"{where}.server_label") or "an MCP server"
    return Interrupt(
        id=ident,
        reason=APPROVAL_REASON,
        message=f"Allow {name} on {server}?",
        response_schema=APPROVAL_SCHEMA,
        metadata={ITEM_KEY: dict(item)},
    )


def approval_response(entry: ResumeEntry) -> dict[str, Any]:
    """A resume entry as the ``mcp_approval_response`` input item (cancelled: not approved)."""
    if entry.status == "cancelled":
        return {
            "type": "mcp_approval_response",
            "approval_request_id": entry.interrupt_id,
            "approve": False,
        }
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    approve = payload.get("approve")
    if not isinstance(approve, bool):
        raise UnsupportedInput(
            f"openai_responses: resume entry for interrupt {entry.interrupt_id!r}: "
            f"payload.approve must be true or false, got {approve!r}"
        )
    out: dict[str, Any] = {
        "type": "mcp_approval_response",
        "approval_request_id": entry.interrupt_id,
        "approve": approve,
    }
    if isinstance(payload.get("reason"), str):
        out["reason"] = payload["reason"]
    return out


def approval_entry(item: dict[str, Any], where: str) -> ResumeEntry:
    """An ``mcp_approval_response`` input item as the resume entry it is."""
    request = FIELDS.at(item, "approval_request_id", str, where)
    approve = FIELDS.at(item, "approve", bool, where)
    payload: dict[str, Any] = {"approve": approve}
    reason = FIELDS.opt_text(item.get("reason"), f"{where}.reason")
    if reason is not None:
        payload["reason"] = reason
    return ResumeEntry(interrupt_id=request, status="resolved", payload=payload)


__all__ = [
    "APPROVAL_REASON",
    "APPROVAL_SCHEMA",
    "SERVER_RUN",
    "Call",
    "Waiting",
    "answers_kinds",
    "approval_entry",
    "approval_interrupt",
    "approval_response",
    "call_arguments",
    "call_identity",
    "finish_call",
    "hosted_result",
    "image_data",
    "is_call_item",
    "is_output_item",
    "is_vendor_run",
    "kept_item",
    "output_item_result",
]
