"""Asgard JSON values <-> AG-UI text and content: parameters, results, the error rule.

Asgard carries a call's ``parameter`` and its ``toolCallResult`` as JSON values,
AG-UI carries argument text and result content. Both directions live here so
the decoder, the encoder, the request and the history mapping agree on one rule each.
"""

from __future__ import annotations

from typing import Any

from toolwire.capabilities import Place
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.chat_request import place_rules
from toolwire.protocol.finite import from_text
from toolwire.protocol.fitting import fit_content, flatten
from toolwire.protocol.jsontext import load_json
from toolwire.protocol.parts import Content

from .wire import META_KEY, VENDOR


def _json(value: Any, where: str) -> str:
    """Compact JSON text; a NaN or an infinity (``json.loads`` reads them, JSON cannot hold
    them) is a VendorDataError naming the field, never a bare ValueError."""
    return dumps_compact(value, VENDOR, where)


def arguments_text(parameter: Any, where: str = "parameter") -> str:
    """A call's ``parameter`` as argument text (compact JSON, key order kept)."""
    return _json(parameter, where)


def result_text(result: Any, where: str = "toolCallResult") -> str:
    """A ``toolCallResult`` as result content: a string as it is, other JSON as compact text.

    ``null`` (Go ``interface{}`` left empty) is the empty string: the call is
    still answered, with nothing.
    """
    if result is None:
        return ""
    if isinstance(result, str):
        return result
    return _json(result, where)


def result_value(text: str) -> Any:
    """Result content as a ``toolCallResult``: JSON object text becomes the object.

    Anything else (plain text, a JSON array or scalar) passes as the string
    itself: wrapping it in an invented key would put words in the tool's mouth.
    """
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = from_text(load_json(text))
        except ValueError:
            return text
        if isinstance(value, dict):
            return value
    return text


def is_error(payload: dict[str, Any]) -> bool:
    """The seed's state rule: complete and (``isError`` or a truthy legacy ``result.error``)."""
    if payload.get("isError") is True:
        return True
    result = payload.get("toolCallResult")
    return isinstance(result, dict) and bool(result.get("error"))


def error_text(result: Any, content: str) -> str:
    """A short error string for ``ToolMessage.error``: ``result.error``/``.message`` or the text."""
    if isinstance(result, dict):
        for key in ("error", "message"):
            value = result.get(key)
            if isinstance(value, str) and value:
                return value
    return content or "error"


def content_text(
    content: Content,
    *,
    place: Place = "tool_result",
    tool_call_id: str | None = None,
) -> tuple[str, list[Loss]]:
    """AG-UI content as the one string an Asgard field holds, and what did not fit.

    Asgard takes no media inline (files travel as uploaded ``blobIds``): each part the
    capability table rules out is dropped by ``fit_content`` with a loss naming its
    kind, MIME type and source; the text parts left are joined.
    """
    if isinstance(content, str):
        return content, []
    fitted = fit_content(content, place_rules(VENDOR, place), tool_call_id=tool_call_id)
    text, more = flatten(fitted.content, target=VENDOR, tool_call_id=tool_call_id)
    return text, fitted.losses + more


def asgard_meta(metadata: dict[str, Any] | None) -> dict[str, Any]:
    """The ``asgard`` entry of an AG-UI metadata object (empty when absent or not an object)."""
    if not metadata:
        return {}
    value = metadata.get(META_KEY)
    return value if isinstance(value, dict) else {}


__all__ = [
    "arguments_text",
    "asgard_meta",
    "content_text",
    "error_text",
    "is_error",
    "result_text",
    "result_value",
]
