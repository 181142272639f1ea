"""A history decoded from Responses encodes to every other LLM vendor as a request
that satisfies that vendor's pairing rules: every call answered, right after it."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _openai_responses_support import OURS, exchanges, final_items, payloads
from ag_ui.core import RunAgentInput, ToolMessage, UserMessage
from vendor_rules import check_request

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


TARGETS = [
    ("openai_chat", "gpt-4o"),
    ("anthropic", "claude-sonnet-4-5"),
    ("gemini", "gemini-3-pro-preview"),
]


@pytest.mark.parametrize("vendor,model", TARGETS, ids=[t[0] for t in TARGETS])
def test_history_encodes_to_another_vendor_with_every_call_answered(
    vendor: str, model: str
) -> None:
    run_input, ids = _history()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapters.get(vendor).encode_request(run_input, model=model)
    assert check_request(vendor, body) == ids
