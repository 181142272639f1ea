"""MCP content blocks <-> AG-UI content parts, one block at a time, both directions.

What a part cannot model (a resource's URI, a link's name, annotations, ``_meta``)
rides in the part's metadata under ``mcp.<wire name>`` and is written back from there.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import ContentPart, DataSource, FileSource, TextPart, UrlSource

from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.fitting import part_loss
from toolwire.protocol.ids import mint_id
from toolwire.protocol.parts import media_part

from .wire import (
    FIELDS,
    MIME_KEY,
    PREFIX,
    RESOURCE_META_KEY,
    SPEC_REVISION,
    STRUCTURED_TYPE,
    TYPE_KEY,
    URI_KEY,
    VENDOR,
    as_json,
    optional,
    prefixed,
    strip_unknown,
    unprefixed,
)

_COMMON = ("annotations", "_meta")
_LINK_FIELDS = ("name", "title", "description", "size", "icons")
_KNOWN: dict[str, frozenset[str]] = {
    "text": frozenset({"type", "text", *_COMMON}),
    "image": frozenset({"type", "data", "mimeType", *_COMMON}),
    "audio": frozenset({"type", "data", "mimeType", *_COMMON}),
    "resource": frozenset({"type", "resource", *_COMMON}),
    "resource_link": frozenset({"type", "uri", "mimeType", *_LINK_FIELDS, *_COMMON}),
}
_CONTENTS = frozenset({"uri", "mimeType", "_meta", "text", "blob"})
_LINK_TYPES: dict[str, type | tuple[type, ...]] = {
    "title": str,
    "description": str,
    "size": (int, float),
    "icons": list,
}
#: The MIME type of a blob resource that names none (RFC 2046: arbitrary binary data).
UNKNOWN_BINARY = "application/octet-stream"


def decode_block(block: Any, where: str, stripped: list[str]) -> ContentPart | None:
    """One content block as a part; ``None`` for an unknown block type. What is stripped
    is noted in ``stripped`` (the caller warns)."""
    b = as_json(block, where)
    kind = FIELDS.at(b, "type", str, where)
    known = _KNOWN.get(kind)
    if known is None:
        stripped.append(
            f"toolwire: stripped {where} of unknown content type {kind!r} "
            f"(not in MCP {SPEC_REVISION})"
        )
        return None
    strip_unknown(b, known, where, stripped)
    for key in _COMMON:
        optional(b, key, dict, where)
    common = prefixed(b, _COMMON)
    if kind == "text":
        return TextPart(text=FIELDS.at(b, "text", str, where), metadata=common or None)
    if kind in ("image", "audio"):
        data = FIELDS.at(b, "data", str, where)
        mime = FIELDS.at(b, "mimeType", str, where)
        return media_part(
            DataSource(value=data, mime_type=mime), kind=kind, metadata=common or None
        )
    if kind == "resource":
        res = FIELDS.at(b, "resource", dict, where)
        return _embedded(res, common, f"{where}.resource", stripped)
    FIELDS.at(b, "name", str, where)
    uri = FIELDS.at(b, "uri", str, where)
    mime = optional(b, "mimeType", str, where)
    for key, types in _LINK_TYPES.items():
        optional(b, key, types, where)
    meta = {TYPE_KEY: "resource_link", **prefixed(b, _LINK_FIELDS), **common}
    # no MIME type: a document part (the kind that claims no media type), URL source
    # without one, so fitting keeps it only where the target sniffs unknown types
    return media_part(UrlSource(value=uri, mime_type=mime), metadata=meta)


def _embedded(
    res: dict[str, Any], common: dict[str, Any], where: str, stripped: list[str]
) -> ContentPart:
    strip_unknown(res, _CONTENTS, where, stripped)
    uri = FIELDS.at(res, "uri", str, where)
    mime = optional(res, "mimeType", str, where)
    optional(res, "_meta", dict, where)
    text = optional(res, "text", str, where)
    blob = optional(res, "blob", str, where)
    if (text is None) == (blob is None):
        raise VendorDataError(VENDOR, where, "an embedded resource holds exactly one of text, blob")
    meta: dict[str, Any] = {TYPE_KEY: "resource", URI_KEY: uri}
    if "_meta" in res:
        meta[RESOURCE_META_KEY] = res["_meta"]
    if text is not None:
        if mime is not None:
            meta[MIME_KEY] = mime  # a text part has no MIME type of its own
        return TextPart(text=text, metadata={**meta, **common})
    source = DataSource(value=blob, mime_type=mime or UNKNOWN_BINARY)
    return media_part(source, metadata={**meta, **common})


def encode_part(
    part: ContentPart,
    index: int,
    tool_call_id: str,
    losses: list[Loss],
    *,
    structured: bool = False,
) -> dict[str, Any] | None:
    """One part as a content block; ``None`` when MCP cannot hold it (a loss is recorded).

    ``structured``: the result carries ``structuredContent``, so the JSON text part
    toolwire added for it on decode is not written a second time.
    """
    meta: dict[str, Any] = part.metadata if isinstance(part.metadata, dict) else {}
    _foreign_metadata(part, index, tool_call_id, losses)
    common = unprefixed(meta, _COMMON)
    kind = meta.get(TYPE_KEY)
    uri = meta.get(URI_KEY)
    if isinstance(part, TextPart):
        if kind == STRUCTURED_TYPE and structured:
            return None
        if kind == "resource" and isinstance(uri, str):
            res: dict[str, Any] = {"uri": uri}
            if isinstance(meta.get(MIME_KEY), str):
                res["mimeType"] = meta[MIME_KEY]
            res["text"] = part.text
            _resource_meta(res, meta)
            return {"type": "resource", "resource": res, **common}
        return {"type": "text", "text": part.text, **common}
    source = part.source
    if isinstance(source, FileSource):
        reason = "MCP content has no provider file handles (only the issuer resolves one)"
        losses.append(part_loss(part, index, VENDOR, reason, tool_call_id))
        return None
    if isinstance(source, UrlSource):
        name = meta.get(PREFIX + "name")
        link: dict[str, Any] = {
            "type": "resource_link",
            "uri": source.value,
            "name": name if isinstance(name, str) else source.value,
        }
        if source.mime_type is not None:
            link["mimeType"] = source.mime_type
        link.update(unprefixed(meta, tuple(_LINK_TYPES)))
        return {**link, **common}
    if kind != "resource" or not isinstance(uri, str):
        if part.type in ("image", "audio"):
            return {"type": part.type, "data": source.value, "mimeType": source.mime_type, **common}
        # MCP holds other media only as an embedded resource, which needs a URI: one is
        # minted from the call and the part's place, as toolwire mints missing ids
        uri = "toolwire:" + mint_id("resource", tool_call_id, index)
    res = {"uri": uri, "mimeType": source.mime_type, "blob": source.value}
    _resource_meta(res, meta)
    return {"type": "resource", "resource": res, **common}


def _resource_meta(res: dict[str, Any], meta: dict[str, Any]) -> None:
    if RESOURCE_META_KEY in meta:
        res["_meta"] = meta[RESOURCE_META_KEY]


def _foreign_metadata(part: ContentPart, index: int, tool_call_id: str, losses: list[Loss]) -> None:
    """A loss for what a part carries that MCP content has no place for."""
    lost = ["its id"] if part.id is not None else []
    if isinstance(part.metadata, dict):
        lost += [repr(k) for k in part.metadata if not str(k).startswith(PREFIX)]
    elif part.metadata is not None:
        lost.append("its metadata (not an object)")
    if lost:
        losses.append(
            Loss(
                kind="metadata-dropped",
                target=VENDOR,
                reason=f"content part #{index}: an MCP content block has no place for "
                + ", ".join(lost),
                tool_call_id=tool_call_id,
            )
        )


__all__ = ["UNKNOWN_BINARY", "decode_block", "encode_part"]
