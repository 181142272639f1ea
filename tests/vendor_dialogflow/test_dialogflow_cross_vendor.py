"""Cross-vendor: histories decoded from Dialogflow recordings encode to every model vendor as a
request that meets its pairing rules (every call answered, right after the message with it)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _dialogflow_helpers import CASSETTES
from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage, UserMessage
from vendor_rules import check_request, sent_ids

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


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("name", ANSWERED)
def test_dialogflow_history_encodes_to_each_vendor_with_every_call_answered(
    name: str, target: str
) -> None:
    ri = _history(name)
    assert any(isinstance(m, ToolMessage) for m in ri.messages)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        losses: list[Any] = []
        body = adapters.get(target).encode_request(ri, model=TARGETS[target], losses=losses)
    # the ids the request answers are the decoded calls' ids, in order (not just as many);
    # an answer record's name is longer than OpenAI Chat takes, or holds '/' (Anthropic)
    assert check_request(target, body) == sent_ids(target, _calls(ri), losses)
