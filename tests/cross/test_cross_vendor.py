"""Cross-vendor: a history decoded from one vendor's recorded request encodes to every other
vendor as a request that satisfies that vendor's pairing rules (every call answered, in place),
and carries signatures back to their own vendor only.

The histories come from the real requests in the read-only conformance corpus and from our
own hand-built cassettes; the rules are the vendors' documented ones
(vendor-wire-formats.md §2B, §3B, §4B, §5B).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage

from toolwire import adapters
from toolwire.recordings import load_recording

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance" / "cassettes"
OURS = ROOT / "cassettes"
if not CORPUS.is_dir():
    pytest.skip(f"conformance corpus not found at {CORPUS}", allow_module_level=True)

VENDORS = ("anthropic", "openai_chat", "openai_responses", "gemini")
MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-5",
    "gemini": "gemini-3-pro-preview",
}


def _histories() -> list[Any]:
    out = []
    for vendor in VENDORS:
        adapter = adapters.get(vendor)
        paths = sorted((CORPUS / vendor).glob("*.yaml")) + sorted((OURS / vendor).glob("*.yaml"))
        for path in paths:
            for n, ex in enumerate(load_recording(path.read_bytes(), path.name)):
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


def check_anthropic(body: dict[str, Any]) -> list[str]:
    answered: list[str] = []
    msgs = body["messages"]
    for i, m in enumerate(msgs):
        blocks = m["content"] if isinstance(m["content"], list) else []
        if m["role"] != "assistant":
            continue
        # server tools (run by Anthropic) are answered inside the same assistant turn
        served = {b["tool_use_id"] for b in blocks if str(b.get("type")).endswith("_tool_result")}
        for b in blocks:
            if b.get("type") in ("server_tool_use", "mcp_tool_use"):
                assert b["id"] in served, "a server tool call carries its result block"
                answered.append(b["id"])
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
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
            if isinstance(c, list):
                assert all(x.get("text", "x") != "" for x in c), "no empty text block"
        answered.extend(uses)
    return answered


def check_openai_chat(body: dict[str, Any]) -> list[str]:
    answered: list[str] = []
    msgs = body["messages"]
    for i, m in enumerate(msgs):
        calls = [c["id"] for c in m.get("tool_calls") or []]
        if m["role"] != "assistant" or not calls:
            continue
        following = msgs[i + 1 : i + 1 + len(calls)]
        assert [f["role"] for f in following] == ["tool"] * len(calls)
        assert [f["tool_call_id"] for f in following] == calls
        answered.extend(calls)
    return answered


def check_openai_responses(body: dict[str, Any]) -> list[str]:
    items = body["input"]
    calls = [
        (i, it["call_id"])
        for i, it in enumerate(items)
        if str(it.get("type")).endswith("_call") and "call_id" in it
    ]
    for at, cid in calls:
        outputs = [
            i
            for i, it in enumerate(items)
            if str(it.get("type")).endswith("_output") and it.get("call_id") == cid
        ]
        assert outputs and outputs[0] > at, f"{cid} is answered after it is made"
    return [cid for _, cid in calls]


def _field(part: dict[str, Any], snake: str) -> Any:
    camel = snake.split("_")[0] + "".join(w.title() for w in snake.split("_")[1:])
    return part.get(snake, part.get(camel))


def check_gemini(body: dict[str, Any]) -> list[str]:
    contents = body["contents"]
    n_answered = 0
    for i, c in enumerate(contents):
        parts = c.get("parts", [])
        calls = [_field(p, "function_call") for p in parts if _field(p, "function_call")]
        if c.get("role") != "model" or not calls:
            continue
        nxt = contents[i + 1]
        assert nxt.get("role") == "user"
        responses = [
            _field(p, "function_response") for p in nxt["parts"] if _field(p, "function_response")
        ]
        assert [r["name"] for r in responses] == [fc["name"] for fc in calls]
        n_answered += len(calls)
    return [str(i) for i in range(n_answered)]


CHECKS = {
    "anthropic": check_anthropic,
    "openai_chat": check_openai_chat,
    "openai_responses": check_openai_responses,
    "gemini": check_gemini,
}


@pytest.mark.parametrize("target", VENDORS)
@pytest.mark.parametrize(("source", "run_input"), HISTORIES)
def test_history_encodes_to_every_vendor_with_every_call_answered_in_place(
    source: str, run_input: RunAgentInput, target: str
) -> None:
    adapter = adapters.get(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapter.encode_request(run_input, model=MODELS[target])
    answered = CHECKS[target](body)
    assert len(answered) == len(_calls(run_input))


def test_the_corpus_holds_histories_with_results_from_every_vendor() -> None:
    seen = {p.values[0] for p in HISTORIES}
    assert seen == set(VENDORS)


PROVIDERS = {
    "anthropic": "anthropic",
    "openai_chat": "openai",
    "openai_responses": "openai",
    "gemini": "google",
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
    and (target == source or PROVIDERS[target] != PROVIDERS[source])  # type: ignore[index]
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
