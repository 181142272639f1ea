"""Anthropic content blocks <-> AG-UI content parts, used by both directions.

Media blocks map one to one (``image``/``document`` with a ``base64``, ``url``
or ``file`` source). What a part cannot model rides in its ``metadata``: a
search result's source and title, a document's title and context, a web
search hit's URL, title and opaque ``encrypted_content``.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ag_ui.core import (
    ContentPart,
    DataSource,
    DocumentPart,
    FileSource,
    TextPart,
    UrlSource,
)

from toolwire.adapters.anthropic.wire import (
    CITATIONS_KEY,
    CONTEXT_KEY,
    ENCRYPTED_CONTENT_KEY,
    ERROR_CODE_KEY,
    FIELDS,
    GROUP_KEY,
    TYPE_KEY,
    VENDOR,
)
from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.fitting import part_loss
from toolwire.protocol.parts import MediaPart, media_part, text_of

PDF = "application/pdf"
PLAIN = "text/plain"


def _meta(**values: Any) -> dict[str, Any] | None:
    kept = {k: v for k, v in values.items() if v is not None}
    return kept or None


def _text(text: str, metadata: dict[str, Any] | None = None) -> TextPart:
    return TextPart(text=text, metadata=metadata) if metadata else TextPart(text=text)


# ------------------------------------------------------------------ decode


def _source(block: dict[str, Any], kind: str, where: str) -> MediaPart:
    src = FIELDS.at(block, "source", dict, where)
    stype = FIELDS.at(src, "type", str, f"{where}.source")
    meta = _meta(
        title=block.get("title") if isinstance(block.get("title"), str) else None,
        **{
            CONTEXT_KEY: block.get("context") if isinstance(block.get("context"), str) else None,
            CITATIONS_KEY: block.get("citations") or None,
        },
    )
    source: DataSource | UrlSource | FileSource
    if stype == "base64":
        mime = FIELDS.at(src, "media_type", str, f"{where}.source")
        source = DataSource(value=FIELDS.at(src, "data", str, f"{where}.source"), mime_type=mime)
    elif stype == "text":
        data = FIELDS.at(src, "data", str, f"{where}.source")
        encoded = base64.b64encode(data.encode("utf-8")).decode("ascii")
        mime = src.get("media_type")
        source = DataSource(value=encoded, mime_type=mime if isinstance(mime, str) else PLAIN)
    elif stype == "url":
        url = FIELDS.at(src, "url", str, f"{where}.source")
        # Anthropic's URL document source is a PDF by definition; an image URL's type is sniffed.
        source = UrlSource(value=url, mime_type=PDF) if kind == "document" else UrlSource(value=url)
    elif stype == "file":
        fid = FIELDS.at(src, "file_id", str, f"{where}.source")
        source = FileSource(value=fid, provider=VENDOR)
    else:
        raise VendorDataError(VENDOR, f"{where}.source.type", f"unknown source type {stype!r}")
    return media_part(source, kind=kind, metadata=meta)


def blocks_to_parts(
    blocks: list[Any], where: str, losses: list[Loss], *, tool_call_id: str | None = None
) -> list[ContentPart]:
    """Tool-result or user-message blocks -> parts (``search_result`` -> text parts + metadata)."""
    parts: list[ContentPart] = []
    for i, block in enumerate(blocks):
        at = f"{where}[{i}]"
        btype = FIELDS.at(block, "type", str, at)
        if btype == "text":
            cites = block.get("citations")
            parts.append(
                _text(FIELDS.at(block, "text", str, at), _meta(**{CITATIONS_KEY: cites or None}))
            )
        elif btype == "image":
            parts.append(_source(block, "image", at))
        elif btype == "document":
            src = block.get("source")
            if isinstance(src, dict) and src.get("type") == "content":
                inner_blocks = FIELDS.several(
                    src.get("content"),
                    f"{at}.source.content",
                    text=lambda t: {"type": "text", "text": t},
                )
                losses.append(
                    Loss(
                        kind="document-unpacked",
                        target="AG-UI",
                        reason="a custom-content document has no AG-UI part; its blocks are kept "
                        "as parts of their own",
                        tool_call_id=tool_call_id,
                    )
                )
                parts.extend(blocks_to_parts(inner_blocks, f"{at}.source.content", losses))
            else:
                parts.append(_source(block, "document", at))
        elif btype == "search_result":
            source = FIELDS.at(block, "source", str, at)
            title = FIELDS.at(block, "title", str, at)
            content = FIELDS.at(block, "content", list, at)
            for j, inner in enumerate(content):
                text = FIELDS.at(inner, "text", str, f"{at}.content[{j}]")
                meta = {TYPE_KEY: "search_result", "url": source, "title": title, GROUP_KEY: i}
                if block.get("citations") is not None:
                    meta[CITATIONS_KEY] = block["citations"]
                parts.append(_text(text, meta))
        elif btype == "tool_reference":
            name = FIELDS.at(block, "tool_name", str, at)
            parts.append(_text(name, {TYPE_KEY: "tool_reference"}))
        else:
            losses.append(
                Loss(
                    kind="block-dropped",
                    target="AG-UI",
                    reason=f"{at}: a {btype!r} block has no AG-UI content part",
                    tool_call_id=tool_call_id,
                )
            )
    return parts


def _error_result(content: dict[str, Any], where: str) -> tuple[str, dict[str, Any]]:
    code = FIELDS.at(content, "error_code", str, where)
    message = content.get("error_message")
    error = message if isinstance(message, str) and message else code
    return error, {ERROR_CODE_KEY: code}


def server_result(
    block: dict[str, Any], where: str, losses: list[Loss]
) -> tuple[str | list[ContentPart], dict[str, Any], str | None]:
    """A server-tool result block -> (content, metadata, error text or ``None``)."""
    btype = block["type"]
    tool_use_id = block.get("tool_use_id")
    content = block.get("content")
    at = f"{where}.content"
    if isinstance(content, dict) and str(content.get("type", "")).endswith("_error"):
        error, meta = _error_result(content, at)
        return "", meta, error
    if btype == "web_search_tool_result":
        hits = FIELDS.at(block, "content", list, where)
        parts: list[ContentPart] = []
        for i, hit in enumerate(hits):
            h = f"{at}[{i}]"
            url = FIELDS.at(hit, "url", str, h)
            title = FIELDS.at(hit, "title", str, h)
            meta = {"url": url, "title": title}
            if isinstance(hit.get("page_age"), str):
                meta["page_age"] = hit["page_age"]
            if isinstance(hit.get("encrypted_content"), str):
                meta[ENCRYPTED_CONTENT_KEY] = hit["encrypted_content"]
            parts.append(_text(title, meta))
        return parts, {}, None
    if btype == "web_fetch_tool_result":
        fetched = FIELDS.at(block, "content", dict, where)
        url = FIELDS.at(fetched, "url", str, at)
        doc = FIELDS.at(fetched, "content", dict, at)
        part = _source(doc, "document", f"{at}.content")
        extra = {"url": url}
        if isinstance(fetched.get("retrieved_at"), str):
            extra["retrieved_at"] = fetched["retrieved_at"]
        merged = {**(part.metadata or {}), **extra}
        return [part.model_copy(update={"metadata": merged})], {}, None
    if btype in (
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
    ):
        result = FIELDS.at(block, "content", dict, where)
        parts = []
        stdout = result.get("stdout")
        if isinstance(stdout, str) and stdout:
            parts.append(_text(stdout, {"stream": "stdout"}))
        stderr = result.get("stderr")
        if isinstance(stderr, str) and stderr:
            parts.append(_text(stderr, {"stream": "stderr"}))
        for j, out in enumerate(FIELDS.list_at(result, "content", at)):
            fid = FIELDS.at(out, "file_id", str, f"{at}.content[{j}]")
            parts.append(DocumentPart(source=FileSource(value=fid, provider=VENDOR)))
        codes: dict[str, Any] = {}
        if isinstance(result.get("return_code"), int):
            codes["anthropic.return_code"] = result["return_code"]
        return (parts or ""), codes, None
    if btype == "text_editor_code_execution_tool_result":
        result = FIELDS.at(block, "content", dict, where)
        rtype = result.get("type")
        if rtype == "text_editor_code_execution_view_result" and isinstance(
            result.get("content"), str
        ):
            return [_text(result["content"])], {}, None
        if rtype == "text_editor_code_execution_str_replace_result" and isinstance(
            result.get("lines"), list
        ):
            return [_text("\n".join(str(x) for x in result["lines"]))], {}, None
        return "", {}, None
    if btype == "tool_search_tool_result":
        result = FIELDS.at(block, "content", dict, where)
        refs = FIELDS.list_at(result, "tool_references", at)
        parts = [
            _text(
                FIELDS.at(r, "tool_name", str, f"{at}.tool_references[{k}]"),
                {TYPE_KEY: "tool_reference"},
            )
            for k, r in enumerate(refs)
        ]
        return (parts or ""), {}, None
    if btype == "mcp_tool_result":
        mcp: str | list[ContentPart]
        if isinstance(content, str):
            mcp = content
        else:
            mcp = blocks_to_parts(
                FIELDS.at(block, "content", list, where), at, losses, tool_call_id=tool_use_id
            )
        mcp_error: str | None = None
        if block.get("is_error") is True:
            mcp_error = mcp if isinstance(mcp, str) else text_of(mcp)
        return mcp, {}, mcp_error
    # A result type this version does not know: the call is still answered, verbatim in metadata.
    return "", {}, None


# ------------------------------------------------------------------ encode


#: the metadata of a part that has none (read, never written)
_NO_META: dict[str, Any] = {}


def _b64text(value: str) -> str | None:
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _reference(src: UrlSource | FileSource) -> dict[str, Any]:
    """A URL or file-handle source, the same for images and documents."""
    if isinstance(src, UrlSource):
        return {"type": "url", "url": src.value}
    return {"type": "file", "file_id": src.value}


def part_to_block(
    part: ContentPart,
    index: int,
    where: str,
    losses: list[Loss],
    target: str,
    tool_call_id: str | None,
) -> dict[str, Any] | None:
    """One fitted part (``index`` in the content at ``where``) -> one Anthropic block
    (``None`` for an empty text part). The type tags are tested, not the classes: a failed
    isinstance on a pydantic class costs four times a tag's string test, once a part."""
    meta = part.metadata if isinstance(part.metadata, dict) else _NO_META
    if part.type == "text":
        if part.text == "":
            return None  # Anthropic rejects empty text blocks; an empty part carries nothing
        if meta and meta.get(TYPE_KEY) == "tool_reference":
            return {"type": "tool_reference", "tool_name": part.text}
        block: dict[str, Any] = {"type": "text", "text": part.text}
        if meta and meta.get(CITATIONS_KEY):
            block["citations"] = meta[CITATIONS_KEY]
        return block
    src = part.source
    out: dict[str, Any]
    if part.type == "image":
        if src.type == "data":
            s: dict[str, Any] = {"type": "base64", "media_type": src.mime_type, "data": src.value}
        else:
            s = _reference(src)
        return {"type": "image", "source": s}
    if part.type == "document":
        if src.type == "data":
            mime = src.mime_type.split(";", 1)[0].strip().lower()
            if mime == PLAIN:
                text = _b64text(src.value)
                if text is None:
                    reason = f"{where}[{index}]: the text/plain data is not base64 of UTF-8 text"
                    losses.append(part_loss(part, index, target, reason, tool_call_id))
                    return None
                s = {"type": "text", "media_type": PLAIN, "data": text}
            else:
                s = {"type": "base64", "media_type": src.mime_type, "data": src.value}
        else:
            s = _reference(src)
        out = {"type": "document", "source": s}
        if isinstance(meta.get("title"), str):
            out["title"] = meta["title"]
        if isinstance(meta.get(CONTEXT_KEY), str):
            out["context"] = meta[CONTEXT_KEY]
        if meta.get(CITATIONS_KEY):
            out["citations"] = meta[CITATIONS_KEY]
        return out
    # Audio/video never reach here: fitting drops them (Anthropic has no such blocks).
    reason = f"{where}[{index}]: Anthropic has no {part.type} block"
    losses.append(part_loss(part, index, target, reason, tool_call_id))
    return None


def parts_to_blocks(
    parts: list[ContentPart],
    where: str,
    losses: list[Loss],
    target: str,
    tool_call_id: str | None = None,
) -> list[dict[str, Any]]:
    """Fitted parts -> blocks; text parts marked as one search result are regrouped into it."""
    blocks: list[dict[str, Any]] = []
    group: Any = None
    for i, part in enumerate(parts):
        meta = part.metadata  # (None for most parts: the search-result test ends there)
        if (
            meta
            and isinstance(meta, dict)
            and part.type == "text"
            and meta.get(TYPE_KEY) == "search_result"
            and isinstance(meta.get("url"), str)
            and isinstance(meta.get("title"), str)
        ):
            key = (meta.get(GROUP_KEY), meta["url"], meta["title"])
            if part.text == "":
                continue  # Anthropic rejects empty text blocks, inside a search result too
            if group == key and blocks and blocks[-1]["type"] == "search_result":
                blocks[-1]["content"].append({"type": "text", "text": part.text})
            else:
                sr: dict[str, Any] = {
                    "type": "search_result",
                    "source": meta["url"],
                    "title": meta["title"],
                    "content": [{"type": "text", "text": part.text}],
                }
                if meta.get(CITATIONS_KEY) is not None:
                    sr["citations"] = meta[CITATIONS_KEY]
                blocks.append(sr)
            group = key
            continue
        group = None
        block = part_to_block(part, i, where, losses, target, tool_call_id)
        if block is not None:
            blocks.append(block)
    return blocks


__all__ = ["blocks_to_parts", "part_to_block", "parts_to_blocks", "server_result"]
