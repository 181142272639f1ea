"""Ollama's request rules as the cross-vendor tests check them (``tests/cross/vendor_rules``
loads this file): written from Ollama's API reference, never read from toolwire.

* ``messages[].tool_calls[].function.arguments`` is a JSON object (the server's
  ``api.ToolCallFunctionArguments`` is a map; a string is a 400);
* a ``role:"tool"`` message answers a call of an earlier assistant message: the server
  matches it by ``tool_name`` (and, on newer servers, ``tool_call_id``), so each names a
  call made before it, after the assistant message, before the next assistant message;
* call ids are any string (the server mints ``call_<random>``), unique in the request.
"""

from __future__ import annotations

from typing import Any

MODEL = "qwen3:8b"
ID_RULE: tuple[int | None, str | None] = (None, None)


def check(body: dict[str, Any]) -> list[str]:
    msgs = body["messages"]
    answered: list[str] = []
    for i, m in enumerate(msgs):
        calls = m.get("tool_calls") or []
        if m["role"] != "assistant" or not calls:
            continue
        ids = []
        for c in calls:
            assert isinstance(c["function"]["arguments"], dict), "arguments must be an object"
            assert isinstance(c.get("id"), str) and c["id"], "a call id is a non-empty string"
            ids.append(c["id"])
        following = msgs[i + 1 : i + 1 + len(calls)]
        assert [f["role"] for f in following] == ["tool"] * len(calls), "results follow at once"
        assert [f["tool_call_id"] for f in following] == ids
        assert [f["tool_name"] for f in following] == [c["function"]["name"] for c in calls]
        answered.extend(ids)
    for m in msgs:
        if m["role"] == "tool":
            assert m["tool_call_id"] in answered, f"tool message {m['tool_call_id']} orphaned"
    assert len(set(answered)) == len(answered), "two calls share one id"
    return answered


def stream_ids(chunks: list[dict[str, Any]]) -> list[str]:
    """The call ids of a stream's lines (``message.tool_calls[].id``)."""
    return [
        c["id"]
        for line in chunks
        for c in (line.get("message") or {}).get("tool_calls") or []
        if c.get("id")
    ]
