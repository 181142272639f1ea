"""Encode: AG-UI events -> ToolCallInfo JSON, checked by the SDK and by decoding back."""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

import pytest
from _dialogflow_helpers import CASSETTES, RECORDINGS, infos_of, recording_objects
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    DocumentPart,
    EventType,
    ImagePart,
    Interrupt,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TextPart,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UrlSource,
)
from ag_ui.core import DataSource as Data
from google.cloud import dialogflow_v2 as df  # a dev dependency: never skipped

from toolwire import adapters
from toolwire.cli import decode_runs
from toolwire.losses import ContentLossWarning, Loss, PartsDroppedWarning
from toolwire.protocol import RESULT_ERROR_KEY, frame_run, validate_stream

dialogflow = adapters.get("dialogflow")
PNG = (  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    "AAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def _sdk(info: dict[str, Any]) -> Any:
    """The SDK's strict parse: what Dialogflow would make of the JSON."""
    return df.GeneratorSuggestion.ToolCallInfo.from_json(json.dumps(info))


def _expected_infos(name: str) -> list[dict[str, Any]]:
    """The ToolCallInfo list a recording ends with (a reactive turn restates it at the end)."""
    objects = recording_objects(CASSETTES / name)
    if name.endswith(".jsonl"):
        seen: dict[str, dict[str, Any]] = {}
        for o in objects:
            for info in infos_of(o):
                key = json.dumps(info.get("toolCall"), sort_keys=True)
                if "toolCallResult" in info or key not in seen:
                    seen[key] = info
        return list(seen.values())
    return [i for o in objects for i in infos_of(o)]


def _key(info: dict[str, Any]) -> str:
    return json.dumps(info, sort_keys=True)


@pytest.mark.parametrize("name", RECORDINGS)
def test_decoded_recordings_encode_back_to_the_recorded_tool_call_infos(name: str) -> None:
    events = list(decode_runs(dialogflow, (CASSETTES / name).read_bytes(), name))
    losses: list[Loss] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContentLossWarning)
        chunks = list(dialogflow.encode_stream(events, losses=losses))
    expected = _expected_infos(name)
    got = sorted(chunks, key=_key)
    want = sorted(map(_norm, expected), key=_key)
    # the JSON is the recorded JSON (a state number reads back as its name); a truncated run
    # too: every call it emitted is encoded with the result it had got ...
    assert got == want
    # ... and the SDK makes the same messages of both
    assert [_sdk(c) for c in got] == [
        _sdk(i) for i in sorted(expected, key=lambda i: _key(_norm(i)))
    ]
    allowed = {"text-message-dropped", "text-update-dropped"}
    if any(e.type is EventType.RUN_ERROR for e in events):
        allowed.add("run-error-dropped")  # a failed run: ToolCallInfo cannot say so
    if any(getattr(getattr(e, "outcome", None), "type", None) == "cancelled" for e in events):
        allowed.add("outcome-cancelled-dropped")  # nor that it was cancelled
    assert {loss.kind for loss in losses} <= allowed


def _norm(info: dict[str, Any]) -> dict[str, Any]:
    tc = info.get("toolCall")
    if tc is not None and isinstance(tc.get("state"), int):
        names = {0: "STATE_UNSPECIFIED", 1: "TRIGGERED", 2: "NEEDS_CONFIRMATION"}
        info = {**info, "toolCall": {**tc, "state": names[tc["state"]]}}
    return info


def _foreign_run() -> list[BaseEvent]:
    """A run as another vendor's decoder would give it: two parallel calls, an error, a
    confirmation, media, and a text answer."""
    return [
        RunStartedEvent(thread_id="t1", run_id="r1"),
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageContentEvent(message_id="m1", delta="Checking."),
        TextMessageEndEvent(message_id="m1"),
        ToolCallStartEvent(
            tool_call_id="toolu_a", tool_call_name="get_weather", parent_message_id="m1"
        ),
        ToolCallStartEvent(
            tool_call_id="toolu_b", tool_call_name="get_time", parent_message_id="m1"
        ),
        ToolCallArgsEvent(tool_call_id="toolu_a", delta='{"city":'),
        ToolCallArgsEvent(tool_call_id="toolu_b", delta='{"tz":"Europe/Paris"}'),
        ToolCallArgsEvent(tool_call_id="toolu_a", delta=' "Paris"}'),
        ToolCallEndEvent(tool_call_id="toolu_a"),
        ToolCallEndEvent(tool_call_id="toolu_b"),
        ToolCallStartEvent(tool_call_id="toolu_c", tool_call_name="pay", parent_message_id="m1"),
        ToolCallArgsEvent(tool_call_id="toolu_c", delta='{"amount": 12}'),
        ToolCallEndEvent(tool_call_id="toolu_c"),
        ToolCallResultEvent(
            message_id="r_b",
            tool_call_id="toolu_b",
            content="upstream timeout",
            metadata={RESULT_ERROR_KEY: "upstream timeout"},
        ),
        ToolCallResultEvent(
            message_id="r_a",
            tool_call_id="toolu_a",
            content=[
                TextPart(text="sunny"),
                ImagePart(source=Data(value=PNG, mime_type="image/png")),
            ],
        ),
        RunFinishedEvent(
            thread_id="t1",
            run_id="r1",
            outcome=RunFinishedInterruptOutcome(
                interrupts=[
                    Interrupt(id="toolu_c", reason="tool_call_confirmation", tool_call_id="toolu_c")
                ]
            ),
        ),
    ]


def test_a_foreign_run_becomes_tool_call_infos_the_sdk_reads_with_the_same_calls() -> None:
    losses: list[Loss] = []
    with (
        pytest.warns(ContentLossWarning, match="text-message-dropped"),
        pytest.warns(PartsDroppedWarning, match="image part"),
    ):
        chunks = list(dialogflow.encode_stream(_foreign_run(), losses=losses))
    parsed = [_sdk(c) for c in chunks]
    by_record = {p.tool_call.answer_record: p for p in parsed}
    assert set(by_record) == {"toolu_a", "toolu_b", "toolu_c"}
    a, b, c = by_record["toolu_a"], by_record["toolu_b"], by_record["toolu_c"]
    assert a.tool_call.action == "get_weather"
    assert dict(a.tool_call.input_parameters) == {"city": "Paris"}
    assert a.tool_call_result.content == "sunny"  # the text is kept, the image cannot join it
    assert b.tool_call_result.error.message == "upstream timeout"
    assert c.tool_call.state == df.ToolCall.State.NEEDS_CONFIRMATION
    assert "tool_call_result" not in c  # a call waiting for a human has no result
    kinds = sorted(loss.kind for loss in losses)
    assert kinds == ["part-dropped", "text-message-dropped"]


def test_decode_of_encode_keeps_calls_ids_names_arguments_results_and_the_interrupt() -> None:
    events = _foreign_run()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = list(dialogflow.encode_stream(events))
    decoder = dialogflow.Decoder()
    back = list(frame_run(decoder, [{"toolCallInfo": chunks}], thread_id="t1", run_id="r1"))
    original = validate_stream(events).messages
    again = validate_stream(back).messages

    def calls(msgs: list[Any]) -> dict[str, tuple[str, Any]]:
        return {
            c.id: (c.function.name, json.loads(c.function.arguments))
            for m in msgs
            if isinstance(m, AssistantMessage)
            for c in m.tool_calls or []
        }

    def results(msgs: list[Any]) -> dict[str, tuple[Any, Any]]:
        return {m.tool_call_id: (m.content, m.error) for m in msgs if isinstance(m, ToolMessage)}

    assert calls(again) == calls(original)
    assert results(again)["toolu_b"] == ("upstream timeout", "upstream timeout")
    assert results(again)["toolu_a"] == ("sunny", None)  # what Dialogflow could carry
    assert "toolu_c" not in results(again)
    assert [i.tool_call_id for i in decoder.interrupts] == ["toolu_c"]
    assert back[-1].outcome.type == "interrupt"


def test_to_sse_bytes_read_back_as_the_same_chunks() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = list(dialogflow.encode_stream(_foreign_run()))
    body = dialogflow.to_sse(chunks)
    assert body.startswith(b"data: ")
    assert list(dialogflow.sse_chunks(body)) == chunks


def _one_result(content: Any, **meta: Any) -> list[BaseEvent]:
    return [
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
        ToolCallArgsEvent(tool_call_id="c1", delta="{}"),
        ToolCallEndEvent(tool_call_id="c1"),
        ToolCallResultEvent(message_id="m", tool_call_id="c1", content=content, **meta),
    ]


def _encode(events: list[BaseEvent]) -> tuple[list[dict[str, Any]], list[Loss]]:
    losses: list[Loss] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = list(dialogflow.encode_stream(events, losses=losses))
    for c in chunks:
        _sdk(c)
    return chunks, losses


def test_a_lone_data_part_becomes_raw_content_with_its_bytes() -> None:
    (chunk,), losses = _encode(
        _one_result([ImagePart(source=Data(value=PNG, mime_type="image/png"))])
    )
    assert base64.b64decode(chunk["toolCallResult"]["rawContent"]) == base64.b64decode(PNG)
    assert losses == []  # the PNG magic gives the MIME type back on decode


def test_a_mime_type_the_bytes_do_not_show_is_a_loss() -> None:
    part = DocumentPart(
        source=Data(value=base64.b64encode(b"a,b\n1,2\n").decode(), mime_type="text/csv")
    )
    (chunk,), losses = _encode(_one_result([part]))
    assert "rawContent" in chunk["toolCallResult"]
    assert [loss.kind for loss in losses] == ["mime-type-dropped"]


def test_url_sources_and_second_blobs_are_dropped_with_warnings_and_the_call_is_answered() -> None:
    url = ImagePart(source=UrlSource(value="https://example.com/a.png", mime_type="image/png"))
    blob = ImagePart(source=Data(value=PNG, mime_type="image/png"))
    (chunk,), losses = _encode(_one_result([url, blob, blob]))
    assert base64.b64decode(chunk["toolCallResult"]["rawContent"]) == base64.b64decode(PNG)
    assert [(loss.kind, loss.part_index, loss.source_kind) for loss in losses] == [
        ("part-dropped", 0, "url"),
        ("part-dropped", 2, "data"),
    ]
    (chunk,), losses = _encode(_one_result([url]))
    assert chunk["toolCallResult"] == {"action": "f", "content": ""}
    assert [loss.kind for loss in losses] == ["part-dropped"]


def test_several_text_parts_are_joined_and_the_boundary_loss_is_reported() -> None:
    (chunk,), losses = _encode(_one_result([TextPart(text="a"), TextPart(text="b")]))
    assert chunk["toolCallResult"]["content"] == "ab"
    assert [loss.kind for loss in losses] == ["text-parts-joined"]


def test_an_error_with_other_content_keeps_the_error_and_reports_the_content_lost() -> None:
    (chunk,), losses = _encode(
        _one_result("partial rows", metadata={RESULT_ERROR_KEY: "db down", "trace": "x"})
    )
    assert chunk["toolCallResult"]["error"] == {"message": "db down"}
    assert sorted(loss.kind for loss in losses) == ["content-dropped", "metadata-dropped"]


def test_arguments_that_are_not_an_object_are_left_out_with_a_loss() -> None:
    events: list[BaseEvent] = [
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
        ToolCallArgsEvent(tool_call_id="c1", delta="[1, 2]"),
        ToolCallEndEvent(tool_call_id="c1"),
        ToolCallStartEvent(tool_call_id="c2", tool_call_name="g"),
        ToolCallEndEvent(tool_call_id="c2"),
    ]
    chunks, losses = _encode(events)
    assert chunks == [
        {"toolCall": {"action": "f", "answerRecord": "c1"}},
        {"toolCall": {"action": "g", "answerRecord": "c2"}},
    ]
    assert [(loss.kind, loss.tool_call_id) for loss in losses] == [("arguments-not-object", "c1")]


def test_interrupt_fields_dialogflow_cannot_hold_are_reported() -> None:
    events: list[BaseEvent] = [
        RunStartedEvent(thread_id="t", run_id="r"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
        ToolCallEndEvent(tool_call_id="c1"),
        RunFinishedEvent(
            thread_id="t",
            run_id="r",
            outcome=RunFinishedInterruptOutcome(
                interrupts=[
                    Interrupt(id="i-1", reason="approval", tool_call_id="c1", message="OK?"),
                    Interrupt(id="i-2", reason="input"),
                ]
            ),
        ),
    ]
    chunks, losses = _encode(events)
    assert chunks[0]["toolCall"]["state"] == "NEEDS_CONFIRMATION"
    assert [loss.kind for loss in losses] == ["interrupt-reshaped", "interrupt-dropped"]
    assert "its id, reason has no" in losses[0].reason  # the message became toolDisplayDetails
    assert chunks[0]["toolCall"]["toolDisplayDetails"] == "OK?"


def test_encode_history_matches_the_stream_encoder_and_the_sdk_reads_it() -> None:
    name = "generate_suggestions_parallel.yaml"
    events = list(decode_runs(dialogflow, (CASSETTES / name).read_bytes(), name))
    history = validate_stream(events).messages
    with pytest.warns(ContentLossWarning, match="message-dropped"):
        doc = dialogflow.encode_history(history)
    df.GeneratorSuggestion.from_json(json.dumps(doc))
    assert doc["toolCallInfo"] == _expected_infos(name)


def test_encode_history_keeps_unanswered_calls_anywhere_and_orphan_results() -> None:
    history = [
        AssistantMessage(
            id="a1", tool_calls=[{"id": "x", "function": {"name": "f", "arguments": ""}}]
        ),
        AssistantMessage(
            id="a2", tool_calls=[{"id": "y", "function": {"name": "g", "arguments": "{}"}}]
        ),
        ToolMessage(id="t1", tool_call_id="y", content="ok"),
        ToolMessage(id="t2", tool_call_id="z", content="orphan"),
    ]
    doc = dialogflow.encode_history(history)
    assert doc["toolCallInfo"] == [
        {"toolCall": {"action": "f", "answerRecord": "x"}},
        {
            "toolCall": {"action": "g", "inputParameters": {}, "answerRecord": "y"},
            "toolCallResult": {"action": "g", "content": "ok"},
        },
        {"toolCallResult": {"content": "orphan"}},
    ]


def test_encoder_takes_dicts_and_chunk_events_like_models() -> None:
    events = _foreign_run()
    as_dicts = [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_models = list(dialogflow.encode_stream(events))
        assert from_models  # the run's three calls
        assert list(dialogflow.encode_stream(as_dicts)) == from_models
        chunked = [
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c9", "toolCallName": "h", "delta": '{"a":'},
            {"type": "TOOL_CALL_CHUNK", "delta": "1}"},
        ]
        (chunk,) = list(dialogflow.encode_stream(chunked))
    assert chunk == {"toolCall": {"action": "h", "inputParameters": {"a": 1}, "answerRecord": "c9"}}


@pytest.mark.parametrize("name", ["tool_call_infos.json", "reactive_confirmation.jsonl"])
def test_decode_of_encode_gives_the_same_events_when_there_is_no_text(name: str) -> None:
    def run(chunks: list[Any]) -> list[dict[str, Any]]:
        events = frame_run(dialogflow.Decoder(), chunks, thread_id="t", run_id="r")
        return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]

    first = list(decode_runs(dialogflow, (CASSETTES / name).read_bytes(), name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContentLossWarning)  # the textUpdate has no carrier
        infos = list(dialogflow.encode_stream(first))
    again = run([{"toolCallInfo": infos}])
    original = [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in first]
    original = [e for e in original if e["type"] != "ACTIVITY_SNAPSHOT"]
    for events in (original, again):
        for e in events:
            e.pop("threadId", None)
            e.pop("runId", None)
    if name.endswith(".jsonl"):  # a streamed call is anchored to its turn, not to the list
        assert [e["type"] for e in again] == [e["type"] for e in original]
        assert again[-1]["outcome"]["interrupts"] == original[-1]["outcome"]["interrupts"]
    else:
        assert again == original


def test_encode_history_answers_each_call_once_and_keeps_the_first_result() -> None:
    # decisions.md: a second result for one call is dropped with a loss, the first is kept;
    # a result listed before its call still answers that call (and only that call)
    call = {"id": "c1", "function": {"name": "f", "arguments": "{}"}}
    history = [
        ToolMessage(id="t0", tool_call_id="c1", content="early"),
        AssistantMessage(id="a1", tool_calls=[call]),
        ToolMessage(id="t1", tool_call_id="z", content="orphan"),
        ToolMessage(id="t2", tool_call_id="z", content="orphan again"),
    ]
    losses: list[Loss] = []
    with pytest.warns(ContentLossWarning, match="duplicate-result-dropped"):
        doc = dialogflow.encode_history(history, losses=losses)
    assert doc["toolCallInfo"] == [
        {
            "toolCall": {"action": "f", "inputParameters": {}, "answerRecord": "c1"},
            "toolCallResult": {"action": "f", "content": "early"},
        },
        {"toolCallResult": {"content": "orphan"}},
    ]
    assert [(loss.kind, loss.tool_call_id) for loss in losses] == [
        ("duplicate-result-dropped", "z")
    ]


def test_usage_run_metadata_and_a_run_error_are_reported_losses() -> None:
    # ToolCallInfo holds a call and its result only: the run's usage, its vendor facts (a stop
    # reason) and its failure have no field, so each is a loss with a warning, never silent
    from ag_ui.core import RunErrorEvent, TokenUsage

    call = [
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
        ToolCallArgsEvent(tool_call_id="c1", delta="{}"),
        ToolCallEndEvent(tool_call_id="c1"),
    ]
    usage = [TokenUsage(provider="anthropic", input_tokens=3, output_tokens=4, total_tokens=7)]
    finished = [
        RunStartedEvent(thread_id="t", run_id="r"),
        *call,
        RunFinishedEvent(
            thread_id="t",
            run_id="r",
            usage=usage,
            metadata={"anthropic.stop_reason": "tool_use"},
        ),
    ]
    (chunk,), losses = _encode(finished)
    assert chunk["toolCall"]["answerRecord"] == "c1"
    assert [loss.kind for loss in losses] == ["usage-dropped", "metadata-dropped"]
    assert "'anthropic.stop_reason'" in losses[1].reason
    failed = [
        RunStartedEvent(thread_id="t", run_id="r"),
        *call,
        RunErrorEvent(message="overloaded", code="overloaded_error"),
    ]
    with pytest.warns(ContentLossWarning, match="run-error-dropped"):
        (chunk,) = list(dialogflow.encode_stream(failed, losses=(losses := [])))
    assert [loss.kind for loss in losses] == ["run-error-dropped"]
    assert "overloaded" in losses[0].reason


def test_a_cancelled_run_is_a_reported_loss() -> None:
    # the decoder ends a cancelled reactive query with the cancelled outcome; ToolCallInfo
    # cannot say a run was cancelled, so encoding it says so instead of passing for success
    name = "reactive_cancelled.jsonl"
    events = list(decode_runs(dialogflow, (CASSETTES / name).read_bytes(), name))
    assert events[-1].outcome.type == "cancelled"
    chunks, losses = _encode(events)
    assert [c["toolCall"]["action"] for c in chunks] == ["get_invoice"]
    assert "outcome-cancelled-dropped" in [loss.kind for loss in losses]


def test_a_confirmation_message_travels_as_tool_display_details_and_comes_back() -> None:
    # the decoder reads a NEEDS_CONFIRMATION call's toolDisplayDetails as the interrupt's
    # message (seed-peers §2.5); the encoder writes it there when the call has none
    def run(details: str | None) -> list[BaseEvent]:
        meta = {"metadata": {"dialogflow": {"toolDisplayDetails": details}}} if details else {}
        return [
            RunStartedEvent(thread_id="t", run_id="r"),
            ToolCallStartEvent(tool_call_id="c1", tool_call_name="book", **meta),
            ToolCallArgsEvent(tool_call_id="c1", delta='{"seats": 2}'),
            ToolCallEndEvent(tool_call_id="c1"),
            RunFinishedEvent(
                thread_id="t",
                run_id="r",
                outcome=RunFinishedInterruptOutcome(
                    interrupts=[
                        Interrupt(
                            id="c1",
                            reason=dialogflow.CONFIRMATION_REASON,
                            tool_call_id="c1",
                            message="Book 2 seats?",
                        )
                    ]
                ),
            ),
        ]

    (chunk,), losses = _encode(run(None))
    assert losses == []
    assert chunk["toolCall"]["toolDisplayDetails"] == "Book 2 seats?"
    back = list(frame_run(dialogflow.Decoder(), [chunk], thread_id="t", run_id="r"))
    (intr,) = back[-1].outcome.interrupts
    assert (intr.id, intr.tool_call_id, intr.message) == ("c1", "c1", "Book 2 seats?")
    # a call with details of its own keeps them; the other message is a reported loss
    (chunk,), losses = _encode(run("Books seats on a flight"))
    assert chunk["toolCall"]["toolDisplayDetails"] == "Books seats on a flight"
    assert [loss.kind for loss in losses] == ["interrupt-reshaped"]
    assert "its message has no" in losses[0].reason
