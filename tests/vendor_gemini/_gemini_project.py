"""Projections of Gemini requests and AG-UI streams that tests compare (what the protocol holds)."""

from __future__ import annotations

import base64
from typing import Any

from _gemini_sdk import field
from ag_ui.core import BaseEvent

from toolwire.testing.calls import calls_from_events


def request_view(body: dict[str, Any]) -> list[Any]:
    """Every call, response, signature, text and media part of a request body, in order."""
    out: list[Any] = []
    system = field(body, "systemInstruction")
    if system:
        out.append(("system", [p.get("text") for p in system.get("parts", [])]))
    for c in body.get("contents", []):
        parts: list[Any] = []
        for p in c.get("parts", []):
            sig = field(p, "thoughtSignature")
            fc = field(p, "functionCall")
            fr = field(p, "functionResponse")
            if fc is not None:
                parts.append(("call", fc.get("id"), fc["name"], fc.get("args") or {}, sig))
            elif fr is not None:
                media = [_media(m) for m in fr.get("parts") or []]
                parts.append(("response", fr.get("id"), fr["name"], fr.get("response"), media))
            elif "text" in p:
                if p["text"] or sig:
                    parts.append(("text", p["text"], bool(p.get("thought")), sig))
            elif field(p, "inlineData") or field(p, "fileData"):
                parts.append(_media(p))
        out.append((c.get("role", "user"), parts))
    return out


def _media(p: dict[str, Any]) -> Any:
    blob = field(p, "inlineData")
    if blob is not None:
        return ("inline", field(blob, "mimeType"), raw_bytes(field(blob, "data")))
    ref = field(p, "fileData")
    return ("file", field(ref, "mimeType"), field(ref, "fileUri"))


def raw_bytes(data: str) -> bytes:
    """Base64 text as bytes, either alphabet (google-genai writes some blobs URL-safe)."""
    return base64.b64decode(data.replace("-", "+").replace("_", "/"))


# (id, name, argument text) of every tool call in a decoded stream, in order
calls_of = calls_from_events


def text_of_stream(events: list[BaseEvent]) -> str:
    return "".join(e.delta for e in events if e.type.value == "TEXT_MESSAGE_CONTENT")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
