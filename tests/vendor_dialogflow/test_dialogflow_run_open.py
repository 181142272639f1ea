"""The Dialogflow encoder takes a framed run or a bare turn (``run_open="auto"``), and losses
are values warned about once, at the surface.

A bare turn has no terminal event of its own, so ``close`` closes its chunk streams
(``StreamMachine.end_input``): what a chunked item carried is then translated like any
other item, and what ToolCallInfo cannot hold is reported instead of passing silently.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from google.cloud import dialogflow_v2 as df  # a dev dependency: never skipped

from toolwire import adapters
from toolwire.errors import ProtocolViolation
from toolwire.losses import Loss
from toolwire.protocol import frame_run
from toolwire.protocol.ids import result_message_id

dialogflow = adapters.get("dialogflow")

TURN: list[BaseEvent] = [
    ToolCallStartEvent(tool_call_id="c1", tool_call_name="get_order"),
    ToolCallArgsEvent(tool_call_id="c1", delta='{"id": "7"}'),
    ToolCallEndEvent(tool_call_id="c1"),
    ToolCallResultEvent(message_id="r1", tool_call_id="c1", content="shipped"),
    ToolCallStartEvent(tool_call_id="c2", tool_call_name="refund"),
    ToolCallEndEvent(tool_call_id="c2"),
]


def _sdk(info: dict[str, Any]) -> Any:
    return df.GeneratorSuggestion.ToolCallInfo.from_json(json.dumps(info))


def _encode(events: list[Any]) -> tuple[list[dict[str, Any]], list[Loss]]:
    enc = dialogflow.Encoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = [c for e in events for c in enc.feed(e)] + enc.close()
    for c in chunks:
        _sdk(c)
    return chunks, enc.losses


def test_a_turn_with_and_without_run_started_encodes_to_the_same_tool_call_infos() -> None:
    bare, bare_losses = _encode(TURN)
    framed, framed_losses = _encode(
        [
            RunStartedEvent(thread_id="t", run_id="r"),
            *TURN,
            RunFinishedEvent(thread_id="t", run_id="r"),
        ]
    )
    assert framed == bare
    assert bare_losses == framed_losses == []
    assert [(sorted(c), c["toolCall"]["action"]) for c in bare] == [
        (["toolCall", "toolCallResult"], "get_order"),
        (["toolCall"], "refund"),
    ]
    assert bare[0]["toolCallResult"]["content"] == "shipped"


def test_close_ends_a_bare_turns_chunk_streams_so_their_items_are_translated() -> None:
    # the turn's last chunked text has no END in the input (nothing after it closes its
    # stream): end_input synthesizes it at close, and the text ToolCallInfo cannot hold is
    # then a reported loss (before run_open="auto", it went unreported)
    bare = [
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c9", "toolCallName": "h", "delta": '{"a":1}'},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "Done."},
    ]
    chunks, losses = _encode(bare)
    assert chunks == [
        {"toolCall": {"action": "h", "inputParameters": {"a": 1}, "answerRecord": "c9"}}
    ]
    assert [(loss.kind, "'m1'" in loss.reason) for loss in losses] == [
        ("text-message-dropped", True)
    ]


def test_a_framed_run_cut_before_its_end_is_never_encoded_as_done() -> None:
    enc = dialogflow.Encoder()
    enc.feed(RunStartedEvent(thread_id="t", run_id="r"))
    for e in TURN[:3]:
        enc.feed(e)
    with pytest.raises(ProtocolViolation, match="truncated"):
        enc.close()


def test_no_events_at_all_is_a_truncated_input() -> None:
    with pytest.raises(ProtocolViolation, match="truncated"):
        dialogflow.Encoder().close()


def test_an_encoder_loss_is_warned_once_and_is_the_record_on_losses() -> None:
    given: list[Loss] = []
    enc = dialogflow.Encoder(losses=given)
    text = [
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageContentEvent(message_id="m1", delta="hello"),
        TextMessageEndEvent(message_id="m1"),
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for e in text:
            enc.feed(e)
        enc.close()
    (loss,) = enc.losses
    assert loss.kind == "text-message-dropped" and "'m1'" in loss.reason
    assert [str(w.message) for w in caught] == [loss.message]
    assert given == [loss]  # the caller's list is the encoder's own


def test_an_encode_request_loss_is_warned_once_and_returned_with_the_body() -> None:
    call = ToolCall(id="c1", function=FunctionCall(name="f", arguments="{}"))
    ri = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[AssistantMessage(id="a1", tool_calls=[call])],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = dialogflow.encode_request(ri)
    (loss,) = body.losses
    assert loss.kind == "history-not-sent"
    assert [str(w.message) for w in caught] == [loss.message]
    assert body == {"requests": []}


def test_a_result_decoded_from_a_stream_gets_the_shared_result_message_id() -> None:
    # the vendor names no result message: the id is the one recipe every adapter uses, so
    # the same call's result decoded by another adapter (or from history) gets the same id
    infos = {
        "toolCallInfo": [
            {
                "toolCall": {"action": "f", "answerRecord": "projects/p/answerRecords/ar-1"},
                "toolCallResult": {"action": "f", "content": "ok"},
            }
        ]
    }
    events = list(frame_run(dialogflow.Decoder(), [infos], thread_id="t", run_id="r"))
    (result,) = [e for e in events if e.type == "TOOL_CALL_RESULT"]
    assert result.tool_call_id == "projects/p/answerRecords/ar-1"
    assert result.message_id == result_message_id(result.tool_call_id)
    # and it does not depend on the decoder's id seed (the call id already does)
    again = list(frame_run(dialogflow.Decoder(id_seed="run-2"), [infos], thread_id="t", run_id="r"))
    assert [e.message_id for e in again if e.type == "TOOL_CALL_RESULT"] == [result.message_id]
