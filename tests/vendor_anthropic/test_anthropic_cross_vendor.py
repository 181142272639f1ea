"""Cross-vendor: histories decoded from Anthropic encode to every other vendor as requests that
keep that vendor's pairing rules (every call answered, in the place the vendor requires).

The rules checked are the vendors' documented ones (vendor-wire-formats.md §2B, §3B, §5B).
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from _anthropic_decode import framed
from _anthropic_sdk import CASSETTES, request_bodies
from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage, UserMessage
from vendor_rules import check_request

from toolwire import adapters
from toolwire.adapters.anthropic import decode_request
from toolwire.protocol.machine import StreamMachine
from toolwire.testing.recording_cache import recording

TARGETS = {
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-5",
    "gemini": "gemini-3-pro-preview",
}


def _from_stream(name: str) -> RunAgentInput:
    """A decoded Anthropic turn, every pending call answered, and the user speaking again."""
    path = CASSETTES / f"{name}.yaml"
    machine = StreamMachine()
    for ex in recording(path):
        framed(ex, machine)
    history: list[Any] = [UserMessage(id="u0", content="Go."), *machine.messages]
    answered = {m.tool_call_id for m in history if isinstance(m, ToolMessage)}
    for m in list(history):
        if isinstance(m, AssistantMessage):
            for c in m.tool_calls or []:
                if c.id not in answered:
                    history.append(ToolMessage(id=f"r-{c.id}", tool_call_id=c.id, content="ok"))
    history.append(UserMessage(id="u1", content="Thanks."))
    return RunAgentInput(thread_id="t", run_id="r", messages=history, tools=[])


def _histories() -> list[Any]:
    out = [
        pytest.param(_from_stream(n), id=f"stream:{n}")
        for n in (
            "thinking_tool_use_signature",
            "parallel_four_tool_use",
            "web_search_server_tool",
            "server_tools_mcp_code_execution",
        )
    ]
    for name in ("tool_result_media", "thinking_tool_results_followup"):
        for body in request_bodies(CASSETTES / f"{name}.yaml"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(pytest.param(decode_request(body), id=f"request:{name}"))
    return out


def _call_ids(ri: RunAgentInput) -> list[str]:
    return [
        c.id for m in ri.messages if isinstance(m, AssistantMessage) for c in m.tool_calls or []
    ]


HISTORIES = _histories()


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("history", HISTORIES)
def test_anthropic_history_keeps_the_targets_pairing_rules(
    history: RunAgentInput, target: str
) -> None:
    assert _call_ids(history)
    adapter = adapters.get(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapter.encode_request(history, model=TARGETS[target])
    answered = check_request(target, body)
    assert sorted(answered) == sorted(_call_ids(history))


GATEWAY = [
    ("openai_chat", "parallel_three_interleaved.yaml"),
    ("openai_responses", "reasoning_parallel_calls.yaml"),
    ("gemini", "gemini3_parallel_calls_signature.yaml"),
]


@pytest.mark.parametrize(("vendor", "name"), GATEWAY)
def test_other_vendors_streams_re_encode_as_anthropic_streams(vendor: str, name: str) -> None:
    """The gateway direction: a run decoded from another vendor, served as Anthropic SSE that
    Anthropic's SDK reads back with the same calls, ids and argument text."""
    from _anthropic_decode import calls, sdk_calls
    from _anthropic_sdk import sdk_parse_sse

    from toolwire.adapters.anthropic import encode_stream, to_sse
    from toolwire.protocol.runs import frame_run

    path = CASSETTES.parent / vendor / name
    adapter = adapters.get(vendor)
    (ex, *_) = [e for e in recording(path) if e.is_sse]
    chunks = adapter.sse_chunks(ex.response_body)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        events = list(frame_run(adapter.Decoder(), chunks, thread_id="t", run_id="r"))
        sse = to_sse(encode_stream(events))
    raw = sdk_parse_sse(sse)
    expected = _recorded_calls(vendor, ex.response_body)
    assert len(expected) >= 3, "the source recording has parallel tool calls"
    got = sdk_calls(raw)
    if vendor == "gemini":  # Gemini sends arguments as an object, not as text
        assert [(i, n, json.loads(a)) for i, n, a in got] == expected
    else:
        assert got == expected
    assert calls(events) == got  # and the decoded run held the same


def _recorded_calls(vendor: str, body: bytes) -> list[tuple[str, str, Any]]:
    """(id, name, arguments) per call, read from the source recording's own SSE ``data:`` lines."""
    data = [
        json.loads(line[5:])
        for line in body.decode("utf-8").splitlines()
        if line.startswith("data:") and line[5:].strip() != "[DONE]"
    ]
    if vendor == "openai_chat":
        order: list[int] = []
        meta: dict[int, tuple[str, str]] = {}
        args: dict[int, str] = {}
        for d in data:
            for choice in d["choices"]:
                for tc in choice["delta"].get("tool_calls") or []:
                    if tc.get("id"):
                        order.append(tc["index"])
                        meta[tc["index"]] = (tc["id"], tc["function"]["name"])
                        args[tc["index"]] = ""
                    args[tc["index"]] += tc.get("function", {}).get("arguments") or ""
        return [(*meta[i], args[i]) for i in order]
    if vendor == "openai_responses":
        done = {
            d["item"]["id"]: d["item"] for d in data if d["type"] == "response.output_item.done"
        }
        added = [
            d["item"]["id"]
            for d in data
            if d["type"] == "response.output_item.added" and d["item"]["type"] == "function_call"
        ]
        return [(done[i]["call_id"], done[i]["name"], done[i]["arguments"]) for i in added]
    assert vendor == "gemini"
    return [
        (p["functionCall"]["id"], p["functionCall"]["name"], p["functionCall"]["args"])
        for d in data
        for c in d["candidates"]
        for p in c["content"]["parts"]
        if "functionCall" in p
    ]
