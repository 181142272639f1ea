"""Anthropic's request rules as the cross-vendor tests check them (``tests/cross/vendor_rules``
loads this file): written from the Messages API's own validation messages, never read from
toolwire.

* a ``tool_use`` id matches ``^[a-zA-Z0-9_-]+$`` ("messages.i.content.j.tool_use.id: String
  should match pattern"), at most 64 characters (the bound Claude's ``toolUseId`` has on
  Bedrock, the one documented length);
* every ``tool_use`` is answered by a ``tool_result`` at the head of the next user message,
  which answers nothing else; a server tool's call carries its result in the same turn;
* ``is_error`` needs content; no empty text block; ids unique in the request.
"""

from __future__ import annotations

from typing import Any

from rule_kit import check_id, unique

MODEL = "claude-sonnet-4-5"
#: the capability family row (``adapters/anthropic/capabilities.json``) that covers ``MODEL``
FAMILY = "claude"
#: where the body holds the conversation
CONVERSATION = "messages"
ID_RULE: tuple[int | None, str | None] = (64, r"[a-zA-Z0-9_-]+")


def _check_id(call_id: Any) -> None:
    check_id("anthropic", ID_RULE, call_id)


def _unique(ids: list[str]) -> None:
    unique("anthropic", ids)


def check(body: dict[str, Any]) -> list[str]:
    answered: list[str] = []
    msgs = body["messages"]
    for i, m in enumerate(msgs):
        blocks = m["content"] if isinstance(m["content"], list) else []
        if m["role"] == "user":
            results = [b for b in blocks if b.get("type") == "tool_result"]
            prev = msgs[i - 1] if i > 0 else None
            made = [
                b["id"]
                for b in (prev["content"] if prev and isinstance(prev["content"], list) else [])
                if b.get("type") == "tool_use"
            ]
            for b in results:
                assert b["tool_use_id"] in made, f"tool_result {b['tool_use_id']} answers nothing"
            continue
        # server tools (run by Anthropic) are answered inside the same assistant turn
        served = {b["tool_use_id"] for b in blocks if str(b.get("type")).endswith("_tool_result")}
        for b in blocks:
            if b.get("type") in ("server_tool_use", "mcp_tool_use"):
                assert b["id"] in served, "a server tool call carries its result block"
                answered.append(b["id"])
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        for u in uses:
            _check_id(u)
        if not uses:
            continue
        nxt = msgs[i + 1] if i + 1 < len(msgs) else None
        assert nxt is not None and nxt["role"] == "user", "tool_use must be answered next turn"
        content = nxt["content"]
        assert isinstance(content, list)
        results = [b for b in content if b.get("type") == "tool_result"]
        # tool_result blocks come first in the user message, one per tool_use
        assert content[: len(results)] == results
        assert sorted(b["tool_use_id"] for b in results) == sorted(uses)
        for b in results:
            c = b.get("content")
            assert c is None or c != "" or not b.get("is_error"), "is_error needs content"
            assert not (b.get("is_error") and not c), "is_error needs content"
            if isinstance(c, list):
                assert all(x.get("text", "x") != "" for x in c), "no empty text block"
        answered.extend(uses)
    _unique(answered)
    return answered


def stream_ids(chunks: list[dict[str, Any]]) -> list[str]:
    """The call ids of a stream's events (a ``tool_use`` block's ``id`` at its start)."""
    out: list[str] = []
    for c in chunks:
        block = c.get("content_block") if c.get("type") == "content_block_start" else None
        if block and block.get("type") == "tool_use":
            out.append(block["id"])
    return out


#: the smallest reply the SDK parses (the request is what is checked)
_REPLY = {
    "id": "msg_x",
    "type": "message",
    "role": "assistant",
    "content": [],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


def _client(http_client: Any) -> Any:
    import anthropic

    return anthropic.Anthropic(api_key="sk-ant-test", max_retries=0, http_client=http_client)


def sdk_accepts(body: dict[str, Any]) -> None:
    """The anthropic SDK's param types take the body unchanged, and its client sends it so."""
    from anthropic.types import MessageParam, ToolParam
    from pydantic import TypeAdapter
    from sdk_judge import same, sends_unchanged

    same(TypeAdapter(list[MessageParam]), body["messages"])
    same(TypeAdapter(list[ToolParam]), body.get("tools", []))
    sends_unchanged(_client, "messages.create", body, {**_REPLY, "model": body["model"]})
