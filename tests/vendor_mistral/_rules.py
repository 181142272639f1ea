"""Mistral's request rules as the cross-vendor tests check them (``tests/cross/vendor_rules``
loads this file): written from Mistral's API behaviour, never read from toolwire.

* a tool call id is exactly nine characters of ``[a-zA-Z0-9]`` (the API's 400: "Tool call
  id was ... but must be a-z, A-Z, 0-9, with a length of 9");
* an assistant message with ``tool_calls`` is followed at once by one ``role:"tool"``
  message per call, in call order, each naming its call by ``tool_call_id``;
* no tool message answers a call the request does not hold; ids unique in the request.
"""

from __future__ import annotations

import re
from typing import Any

MODEL = "mistral-medium-latest"
#: the capability family row (``adapters/mistral/capabilities.json``) that covers ``MODEL``
FAMILY = "vision"
#: where the body holds the conversation
CONVERSATION = "messages"
ID_RULE: tuple[int | None, str | None] = (9, r"[a-zA-Z0-9]{9}")


def check(body: dict[str, Any]) -> list[str]:
    msgs = body["messages"]
    answered: list[str] = []
    for i, m in enumerate(msgs):
        calls = [c["id"] for c in m.get("tool_calls") or []]
        if m["role"] != "assistant" or not calls:
            continue
        for c in calls:
            assert re.fullmatch(r"[a-zA-Z0-9]{9}", c), f"mistral: id {c!r} is not 9 of [a-zA-Z0-9]"
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
    """The call ids of a stream's chunks (``choices[].delta.tool_calls[].id``)."""
    return [
        tc["id"]
        for c in chunks
        for ch in c.get("choices", [])
        for tc in ch["delta"].get("tool_calls") or []
        if tc.get("id")
    ]


def sdk_accepts(body: dict[str, Any]) -> None:
    """mistralai's request model takes the body with no unknown field and dumps it back."""
    from mistralai.client.models import ChatCompletionRequest
    from pydantic import TypeAdapter
    from sdk_judge import takes

    takes(TypeAdapter(ChatCompletionRequest), body, "request")
