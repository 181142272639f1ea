"""A history decoded from Asgard frames encodes to each model vendor as a request that keeps
every call answered, adjacent to the assistant turn that made it (ADAPTERS.md test 5)."""

from __future__ import annotations

import json
import warnings

import pytest
from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage
from vendor_rules import check_request

from conftest import replay_cassette
from toolwire import adapters
from toolwire.adapters import asgard
from toolwire.protocol import validate_stream
from toolwire.protocol.pairing import pair_history

MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-4o",
    "gemini": "gemini-3-flash-preview",
}


def asgard_history() -> RunAgentInput:
    ex = replay_cassette("parallel_calls.yaml")[0]
    asked = asgard.decode_request(ex.request)  # the user's turn, from the recorded POST
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        machine = validate_stream(asgard.decode_run(asgard.sse_chunks(ex.body)))
    return asked.model_copy(update={"messages": [*asked.messages, *machine.messages]})


def test_the_history_holds_the_recorded_calls_and_results() -> None:
    history = asgard_history()
    calls = [
        c for m in history.messages if isinstance(m, AssistantMessage) for c in m.tool_calls or []
    ]
    assert [c.id for c in calls] == ["proc-par-01-0", "proc-par-01-1", "proc-par-01-2"]
    errors = {m.tool_call_id: m.error for m in history.messages if isinstance(m, ToolMessage)}
    assert errors == {
        "proc-par-01-0": "order service timed out",
        "proc-par-01-1": None,
        "proc-par-01-2": "no such customer",
    }


@pytest.mark.parametrize("name", sorted(MODELS))
def test_history_encodes_to_each_vendor_paired(name: str) -> None:
    other = adapters.get(name)  # every adapter is in the tree: a broken one must fail
    history = asgard_history()
    calls = [
        c for m in history.messages if isinstance(m, AssistantMessage) for c in m.tool_calls or []
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = other.encode_request(history, model=MODELS[name])
        back = other.decode_request(body)
    assert len(check_request(name, body)) == len(calls)
    paired = pair_history(back.messages, target=name, allow_trailing_unanswered=False)
    turns = [t for t in paired.turns if t.results]
    assert len(turns) == 1  # the three parallel calls stay one assistant turn
    (turn,) = turns
    assert isinstance(turn.message, AssistantMessage)
    got = turn.message.tool_calls or []
    assert [c.function.name for c in got] == [c.function.name for c in calls]
    assert [json.loads(c.function.arguments) for c in got] == [
        json.loads(c.function.arguments) for c in calls
    ]
    assert all(r is not None for r in turn.results)
