"""Two ``tool_use`` blocks with one id (issue 12.7): two calls, never one merged call.

The stream is hand-built to the documented event shape and parsed by the anthropic SDK
first; the decoder must give two calls with their own arguments, the repeat under a
minted id with the vendor's id in metadata; a request holding such blocks decodes the
same way, and encodes back to a request Anthropic takes (ids unique).
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from _anthropic_sdk import sdk_parse_sse, sse
from ag_ui.core import AssistantMessage, FunctionCall, RunAgentInput, ToolCall, ToolMessage
from vendor_rules import check_request

from toolwire.adapters import anthropic
from toolwire.errors import DuplicateToolCallId
from toolwire.protocol import VENDOR_ID_KEY, StreamMachine, frame_run
from toolwire.protocol.pairing import pair_history

SAME = "toolu_01SameIdTwiceXXXXXXXXXX"


def _use(index: int, city: str) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": SAME, "name": "get_weather", "input": {}}
    return [
        {"type": "content_block_start", "index": index, "content_block": block},
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": json.dumps({"city": city})},
        },
        {"type": "content_block_stop", "index": index},
    ]


BODY = sse(
    [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01Dup",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 20, "output_tokens": 1},
            },
        },
        *_use(0, "Oslo"),
        *_use(1, "Bergen"),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 30},
        },
        {"type": "message_stop"},
    ]
)


def test_the_sdk_reads_two_blocks_with_one_id() -> None:
    starts = [e for e in sdk_parse_sse(BODY) if e.type == "content_block_start"]
    assert [e.content_block.id for e in starts] == [SAME, SAME]


def test_two_tool_use_blocks_with_one_id_are_two_calls() -> None:
    machine = StreamMachine()  # checks every AG-UI rule: a repeated id would be a violation
    events = list(
        frame_run(
            anthropic.Decoder(),
            anthropic.sse_chunks(BODY),
            thread_id="t",
            run_id="r",
            machine=machine,
        )
    )
    starts = [e for e in events if e.type == "TOOL_CALL_START"]
    assert starts[0].tool_call_id == SAME and starts[1].tool_call_id != SAME
    assert starts[1].metadata[VENDOR_ID_KEY] == {"vendor": "anthropic", "id": SAME}
    (message,) = [m for m in machine.messages if isinstance(m, AssistantMessage)]
    args = [json.loads(c.function.arguments) for c in message.tool_calls or []]
    assert args == [{"city": "Oslo"}, {"city": "Bergen"}]  # never concatenated


def test_a_request_with_a_repeated_id_decodes_apart_and_encodes_back_unique() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": SAME, "name": "get_weather", "input": {"c": 1}},
                    {"type": "tool_use", "id": SAME, "name": "get_weather", "input": {"c": 2}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": SAME, "content": "sun"},
                    {"type": "tool_result", "tool_use_id": SAME, "content": "rain"},
                ],
            },
        ],
    }
    ri = anthropic.decode_request(body)
    (message,) = [m for m in ri.messages if isinstance(m, AssistantMessage)]
    first, second = message.tool_calls or []
    assert first.id == SAME and second.id != SAME
    answers = {m.tool_call_id: m.content for m in ri.messages if isinstance(m, ToolMessage)}
    assert answers == {first.id: "sun", second.id: "rain"}  # in order, one each
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = anthropic.encode_request(ri, model="claude-sonnet-4-5")
    assert len(check_request("anthropic", again)) == 2  # unique ids, each answered


def test_a_history_giving_two_calls_one_id_says_so() -> None:
    def call(n: int) -> ToolCall:
        return ToolCall(id="dup", function=FunctionCall(name="f", arguments="{}"))

    history = [
        AssistantMessage(id="a1", tool_calls=[call(1)]),
        ToolMessage(id="r1", tool_call_id="dup", content="one"),
        AssistantMessage(id="a2", tool_calls=[call(2)]),
        ToolMessage(id="r2", tool_call_id="dup", content="two"),
    ]
    with pytest.raises(DuplicateToolCallId, match="two tool calls share the id 'dup'") as err:
        pair_history(history, target="anthropic")
    assert "'a1'" in str(err.value) and "'a2'" in str(err.value)
    assert "no result" not in str(err.value)
    ri = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=history,
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    from toolwire import adapters

    for target in adapters.model_names():
        with pytest.raises(DuplicateToolCallId):
            adapters.get(target).encode_request(ri, model="m")
