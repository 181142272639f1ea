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
from vendor_rules import check_request

from toolwire import adapters
from toolwire.adapters import gemini
from toolwire.protocol import StreamMachine, frame_run
from toolwire.testing.recording_cache import recording


def _history() -> tuple[RunAgentInput, list[str]]:
    messages: list[Any] = [UserMessage(id="u0", content="go")]
    ids: list[str] = []
    for name in ("gemini3_parallel_calls_signature", "vertex_partial_args", "code_execution"):
        ex = recording(OWN / f"{name}.yaml")[0]
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


MODELS = {"openai_chat": "gpt-4o", "openai_responses": "gpt-5", "anthropic": "claude-sonnet-4-5"}


@pytest.mark.parametrize("target", sorted(MODELS))
def test_gemini_history_encodes_with_every_call_answered_in_place(target: str) -> None:
    encode = adapters.get(target).encode_request  # every adapter is in the tree now
    run_input, ids = _history()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = encode(run_input, model=MODELS[target])
    assert check_request(target, body) == ids


def test_gemini_history_encodes_back_to_gemini() -> None:
    run_input, ids = _history()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = gemini.encode_request(run_input, model="gemini-3-pro-preview")
    check_request("gemini", body)
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
    ex = recording(OWN / "code_execution.yaml")[0]
    recorded = [
        p
        for line in ex.response_body.decode("utf-8").splitlines()
        if line.startswith("data: ")
        for p in json.loads(line[6:])["candidates"][0]["content"]["parts"]
        if "executableCode" in p
    ]
    assert code_runs == len(recorded) == 2
