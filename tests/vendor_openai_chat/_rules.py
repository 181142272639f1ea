"""Chat Completions' request rules as the cross-vendor tests check them
(``tests/cross/vendor_rules`` loads this file): written from the API's own validation messages,
never read from toolwire.

* a tool call id is at most 40 characters ("Invalid 'messages[i].tool_calls[0].id': string too
  long. Expected ... maximum length 40");
* an assistant message with ``tool_calls`` is followed at once by one ``role:"tool"`` message
  per call, in call order; no tool message answers a call before it; ids unique.
"""

from __future__ import annotations

from typing import Any

from rule_kit import check_id, unique

MODEL = "gpt-4o"
#: the capability family row (``adapters/openai_chat/capabilities.json``) that covers ``MODEL``
FAMILY = "vision"
#: where the body holds the conversation
CONVERSATION = "messages"
ID_RULE: tuple[int | None, str | None] = (40, None)


def _check_id(call_id: Any) -> None:
    check_id("openai_chat", ID_RULE, call_id)


def _unique(ids: list[str]) -> None:
    unique("openai_chat", ids)


def check(body: dict[str, Any]) -> list[str]:
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
            _check_id(c)
        following = msgs[i + 1 : i + 1 + len(calls)]
        assert [f["role"] for f in following] == ["tool"] * len(calls)
        assert [f["tool_call_id"] for f in following] == calls
        answered.extend(calls)
    _unique(answered)
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


#: the smallest reply the SDK parses (the request is what is checked)
_REPLY = {
    "id": "chatcmpl-x",
    "object": "chat.completion",
    "created": 1,
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}
    ],
}


def _client(http_client: Any) -> Any:
    import openai

    return openai.OpenAI(api_key="test-key", max_retries=0, http_client=http_client)


def sdk_accepts(body: dict[str, Any]) -> None:
    """The openai SDK's param types take the body unchanged, and its client sends it so."""
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
    from pydantic import TypeAdapter
    from sdk_judge import same, sends_unchanged

    same(TypeAdapter(list[ChatCompletionMessageParam]), body["messages"])
    same(TypeAdapter(list[ChatCompletionToolParam]), body.get("tools", []))
    reply = {**_REPLY, "model": body["model"]}
    sends_unchanged(_client, "chat.completions.create", body, reply)
