"""Swapping providers mid-thread: one vendor's call ids sent to another that refuses them.

Real ids that break another target's documented rule: a Responses-style ``call_id`` of 57
characters (Chat takes 40), Kimi/DeepSeek ``functions.Bash:0`` and MCP-style dotted ids
(Anthropic takes ``[a-zA-Z0-9_-]``), a Dialogflow answer record name (slashes, 64+). Every
encoder, requests and streams, must send a conforming id instead: deterministic, the call
and its result together, no collision, reported as a loss; a conforming id unchanged.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    RunAgentInput,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from vendor_rules import ID_RULES, MODELS, STREAM_IDS, check_id, check_request

from toolwire import adapters
from toolwire.losses import ContentLossWarning
from toolwire.protocol.callids import IdMapper, IdRule

TARGETS = MODELS

FOREIGN = [
    "call_8Jq2mVxZ0cT6bLkR1nYwP4sA_fc_68a1b2c3d4e5f60718293a4b",  # 57: Responses-style
    "functions.Bash:0",  # Kimi K2 / DeepSeek
    "mcp.github/search_issues#1",
    "projects/acme/locations/global/answerRecords/ar-0000000000000000000000000001",
    "toolu_01A09q90qw90lq917835lq9",  # Anthropic's own: conforms everywhere
    "x" * 40,  # exactly Chat's limit
]


def _history(ids: list[str]) -> RunAgentInput:
    calls = [
        ToolCall(id=i, function=FunctionCall(name=f"tool_{n}", arguments=f'{{"n": {n}}}'))
        for n, i in enumerate(ids)
    ]
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[
            UserMessage(id="u0", content="Go."),
            AssistantMessage(id="a0", tool_calls=calls),
            *[
                ToolMessage(id=f"r{n}", tool_call_id=i, content=f"result {n}")
                for n, i in enumerate(ids)
            ],
            UserMessage(id="u1", content="And then?"),
        ],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def _encode(target: str, ri: RunAgentInput) -> tuple[dict[str, Any], list[Any]]:
    losses: list[Any] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapters.get(target).encode_request(ri, model=TARGETS[target], losses=losses)
    return body, losses


def _conforms(target: str, call_id: str) -> bool:
    try:
        check_id(target, call_id)
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_foreign_ids_go_out_conforming_with_their_results(target: str) -> None:
    body, losses = _encode(target, _history(FOREIGN))
    sent = check_request(target, body)  # pairing and id rules, as the vendor documents them
    assert len(sent) == len(FOREIGN)
    remapped = {x.tool_call_id: x.sent_as for x in losses if x.kind == "call-id-remapped"}
    for original, out in zip(FOREIGN, sent, strict=True):
        if _conforms(target, original):
            assert out == original, "an id the target takes is sent unchanged"
            assert original not in remapped
        else:
            assert out != original and remapped[original] == out
    assert set(remapped) == {i for i in FOREIGN if not _conforms(target, i)}
    if target in ("openai_chat", "anthropic"):
        assert remapped, "the sample holds ids this target refuses"


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_the_mapping_is_the_same_in_every_request_of_the_thread(target: str) -> None:
    first, _ = _encode(target, _history(FOREIGN[:2]))
    later, _ = _encode(target, _history(FOREIGN))
    assert check_request(target, later)[:2] == check_request(target, first)
    again, _ = _encode(target, _history(FOREIGN))
    assert json.dumps(again) == json.dumps(later)


def test_a_minted_id_never_lands_on_another_id_of_the_request() -> None:
    rule = IdRule("openai_chat", max_length=40)
    long = "y" * 41
    squatter = rule.conforming(long)  # a call that already holds the id `long` would get
    mapper = IdMapper(rule, {long, squatter})
    assert mapper(squatter) == squatter
    out = mapper(long)
    assert out != squatter and rule.why_not(out) is None
    assert mapper(long) == out  # its result gets the same id


def test_the_documented_rules_are_what_the_adapters_enforce() -> None:
    """Each adapter's rule (data in its wire vocabulary) is the one the docs give."""
    for target, (longest, pattern) in ID_RULES.items():
        rule = _rule(target)
        assert rule.max_length == longest and rule.pattern == pattern, target


def _rule(target: str) -> IdRule:
    """The rule the adapter enforces: its ``CALL_ID_RULE`` (every model adapter has one)."""
    return adapters.model(target).CALL_ID_RULE


# ----------------------------------------------------------------- streams


def _stream_events(call_id: str) -> list[dict[str, Any]]:
    return [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": "lookup",
            "parentMessageId": "m1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": '{"q": 1}'},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]


def _stream_ids(target: str, chunks: list[dict[str, Any]]) -> list[str]:
    """The call ids a vendor stream carries, read the way its SDK reads them (the rules file
    of the target's test folder says how)."""
    return STREAM_IDS[target](chunks)


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("call_id", FOREIGN[:4])
def test_stream_encoders_send_a_conforming_id_too(target: str, call_id: str) -> None:
    adapter = adapters.get(target)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chunks = list(adapter.encode_stream(_stream_events(call_id)))
    (sent,) = _stream_ids(target, chunks)
    check_id(target, sent)
    if _conforms(target, call_id):
        assert sent == call_id
    else:
        assert any("call-id-remapped" in str(w.message) for w in caught)
        with pytest.warns(ContentLossWarning, match="call-id-remapped"):
            again = list(adapter.encode_stream(_stream_events(call_id)))
        assert _stream_ids(target, again) == [sent]  # deterministic
