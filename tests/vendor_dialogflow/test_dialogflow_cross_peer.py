"""One conversation from an Anthropic stream to Dialogflow ToolCallInfo and back.

Two parallel calls (one answered, one failing) and a third call a human must
confirm: everything ToolCallInfo can hold arrives; only the assistant's text
(no ToolCallInfo field) is reported lost.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Interrupt,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    ToolCallResultEvent,
    ToolMessage,
)
from google.cloud import dialogflow_v2 as df  # a dev dependency: never skipped

from toolwire import adapters
from toolwire.losses import Loss
from toolwire.protocol import RESULT_ERROR_KEY, frame_run, validate_stream

anthropic = adapters.get("anthropic")
dialogflow = adapters.get("dialogflow")


def _sse(*payloads: dict[str, Any]) -> bytes:
    return "".join(f"event: {p['type']}\ndata: {json.dumps(p)}\n\n" for p in payloads).encode()


def _tool_use(index: int, call_id: str, name: str, *parts: str) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    out: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": index, "content_block": block}
    ]
    for p in parts:
        delta = {"type": "input_json_delta", "partial_json": p}
        out.append({"type": "content_block_delta", "index": index, "delta": delta})
    out.append({"type": "content_block_stop", "index": index})
    return out


STREAM = _sse(
    {
        "type": "message_start",
        "message": {
            "id": "msg_cross_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 120, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "On it."}},
    {"type": "content_block_stop", "index": 0},
    *_tool_use(1, "toolu_paris", "get_weather", '{"city": ', '"Paris"}'),
    *_tool_use(2, "toolu_tokyo", "get_weather", '{"city": "Tokyo", "units": "C"}'),
    *_tool_use(3, "toolu_pay", "book_flight", '{"to": "NRT", "seats": 2}'),
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 60},
    },
    {"type": "message_stop"},
)


def _conversation() -> list[BaseEvent]:
    """The AG-UI run: the Anthropic turn, the two weather results, the booking held for a human."""
    turn = list(anthropic.decode_stream(anthropic.sse_chunks(STREAM)))
    return [
        RunStartedEvent(thread_id="th", run_id="run1"),
        *turn,
        ToolCallResultEvent(
            message_id="res_paris", tool_call_id="toolu_paris", content="18°C, clear"
        ),
        ToolCallResultEvent(
            message_id="res_tokyo",
            tool_call_id="toolu_tokyo",
            content="weather service unreachable",
            metadata={RESULT_ERROR_KEY: "weather service unreachable"},
        ),
        RunFinishedEvent(
            thread_id="th",
            run_id="run1",
            outcome=RunFinishedInterruptOutcome(
                interrupts=[
                    Interrupt(
                        id="toolu_pay", reason="tool_call_confirmation", tool_call_id="toolu_pay"
                    )
                ]
            ),
        ),
    ]


def test_anthropic_stream_to_dialogflow_tool_call_infos_and_back() -> None:
    events = _conversation()
    history = validate_stream(events).messages
    losses: list[Loss] = []
    encoder = dialogflow.Encoder(losses=losses)
    chunks: list[dict[str, Any]] = []
    with pytest.warns(Warning, match="text-message-dropped"):
        for ev in events:
            chunks.extend(encoder.feed(ev))
        chunks.extend(encoder.close())
    assert [loss.kind for loss in losses] == ["text-message-dropped"]

    parsed = {p.tool_call.answer_record: p for p in map(_sdk, chunks)}
    assert set(parsed) == {"toolu_paris", "toolu_tokyo", "toolu_pay"}
    assert parsed["toolu_paris"].tool_call_result.content == "18°C, clear"
    assert parsed["toolu_tokyo"].tool_call_result.error.message == "weather service unreachable"
    assert parsed["toolu_pay"].tool_call.state == df.ToolCall.State.NEEDS_CONFIRMATION

    decoder = dialogflow.Decoder()
    back = list(frame_run(decoder, [{"toolCallInfo": chunks}], thread_id="th", run_id="run1"))
    again = validate_stream(back).messages

    def calls(msgs: list[Any]) -> list[tuple[str, str, Any]]:
        return sorted(
            (c.id, c.function.name, json.loads(c.function.arguments))
            for m in msgs
            if isinstance(m, AssistantMessage)
            for c in m.tool_calls or []
        )

    def results(msgs: list[Any]) -> dict[str, tuple[Any, Any]]:
        return {m.tool_call_id: (m.content, m.error) for m in msgs if isinstance(m, ToolMessage)}

    assert calls(again) == calls(history)
    assert calls(history) == [
        ("toolu_paris", "get_weather", {"city": "Paris"}),
        ("toolu_pay", "book_flight", {"to": "NRT", "seats": 2}),
        ("toolu_tokyo", "get_weather", {"city": "Tokyo", "units": "C"}),
    ]
    assert results(again) == results(history)
    assert [(i.id, i.tool_call_id) for i in decoder.interrupts] == [("toolu_pay", "toolu_pay")]
    assert back[-1].outcome.type == "interrupt"


def _sdk(chunk: dict[str, Any]) -> Any:
    return df.GeneratorSuggestion.ToolCallInfo.from_json(json.dumps(chunk))


def test_the_confirmation_answer_goes_back_as_a_suggestion_input_for_that_call() -> None:
    from ag_ui.core import ResumeEntry, RunAgentInput

    history = validate_stream(_conversation()).messages
    entry = ResumeEntry(interrupt_id="toolu_pay", status="resolved", payload={"action": "CONFIRM"})
    body = dialogflow.encode_request(
        RunAgentInput(thread_id="th", run_id="run2", messages=history, resume=[entry])
    )
    (req,) = body["requests"]
    df.AnalyzeContentRequest.from_json(json.dumps(req))
    assert req["suggestionInput"] == {
        "answerRecord": "toolu_pay",
        "parameters": {"to": "NRT", "seats": 2},
        "action": "CONFIRM",
    }
