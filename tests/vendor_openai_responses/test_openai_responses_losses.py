"""Losses as values, warned once at the surface (issue 10 point 2): the stream encoder, the
decoder, encode_request and decode_request each give exactly one warning per loss and the
same record in ``.losses`` (or the returned value)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    AudioPart,
    DataSource,
    EventType,
    FunctionCall,
    RunAgentInput,
    ToolCall,
    ToolMessage,
)

from toolwire.adapters import openai_responses
from toolwire.losses import Loss, ToolwireWarning

AUDIO = AudioPart(source=DataSource(value="UklGRg==", mime_type="audio/wav"))


def _warned(run: Callable[[], Any]) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = run()
    return value, [w for w in seen if issubclass(w.category, ToolwireWarning)]


def _same(seen: list[warnings.WarningMessage], losses: list[Loss]) -> None:
    assert losses
    assert [str(w.message) for w in seen] == [loss.message for loss in losses]
    assert all(w.filename == __file__ for w in seen)  # the caller's line, not toolwire's


def test_the_encoder_warns_once_per_loss_and_keeps_the_record() -> None:
    enc = openai_responses.Encoder()
    events: list[dict[str, Any]] = [
        {"type": EventType.RUN_STARTED.value, "threadId": "t", "runId": "r"},
        {"type": EventType.TOOL_CALL_START.value, "toolCallId": "c1", "toolCallName": "f"},
        {"type": EventType.TOOL_CALL_END.value, "toolCallId": "c1"},
        {
            "type": EventType.TOOL_CALL_RESULT.value,
            "messageId": "t1",
            "toolCallId": "c1",
            "content": [AUDIO.model_dump(by_alias=True)],
        },
        {"type": EventType.RUN_FINISHED.value, "threadId": "t", "runId": "r"},
    ]

    _, seen = _warned(lambda: ([enc.feed(ev) for ev in events], enc.close()))
    assert [loss.kind for loss in enc.losses] == ["part-dropped"]
    _same(seen, enc.losses)


def test_the_decoder_warns_once_per_loss_and_keeps_the_record() -> None:
    dec = openai_responses.Decoder()
    item = {
        "type": "function_call_output",
        "id": "fco_1",
        "call_id": "c1",
        "output": [{"type": "input_text", "text": "ok"}, {"type": "mystery_part"}],
    }
    chunks = [
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": "resp_1", "output": []}},
        {"type": "response.output_text.delta", "output_index": 0, "delta": "late"},
    ]

    _, seen = _warned(lambda: ([dec.feed(chunk) for chunk in chunks], dec.close()))
    assert [loss.kind for loss in dec.losses] == ["part-dropped", "material-after-end"]
    _same(seen, dec.losses)


def _history() -> RunAgentInput:
    call = ToolCall(id="c1", function=FunctionCall(name="f", arguments="{}"))
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        state=None,
        messages=[
            AssistantMessage(id="a", tool_calls=[call]),
            ToolMessage(id="t1", tool_call_id="c1", content=[AUDIO]),
        ],
        tools=[],
        context=[],
        forwarded_props=None,
    )


def test_encode_request_warns_once_per_loss_and_returns_the_record() -> None:
    given: list[Loss] = []
    body, seen = _warned(
        lambda: openai_responses.encode_request(_history(), model="gpt-5", losses=given)
    )
    assert [loss.kind for loss in body.losses] == ["part-dropped"]
    assert given == body.losses
    _same(seen, body.losses)


def test_decode_request_warns_once_per_loss() -> None:
    body = {
        "input": [
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
            {"type": "mystery_item"},
        ]
    }
    run, seen = _warned(lambda: openai_responses.decode_request(body))
    assert [str(w.message) for w in seen] == [
        Loss(
            kind="item-dropped",
            target="AG-UI",
            reason="request.input[2]: a Responses 'mystery_item' item has no AG-UI message to "
            "live in",
        ).message
    ]
    assert [m.role for m in run.messages] == ["assistant", "tool"]
