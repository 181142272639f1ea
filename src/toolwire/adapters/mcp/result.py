"""``CallToolResult`` <-> AG-UI ``ToolMessage``.

A result's content blocks become parts (``parts.py``); ``structuredContent`` is kept
on the message's metadata and, unless the server already sent it as JSON text (the
specification asks it to), also as a JSON text part so a model sees it; ``isError``
becomes ``ToolMessage.error``. The way back restores all of it and reports as a
``Loss`` whatever MCP cannot hold.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import ContentPart, TextPart, ToolMessage

from toolwire.errors import UnsupportedInput
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.ids import result_message_id
from toolwire.protocol.inputs import as_agui
from toolwire.protocol.machine import RESULT_ERROR_KEY
from toolwire.protocol.surface import checked_options, encode_surface

from .parts import decode_block, encode_part
from .wire import (
    FIELDS,
    META_KEY,
    PREFIX,
    STRUCTURED_KEY,
    STRUCTURED_TYPE,
    TYPE_KEY,
    VENDOR,
    as_json,
    ids,
    optional,
    warn_stripped,
)

#: Result fields mapped to a ToolMessage field (the rest of the object is kept as metadata).
_MAPPED = frozenset({"content", "isError", "resultType", "structuredContent", "_meta"})


@checked_options(VENDOR)
def decode_result(result: Any, *, tool_call_id: str, message_id: str | None = None) -> ToolMessage:
    """An MCP ``CallToolResult`` (SDK model or dict) as the AG-UI tool message answering
    ``tool_call_id``; its id is ``message_id``, else ``protocol.ids.result_message_id``
    of the call id (the recipe every adapter uses)."""
    ids(tool_call_id=tool_call_id, message_id=message_id)
    r = as_json(result, "result")
    kind = optional(r, "resultType", str, "result")
    if kind not in (None, "complete"):
        raise UnsupportedInput(
            f"mcp: result: resultType {kind!r} is not a tool's answer (only 'complete' is); "
            "an input_required result is answered by retrying the call with its input"
        )
    blocks = FIELDS.at(r, "content", list, "result")
    is_error = optional(r, "isError", bool, "result")
    dicts = [as_json(b, f"result.content[{i}]") for i, b in enumerate(blocks)]
    parts: list[ContentPart] = []
    stripped: list[str] = []
    for i, block in enumerate(dicts):
        part = decode_block(block, f"result.content[{i}]", stripped)
        if part is not None:
            parts.append(part)
    # the error is what the text blocks say (the same text the way back compares with)
    error = _texts(dicts) if is_error else None
    metadata: dict[str, Any] = {}
    if "structuredContent" in r:
        value = r["structuredContent"]
        metadata[STRUCTURED_KEY] = value
        text = dumps_compact(value, VENDOR, "result.structuredContent")
        if not _restated(value, dicts):
            parts.append(TextPart(text=text, metadata={TYPE_KEY: STRUCTURED_TYPE}))
    if "_meta" in r:
        metadata[META_KEY] = optional(r, "_meta", dict, "result")
    metadata.update({PREFIX + k: v for k, v in r.items() if k not in _MAPPED})
    kw: dict[str, Any] = {}
    if error is not None:
        kw["error"] = error
    if metadata:
        kw["metadata"] = metadata
    warn_stripped(stripped)
    return ToolMessage(
        id=message_id or result_message_id(tool_call_id),
        tool_call_id=tool_call_id,
        content=parts or "",
        **kw,
    )


def _restated(value: Any, blocks: list[dict[str, Any]]) -> bool:
    """Whether a text block already holds ``value`` as JSON (in whatever layout)."""
    want = _canonical(value)
    for b in blocks:
        if b.get("type") != "text" or not isinstance(b.get("text"), str):
            continue
        try:
            if _canonical(json.loads(b["text"])) == want:
                return True
        except (ValueError, RecursionError):
            continue
    return False


def _texts(blocks: list[dict[str, Any]]) -> str:
    return "".join(b["text"] for b in blocks if b.get("type") == "text")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@encode_surface(VENDOR)
def encode_result(message: Any, *, losses: list[Loss] | None = None) -> dict[str, Any]:
    """An AG-UI tool message (model or dict) as a ``CallToolResult`` of the spec's JSON shape.

    Returns an ``Encoded`` body: ``.losses`` lists what MCP cannot hold, each warned about
    once; a ``losses`` list passed in gets them appended too.
    """
    m = as_agui(ToolMessage, message, "mcp: message")
    found: list[Loss] = [] if losses is None else losses
    meta = m.metadata or {}
    structured = STRUCTURED_KEY in meta
    content: list[dict[str, Any]] = []
    if isinstance(m.content, str):
        if m.content:
            content.append({"type": "text", "text": m.content})
    else:
        for i, part in enumerate(m.content):
            block = encode_part(part, i, m.tool_call_id, found, structured=structured)
            if block is not None:
                content.append(block)
    out: dict[str, Any] = {"content": content}
    if structured:
        out["structuredContent"] = meta[STRUCTURED_KEY]
    if m.error is not None:
        out["isError"] = True
        if m.error and m.error not in _texts(content):
            content.append({"type": "text", "text": m.error})
    if META_KEY in meta:
        out["_meta"] = meta[META_KEY]
    for key, value in meta.items():
        wire = key[len(PREFIX) :]
        if key.startswith(PREFIX) and wire not in _MAPPED:
            out[wire] = value
    foreign = [repr(k) for k in meta if not k.startswith(PREFIX) and k != RESULT_ERROR_KEY]
    if foreign:
        found.append(_dropped(f"the message's metadata {', '.join(foreign)}", m.tool_call_id))
    if m.encrypted_value is not None:
        found.append(_dropped("the message's encryptedValue", m.tool_call_id))
    out["resultType"] = "complete"
    return out


def _dropped(what: str, tool_call_id: str) -> Loss:
    return Loss(
        kind="metadata-dropped",
        target=VENDOR,
        reason=f"a CallToolResult has no place for {what}",
        tool_call_id=tool_call_id,
    )


__all__ = ["decode_result", "encode_result"]
