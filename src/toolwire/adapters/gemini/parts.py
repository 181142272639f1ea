"""Gemini media parts and ``functionResponse`` <-> AG-UI content parts and tool messages.

Used by both request directions. A tool message's text becomes
``response.output`` (or, when it came from a response that was not shaped
``{"output": ...}``, that object again); its error becomes ``response.error``;
its media become ``functionResponse.parts`` (Gemini 3) or sibling parts.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import ContentPart, DataSource, FileSource, TextPart, UrlSource

from toolwire.adapters.gemini.wire import (
    DISPLAY_NAME_KEY,
    FIELDS,
    RESPONSE_FORM_KEY,
    VENDOR,
    get,
    json_text,
)
from toolwire.errors import VendorDataError
from toolwire.protocol.finite import from_text
from toolwire.protocol.jsontext import load_json
from toolwire.protocol.parts import Content, MediaPart, media_part, parse_data_url, text_of

#: ``RESPONSE_FORM_KEY`` values: how the text maps back to ``functionResponse.response``.
FORM_OUTPUT_JSON = "output-json"  # {"output": <the text, parsed as JSON>}
FORM_OBJECT = "object"  # <the text, parsed as a JSON object> (e.g. {"return_value": ...})

#: ``FileSource.provider`` this adapter writes for file URIs it reads, per backend.
FILE_PROVIDER = {"gemini_api": "gemini", "vertex": "vertex"}


def media_to_ag(part: dict[str, Any], where: str, backend: str) -> MediaPart | None:
    """An ``inline_data``/``file_data`` part (any spelling) -> an AG-UI media part."""
    blob = get(part, "inlineData")
    if blob is not None:
        blob = FIELDS.obj(blob, f"{where}.inlineData")
        data = FIELDS.text(get(blob, "data"), f"{where}.inlineData.data")
        mime = FIELDS.text(get(blob, "mimeType"), f"{where}.inlineData.mimeType")
        data = data.replace("-", "+").replace("_", "/")  # SDK objects dump bytes URL-safe
        return media_part(DataSource(value=data, mime_type=mime), metadata=_meta(blob))
    ref = get(part, "fileData")
    if ref is not None:
        ref = FIELDS.obj(ref, f"{where}.fileData")
        uri = FIELDS.text(get(ref, "fileUri"), f"{where}.fileData.fileUri")
        ref_mime = FIELDS.opt_text(get(ref, "mimeType"), f"{where}.fileData.mimeType")
        kw: dict[str, Any] = {"provider": FILE_PROVIDER.get(backend, "gemini")}
        if ref_mime:
            kw["mime_type"] = ref_mime
        return media_part(
            FileSource(value=uri, **kw), metadata=_meta(ref), kind=None if ref_mime else "document"
        )
    return None


def _meta(obj: dict[str, Any]) -> dict[str, Any] | None:
    name = get(obj, "displayName")
    return {DISPLAY_NAME_KEY: name} if isinstance(name, str) else None


def media_from_ag(part: ContentPart) -> dict[str, Any]:
    """An AG-UI media part (already fitted) -> the SDK's part dict (snake_case)."""
    assert not isinstance(part, TextPart)
    src = part.source
    name = part.metadata.get(DISPLAY_NAME_KEY) if isinstance(part.metadata, dict) else None
    extra = {"display_name": name} if isinstance(name, str) else {}
    if isinstance(src, DataSource):
        return {"inline_data": {"mime_type": src.mime_type, "data": src.value, **extra}}
    if isinstance(src, FileSource):
        body: dict[str, Any] = {"file_uri": src.value}
        if src.mime_type:
            body["mime_type"] = src.mime_type
        return {"file_data": {**body, **extra}}
    assert isinstance(src, UrlSource)  # fitting lets no URL through
    return {"file_data": {"file_uri": src.value, "mime_type": src.mime_type, **extra}}


def data_url_to_source(part: ContentPart) -> ContentPart:
    """A ``data:`` URL is inline data in disguise: make it a ``DataSource`` so it can travel."""
    # (the type tags, not isinstance: a failed isinstance on a pydantic class is slow)
    if part.type == "text" or part.source.type != "url":
        return part
    parsed = parse_data_url(part.source.value)
    if parsed is None:
        return part
    mime, data = parsed
    if mime == "application/octet-stream" and part.source.mime_type:
        mime = part.source.mime_type
    return part.model_copy(update={"source": DataSource(value=data, mime_type=mime)})


def code_output(text: str, outcome: Any) -> str:
    """``codeExecutionResult.output`` for a result's text: a failed run without output was
    decoded with its outcome as the text (the content says it failed), so that is ``""``."""
    if outcome not in (None, "OUTCOME_OK") and text == outcome:
        return ""
    return text


def response_to_content(
    fr: dict[str, Any], where: str, backend: str
) -> tuple[Content, str | None, dict[str, Any]]:
    """``functionResponse`` -> (tool message content, error, tool message metadata)."""
    response = FIELDS.opt_obj(get(fr, "response"), f"{where}.response") or {}
    meta: dict[str, Any] = {}
    error: str | None = None
    text = ""
    keys = set(response)
    if keys and keys <= {"output", "error"}:
        if "error" in response:
            err = response["error"]
            error = err if isinstance(err, str) else json_text(err, f"{where}.response.error")
        if "output" in response:
            out = response["output"]
            if isinstance(out, str):
                text = out
            else:
                text = json_text(out, f"{where}.response.output")
                meta[RESPONSE_FORM_KEY] = FORM_OUTPUT_JSON
    elif keys:
        text = json_text(response, f"{where}.response")
        meta[RESPONSE_FORM_KEY] = FORM_OBJECT
    media: list[ContentPart] = []
    for k, item in enumerate(FIELDS.several(get(fr, "parts"), f"{where}.parts")):
        at = f"{where}.parts[{k}]"
        got = media_to_ag(FIELDS.obj(item, at), at, backend)
        if got is None:
            raise VendorDataError(
                VENDOR, at, "a function response part with no inline or file data"
            )
        media.append(got)
    if not media:
        return text, error, meta
    content: list[ContentPart] = [TextPart(text=text)] if text else []
    return content + media, error, meta


def content_to_response(
    content: Content, error: str | None, metadata: dict[str, Any] | None
) -> dict[str, Any]:
    """The ``functionResponse.response`` for a fitted tool message."""
    text = text_of(content)
    form = (metadata or {}).get(RESPONSE_FORM_KEY)
    if form == FORM_OBJECT and error is None:
        value = _loads(text)
        if isinstance(value, dict) and value:
            return value
    response: dict[str, Any] = {}
    has_media = isinstance(content, list) and any(p.type != "text" for p in content)
    if text or (error is None and not has_media):
        value = _loads(text) if form == FORM_OUTPUT_JSON else None
        response["output"] = value if value is not None else text
    if error is not None:
        response["error"] = error
    return response


def _loads(text: str) -> Any:
    try:
        return from_text(load_json(text))
    except ValueError:
        return None


__all__ = [
    "FILE_PROVIDER",
    "FORM_OBJECT",
    "FORM_OUTPUT_JSON",
    "code_output",
    "content_to_response",
    "data_url_to_source",
    "media_from_ag",
    "media_to_ag",
    "response_to_content",
]
