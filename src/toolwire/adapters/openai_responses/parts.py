"""Responses content parts <-> AG-UI content parts, used by both directions.

A ``function_call_output`` (and a user message) carries ``input_text``,
``input_image`` and ``input_file`` parts. Images and files come as a data URL,
a plain URL or an OpenAI ``file-…`` id; those map onto ``DataSource``,
``UrlSource`` and ``FileSource(provider="openai")``. ``detail`` and
``filename`` have no field on a part, so they ride in the part's metadata.
"""

from __future__ import annotations

import mimetypes
from typing import Any

from ag_ui.core import (
    ContentPart,
    DataSource,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
)

from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.fitting import Accepts, fit_content, part_loss
from toolwire.protocol.parts import (
    Content,
    kind_for_mime,
    media_part,
    parse_data_url,
    to_data_url,
)

from .wire import DETAIL_KEY, FIELDS, PROVIDER, VENDOR

#: MIME types guessed from a file name when ``file_data`` is bare base64.
_EXT_MIME = {
    "pdf": "application/pdf",
    "txt": "text/plain",
    "csv": "text/csv",
    "md": "text/markdown",
    "json": "application/json",
    "html": "text/html",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "py": "text/x-python",
    "js": "application/javascript",
    "ts": "application/typescript",
    "sh": "application/x-sh",
    "tex": "application/x-tex",
    "yaml": "application/x-yaml",
    "xml": "application/xml",
    "rtf": "application/rtf",
}
_MIME_EXT = {mime: ext for ext, mime in reversed(list(_EXT_MIME.items()))}


def inline_file_name(part: ContentPart) -> str | None:
    """The ``filename`` an inline ``input_file`` is sent with.

    OpenAI requires one next to ``file_data`` and reads the file type from its
    extension, so a part without a name gets ``file.<ext>`` for its MIME type
    (``None`` when no extension is known: the part cannot be sent inline).
    """
    meta = part.metadata if isinstance(part.metadata, dict) else {}
    if isinstance(meta.get("filename"), str) and meta["filename"]:
        return str(meta["filename"])
    source = getattr(part, "source", None)
    mime = (source.mime_type if source is not None else None) or ""
    mime = mime.split(";", 1)[0].strip().lower()
    ext = _MIME_EXT.get(mime)
    if ext is None:
        guessed = mimetypes.guess_extension(mime) if mime else None
        ext = guessed[1:] if guessed else None
    return f"file.{ext}" if ext else None


def data_url(source: DataSource) -> str:
    return to_data_url(source.mime_type, source.value)


def url_source(value: str, where: str, mime_hint: str | None) -> DataSource | UrlSource:
    """A URL as a source: a base64 data URL becomes a `DataSource`, anything else a `UrlSource`."""
    parsed = parse_data_url(value)
    if parsed is not None:
        return DataSource(value=parsed[1], mime_type=parsed[0])
    if value.startswith("data:"):
        raise VendorDataError(VENDOR, where, "a data URL must be base64 encoded")
    if mime_hint is not None:
        return UrlSource(value=value, mime_type=mime_hint)
    return UrlSource(value=value)


def _mime_from_name(name: str | None) -> str | None:
    if not name or "." not in name:
        return None
    return _EXT_MIME.get(name.rsplit(".", 1)[1].lower())


def to_agui_part(part: Any, where: str) -> ContentPart | None:
    """One vendor input part as an AG-UI part; ``None`` for a part type AG-UI cannot take."""
    part = FIELDS.obj(part, where)
    kind = FIELDS.at(part, "type", str, where)
    meta: dict[str, Any] = {}
    if isinstance(part.get("detail"), str):
        meta[DETAIL_KEY] = part["detail"]
    if kind in ("input_text", "output_text", "text"):
        return TextPart(text=FIELDS.at(part, "text", str, where))
    if kind == "input_image":
        if isinstance(part.get("image_url"), str):
            src: DataSource | UrlSource | FileSource = url_source(part["image_url"], where, None)
        elif isinstance(part.get("file_id"), str):
            src = FileSource(value=part["file_id"], provider=PROVIDER)
        else:
            raise VendorDataError(
                VENDOR, f"{where}.image_url", "an input_image needs image_url or file_id"
            )
        return ImagePart(source=src, metadata=meta or None)
    if kind == "input_file":
        name = part.get("filename") if isinstance(part.get("filename"), str) else None
        if name is not None:
            meta["filename"] = name
        hint = _mime_from_name(name)
        if isinstance(part.get("file_data"), str):
            value = part["file_data"]
            parsed = parse_data_url(value)
            if parsed is not None:
                src = DataSource(value=parsed[1], mime_type=parsed[0])
            else:
                src = DataSource(value=value, mime_type=hint or "application/octet-stream")
        elif isinstance(part.get("file_url"), str):
            src = url_source(part["file_url"], f"{where}.file_url", hint)
        elif isinstance(part.get("file_id"), str):
            src = FileSource(value=part["file_id"], provider=PROVIDER, mime_type=hint)
        else:
            raise VendorDataError(
                VENDOR, where, "an input_file needs file_data, file_url or file_id"
            )
        kind_name = kind_for_mime(src.mime_type) if src.mime_type else "document"
        if kind_name not in ("image", "document"):
            kind_name = "document"
        return media_part(src, kind=kind_name, metadata=meta or None)
    return None


def to_agui_content(
    value: Any, where: str, *, target: str, tool_call_id: str | None = None
) -> tuple[Content, list[Loss]]:
    """A vendor ``output`` / ``content`` (a string or a part list) as AG-UI content."""
    value = FIELDS.text_or_several(value, where)  # text, parts, or one part
    if isinstance(value, str):
        return value, []
    parts: list[ContentPart] = []
    losses: list[Loss] = []
    for i, raw in enumerate(value):
        part = to_agui_part(raw, f"{where}[{i}]")
        if part is None:
            losses.append(
                Loss(
                    kind="part-dropped",
                    target=target,
                    reason=f"AG-UI has no part for a Responses {raw.get('type')!r} part",
                    tool_call_id=tool_call_id,
                    part_index=i,
                    part_kind=str(raw.get("type")),
                )
            )
            continue
        parts.append(part)
    return parts, losses


def to_vendor_part(part: ContentPart) -> dict[str, Any] | None:
    """One AG-UI part (already fitted to the target) as a Responses input part."""
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text} if part.text else None
    meta = part.metadata if isinstance(part.metadata, dict) else {}
    src = part.source
    out: dict[str, Any]
    if isinstance(part, ImagePart):
        out = {"type": "input_image"}
        if isinstance(src, FileSource):
            out["file_id"] = src.value
        else:
            out["image_url"] = data_url(src) if isinstance(src, DataSource) else src.value
        if isinstance(meta.get(DETAIL_KEY), str):
            out["detail"] = meta[DETAIL_KEY]
        return out
    out = {"type": "input_file"}
    if isinstance(src, FileSource):
        out["file_id"] = src.value
    elif isinstance(src, DataSource):
        out["file_data"] = data_url(src)
        name = inline_file_name(part)
        if name is None:
            return None
        out["filename"] = name
    else:
        out["file_url"] = src.value
    if isinstance(meta.get("filename"), str) and "filename" not in out:
        out["filename"] = meta["filename"]
    if isinstance(meta.get(DETAIL_KEY), str):
        out["detail"] = meta[DETAIL_KEY]
    return out


def to_vendor_content(
    content: Content,
    accepts: Accepts,
    *,
    tool_call_id: str | None = None,
    error: str | None = None,
) -> tuple[str | list[dict[str, Any]], list[Loss]]:
    """Fit AG-UI content to the target, then map it; ``""`` when nothing is left.

    A tool error reaches the model as text ahead of whatever content survived,
    since ``function_call_output`` has no error flag.
    """
    if isinstance(content, str):  # nothing to fit
        kept: Content = content
        losses: list[Loss] = []
    else:
        fitted = fit_content(content, accepts, tool_call_id=tool_call_id)
        kept, losses = fitted.content, fitted.losses
    if isinstance(kept, str):
        if error:
            return (f"Error: {error}\n\n{kept}" if kept else f"Error: {error}"), losses
        return kept, losses
    out: list[dict[str, Any]] = []
    for index, part in enumerate(kept):
        mapped = to_vendor_part(part)
        if mapped is not None:
            out.append(mapped)
        elif not isinstance(part, TextPart):
            reason = "inline file data needs a file name whose extension OpenAI knows"
            losses.append(part_loss(part, index, accepts.target, reason, tool_call_id))
    if error:
        out.insert(0, {"type": "input_text", "text": f"Error: {error}"})
    return (out if out else ""), losses


__all__ = [
    "data_url",
    "inline_file_name",
    "to_agui_content",
    "to_agui_part",
    "to_vendor_content",
    "to_vendor_part",
    "url_source",
]
