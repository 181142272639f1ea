"""Vendor-neutral stop reasons: ``toolwire.finishReason`` from every decoder, read by every encoder.

A turn is hand-built in each vendor's documented stream shape (vendor-wire-formats.md:
Anthropic ``message_delta.stop_reason``, Chat ``choices[].finish_reason``, Gemini
``candidates[].finishReason``, Responses ``response.completed`` / ``response.incomplete``),
decoded into a framed AG-UI run, re-encoded to each other vendor, and decoded again there:
the neutral reason survives, and the target's own field holds the value its API uses for
it. Expected values are the table in docs/decisions.md, written out here.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from ag_ui.core import BaseEvent

from toolwire import adapters
from toolwire.protocol import frame_run

KEY = "toolwire.finishReason"
MODEL_VENDORS = ("anthropic", "openai_chat", "gemini", "openai_responses")

#: the source vendor's own reason for each neutral one (docs/decisions.md)
SOURCE_REASON = {
    "anthropic": {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"},
    "openai_chat": {"stop": "stop", "tool_calls": "tool_calls", "length": "length"},
    "gemini": {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS"},
    "openai_responses": {"stop": "completed", "tool_calls": "completed"},
}

#: what the target's own field says after re-encoding (a decoded key of the target)
TARGET_FIELD = {
    "anthropic": ("anthropic.stop_reason", {"length": "max_tokens", "tool_calls": "tool_use"}),
    "openai_chat": ("openai.finish_reasons", {"length": ["length"], "tool_calls": ["tool_calls"]}),
    "gemini": ("gemini.finishReason", {"length": "MAX_TOKENS", "tool_calls": "STOP"}),
}

ARGS = json.dumps({"city": "Oslo"})


def _anthropic(reason: str, call: bool) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
    ]
    if call:
        chunks += [
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {},
                },
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": ARGS},
            },
            {"type": "content_block_stop", "index": 1},
        ]
    return [
        *chunks,
        {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    ]


def _openai_chat(reason: str, call: bool) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "gpt-test",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    chunks = [chunk({"role": "assistant", "content": "Hi"}, None)]
    if call:
        tool = {
            "index": 0,
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": ARGS},
        }
        chunks.append(chunk({"tool_calls": [tool]}, None))
    return [*chunks, chunk({}, reason)]


def _gemini(reason: str, call: bool) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"text": "Hi"}]
    if call:
        parts.append({"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}})
    return [
        {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": reason, "index": 0}
            ],
            "responseId": "resp-1",
            "modelVersion": "gemini-test",
        }
    ]


def _openai_responses(reason: str, call: bool) -> list[dict[str, Any]]:
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hi", "annotations": []}],
    }
    output: list[dict[str, Any]] = [message]
    if call:
        output.append(
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": ARGS,
                "status": "completed",
            }
        )
    response = {"id": "resp_1", "object": "response", "model": "gpt-test", "output": output}
    chunks: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "status": "in_progress"}}
    ]
    for i, item in enumerate(output):
        chunks.append({"type": "response.output_item.added", "output_index": i, "item": item})
        chunks.append({"type": "response.output_item.done", "output_index": i, "item": item})
    chunks.append({"type": f"response.{reason}", "response": {**response, "status": reason}})
    return chunks


BUILD = {
    "anthropic": _anthropic,
    "openai_chat": _openai_chat,
    "gemini": _gemini,
    "openai_responses": _openai_responses,
}


def _framed(name: str, chunks: Any) -> list[BaseEvent]:
    decoder = adapters.get(name).Decoder()
    return list(frame_run(decoder, chunks, thread_id="t1", run_id="r1"))


def _end(events: list[BaseEvent]) -> dict[str, Any]:
    last = events[-1]
    assert last.type.value in ("RUN_FINISHED", "RUN_ERROR"), last.type
    return dict(last.metadata or {})


CASES = [
    pytest.param(source, neutral, id=f"{source}-{neutral}")
    for source in MODEL_VENDORS
    for neutral in SOURCE_REASON[source]
]


@pytest.mark.parametrize(("source", "neutral"), CASES)
def test_every_decoder_states_the_neutral_reason(source: str, neutral: str) -> None:
    chunks = BUILD[source](SOURCE_REASON[source][neutral], neutral == "tool_calls")
    assert _end(_framed(source, chunks))[KEY] == neutral


CROSS = [
    pytest.param(source, neutral, target, id=f"{source}-{neutral}-to-{target}")
    for source in MODEL_VENDORS
    for neutral in SOURCE_REASON[source]
    for target in adapters.model_names()
    if target != source  # a vendor reads its own key: each adapter's tests cover that
]


@pytest.mark.parametrize(("source", "neutral", "target"), CROSS)
def test_a_run_from_one_vendor_re_encodes_with_the_right_reason_for_another(
    source: str, neutral: str, target: str
) -> None:
    chunks = BUILD[source](SOURCE_REASON[source][neutral], neutral == "tool_calls")
    run = _framed(source, chunks)
    out = adapters.get(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the source's vendor keys are foreign to the target
        body = out.to_sse(list(out.encode_stream(run)))
    again = _end(_framed(target, out.sse_chunks(body)))
    assert again[KEY] == neutral, (source, target, again)
    if target in TARGET_FIELD:
        field, values = TARGET_FIELD[target]
        if neutral in values:
            assert again[field] == values[neutral]


def test_responses_reports_a_cut_turn_as_incomplete_and_its_reason_is_kept() -> None:
    chunks = _openai_responses("incomplete", False)
    chunks[-1]["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
    run = _framed("openai_responses", chunks)
    assert run[-1].type.value == "RUN_ERROR"
    assert _end(run)[KEY] == "length"
    # and a "length" run from Anthropic goes to Responses as that same incomplete response
    anthropic_run = _framed("anthropic", _anthropic("max_tokens", False))
    out = adapters.get("openai_responses")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        events = list(out.encode_stream(anthropic_run))
    assert events[-1]["type"] == "response.incomplete"
    assert events[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}


@pytest.mark.parametrize("name", ("dialogflow", "asgard"))
def test_vendors_without_a_reason_field_say_how_the_turn_ended(name: str) -> None:
    adapter = adapters.get(name)
    # a call the vendor ran and answered: the turn is done (Dialogflow streams tool calls only)
    events = [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_weather"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": ARGS},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "res1",
            "toolCallId": "c1",
            "content": "sunny",
            "role": "tool",
        },
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = list(adapter.encode_stream(events))
    assert _end(_framed(name, adapter.sse_chunks(adapter.to_sse(chunks))))[KEY] == "stop"


def test_a_failed_run_says_error() -> None:
    chunks = _anthropic("end_turn", False)[:3]  # cut before the message ends
    assert _end(_framed("anthropic", chunks))[KEY] == "error"
