"""The Asgard encoder takes a framed run or a bare turn (``run_open="auto"``), and losses are
values warned about once, at the surface.

An Asgard stream always opens with ``run.init`` and ends with ``run.done``/``run.error``:
a bare turn gets both from the encoder, and at ``close`` its chunk streams are closed first
(``StreamMachine.end_input``) so what they carried goes out before ``run.done``.
"""

from __future__ import annotations

import warnings
from typing import Any

from ag_ui.core import (
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateSnapshotEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from toolwire.adapters import asgard
from toolwire.adapters.asgard.wire import envelope
from toolwire.losses import Loss
from toolwire.protocol import validate_stream

TURN = [
    ToolCallStartEvent(tool_call_id="c1", tool_call_name="lookup"),
    ToolCallArgsEvent(tool_call_id="c1", delta='{"q": "x"}'),
    ToolCallEndEvent(tool_call_id="c1"),
    ToolCallResultEvent(message_id="r1", tool_call_id="c1", content='{"rows": 3}'),
]


def _encode(events: list[Any], **kw: Any) -> tuple[list[dict[str, Any]], list[Loss]]:
    enc = asgard.Encoder(**kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frames = [f for e in events for f in enc.feed(e)] + enc.close()
    return frames, enc.losses


def _kinds(frames: list[dict[str, Any]]) -> list[str]:
    return [f["eventType"].removeprefix("asgard.") for f in frames]


def test_a_turn_with_and_without_run_started_encodes_to_the_same_frames() -> None:
    bare, _ = _encode(TURN, thread_id="T", run_id="R")
    framed, _ = _encode(
        [
            RunStartedEvent(thread_id="T", run_id="R"),
            *TURN,
            RunFinishedEvent(thread_id="T", run_id="R"),
        ]
    )
    assert framed == bare
    assert _kinds(bare) == ["run.init", "tool_call.start", "tool_call.complete", "run.done"]
    assert bare[2]["fact"]["toolCallComplete"]["toolCallResult"] == {"rows": 3}
    # and both read back as one valid run with the call and its result
    events = list(asgard.decode_run(bare, call_ids="tool_use_id"))
    validate_stream(events)
    assert [e.tool_call_id for e in events if e.type == "TOOL_CALL_RESULT"] == ["c1"]


def test_close_ends_a_bare_turns_chunk_streams_before_run_done() -> None:
    bare = [
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "Hi"},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c9", "toolCallName": "h", "delta": '{"a":1}'},
    ]
    frames, losses = _encode(bare)
    assert _kinds(frames) == [
        "run.init",
        "message.start",
        "message.delta",
        "message.complete",
        "tool_call.start",  # sent at its (synthesized) END, whole, before run.done
        "run.done",
    ]
    assert frames[4]["fact"]["toolCallStart"]["toolCall"]["parameter"] == {"a": 1}
    assert losses == []
    validate_stream(list(asgard.decode_run(frames)))


def test_a_run_that_only_failed_still_opens_with_run_init() -> None:
    frames, _ = _encode([RunErrorEvent(message="boom", code="E1")], thread_id="T", run_id="R")
    assert _kinds(frames) == ["run.init", "run.error"]
    assert frames[1]["requestId"] == "R"


def test_an_encoder_loss_is_warned_once_and_is_the_record_on_losses() -> None:
    enc = asgard.Encoder()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for e in (StateSnapshotEvent(snapshot={"a": 1}), StateSnapshotEvent(snapshot={"a": 2})):
            enc.feed(e)
        enc.close()
    (loss,) = enc.losses  # once per event type
    assert loss.kind == "event-dropped" and "STATE_SNAPSHOT" in loss.reason
    assert [str(w.message) for w in caught] == [loss.message]


def _decode_recording(frames: list[dict[str, Any]]) -> tuple[list[Loss], list[str]]:
    """Feed and close one Decoder: its losses, and every warning raised meanwhile."""
    dec = asgard.Decoder()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for f in frames:
            dec.feed(f)
        dec.close()
    return dec.losses, [str(w.message) for w in caught]


def _frame(event_type: str, payload: dict[str, Any], n: int) -> dict[str, Any]:
    return envelope(event_type, payload, request_id="req", event_id=f"e{n}")


def _message(mid: str, text: str) -> dict[str, Any]:
    return {"message": {"messageId": mid, "text": text}}


def test_a_decoder_loss_is_warned_once_and_is_the_record_on_losses() -> None:
    frames = [
        _frame("asgard.run.init", {}, 0),
        _frame("asgard.message.delta", _message("m1", "Hello"), 1),
        _frame("asgard.message.complete", _message("m1", "Goodbye"), 2),
        _frame("asgard.run.done", {}, 3),
    ]
    losses, warned = _decode_recording(frames)
    (loss,) = losses
    assert loss.kind == "message-text-contradicted"
    assert warned == [loss.message]


def test_material_after_run_done_is_warned_once() -> None:
    frames = [_frame("asgard.run.init", {}, 0), _frame("asgard.run.done", {}, 1)]
    frames.append(_frame("asgard.run.done", {}, 2))
    losses, warned = _decode_recording(frames)
    (loss,) = losses
    assert loss.kind == "material-after-end"
    assert warned == [loss.message]


def test_a_stream_result_and_the_stored_conversation_give_one_result_message_id() -> None:
    # the same call read live and read back from the SDK's stored conversation: its result
    # is one message, with one id, whichever way it came
    call = {"processId": "p", "callSeq": 1, "toolCall": {"toolName": "t", "parameter": {}}}
    done = {**call, "toolCallResult": {"ok": True}}
    frames = [
        _frame("asgard.run.init", {}, 0),
        _frame("asgard.tool_call.start", call, 1),
        _frame("asgard.tool_call.complete", done, 2),
        _frame("asgard.run.done", {}, 3),
    ]
    (result,) = [e for e in asgard.decode_run(frames) if e.type == "TOOL_CALL_RESULT"]
    stored = {
        "type": "tool-call",
        "messageId": "p-1",
        "processId": "p",
        "callSeq": 1,
        "toolName": "t",
        "toolsetName": "",
        "parameter": {},
        "isComplete": True,
        "result": {"ok": True},
    }
    _, tool_message = asgard.from_conversation([stored])
    assert tool_message.tool_call_id == result.tool_call_id == "p-1"
    assert tool_message.id == result.message_id
