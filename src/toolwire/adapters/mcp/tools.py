"""MCP ``Tool`` <-> AG-UI ``Tool``; ``CallToolRequest`` params <-> AG-UI ``ToolCall``.

An MCP call's ``arguments`` is a JSON object; AG-UI carries argument text. Decoding
writes the object as compact JSON text (absent arguments are ``""``); encoding parses
the text back, and text that is not a JSON object is an error, never a guess: a tool
run with made-up arguments would act on words the model never said.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import FunctionCall, Tool, ToolCall

from toolwire.errors import UnsupportedInput
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact, parse_arguments_object
from toolwire.protocol.inputs import as_agui
from toolwire.protocol.surface import checked_options, encode_surface

from .wire import (
    FIELDS,
    PREFIX,
    VENDOR,
    as_json,
    ids,
    optional,
    strip_unknown,
    unprefixed,
    warn_stripped,
)

#: Tool fields kept as ``mcp.<field>`` metadata (AG-UI's Tool has name, description,
#: parameters only); ``execution`` is the SDK's field for revisions before 2026-07-28.
_TOOL_EXTRA = ("title", "outputSchema", "annotations", "icons", "execution", "_meta")
_TOOL_KNOWN = frozenset({"name", "description", "inputSchema", *_TOOL_EXTRA})
_TOOL_TYPES: dict[str, type] = {
    "title": str,
    "outputSchema": dict,
    "annotations": dict,
    "icons": list,
    "execution": dict,
    "_meta": dict,
}


@checked_options(VENDOR)
def decode_tool(tool: Any) -> Tool:
    """An MCP tool definition (SDK model or dict) as an AG-UI tool."""
    t = as_json(tool, "tool")
    name = FIELDS.at(t, "name", str, "tool")
    where = f"tool {name!r}"
    stripped: list[str] = []
    strip_unknown(t, _TOOL_KNOWN, where, stripped)
    schema = FIELDS.at(t, "inputSchema", dict, where)
    description = optional(t, "description", str, where)
    for key, kind in _TOOL_TYPES.items():
        optional(t, key, kind, where)
    meta = {PREFIX + k: t[k] for k in _TOOL_EXTRA if k in t}
    kw: dict[str, Any] = {"metadata": meta} if meta else {}
    warn_stripped(stripped)
    # AG-UI requires a description; an absent one is the empty string (and back)
    return Tool(name=name, description=description or "", parameters=schema, **kw)


@encode_surface(VENDOR)
def encode_tool(tool: Any, *, losses: list[Loss] | None = None) -> dict[str, Any]:
    """An AG-UI tool (model or dict) as an MCP tool definition (an ``Encoded`` body: its
    ``.losses`` are what MCP cannot hold, each warned about once).

    Parameters with no ``type`` get ``"type": "object"`` (MCP requires it, and tool
    arguments are objects anyway); a schema for anything but an object is an error.
    """
    t = as_agui(Tool, tool, "mcp: tool")
    schema = t.parameters if t.parameters is not None else {"type": "object"}
    if not isinstance(schema, dict):
        raise UnsupportedInput(f"mcp: tool {t.name!r}: parameters must be a JSON Schema object")
    if "type" not in schema:
        schema = {"type": "object", **schema}
    elif schema["type"] != "object":
        raise UnsupportedInput(
            f"mcp: tool {t.name!r}: an MCP inputSchema describes an object, "
            f"not type {schema['type']!r}"
        )
    out: dict[str, Any] = {"name": t.name}
    if t.description:
        out["description"] = t.description
    out["inputSchema"] = schema
    meta = t.metadata or {}
    out.update(unprefixed(meta, _TOOL_EXTRA))
    _report(meta, _TOOL_EXTRA, f"tool {t.name!r}", None, losses)
    return out


#: Call params kept as ``mcp.<field>`` metadata on the ToolCall (``_meta``, ``task``,
#: ``inputResponses``, ``requestState`` and any extension field).
_CALL_MAPPED = frozenset({"name", "arguments"})


@checked_options(VENDOR)
def decode_call(params: Any, *, tool_call_id: str) -> ToolCall:
    """``tools/call`` params (or the whole request; SDK model or dict) as an AG-UI tool call.

    MCP gives the call no id of its own (the JSON-RPC id belongs to the transport),
    so the caller names it with ``tool_call_id``.
    """
    ids(tool_call_id=tool_call_id)
    p = as_json(params, "params")
    if "method" in p:
        if p["method"] != "tools/call":
            raise UnsupportedInput(f"mcp: request: method {p['method']!r} is not tools/call")
        p = FIELDS.at(p, "params", dict, "request")
    name = FIELDS.at(p, "name", str, "params")
    args = optional(p, "arguments", dict, "params")
    text = "" if args is None else dumps_compact(args, VENDOR, "params.arguments")
    meta = {PREFIX + k: v for k, v in p.items() if k not in _CALL_MAPPED}
    kw: dict[str, Any] = {"metadata": meta} if meta else {}
    return ToolCall(id=tool_call_id, function=FunctionCall(name=name, arguments=text), **kw)


@encode_surface(VENDOR)
def encode_call(call: Any, *, losses: list[Loss] | None = None) -> dict[str, Any]:
    """An AG-UI tool call (model or dict) as ``tools/call`` params: ``name``, ``arguments``
    (an ``Encoded`` body, its ``.losses`` warned about once).

    Empty argument text sends no ``arguments``; text that is not a JSON object raises
    ``UnsupportedInput`` (naming the call, never echoing the text).
    """
    c = as_agui(ToolCall, call, "mcp: tool call")
    out: dict[str, Any] = {"name": c.function.name}
    text = c.function.arguments
    if text != "":
        args = parse_arguments_object(text)
        if args is None:
            raise UnsupportedInput(
                f"mcp: tool call {c.id!r} ({c.function.name}): the argument text is not a "
                "JSON object, and MCP arguments must be one"
            )
        out["arguments"] = args
    meta = c.metadata or {}
    for key, value in meta.items():
        wire = key[len(PREFIX) :]
        if key.startswith(PREFIX) and wire not in _CALL_MAPPED:
            out[wire] = value
    _report(meta, (), f"tool call {c.function.name!r}", c.id, losses, c.encrypted_value)
    return out


def _report(
    meta: dict[str, Any],
    keep: tuple[str, ...],
    what: str,
    tool_call_id: str | None,
    losses: list[Loss] | None,
    encrypted: str | None = None,
) -> None:
    """Record what an encoded tool or call cannot carry (``returns_encoded`` warns)."""
    lost = [
        repr(k) for k in meta if not k.startswith(PREFIX) or (keep and k[len(PREFIX) :] not in keep)
    ]
    if encrypted is not None:
        lost.append("its encryptedValue")
    if lost and losses is not None:
        losses.append(
            Loss(
                kind="metadata-dropped",
                target=VENDOR,
                reason=f"MCP has no place for {what}'s {', '.join(lost)}",
                tool_call_id=tool_call_id,
            )
        )


__all__ = ["decode_call", "decode_tool", "encode_call", "encode_tool"]
