"""Converse content blocks <-> AG-UI content parts, used by both directions.

Media blocks carry a ``format`` (``png``, ``pdf``, ``mp4`` ...) where AG-UI carries a MIME
type, and a ``source`` that is ``bytes`` (base64 text in JSON, ``bytes`` in boto3) or an
``s3Location`` (an ``s3://`` URL part). A document needs a ``name``: the part's
``bedrock.name`` metadata (or its ``title``), else one minted from its place. A
``toolResult`` ``json`` block becomes a text part marked ``bedrock.type: json``, and goes
back as ``json``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ag_ui.core import ContentPart, DataSource, TextPart, UrlSource

from toolwire.adapters.bedrock.wire import (
    FIELDS,
    FORMAT_KEY,
    NAME_KEY,
    S3_OWNER_KEY,
    TYPE_KEY,
    VENDOR,
    blob_text,
)
from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.finite import from_text
from toolwire.protocol.fitting import part_loss
from toolwire.protocol.parts import MediaPart, media_part

#: format -> MIME type, per block kind (Converse's enums)
FORMATS: dict[str, dict[str, str]] = {
    "image": {
        "png": "image/png",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
    },
    "document": {
        "pdf": "application/pdf",
        "csv": "text/csv",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "html": "text/html",
        "txt": "text/plain",
        "md": "text/markdown",
    },
    "video": {
        "mkv": "video/x-matroska",
        "mov": "video/quicktime",
        "mp4": "video/mp4",
        "webm": "video/webm",
        "flv": "video/x-flv",
        "mpeg": "video/mpeg",
        "mpg": "video/mpeg",
        "wmv": "video/x-ms-wmv",
        "three_gp": "video/3gpp",
    },
}
#: MIME type -> format (the first format naming it wins: ``video/mpeg`` is ``mpeg``)
_MIME_FORMATS: dict[str, dict[str, str]] = {
    kind: {mime: fmt for fmt, mime in reversed(list(table.items()))}
    for kind, table in FORMATS.items()
}
_MIME_FORMATS["image"]["image/jpg"] = "jpeg"

JSON_TYPE = "json"


def _text(text: str, metadata: dict[str, Any] | None = None) -> TextPart:
    return TextPart(text=text, metadata=metadata) if metadata else TextPart(text=text)


# ------------------------------------------------------------------ decode


def _media(block: dict[str, Any], kind: str, at: str) -> MediaPart:
    fmt = FIELDS.at(block, "format", str, at) if kind != "document" or "format" in block else None
    mime = FORMATS[kind].get(fmt or "", f"{kind}/{fmt}" if fmt else "application/octet-stream")
    src = FIELDS.at(block, "source", dict, at)
    meta: dict[str, Any] = {}
    if kind == "document":
        meta[NAME_KEY] = FIELDS.at(block, "name", str, at)
        if fmt is not None and fmt not in FORMATS["document"]:
            meta[FORMAT_KEY] = fmt
    source: DataSource | UrlSource
    if "bytes" in src:
        source = DataSource(value=blob_text(src["bytes"], f"{at}.source.bytes"), mime_type=mime)
    elif "s3Location" in src:
        s3 = FIELDS.at(src, "s3Location", dict, f"{at}.source")
        source = UrlSource(
            value=FIELDS.at(s3, "uri", str, f"{at}.source.s3Location"), mime_type=mime
        )
        if isinstance(s3.get("bucketOwner"), str):
            meta[S3_OWNER_KEY] = s3["bucketOwner"]
    elif "text" in src and kind == "document":
        text = FIELDS.at(src, "text", str, f"{at}.source")
        encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
        source = DataSource(value=encoded, mime_type=mime if fmt else "text/plain")
    elif "content" in src and kind == "document":
        pieces = FIELDS.at(src, "content", list, f"{at}.source")
        text = "".join(
            FIELDS.at(p, "text", str, f"{at}.source.content[{i}]") for i, p in enumerate(pieces)
        )
        encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
        source = DataSource(value=encoded, mime_type="text/plain")
    else:
        what = next(iter(src), "none")
        raise VendorDataError(VENDOR, f"{at}.source", f"an unknown source kind {what!r}")
    return media_part(source, kind=kind, metadata=meta or None)


def blocks_to_parts(
    blocks: list[Any], where: str, losses: list[Loss], *, tool_call_id: str | None = None
) -> list[ContentPart]:
    """Message or tool-result content blocks -> parts (text, json, image, document, video)."""
    parts: list[ContentPart] = []
    for i, block in enumerate(blocks):
        at = f"{where}[{i}]"
        FIELDS.obj(block, at)
        if "text" in block:
            parts.append(_text(FIELDS.at(block, "text", str, at)))
        elif "json" in block:
            parts.append(
                _text(dumps_compact(block["json"], VENDOR, f"{at}.json"), {TYPE_KEY: JSON_TYPE})
            )
        elif "image" in block:
            parts.append(_media(FIELDS.at(block, "image", dict, at), "image", f"{at}.image"))
        elif "document" in block:
            parts.append(
                _media(FIELDS.at(block, "document", dict, at), "document", f"{at}.document")
            )
        elif "video" in block:
            parts.append(_media(FIELDS.at(block, "video", dict, at), "video", f"{at}.video"))
        else:
            kind = next(iter(block), "?")
            losses.append(
                Loss(
                    kind="block-dropped",
                    target="AG-UI",
                    reason=f"{at}: a {kind!r} block has no AG-UI content part",
                    tool_call_id=tool_call_id,
                )
            )
    return parts


# ------------------------------------------------------------------ encode

_NO_META: dict[str, Any] = {}


def _source(part: MediaPart) -> dict[str, Any] | None:
    src = part.source
    if src.type == "data":
        return {"bytes": src.value}
    if src.type == "url" and src.value.startswith("s3://"):
        s3: dict[str, Any] = {"uri": src.value}
        meta = part.metadata if isinstance(part.metadata, dict) else _NO_META
        if isinstance(meta.get(S3_OWNER_KEY), str):
            s3["bucketOwner"] = meta[S3_OWNER_KEY]
        return {"s3Location": s3}
    return None


def _format(part: MediaPart) -> str | None:
    meta = part.metadata if isinstance(part.metadata, dict) else _NO_META
    if part.type == "document" and isinstance(meta.get(FORMAT_KEY), str):
        return str(meta[FORMAT_KEY])
    mime = (part.source.mime_type or "").split(";", 1)[0].strip().lower()
    return _MIME_FORMATS.get(part.type, {}).get(mime)


def part_to_block(
    part: ContentPart,
    index: int,
    where: str,
    losses: list[Loss],
    target: str,
    tool_call_id: str | None,
    *,
    in_result: bool,
) -> dict[str, Any] | None:
    """One fitted part -> one Converse block (``None``, with a loss, when it has none)."""
    meta = part.metadata if isinstance(part.metadata, dict) else _NO_META
    if part.type == "text":
        if meta.get(TYPE_KEY) == JSON_TYPE and in_result:
            try:
                return {"json": from_text(json.loads(part.text))}
            except ValueError:
                pass  # no longer JSON: sent as the text it is
        if part.text == "":
            return None  # Converse rejects blank text blocks; an empty part carries nothing
        return {"text": part.text}
    if part.type not in FORMATS:
        reason = f"{where}[{index}]: Converse has no {part.type} block here"
        losses.append(part_loss(part, index, target, reason, tool_call_id))
        return None
    fmt = _format(part)
    source = _source(part)
    if fmt is None or source is None:
        why = (
            f"its MIME type {part.source.mime_type!r} is no {part.type} format Converse names"
            if fmt is None
            else "Converse takes media as bytes or an s3:// location only"
        )
        losses.append(part_loss(part, index, target, f"{where}[{index}]: {why}", tool_call_id))
        return None
    body: dict[str, Any] = {"format": fmt, "source": source}
    if part.type == "document":
        name = meta.get(NAME_KEY) or meta.get("title")
        body = {"format": fmt, "name": _doc_name(name, index), "source": source}
    return {part.type: body}


def _doc_name(name: Any, index: int) -> str:
    """A document name Converse takes: letters, digits, single spaces, hyphens, parentheses
    and brackets, 1 to 200 characters."""
    raw = name if isinstance(name, str) else ""
    kept = "".join(c if c.isalnum() or c in " -()[]" else "-" for c in raw)
    kept = " ".join(kept.split())[:200]
    return kept or f"document-{index + 1}"


def parts_to_blocks(
    parts: list[ContentPart],
    where: str,
    losses: list[Loss],
    target: str,
    tool_call_id: str | None = None,
    *,
    in_result: bool = False,
) -> list[dict[str, Any]]:
    """Fitted parts -> blocks, in order."""
    blocks: list[dict[str, Any]] = []
    for i, part in enumerate(parts):
        block = part_to_block(part, i, where, losses, target, tool_call_id, in_result=in_result)
        if block is not None:
            blocks.append(block)
    return blocks


__all__ = ["FORMATS", "JSON_TYPE", "blocks_to_parts", "part_to_block", "parts_to_blocks"]
