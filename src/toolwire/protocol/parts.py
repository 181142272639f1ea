"""Small, shared facts about AG-UI content parts (kind, source kind, MIME type)."""

from __future__ import annotations

from collections.abc import Callable

from ag_ui.core import (
    AudioPart,
    ContentPart,
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
    VideoPart,
)
from pydantic import BaseModel, TypeAdapter

MediaPart = ImagePart | AudioPart | VideoPart | DocumentPart
Content = str | list[ContentPart]

_PART_LIST: TypeAdapter[list[ContentPart]] = TypeAdapter(list[ContentPart])


def part_kind(part: ContentPart) -> str:
    return part.type


def source_kind(part: ContentPart) -> str | None:
    if isinstance(part, TextPart):
        return None
    return part.source.type


def mime_type(part: ContentPart) -> str | None:
    if isinstance(part, TextPart):
        return "text/plain"
    return part.source.mime_type


def file_provider(part: ContentPart) -> str | None:
    if isinstance(part, TextPart) or not isinstance(part.source, FileSource):
        return None
    return part.source.provider


def kind_for_mime(mime: str) -> str:
    """The AG-UI part kind a MIME type belongs to (``document`` for anything not media)."""
    top = mime.split("/", 1)[0].lower()
    return top if top in ("image", "audio", "video") else "document"


def media_part(
    source: DataSource | UrlSource | FileSource, *, kind: str | None = None, metadata: object = None
) -> MediaPart:
    """Build the media part whose kind fits the source's MIME type (or ``kind`` when given)."""
    k = kind or kind_for_mime(source.mime_type or "application/octet-stream")
    classes: dict[str, type[MediaPart]] = {
        "image": ImagePart,
        "audio": AudioPart,
        "video": VideoPart,
        "document": DocumentPart,
    }
    cls = classes[k]
    if metadata is None:
        return cls(source=source)
    return cls(source=source, metadata=metadata)


def text_of(content: Content) -> str:
    """The text parts concatenated in order (no separator); the string itself for a string."""
    if isinstance(content, str):
        return content
    return "".join([p.text for p in content if p.type == "text"])  # (tag: see fitting.why_not)


def _text_part_unchecked(text: str) -> TextPart:
    """A ``TextPart`` of ``text`` built as validation builds it, without validating."""
    part = _new(TextPart)
    _set(part, "__dict__", {"type": "text", "id": None, "text": text, "metadata": None})
    _set(part, "__pydantic_fields_set__", {"text"})
    _set(part, "__pydantic_extra__", {})
    _set(part, "__pydantic_private__", None)
    return part


def _same_model(a: BaseModel, b: BaseModel) -> bool:
    """Whether two models hold the same state, pydantic's bookkeeping included."""
    slots = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
    return type(a) is type(b) and all(getattr(a, s) == getattr(b, s) for s in slots)


def _text_part_validated(text: str) -> TextPart:
    return TextPart(text=text)


_new = object.__new__
_set = object.__setattr__
#: ``TextPart(text=text)`` for a ``str`` toolwire made (a media label): a str field cannot
#: fail validation, and validating costs twice the build (a history with a relocated image
#: per result makes one per result). The unchecked build where it gives what the
#: constructor gives on the pydantic installed (compared here once), else the constructor.
text_part: Callable[[str], TextPart] = (
    _text_part_unchecked
    if _same_model(_text_part_unchecked("x"), TextPart(text="x"))
    else _text_part_validated
)


def parse_data_url(url: str) -> tuple[str, str] | None:
    """``data:<mime>;base64,<data>`` -> ``(mime, data)``; ``None`` for any other URL."""
    if not url.startswith("data:"):
        return None
    head, sep, data = url[5:].partition(",")
    if not sep or not head.endswith(";base64"):
        return None
    return head[: -len(";base64")] or "application/octet-stream", data


def to_data_url(mime: str, data: str) -> str:
    """The ``data:`` URL of base64 ``data``."""
    return f"data:{mime};base64,{data}"


def parse_parts(value: object) -> list[ContentPart]:
    """Validate a list of part dicts (or models) into ``ag_ui.core`` parts."""
    return _PART_LIST.validate_python(value)


__all__ = [
    "Content",
    "MediaPart",
    "file_provider",
    "kind_for_mime",
    "media_part",
    "mime_type",
    "parse_data_url",
    "parse_parts",
    "part_kind",
    "source_kind",
    "text_of",
    "text_part",
    "to_data_url",
]
