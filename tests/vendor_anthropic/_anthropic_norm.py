"""What of an Anthropic request the protocol holds, in a comparable shape.

Per message: the role, the text of its text blocks joined, and every other
block in order (calls with parsed input, results with their content and error
flag, thinking with its signature). Transport-only fields (``cache_control``
of text and system blocks, ``null`` placeholders) are not compared.
"""

from __future__ import annotations

from typing import Any


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _strip(v)
            for k, v in value.items()
            if v is not None and k not in ("cache_control", "citations")
        }
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _content(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return [_strip(b) for b in value]


def normalize(body: dict[str, Any]) -> list[tuple[str, str, list[Any]]]:
    out: list[tuple[str, str, list[Any]]] = []
    for m in body["messages"]:
        blocks = _content(m["content"])
        texts = "".join(b["text"] for b in blocks if b["type"] == "text")
        items: list[Any] = []
        for b in blocks:
            if b["type"] == "text":
                continue
            if b["type"] == "tool_result":
                items.append(
                    (
                        "tool_result",
                        b["tool_use_id"],
                        bool(b.get("is_error")),
                        _content(b.get("content")),
                    )
                )
            else:
                items.append(b)
        if out and out[-1][0] == m["role"]:  # Anthropic joins consecutive same-role turns
            role, t, prev = out[-1]
            out[-1] = (role, t + texts, prev + items)
        else:
            out.append((m["role"], texts, items))
    return out


def system_text(body: dict[str, Any]) -> str:
    s = body.get("system")
    if s is None:
        return ""
    if isinstance(s, str):
        return s
    return "".join(b["text"] for b in s)
