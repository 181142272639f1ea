"""Mistral content chunks <-> AG-UI content parts, both directions.

User messages take ``text``, ``image_url`` (an https or ``data:`` URL, optionally with
``detail``) and ``document_url`` (a URL to a document, with ``document_name``); files
uploaded to Mistral are ``file`` chunks (``file_id``). What AG-UI has no field for
(``detail``, ``document_name``) rides in the part's ``metadata``.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    ContentPart,
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
)

from toolwire.errors import VendorDataError
from toolwire.protocol.parts import parse_data_url, to_data_url

from .wire import DETAIL_KEY, DOCUMENT_NAME_KEY, FIELDS, PROVIDER, VENDOR


def to_agui(part: Any, where: str) -> ContentPart:
    """One vendor content chunk as an AG-UI part."""
    part = FIELDS.obj(part, where)
    kind = part.get("type")
    if kind == "text":
        return TextPart(text=FIELDS.at(part, "text", str, where))
    if kind == "image_url":
        image = part.get("image_url")
        meta = None
        if isinstance(image, dict):
            if isinstance(image.get("detail"), str):
                meta = {DETAIL_KEY: image["detail"]}
            url = FIELDS.at(image, "url", str, f"{where}.image_url")
        else:
            url = FIELDS.at(part, "image_url", str, where)
        inline = parse_data_url(url)
        if inline is not None:
            return ImagePart(source=DataSource(value=inline[1], mime_type=inline[0]), metadata=meta)
        return ImagePart(source=UrlSource(value=url), metadata=meta)
    if kind == "document_url":
        url = FIELDS.at(part, "document_url", str, where)
        name = part.get("document_name")
        meta = {DOCUMENT_NAME_KEY: name} if isinstance(name, str) and name else None
        inline = parse_data_url(url)
        if inline is not None:
            return DocumentPart(
                source=DataSource(value=inline[1], mime_type=inline[0]), metadata=meta
            )
        return DocumentPart(source=UrlSource(value=url), metadata=meta)
    if kind == "file":
        file_id = FIELDS.at(part, "file_id", str, where)
        return DocumentPart(source=FileSource(value=file_id, provider=PROVIDER))
    raise VendorDataError(VENDOR, f"{where}.type", f"unknown content chunk type {kind!r}")


def to_vendor(part: ContentPart) -> dict[str, Any] | None:
    """One AG-UI part as a content chunk; ``None`` when the API has no shape for it."""
    # (the type tags, not isinstance: a failed isinstance on a pydantic class is slow)
    if part.type == "text":
        return {"type": "text", "text": part.text}
    if part.type == "image":
        src = part.source
        if src.type == "data":
            url = to_data_url(src.mime_type, src.value)
        elif src.type == "url":
            url = src.value
        else:
            return None
        detail = part.metadata.get(DETAIL_KEY) if isinstance(part.metadata, dict) else None
        image: Any = {"url": url, "detail": detail} if isinstance(detail, str) else url
        return {"type": "image_url", "image_url": image}
    if part.type == "document":
        src = part.source
        if src.type == "file":
            if src.provider != PROVIDER:
                return None
            return {"type": "file", "file_id": src.value}
        if src.type == "url":
            out: dict[str, Any] = {"type": "document_url", "document_url": src.value}
        else:
            out = {"type": "document_url", "document_url": to_data_url(src.mime_type, src.value)}
        name = part.metadata.get(DOCUMENT_NAME_KEY) if isinstance(part.metadata, dict) else None
        if isinstance(name, str) and name:
            out["document_name"] = name
        return out
    return None


__all__ = ["to_agui", "to_vendor"]
