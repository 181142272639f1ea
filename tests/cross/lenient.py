"""The lenient-request tests' tools, for every vendor: a body with one value changed (a
looser shape where the canonical one has another), and what a decoded history says, to
compare a loose body with its canonical twin."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any


def changed(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``body`` with ``value`` at ``path`` (``"messages.0.content"``: keys
    and list indexes, dotted)."""
    body = copy.deepcopy(body)
    *head, last = path.split(".")
    node: Any = body
    for key in head:
        node = node[int(key)] if key.isdigit() else node[key]
    node[int(last) if last.isdigit() else last] = value
    return body


def history(decode_request: Callable[..., Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages ``decode_request`` reads from ``body``, as JSON."""
    ri = decode_request(body, thread_id="t", run_id="r")
    return [m.model_dump(mode="json", exclude_none=True) for m in ri.messages]


def said(decode_request: Callable[..., Any], body: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What the decoded history says: roles, text, calls and answers (a string and one text
    part say the same; ids minted from a block's position may differ)."""
    out = []
    for m in history(decode_request, body):
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p["text"] for p in content if p["type"] == "text")
        calls = [(c["id"], c["function"]["arguments"]) for c in m.get("tool_calls", [])]
        out.append((m["role"], content, calls, m.get("tool_call_id")))
    return out


__all__ = ["changed", "history", "said"]
