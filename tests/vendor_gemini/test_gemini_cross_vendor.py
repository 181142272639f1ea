"""A history decoded from Gemini streams encodes to the other LLM vendors as requests that
satisfy their pairing rules (vendor-wire-formats.md §2B, §3B, §4B): every call answered, in
place, in call order."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from _gemini_sdk import OWN
from ag_ui.core import RunAgentInput, ToolMessage, UserMessage

from toolwire import adapters
from toolwire.adapters import gemini
from toolwire.protocol import StreamMachine, frame_run
from toolwire.recordings import load_recording


def _history() -> tuple[RunAgentInput, list[str]]:
    messages: list[Any] = [UserMessage(id="u0", content="go")]
    ids: list[str] = []
    for name in ("gemini3_parallel_calls_signature", "vertex_partial_args", "code_execution"):
        ex = load_recording((OWN / f"{name}.yaml").read_bytes(), f"{name}.yaml")[0]
        m = StreamMachine()
        run = list(
            frame_run(
                gemini.Decoder(),
                gemini.sse_chunks(ex.response_body),
                thread_id="t",
                run_id=name,
                machine=m,
            )
        )
        ids += [e.tool_call_id for e in run if e.type.value == "TOOL_CALL_START"]
        messages += m.messages
        messages += [
            ToolMessage(id=f"ans_{c}", tool_call_id=c, content="done")
            for c in m.pending_tool_call_ids
        ]
        messages.append(UserMessage(id=f"u_{name}", content="next"))
    return RunAgentInput(thread_id="t", run_id="r", messages=messages), ids


def _openai_chat(body: dict[str, Any]) -> list[str]:
    msgs = body["messages"]
    seen: list[str] = []
    for i, m in enumerate(msgs):
        calls = [c["id"] for c in m.get("tool_calls") or []]
        if calls:
            assert [x.get("tool_call_id") for x in msgs[i + 1 : i + 1 + len(calls)]] == calls
            seen += calls
    return seen


def _openai_responses(body: dict[str, Any]) -> list[str]:
    items = body["input"]
    calls = [it["call_id"] for it in items if it.get("type") == "function_call"]
    for cid in calls:
        at = next(i for i, it in enumerate(items) if it.get("call_id") == cid)
        assert any(
            it.get("type") == "function_call_output" and it.get("call_id") == cid
            for it in items[at + 1 :]
        )
    return calls


def _anthropic(body: dict[str, Any]) -> list[str]:
    msgs = body["messages"]
    seen: list[str] = []
    for i, m in enumerate(msgs):
        blocks = m["content"] if isinstance(m["content"], list) else []
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        if uses and m["role"] == "assistant":
            nxt = msgs[i + 1]["content"]
            results = [b["tool_use_id"] for b in nxt if b.get("type") == "tool_result"]
            assert results == uses
            seen += uses
    return seen


CHECKS = {
    "openai_chat": ("gpt-4o", _openai_chat),
    "openai_responses": ("gpt-5", _openai_responses),
    "anthropic": ("claude-sonnet-4-5", _anthropic),
}


@pytest.mark.parametrize("target", sorted(CHECKS))
def test_gemini_history_encodes_with_every_call_answered_in_place(target: str) -> None:
    encode = adapters.get(target).encode_request  # every adapter is in the tree now
    run_input, ids = _history()
    model, check = CHECKS[target]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = encode(run_input, model=model)
    assert check(body) == ids


def test_gemini_history_encodes_back_to_gemini() -> None:
    run_input, ids = _history()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = gemini.encode_request(run_input, model="gemini-3-pro-preview")
    contents = body["contents"]
    answered: list[str] = []
    code_runs = 0
    for i, c in enumerate(contents):
        calls = [p["function_call"]["id"] for p in c["parts"] if "function_call" in p]
        code = [p for p in c["parts"] if "executable_code" in p]
        results = [p for p in c["parts"] if "code_execution_result" in p]
        assert len(code) == len(results)  # vendor-run code keeps its result in the model turn
        code_runs += len(code)
        if calls:
            nxt = contents[i + 1]
            assert nxt["role"] == "user"
            assert [p["function_response"]["id"] for p in nxt["parts"]] == calls
            answered += calls
    assert answered == [i for i in ids if not i.startswith("gemini_code")]
    # as many code runs go back as the code_execution cassette records (read with json here)
    ex = load_recording((OWN / "code_execution.yaml").read_bytes(), "code_execution.yaml")[0]
    recorded = [
        p
        for line in ex.response_body.decode("utf-8").splitlines()
        if line.startswith("data: ")
        for p in json.loads(line[6:])["candidates"][0]["content"]["parts"]
        if "executableCode" in p
    ]
    assert code_runs == len(recorded) == 2
