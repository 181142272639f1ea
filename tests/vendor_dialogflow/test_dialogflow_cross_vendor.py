"""Cross-vendor: histories decoded from Dialogflow recordings encode to every model vendor as a
request that meets its pairing rules (every call answered, right after the message with it)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _dialogflow_helpers import CASSETTES
from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage, UserMessage

from toolwire import adapters
from toolwire.cli import decode_runs
from toolwire.protocol import validate_stream

dialogflow = adapters.get("dialogflow")
TARGETS = {
    "anthropic": "claude-sonnet-4-5",
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-5",
    "gemini": "gemini-3-pro-preview",
}
ANSWERED = ["generate_suggestions_parallel.yaml", "reactive_turn.jsonl", "tool_call_infos.json"]


def _history(name: str) -> RunAgentInput:
    events = list(decode_runs(dialogflow, (CASSETTES / name).read_bytes(), name))
    messages = validate_stream(events).messages
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u0", content="Where is order 1182?"), *messages],
    )


def _calls(ri: RunAgentInput) -> list[str]:
    return [
        c.id for m in ri.messages if isinstance(m, AssistantMessage) for c in m.tool_calls or []
    ]


def _answered(target: str, body: dict[str, Any]) -> list[str]:
    """The call ids the request answers, checking the vendor's adjacency rule on the way."""
    out: list[str] = []
    if target == "anthropic":
        msgs = body["messages"]
        for i, m in enumerate(msgs):
            uses = [
                b["id"]
                for b in m["content"]
                if isinstance(m["content"], list) and b.get("type") == "tool_use"
            ]
            if m["role"] == "assistant" and uses:
                results = [
                    b["tool_use_id"]
                    for b in msgs[i + 1]["content"]
                    if b.get("type") == "tool_result"
                ]
                assert msgs[i + 1]["role"] == "user" and sorted(results) == sorted(uses)
                out += uses
    elif target == "openai_chat":
        msgs = body["messages"]
        for i, m in enumerate(msgs):
            calls = [c["id"] for c in m.get("tool_calls") or []]
            if m["role"] == "assistant" and calls:
                assert [f.get("tool_call_id") for f in msgs[i + 1 : i + 1 + len(calls)]] == calls
                out += calls
    elif target == "openai_responses":
        items = body["input"]
        for i, it in enumerate(items):
            if it.get("type") == "function_call":
                later = [
                    x.get("call_id") for x in items[i:] if x.get("type") == "function_call_output"
                ]
                assert it["call_id"] in later
                out.append(it["call_id"])
    else:
        contents = body["contents"]
        for i, c in enumerate(contents):
            calls = [
                p.get("functionCall") or p["function_call"]
                for p in c.get("parts", [])
                if p.get("functionCall") or p.get("function_call")
            ]
            if c.get("role") == "model" and calls:
                nxt = contents[i + 1]
                answers = [
                    p.get("functionResponse") or p["function_response"]
                    for p in nxt["parts"]
                    if p.get("functionResponse") or p.get("function_response")
                ]
                # Gemini 3 is sent the call ids: each answer names its call, in call order
                assert nxt["role"] == "user"
                assert [(a["id"], a["name"]) for a in answers] == [
                    (f["id"], f["name"]) for f in calls
                ]
                out += [f["id"] for f in calls]
    return out


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("name", ANSWERED)
def test_dialogflow_history_encodes_to_each_vendor_with_every_call_answered(
    name: str, target: str
) -> None:
    ri = _history(name)
    assert any(isinstance(m, ToolMessage) for m in ri.messages)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapters.get(target).encode_request(ri, model=TARGETS[target])
    # the ids the request answers are the decoded calls' ids, in order (not just as many)
    assert _answered(target, body) == _calls(ri)
