"""Cross-vendor: a history decoded from one vendor's recorded request encodes to every other
vendor as a request that satisfies that vendor's pairing rules (every call answered, in place),
and carries signatures back to their own vendor only.

The histories come from the real requests in the read-only conformance corpus and from our
own hand-built cassettes; the rules are the vendors' documented ones
(vendor-wire-formats.md §2B, §3B, §4B, §5B), checked by ``vendor_rules.check_request``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage
from vendor_rules import MODELS, SDK_ACCEPTS, check_request

from toolwire import adapters
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance" / "cassettes"
OURS = ROOT / "cassettes"
if not CORPUS.is_dir():  # never skipped: the suite runs beside ../shared
    raise AssertionError(f"conformance corpus not found at {CORPUS}")

VENDORS = adapters.model_names()


def _histories() -> list[Any]:
    out = []
    for vendor in VENDORS:
        adapter = adapters.get(vendor)
        paths = sorted((CORPUS / vendor).glob("*.yaml")) + sorted((OURS / vendor).glob("*.yaml"))
        for path in paths:
            for n, ex in enumerate(recording(path)):
                body = ex.request_body
                if not isinstance(body, dict):
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    run_input = adapter.decode_request(body)
                if any(isinstance(m, ToolMessage) for m in run_input.messages):
                    origin = "ours" if path.is_relative_to(OURS) else "corpus"
                    ident = f"{vendor}:{origin}:{path.stem[:50]}:{n}"
                    out.append(pytest.param(vendor, run_input, id=ident))
    return out


HISTORIES = _histories()


def _calls(run_input: RunAgentInput) -> list[str]:
    return [
        c.id
        for m in run_input.messages
        if isinstance(m, AssistantMessage)
        for c in m.tool_calls or []
    ]


@pytest.mark.parametrize("target", VENDORS)
@pytest.mark.parametrize(("source", "run_input"), HISTORIES)
def test_history_encodes_to_every_vendor_with_every_call_answered_in_place(
    source: str, run_input: RunAgentInput, target: str
) -> None:
    adapter = adapters.get(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapter.encode_request(run_input, model=MODELS[target])
    answered = check_request(target, body)
    assert len(answered) == len(_calls(run_input))
    SDK_ACCEPTS[target](body)  # and the vendor's own SDK types take it as it is


def test_the_corpus_holds_histories_with_results_from_every_vendor() -> None:
    seen = {p.values[0] for p in HISTORIES}
    assert seen == set(VENDORS)


PROVIDERS = {
    "anthropic": "anthropic",
    "openai_chat": "openai",
    "openai_responses": "openai",
    "gemini": "google",
    "bedrock": "aws",
}


def _encrypted(run_input: RunAgentInput) -> list[str]:
    values = []
    for m in run_input.messages:
        value = getattr(m, "encrypted_value", None)
        if value:
            values.append(value)
        for c in getattr(m, "tool_calls", None) or []:
            if c.encrypted_value:
                values.append(c.encrypted_value)
    return values


SIGNED = [
    pytest.param(source, target, run_input, id=f"{p.id}->{target}")
    for p in HISTORIES
    for source, run_input in [p.values]
    for target in VENDORS
    if _encrypted(run_input)  # type: ignore[arg-type]
    and (target == source or PROVIDERS.get(target, target) != PROVIDERS[source])  # type: ignore[index]
]


@pytest.mark.parametrize(("source", "target", "run_input"), SIGNED)
def test_signatures_go_back_to_their_vendor_and_never_to_another(
    source: str, target: str, run_input: RunAgentInput
) -> None:
    adapter = adapters.get(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = json.dumps(adapter.encode_request(run_input, model=MODELS[target]))
    present = [v for v in _encrypted(run_input) if v in body]
    if target == source:
        assert present == _encrypted(run_input)
    else:
        assert present == []


def test_the_corpus_holds_signed_histories_from_two_vendors() -> None:
    assert len({p.values[0] for p in SIGNED}) >= 2
