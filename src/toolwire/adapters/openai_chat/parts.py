"""Chat Completions content parts <-> AG-UI content parts, both directions.

The API takes ``text`` parts everywhere and media only in user messages:
``image_url`` (an https or ``data:`` URL), ``input_audio`` (base64 wav/mp3)
and ``file`` (an OpenAI ``file_id``, or ``file_data`` as a ``data:`` URL with
a ``filename``). What AG-UI has no field for (``detail``, ``filename``)
rides in the part's ``metadata``.
"""

from __future__ import annotations

import mimetypes
from typing import Any

from ag_ui.core import (
    AudioPart,
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

from .wire import DETAIL_KEY, FIELDS, FILENAME_KEY, PROVIDER, VENDOR

_AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_FORMAT_OF_MIME = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}


def _meta(part: ContentPart) -> dict[str, Any]:
    meta = getattr(part, "metadata", None)
    return meta if isinstance(meta, dict) else {}


# ------------------------------------------------------------ vendor -> AG-UI


def to_agui(part: Any, where: str) -> ContentPart:
    """One vendor content part as an AG-UI part."""
    part = FIELDS.obj(part, where)
    kind = part.get("type")
    if kind == "text":
        return TextPart(text=FIELDS.at(part, "text", str, where))
    if kind == "refusal":
        return TextPart(text=FIELDS.at(part, "refusal", str, where))
    if kind == "image_url":
        image = FIELDS.at(part, "image_url", dict, where)
        url = FIELDS.at(image, "url", str, f"{where}.image_url")
        meta = {DETAIL_KEY: image["detail"]} if image.get("detail") else None
        inline = parse_data_url(url)
        if inline is not None:
            return ImagePart(source=DataSource(value=inline[1], mime_type=inline[0]), metadata=meta)
        return ImagePart(source=UrlSource(value=url), metadata=meta)
    if kind == "input_audio":
        audio = FIELDS.at(part, "input_audio", dict, where)
        fmt = FIELDS.at(audio, "format", str, f"{where}.input_audio")
        mime = _AUDIO_FORMATS.get(fmt, f"audio/{fmt}")
        data = FIELDS.at(audio, "data", str, f"{where}.input_audio")
        return AudioPart(source=DataSource(value=data, mime_type=mime))
    if kind == "file":
        return _file_to_agui(FIELDS.at(part, "file", dict, where), f"{where}.file")
    raise VendorDataError(VENDOR, f"{where}.type", f"unknown content part type {kind!r}")


def _file_to_agui(file: dict[str, Any], where: str) -> ContentPart:
    name = file.get("filename")
    meta = {FILENAME_KEY: name} if isinstance(name, str) and name else None
    if isinstance(file.get("file_id"), str):
        source: Any = FileSource(value=file["file_id"], provider=PROVIDER)
        return DocumentPart(source=source, metadata=meta)
    raw = FIELDS.at(file, "file_data", str, where)
    inline = parse_data_url(raw)
    if inline is None:  # bare base64: the name is the only hint of its type
        guessed = mimetypes.guess_type(name)[0] if isinstance(name, str) else None
        inline = (guessed or "application/octet-stream", raw)
    return DocumentPart(source=DataSource(value=inline[1], mime_type=inline[0]), metadata=meta)


def content_to_agui(content: Any, where: str) -> str | list[ContentPart]:
    """A message's ``content`` (string or part list) as AG-UI content."""
    content = FIELDS.text_or_several(content, where)  # text, parts, or one part
    if isinstance(content, str):
        return content
    return [to_agui(p, f"{where}[{i}]") for i, p in enumerate(content)]


# ------------------------------------------------------------ AG-UI -> vendor


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def to_vendor(part: ContentPart) -> dict[str, Any] | None:
    """One AG-UI part as a user-message part; ``None`` when the API has no shape for it.

    Call only with parts the capability table let through; ``None`` covers
    the combinations a custom table might allow that the wire cannot carry.
    """
    if isinstance(part, TextPart):
        return text_part(part.text)
    meta = _meta(part)
    src = part.source
    if isinstance(part, ImagePart):
        if isinstance(src, DataSource):
            url = to_data_url(src.mime_type, src.value)
        elif isinstance(src, UrlSource):
            url = src.value
        else:
            return None
        image: dict[str, Any] = {"url": url}
        if isinstance(meta.get(DETAIL_KEY), str):
            image["detail"] = meta[DETAIL_KEY]
        return {"type": "image_url", "image_url": image}
    if isinstance(part, AudioPart):
        fmt = _FORMAT_OF_MIME.get((src.mime_type or "").lower())
        if not isinstance(src, DataSource) or fmt is None:
            return None
        return {"type": "input_audio", "input_audio": {"data": src.value, "format": fmt}}
    if isinstance(part, DocumentPart):
        name = meta.get(FILENAME_KEY)
        file: dict[str, Any]
        if isinstance(src, FileSource) and src.provider == PROVIDER:
            file = {"file_id": src.value}
        elif isinstance(src, DataSource):
            # The API refuses file_data without a filename; name it by its type only.
            ext = mimetypes.guess_extension(src.mime_type) or ""
            file = {"file_data": to_data_url(src.mime_type, src.value)}
            name = name if isinstance(name, str) and name else f"document{ext}"
        else:
            return None
        if isinstance(name, str) and name:
            file["filename"] = name
        return {"type": "file", "file": file}
    return None


__all__ = ["content_to_agui", "text_part", "to_agui", "to_vendor"]
