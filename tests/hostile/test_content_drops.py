"""Class 8 of issue 12: nothing the caller gave is dropped without a warning or a violation."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _samples import VENDORS
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    MessagesSnapshotEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)

from toolwire import ToolwireWarning, adapters
from toolwire.adapters import anthropic, asgard, gemini, openai_chat, openai_responses
from toolwire.errors import ProtocolViolation, VendorDataError
from toolwire.protocol import RESULT_ERROR_KEY, validate_stream
from toolwire.protocol.arguments import REPEATED_KEYS

START = RunStartedEvent(thread_id="t", run_id="r")
FINISH = RunFinishedEvent(thread_id="t", run_id="r")


def warned(run: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = run()
    return value, [str(w.message) for w in seen if issubclass(w.category, ToolwireWarning)]


@pytest.mark.parametrize("vendor", VENDORS)
def test_every_encoder_reports_a_messages_snapshot(vendor: str) -> None:
    history = [
        UserMessage(id="u1", content="hi"),
        AssistantMessage(
            id="a1", tool_calls=[ToolCall(id="c1", function=FunctionCall(name="f", arguments="{}"))]
        ),
        ToolMessage(id="t1", tool_call_id="c1", content="ok"),
    ]
    run = [START, MessagesSnapshotEvent(messages=history), FINISH]
    adapter = adapters.get(vendor)
    _, said = warned(lambda: list(adapter.encode_stream(run)))
    assert any("snapshot" in m.lower() for m in said), said


def test_the_responses_encoder_reports_user_text_and_result_errors() -> None:
    run = [
        START,
        TextMessageStartEvent(message_id="u", role="user"),
        TextMessageContentEvent(message_id="u", delta="my words"),
        TextMessageEndEvent(message_id="u"),
        ToolCallStartEvent(tool_call_id="c", tool_call_name="f", parent_message_id="a"),
        ToolCallEndEvent(tool_call_id="c"),
        ToolCallResultEvent(
            message_id="r", tool_call_id="c", content="partial", metadata={RESULT_ERROR_KEY: "boom"}
        ),
        FINISH,
    ]
    encoder = openai_responses.Encoder()
    _, said = warned(lambda: [c for e in run for c in encoder.feed(e)] + encoder.close())
    kinds = {loss.kind for loss in encoder.losses}
    assert {"message-dropped", "result-error-dropped"} <= kinds
    assert any("'boom'" in m for m in said)


def test_chunks_after_the_responses_terminal_event_are_a_loss() -> None:
    chunks = [
        {"type": "response.created", "response": {"id": "resp", "status": "in_progress"}},
        {"type": "response.completed", "response": {"id": "resp", "status": "completed"}},
        {"type": "response.output_text.delta", "item_id": "m", "delta": "late"},
    ]
    decoder = openai_responses.Decoder()
    _, said = warned(lambda: [e for c in chunks for e in decoder.feed(c)] + decoder.close())
    assert [loss.kind for loss in decoder.losses] == ["material-after-end"]
    assert any("after" in m for m in said)


def test_frames_after_asgard_run_done_are_a_loss() -> None:
    env = {"requestId": "q", "customChannelId": "c", "namespace": "n", "botProviderName": "b"}
    frames = [
        {**env, "eventType": "asgard.run.init", "fact": {"runInit": {}}},
        {**env, "eventType": "asgard.run.done", "fact": {"runDone": {}}},
        {**env, "eventType": "asgard.run.done", "fact": {"runDone": {}}},
    ]
    decoder = asgard.Decoder()
    warned(lambda: [e for f in frames for e in decoder.feed(f)] + decoder.close())
    assert [loss.kind for loss in decoder.losses] == ["material-after-end"]


def test_events_after_openai_done_are_a_warning() -> None:
    body = b'data: {"id":"x","choices":[]}\n\ndata: [DONE]\n\ndata: {"id":"late"}\n\n'
    got, said = warned(lambda: list(openai_chat.sse_chunks(body)))
    assert got == [{"id": "x", "choices": []}]
    assert any("after [DONE]" in m for m in said)


def test_events_after_anthropic_message_stop_are_an_error() -> None:
    chunks = [
        {"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}},
        {"type": "message_stop"},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
    ]
    with pytest.raises(VendorDataError, match="after message_stop"):
        list(anthropic.decode_stream(chunks))


def _history_with_repeated_key() -> Any:
    call = ToolCall(
        id="c1", function=FunctionCall(name="f", arguments='{"city":"Oslo","city":"Rome"}')
    )
    return {
        "threadId": "t",
        "runId": "r",
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
        "messages": [
            UserMessage(id="u", content="go").model_dump(by_alias=True),
            AssistantMessage(id="a", tool_calls=[call]).model_dump(by_alias=True),
            ToolMessage(id="t", tool_call_id="c1", content="ok").model_dump(by_alias=True),
        ],
    }


@pytest.mark.parametrize(
    ("adapter", "model"), [(anthropic, "claude-sonnet-4-5"), (gemini, "gemini-2.5-flash")]
)
def test_repeated_argument_keys_are_a_loss_in_encode_request(adapter: Any, model: str) -> None:
    losses: list[Any] = []
    _, said = warned(
        lambda: adapter.encode_request(_history_with_repeated_key(), model=model, losses=losses)
    )
    assert [loss.tool_call_id for loss in losses if loss.kind == REPEATED_KEYS] == ["c1"]
    assert any("city" in m for m in said)


def test_a_call_whose_parent_is_a_user_message_is_a_violation() -> None:
    run = [
        START,
        TextMessageStartEvent(message_id="u", role="user"),
        TextMessageEndEvent(message_id="u"),
        ToolCallStartEvent(tool_call_id="c", tool_call_name="f", parent_message_id="u"),
    ]
    with pytest.raises(ProtocolViolation) as exc:
        validate_stream(run)
    assert exc.value.code == "tool-call-parent-not-assistant"


def test_a_text_message_reusing_a_results_id_is_a_violation() -> None:
    run = [
        START,
        ToolCallStartEvent(tool_call_id="c", tool_call_name="f", parent_message_id="a"),
        ToolCallEndEvent(tool_call_id="c"),
        ToolCallResultEvent(message_id="r", tool_call_id="c", content="ok"),
        TextMessageStartEvent(message_id="r", role="assistant"),
    ]
    with pytest.raises(ProtocolViolation) as exc:
        validate_stream(run)
    assert exc.value.code == "duplicate-message-id"
