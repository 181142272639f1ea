"""OpenAI Chat ``n > 1`` with one ``tool_calls[].id`` in two choices (issue 11.3).

The cassette is hand-built to the documented chunk shape and parsed by the openai SDK;
each choice must decode to its own call, the repeat under a minted deterministic AG-UI
id with the vendor's id in metadata, and the encoders must give the vendor's id back.
"""

from __future__ import annotations

import warnings
from typing import Any

from _openai_chat_sdk import accumulate, stream_body
from _openai_chat_support import PROJECT_CASSETTES
from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage, UserMessage

from toolwire.adapters import openai_chat
from toolwire.protocol.callids import VENDOR_ID_KEY
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run
from toolwire.testing.recording_cache import recording

NAME = "n2_repeated_id.yaml"


def _body() -> bytes:
    return recording(PROJECT_CASSETTES / NAME)[0].response_body


def _decoded() -> tuple[list[Any], StreamMachine]:
    machine = StreamMachine()
    events = list(
        frame_run(
            openai_chat.Decoder(),
            openai_chat.sse_chunks(_body()),
            thread_id="t",
            run_id="r",
            machine=machine,
        )
    )
    return events, machine


def test_each_choice_decodes_to_its_own_call() -> None:
    expected = accumulate(stream_body(_body()))  # the SDK's parse
    assert [c.id for c in expected[0].calls] == [c.id for c in expected[1].calls]
    vendor_id = expected[0].calls[0].id
    events, _machine = _decoded()  # the machine checks every AG-UI rule (no repeated id)
    starts = [e for e in events if e.type == "TOOL_CALL_START"]
    assert len(starts) == 2
    assert starts[0].tool_call_id == vendor_id
    assert starts[1].tool_call_id != vendor_id
    assert starts[1].metadata[VENDOR_ID_KEY] == {"vendor": "openai_chat", "id": vendor_id}
    args = {
        s.tool_call_id: "".join(
            e.delta
            for e in events
            if e.type == "TOOL_CALL_ARGS" and e.tool_call_id == s.tool_call_id
        )
        for s in starts
    }
    assert list(args.values()) == [expected[0].calls[0].arguments, expected[1].calls[0].arguments]
    # the minted id is deterministic: the same bytes give the same id
    again, _ = _decoded()
    assert [e for e in again if e.type == "TOOL_CALL_START"] == starts


def test_the_stream_encoder_gives_each_choice_the_vendor_id_back() -> None:
    events, _ = _decoded()
    chunks = list(openai_chat.encode_stream(events))
    parsed = accumulate(stream_body(openai_chat.to_sse(chunks)))
    original = accumulate(stream_body(_body()))
    assert sorted(parsed) == [0, 1]
    for index in (0, 1):
        assert [(c.id, c.name, c.arguments) for c in parsed[index].calls] == [
            (c.id, c.name, c.arguments) for c in original[index].calls
        ]


def test_a_history_holding_choice_1_sends_the_vendor_id_back() -> None:
    _, machine = _decoded()
    chosen = [m for m in machine.messages if isinstance(m, AssistantMessage)][1]
    (call,) = chosen.tool_calls or []
    vendor_id = call.metadata[VENDOR_ID_KEY]["id"]
    ri = RunAgentInput(
        thread_id="t",
        run_id="r2",
        messages=[
            UserMessage(id="u", content="Weather in Oslo?"),
            chosen,
            ToolMessage(id="res", tool_call_id=call.id, content="rain"),
        ],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # giving the vendor's id back is no loss
        body = openai_chat.encode_request(ri, model="gpt-4o")
    assert body["messages"][1]["tool_calls"][0]["id"] == vendor_id
    assert body["messages"][2]["tool_call_id"] == vendor_id
