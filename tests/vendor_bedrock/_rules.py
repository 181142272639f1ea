"""Bedrock Converse's request rules as the cross-vendor tests check them
(``tests/cross/vendor_rules`` loads this file): written from AWS's API reference, never read
from toolwire.

* a ``toolUseId`` matches ``[a-zA-Z0-9_-]+``, 1 to 64 characters (``ToolUseBlock``);
* roles alternate, user first; every ``toolUse`` is answered by a ``toolResult`` at the head
  of the next user message, which answers nothing else; no blank text block; ids unique.
"""

from __future__ import annotations

from typing import Any

from rule_kit import check_id, unique

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
#: the capability family row (``adapters/bedrock/capabilities.json``) that covers ``MODEL``
FAMILY = "claude"
#: where the body holds the conversation
CONVERSATION = "messages"
ID_RULE: tuple[int | None, str | None] = (64, r"[a-zA-Z0-9_-]+")


def _check_id(call_id: Any) -> None:
    check_id("bedrock", ID_RULE, call_id)


def _unique(ids: list[str]) -> None:
    unique("bedrock", ids)


def check(body: dict[str, Any]) -> list[str]:
    """Converse: roles alternate (user first); every ``toolUse`` of an assistant message is
    answered by a ``toolResult`` at the head of the next user message, which answers nothing
    else; no blank text block."""
    answered: list[str] = []
    msgs = body["messages"]
    for i, m in enumerate(msgs):
        assert m["role"] in ("user", "assistant"), m["role"]
        assert i == 0 or m["role"] != msgs[i - 1]["role"], "Converse roles alternate"
        blocks = m["content"]
        assert isinstance(blocks, list) and blocks, f"message {i} has no content"
        for b in blocks:
            assert b.get("text", "x") != "", "no blank text block"
        uses = [b["toolUse"]["toolUseId"] for b in blocks if "toolUse" in b]
        results = [b["toolResult"]["toolUseId"] for b in blocks if "toolResult" in b]
        if m["role"] == "user":
            prev = msgs[i - 1]["content"] if i > 0 else []
            made = [b["toolUse"]["toolUseId"] for b in prev if "toolUse" in b]
            for r in results:
                assert r in made, f"toolResult {r} answers nothing"
            continue
        assert not results, "a toolResult belongs in a user message"
        for u in uses:
            _check_id(u)
        if not uses:
            continue
        nxt = msgs[i + 1] if i + 1 < len(msgs) else None
        assert nxt is not None and nxt["role"] == "user", "toolUse must be answered next turn"
        head = nxt["content"][: len(uses)]
        assert all("toolResult" in b for b in head), "the results open the next user message"
        assert sorted(b["toolResult"]["toolUseId"] for b in head) == sorted(uses)
        answered.extend(uses)
    _unique(answered)
    return answered


def stream_ids(chunks: list[dict[str, Any]]) -> list[str]:
    """The call ids of a stream's events (boto3's ``{eventType: payload}``: a ``toolUse``
    block's ``toolUseId`` at its start)."""
    out: list[str] = []
    for c in chunks:
        start = (c.get("contentBlockStart") or {}).get("start") or {}
        if "toolUse" in start:
            out.append(start["toolUse"]["toolUseId"])
    return out


def sdk_accepts(body: dict[str, Any]) -> None:
    """botocore's parameter validation of ``converse(**kwargs)`` (it rejects an unknown key
    anywhere) on the body as boto3 takes it (media as bytes)."""
    import botocore.session
    from botocore.validate import validate_parameters

    from toolwire.adapters.bedrock import to_boto3

    service = botocore.session.get_session().get_service_model("bedrock-runtime")
    validate_parameters(to_boto3(body), service.operation_model("Converse").input_shape)
