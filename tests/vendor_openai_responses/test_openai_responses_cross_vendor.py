"""A history decoded from Responses encodes to every other LLM vendor as a request
that satisfies that vendor's pairing rules: every call answered, right after it."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _openai_responses_support import OURS, exchanges, final_items, payloads
from ag_ui.core import RunAgentInput, ToolMessage, UserMessage

from toolwire import adapters
from toolwire.adapters import openai_responses as a
from toolwire.protocol import StreamMachine, frame_run


def _history() -> tuple[RunAgentInput, list[str]]:
    messages: list[Any] = [UserMessage(id="u0", content="go")]
    ids: list[str] = []
    for name in ("reasoning_parallel_calls", "web_search_sources", "hosted_tools"):
        (ex,) = exchanges(OURS / f"{name}.yaml")
        m = StreamMachine()
        run = list(
            frame_run(
                a.Decoder(), a.sse_chunks(ex.response_body), thread_id="t", run_id=name, machine=m
            )
        )
        started = [e.tool_call_id for e in run if e.type == "TOOL_CALL_START"]
        # every call item the recording completed, by its call_id (a built-in item: its id)
        items = final_items(payloads(ex.response_body))
        assert started == [
            i.get("call_id") or i["id"] for i in items if i["type"].endswith("_call")
        ]
        assert started, f"{name} holds calls"
        ids += started
        messages += m.messages
        messages += [
            ToolMessage(id=f"ans_{c}", tool_call_id=c, content="done")
            for c in m.pending_tool_call_ids
        ]
    return RunAgentInput(thread_id="t", run_id="r", messages=messages), ids


def _openai_chat(body: dict[str, Any]) -> list[str]:
    msgs = body["messages"]
    seen = []
    for i, m in enumerate(msgs):
        calls = [c["id"] for c in m.get("tool_calls") or []]
        if calls:
            answers = [x["tool_call_id"] for x in msgs[i + 1 : i + 1 + len(calls)]]
            assert answers == calls
            seen += calls
    return seen


def _anthropic(body: dict[str, Any]) -> list[str]:
    msgs = body["messages"]
    seen = []
    for i, m in enumerate(msgs):
        blocks = m["content"] if isinstance(m["content"], list) else []
        calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
        if calls:
            nxt = msgs[i + 1]["content"]
            assert [b["tool_use_id"] for b in nxt[: len(calls)]] == calls
            seen += calls
    return seen


def _gemini(body: dict[str, Any]) -> list[str]:
    contents = body["contents"]
    seen = []
    for i, c in enumerate(contents):
        calls = [p["function_call"]["id"] for p in c["parts"] if "function_call" in p]
        if calls:
            nxt = contents[i + 1]["parts"]
            assert [p["function_response"]["id"] for p in nxt] == calls
            seen += calls
    return seen


TARGETS = [
    ("openai_chat", "gpt-4o", _openai_chat),
    ("anthropic", "claude-sonnet-4-5", _anthropic),
    ("gemini", "gemini-3-pro-preview", _gemini),
]


@pytest.mark.parametrize("vendor,model,check", TARGETS, ids=[t[0] for t in TARGETS])
def test_history_encodes_to_another_vendor_with_every_call_answered(
    vendor: str, model: str, check: Any
) -> None:
    run_input, ids = _history()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapters.get(vendor).encode_request(run_input, model=model)
    assert check(body) == ids
