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
#: the capability family row (``adapters/ollama/capabilities.json``) that covers ``MODEL``
FAMILY = "text-only"
#: where the body holds the conversation
CONVERSATION = "messages"
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


#: fields newer Ollama servers read that the SDK's types (0.6) do not declare yet: a call's
#: ``id`` and ``function.index`` and a tool message's ``tool_call_id`` (the server's own
#: ``api.Message``); toolwire sends the body as bytes, so they reach the server
_NEWER: dict[str, tuple[str, ...]] = {"message": ("tool_call_id",), "call": ("id",)}


def _as_the_sdk_knows_it(message: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in message.items() if k not in _NEWER["message"]}
    if "tool_calls" in message:
        out["tool_calls"] = [
            {
                **{k: v for k, v in c.items() if k not in _NEWER["call"]},
                "function": {k: v for k, v in c["function"].items() if k != "index"},
            }
            for c in message["tool_calls"]
        ]
    return out


def sdk_accepts(body: dict[str, Any]) -> None:
    """The ollama SDK's ``Message`` and ``Tool`` take the body with no unknown field and dump
    it back, but for the fields only newer servers read (``_NEWER``)."""
    from ollama import Message, Tool
    from pydantic import TypeAdapter
    from sdk_judge import takes

    messages = [_as_the_sdk_knows_it(m) for m in body["messages"]]
    takes(TypeAdapter(list[Message]), messages, "messages")
    tools = body.get("tools", [])
    TypeAdapter(list[Tool]).validate_python(tools)
    # the SDK's ``Parameters`` model keeps a few JSON Schema keywords of the many the server
    # passes on to the model: the schema itself is the caller's, checked as a tool apart
    bare = [
        {**t, "function": {k: v for k, v in t["function"].items() if k != "parameters"}}
        for t in tools
    ]
    takes(TypeAdapter(list[Tool]), bare, "tools")
