"""The one check every cross-vendor test runs on an encoded request: would its vendor take it?

Each rule is the vendor's documented one (vendor-wire-formats.md §2B-§5B, and the API's
own validation messages), written here as data, never read from toolwire:

* pairing: every call answered where the vendor demands it, in the vendor's order, and
  no result that answers nothing;
* call ids: unique in the request, and within the vendor's id rule (OpenAI Chat: at most
  40 characters; Responses: at most 64; Anthropic: ``^[a-zA-Z0-9_-]+$``, at most 64;
  Gemini: any non-empty string, echoed by its response).

``check_request(target, body)`` asserts all of it and returns the call ids the request
answers, in request order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

#: A model of each target that the cross-vendor tests encode for.
MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-5",
    "gemini": "gemini-3-pro-preview",
    "bedrock": "us.anthropic.claude-sonnet-4-20250514-v1:0",
}

#: (max length, full-match pattern) of a tool call id, per target, as documented.
ID_RULES: dict[str, tuple[int | None, str | None]] = {
    # "Invalid 'messages[i].tool_calls[0].id': string too long. Expected ... maximum length 40"
    "openai_chat": (40, None),
    # "Invalid 'input[i].call_id': string too long. Expected ... maximum length 64"
    "openai_responses": (64, None),
    # "messages.i.content.j.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'";
    # 64 is the bound Claude's toolUseId has on Bedrock, the one documented length
    "anthropic": (64, r"[a-zA-Z0-9_-]+"),
    # FunctionCall.id: "the client ... return the response with the matching id"
    "gemini": (None, None),
    # Converse ToolUseBlock.toolUseId: "[a-zA-Z0-9_-]+", 1 to 64 characters (AWS reference)
    "bedrock": (64, r"[a-zA-Z0-9_-]+"),
}


def check_id(target: str, call_id: Any) -> None:
    longest, pattern = ID_RULES[target]
    assert isinstance(call_id, str) and call_id, f"{target}: a call id must be a non-empty string"
    if longest is not None:
        assert len(call_id) <= longest, f"{target}: id {call_id!r} is over {longest} characters"
    if pattern is not None:
        assert re.fullmatch(pattern, call_id), f"{target}: id {call_id!r} breaks {pattern}"


def _unique(target: str, ids: list[str]) -> None:
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    assert not repeated, f"{target}: the request gives two calls one id: {repeated}"


def check_anthropic(body: dict[str, Any]) -> list[str]:
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
            check_id("anthropic", u)
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
    _unique("anthropic", answered)
    return answered


def check_openai_chat(body: dict[str, Any]) -> list[str]:
    answered: list[str] = []
    msgs = body["messages"]
    for i, m in enumerate(msgs):
        if m["role"] == "tool":
            prev_calls = [
                c["id"]
                for p in msgs[:i][::-1]
                if p["role"] == "assistant"
                for c in (p.get("tool_calls") or [])
            ]
            assert m["tool_call_id"] in prev_calls, f"tool message {m['tool_call_id']} orphaned"
        calls = [c["id"] for c in m.get("tool_calls") or []]
        if m["role"] != "assistant" or not calls:
            continue
        for c in calls:
            check_id("openai_chat", c)
        following = msgs[i + 1 : i + 1 + len(calls)]
        assert [f["role"] for f in following] == ["tool"] * len(calls)
        assert [f["tool_call_id"] for f in following] == calls
        answered.extend(calls)
    _unique("openai_chat", answered)
    return answered


def check_openai_responses(body: dict[str, Any]) -> list[str]:
    items = body["input"]
    calls = [
        (i, it["call_id"])
        for i, it in enumerate(items)
        if str(it.get("type")).endswith("_call") and "call_id" in it
    ]
    made = {cid for _, cid in calls}
    for it in items:
        if str(it.get("type")).endswith("_output") and "call_id" in it:
            assert it["call_id"] in made, f"output {it['call_id']} answers nothing"
    for at, cid in calls:
        check_id("openai_responses", cid)
        outputs = [
            i
            for i, it in enumerate(items)
            if str(it.get("type")).endswith("_output") and it.get("call_id") == cid
        ]
        assert outputs and outputs[0] > at, f"{cid} is answered after it is made"
    answered = [cid for _, cid in calls]
    _unique("openai_responses", answered)
    return answered


def _field(part: dict[str, Any], snake: str) -> Any:
    camel = snake.split("_")[0] + "".join(w.title() for w in snake.split("_")[1:])
    return part.get(snake, part.get(camel))


def check_gemini(body: dict[str, Any]) -> list[str]:
    contents = body["contents"]
    answered: list[str] = []
    for i, c in enumerate(contents):
        parts = c.get("parts", [])
        calls = [_field(p, "function_call") for p in parts if _field(p, "function_call")]
        if c.get("role") == "user" and any(_field(p, "function_response") for p in parts):
            prev = contents[i - 1] if i > 0 else {}
            assert prev.get("role") == "model", "function responses follow the model's calls"
        if c.get("role") != "model" or not calls:
            continue
        nxt = contents[i + 1]
        assert nxt.get("role") == "user"
        responses = [
            _field(p, "function_response") for p in nxt["parts"] if _field(p, "function_response")
        ]
        # as many responses as calls, in call order (names, and ids when the calls have ids)
        assert [r["name"] for r in responses] == [fc["name"] for fc in calls]
        assert [r.get("id") for r in responses] == [fc.get("id") for fc in calls]
        for n, fc in enumerate(calls):
            if fc.get("id") is not None:
                check_id("gemini", fc["id"])
            answered.append(fc.get("id") or f"{i}:{n}")
    _unique("gemini", answered)
    return answered


def check_bedrock(body: dict[str, Any]) -> list[str]:
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
            check_id("bedrock", u)
        if not uses:
            continue
        nxt = msgs[i + 1] if i + 1 < len(msgs) else None
        assert nxt is not None and nxt["role"] == "user", "toolUse must be answered next turn"
        head = nxt["content"][: len(uses)]
        assert all("toolResult" in b for b in head), "the results open the next user message"
        assert sorted(b["toolResult"]["toolUseId"] for b in head) == sorted(uses)
        answered.extend(uses)
    _unique("bedrock", answered)
    return answered


CHECKS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "anthropic": check_anthropic,
    "openai_chat": check_openai_chat,
    "openai_responses": check_openai_responses,
    "gemini": check_gemini,
    "bedrock": check_bedrock,
}


def _vendor_folder_rules() -> None:
    """Rules a model adapter's own test folder declares, for the targets not written
    above (``tests/vendor_<name>/_rules.py``: ``MODEL``, ``ID_RULE``, ``check(body)`` giving
    the answered ids, ``stream_ids(chunks)``). A new adapter brings its target's rules with
    its tests and every cross-vendor test takes them up without an edit here; a model
    adapter with neither fails the tests that need its rules (a ``KeyError`` naming it),
    never skips them."""
    import importlib.util
    from pathlib import Path

    from toolwire import adapters

    tests = Path(__file__).resolve().parents[1]
    for name in adapters.model_names():
        path = tests / f"vendor_{name}" / "_rules.py"
        if name in CHECKS or not path.is_file():
            continue
        spec = importlib.util.spec_from_file_location(f"_{name}_rules", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        MODELS[name] = module.MODEL
        ID_RULES[name] = module.ID_RULE
        CHECKS[name] = module.check
        STREAM_IDS[name] = module.stream_ids


#: The call ids a target's stream chunks carry, read the way its SDK reads them, for the
#: targets whose rules come from their test folder (``stream_ids(chunks)`` there).
STREAM_IDS: dict[str, Callable[[list[dict[str, Any]]], list[str]]] = {}


def check_request(target: str, body: dict[str, Any]) -> list[str]:
    """Assert ``body`` keeps every pairing and id rule of ``target``; its answered call ids."""
    return CHECKS[target](body)


_vendor_folder_rules()


def sent_ids(target: str, ids: list[str], losses: list[Any]) -> list[str]:
    """``ids`` as ``target`` must have been sent them: unchanged, or (an id its rule
    rejects) the conforming id the ``call-id-remapped`` loss names."""
    remapped = {x.tool_call_id: x.sent_as for x in losses if x.kind == "call-id-remapped"}
    out = []
    for i in ids:
        if i in remapped:
            try:
                check_id(target, i)
            except AssertionError:
                out.append(remapped[i])
                continue
            raise AssertionError(f"{target}: {i!r} conforms, yet it was remapped")
        out.append(i)
    return out


__all__ = [
    "CHECKS",
    "ID_RULES",
    "MODELS",
    "STREAM_IDS",
    "check_id",
    "check_request",
    "sent_ids",
]
