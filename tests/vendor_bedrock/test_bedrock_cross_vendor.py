"""Cross-vendor swaps to and from Bedrock: every call stays paired with its result.

A history decoded from another vendor's recorded request encodes to Converse as a request
botocore validates and that keeps Converse's pairing rules (``tests/vendor_bedrock/_rules.py``,
from the Converse reference: every ``toolUse`` of an assistant message answered by a
``toolResult`` at the head of the user message right after it, ids unique and within
``[a-zA-Z0-9_-]{1,64}``, roles alternating); a Bedrock history encodes to every other
vendor by that vendor's rules
(``vendor_rules.check_request``, the shared checker).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from _bedrock_sdk import MODEL, validate
from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage
from vendor_rules import MODELS, check_request

from toolwire import adapters
from toolwire.adapters.bedrock import encode_request, to_boto3
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
OTHERS = tuple(n for n in adapters.model_names() if n != "bedrock")


def check_bedrock(body: dict[str, Any]) -> list[str]:
    """Converse's pairing and id rules (the shared checker, ``vendor_rules``)."""
    return check_request("bedrock", body)


def _calls(run_input: RunAgentInput) -> list[str]:
    return [
        c.id
        for m in run_input.messages
        if isinstance(m, AssistantMessage)
        for c in m.tool_calls or []
    ]


def _histories(vendors: tuple[str, ...], folder: Path) -> list[Any]:
    out = []
    for vendor in vendors:
        adapter = adapters.get(vendor)
        for path in sorted((folder / vendor).glob("*.yaml")):
            for n, ex in enumerate(recording(path)):
                if not isinstance(ex.request_body, dict):
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ri = adapter.decode_request(ex.request_body)
                if any(isinstance(m, ToolMessage) for m in ri.messages):
                    out.append(pytest.param(vendor, ri, id=f"{vendor}:{path.stem}:{n}"))
    return out


FOREIGN = _histories(OTHERS, ROOT / "cassettes")
CORPUS = ROOT.parent / "shared" / "conformance" / "cassettes"
if CORPUS.is_dir():
    FOREIGN += _histories(OTHERS, CORPUS)
OWN = _histories(("bedrock",), ROOT / "cassettes")


def test_there_are_histories_both_ways() -> None:
    assert len(OWN) >= 3
    assert {p.values[0] for p in FOREIGN} == set(OTHERS)


@pytest.mark.parametrize(("source", "run_input"), FOREIGN)
def test_a_foreign_history_encodes_to_converse_with_every_call_answered(
    source: str, run_input: RunAgentInput
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = encode_request(run_input, model=MODEL)
    validate("Converse", to_boto3(body))
    answered = check_bedrock(body)
    assert len(answered) == len(_calls(run_input))
    # a signature another vendor issued never reaches Bedrock
    assert not any("reasoningContent" in b for m in body["messages"] for b in m["content"]), (
        "foreign reasoning is dropped with a loss"
    )


@pytest.mark.parametrize("target", OTHERS)
@pytest.mark.parametrize(("source", "run_input"), OWN)
def test_a_bedrock_history_encodes_to_every_other_vendor_with_every_call_answered(
    source: str, run_input: RunAgentInput, target: str
) -> None:
    adapter = adapters.get(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapter.encode_request(run_input, model=MODELS[target])
    answered = check_request(target, body)
    assert len(answered) == len(_calls(run_input))


def test_the_converse_check_can_fail() -> None:
    broken = {
        "messages": [
            {"role": "user", "content": [{"text": "hi"}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "a", "name": "f", "input": {}}}],
            },
            {"role": "user", "content": [{"text": "no result"}]},
        ]
    }
    with pytest.raises(AssertionError):
        check_bedrock(broken)
