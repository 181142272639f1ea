"""Cohere's v2 chat request rules as the cross-vendor tests check them
(``tests/cross/vendor_rules`` loads this file): from Cohere's API reference, never read from
toolwire.

* an assistant message that makes calls has ``tool_calls`` (its text as ``tool_plan``), and
  is followed at once by one ``role:"tool"`` message per call, in call order, each with
  ``tool_call_id`` and ``content`` a list of ``text`` / ``document`` items;
* images (``image_url``) only in user messages;
* call ids are non-empty strings, unique in the request.
"""

from __future__ import annotations

from typing import Any

MODEL = "command-a-03-2025"
#: the capability family row (``adapters/cohere/capabilities.json``) that covers ``MODEL``
FAMILY = "text-only"
#: where the body holds the conversation
CONVERSATION = "messages"
ID_RULE: tuple[int | None, str | None] = (None, None)


def check(body: dict[str, Any]) -> list[str]:
    msgs = body["messages"]
    answered: list[str] = []
    for i, m in enumerate(msgs):
        if m["role"] != "user" and isinstance(m.get("content"), list):
            kinds = {c.get("type") for c in m["content"]}
            assert "image_url" not in kinds, f"an image in a {m['role']} message"
        if m["role"] == "tool":
            assert isinstance(m["content"], list) and m["content"], "tool content is items"
            assert {c["type"] for c in m["content"]} <= {"text", "document"}
        calls = [c["id"] for c in m.get("tool_calls") or []]
        if m["role"] != "assistant" or not calls:
            continue
        assert all(isinstance(c, str) and c for c in calls), "a call id is a non-empty string"
        following = msgs[i + 1 : i + 1 + len(calls)]
        assert [f["role"] for f in following] == ["tool"] * len(calls), "results follow at once"
        assert [f["tool_call_id"] for f in following] == calls
        answered.extend(calls)
    for m in msgs:
        if m["role"] == "tool":
            assert m["tool_call_id"] in answered, f"tool message {m['tool_call_id']} orphaned"
    assert len(set(answered)) == len(answered), "two calls share one id"
    return answered


def stream_ids(chunks: list[dict[str, Any]]) -> list[str]:
    """The call ids of a stream's ``tool-call-start`` events."""
    return [
        c["delta"]["message"]["tool_calls"]["id"]
        for c in chunks
        if c.get("type") == "tool-call-start"
    ]


def sdk_accepts(body: dict[str, Any]) -> None:
    """cohere's v2 message and tool types take the body with no unknown field (they keep
    one aside, ``extra="allow"``) and dump it back."""
    from cohere.types import ChatMessageV2, ToolV2
    from pydantic import TypeAdapter
    from sdk_judge import takes

    takes(TypeAdapter(list[ChatMessageV2]), body["messages"], "messages")
    takes(TypeAdapter(list[ToolV2]), body.get("tools", []), "tools")
