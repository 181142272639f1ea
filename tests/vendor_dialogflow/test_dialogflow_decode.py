"""Decode details: SDK objects vs dicts, ids, every response kind, and bad input."""

from __future__ import annotations

import asyncio
import base64
import json
import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest
from _dialogflow_helpers import CASSETTES, recording_objects
from ag_ui.core import BaseEvent, EventType
from google.cloud import dialogflow_v2 as df  # a dev dependency: never skipped

from toolwire import adapters
from toolwire.errors import ToolwireError, TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import UnrecognizedMaterialWarning
from toolwire.protocol import frame_run, validate_stream

dialogflow = adapters.get("dialogflow")


def _dump(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def _decode(chunks: list[Any], **kw: Any) -> list[BaseEvent]:
    return list(dialogflow.decode_stream(chunks, **kw))


def test_streamed_sdk_messages_decode_like_their_json_lines() -> None:
    lines = (CASSETTES / "reactive_turn.jsonl").read_text("utf-8").splitlines()
    sdk = [df.StreamingReactiveCompanionSuggestionsResponse.from_json(x) for x in lines]
    a = _dump(_decode(sdk))
    b = _dump(_decode([json.loads(x) for x in lines]))
    for x, y in zip(a, b, strict=True):  # a Struct keeps no key order: compare the values
        if x["type"] == "TOOL_CALL_ARGS":
            assert json.loads(x.pop("delta")) == json.loads(y.pop("delta"))
    assert a == b


def test_struct_numbers_from_the_sdk_read_as_the_wire_shows_them() -> None:
    info = {"toolCall": {"action": "f", "inputParameters": {"n": 2, "x": 1.5, "l": [3, None]}}}
    sdk = df.GeneratorSuggestion.ToolCallInfo.from_json(json.dumps(info))
    (args,) = [e for e in _decode([sdk]) if e.type is EventType.TOOL_CALL_ARGS]
    assert args.delta == '{"l":[3,null],"n":2,"x":1.5}'  # sorted: a Struct keeps no order
    (args,) = [e for e in _decode([info]) if e.type is EventType.TOOL_CALL_ARGS]
    assert args.delta == '{"n":2,"x":1.5,"l":[3,null]}'  # the dict's own order


def test_minted_ids_are_stable_and_salted_by_the_seed() -> None:
    raw = recording_objects(CASSETTES / "tool_call_infos.json")
    chunk = {"toolCallInfo": raw}
    a, b = _dump(_decode([chunk])), _dump(_decode([chunk]))
    assert a == b
    ids = [e["toolCallId"] for e in a if e["type"] == "TOOL_CALL_START"]
    assert len(ids) == len(set(ids)) == len(raw)
    c = _dump(_decode([chunk], id_seed="other thread"))
    assert [e["toolCallId"] for e in c if e["type"] == "TOOL_CALL_START"] != ids


def test_a_call_already_emitted_in_an_earlier_run_only_gets_its_result() -> None:
    record = "projects/p/locations/global/answerRecords/a9"
    info = {
        "toolCall": {"action": "pay", "answerRecord": record, "state": "TRIGGERED"},
        "toolCallResult": {"content": "paid", "answerRecord": record},
    }
    events = _decode([info], prior_call_ids=[record])
    assert [e.type for e in events] == [EventType.TOOL_CALL_RESULT]
    assert events[0].tool_call_id == record


def test_a_lone_result_answers_the_call_with_its_answer_record() -> None:
    record = "projects/p/locations/global/answerRecords/a1"
    chunks = [
        {"toolCall": {"action": "slow", "answerRecord": record}},
        {"toolCallResult": {"action": "slow", "content": "done", "answerRecord": record}},
    ]
    events = _decode(chunks)
    assert [e.type for e in events] == [
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_END,
        EventType.TOOL_CALL_RESULT,
    ]
    assert {e.tool_call_id for e in events} == {record}


def test_every_whole_response_kind_yields_its_tool_calls() -> None:
    info = {"toolCall": {"action": "f", "answerRecord": "ar"}, "toolCallResult": {"content": "x"}}
    kinds: list[dict[str, Any]] = [
        info,
        {"toolCallInfo": info, "textUpdate": "working"},
        {"toolCallInfo": [info]},
        {"generatorSuggestion": {"toolCallInfo": [info]}},
        {"generatorSuggestionAnswers": [{"generatorSuggestion": {"toolCallInfo": [info]}}]},
        {
            "humanAgentSuggestionResults": [
                {
                    "generateSuggestionsResponse": {
                        "generatorSuggestionAnswers": [
                            {"generatorSuggestion": {"toolCallInfo": [info]}}
                        ]
                    }
                }
            ]
        },
        {
            "endUserSuggestionResults": [
                {
                    "generateCompanionSuggestionsResponse": {
                        "companionSuggestion": {
                            "guidances": [{"toolCalls": [{"toolCallInfo": info}]}]
                        }
                    }
                }
            ]
        },
        {"companionSuggestion": {"guidances": [{"toolCalls": [{"toolCallInfo": info}]}]}},
        {
            "generateSuggestionsResponse": {
                "generatorSuggestionAnswers": [{"generatorSuggestion": {"toolCallInfo": [info]}}]
            }
        },
    ]
    parsers = [
        df.GeneratorSuggestion.ToolCallInfo,
        df.ToolCallSuggestion,
        df.GeneratorSuggestion,
        df.GenerateStatelessSuggestionResponse,
        df.GenerateSuggestionsResponse,
        df.AnalyzeContentResponse,
        df.AnalyzeContentResponse,
        df.GenerateCompanionSuggestionsResponse,
        df.SuggestionResult,
    ]
    for chunk, parser in zip(kinds, parsers, strict=True):
        sdk = parser.from_json(json.dumps(chunk))  # each is the documented shape
        for source in (chunk, sdk):
            events = _decode([source])
            starts = [e for e in events if e.type is EventType.TOOL_CALL_START]
            assert [(s.tool_call_id, s.tool_call_name) for s in starts] == [("ar", "f")], chunk
            assert [e.content for e in events if e.type is EventType.TOOL_CALL_RESULT] == ["x"]


def test_timestamps_become_epoch_milliseconds_and_keep_their_text() -> None:
    cases = {
        "2014-10-02T15:01:23Z": 1412262083000,
        "2014-10-02T15:01:23.045123456Z": 1412262083045,
        "2014-10-02T15:01:23+05:30": 1412262083000 - 5 * 3600_000 - 30 * 60_000,
    }
    for text, ms in cases.items():
        (start, _end) = _decode([{"toolCall": {"action": "f", "createTime": text}}])
        assert start.timestamp == ms
        assert start.metadata["dialogflow"]["createTime"] == text


def test_url_safe_base64_and_enum_numbers_are_read() -> None:
    data = b"\xfb\xff\xfe"
    urlsafe = base64.urlsafe_b64encode(data).decode()
    assert "-" in urlsafe or "_" in urlsafe
    events = _decode(
        [{"toolCall": {"action": "f", "state": 2}, "toolCallResult": {"rawContent": urlsafe}}]
    )
    (result,) = [e for e in events if e.type is EventType.TOOL_CALL_RESULT]
    assert base64.b64decode(result.content[0].source.value) == data
    start = events[0]
    assert start.metadata["dialogflow"]["state"] == "NEEDS_CONFIRMATION"


def test_unknown_chunks_are_skipped_with_a_warning() -> None:
    with pytest.warns(UnrecognizedMaterialWarning, match="chunk 0"):
        assert _decode([{"somethingElse": 1}]) == []


@pytest.mark.parametrize(
    ("chunk", "where"),
    [
        ({"toolCall": "x"}, "chunk 0.toolCall"),
        ({"toolCall": {"action": 5}}, "chunk 0.toolCall.action"),
        ({"toolCall": {"action": "f", "inputParameters": [1]}}, "chunk 0.toolCall.inputParameters"),
        ({"toolCall": {"action": "f", "createTime": "yesterday"}}, "chunk 0.toolCall.createTime"),
        ({"toolCall": {"action": "f", "tool": "a", "cesTool": "b"}}, "chunk 0.toolCall"),
        ({"toolCallResult": {"content": "a", "rawContent": "AA=="}}, "chunk 0.toolCallResult"),
        ({"toolCallResult": {"rawContent": "not base64!"}}, "chunk 0.toolCallResult.rawContent"),
        (
            {"toolCallResult": {"error": {"retryable": "yes"}}},
            "chunk 0.toolCallResult.error.retryable",
        ),
        ({"toolCallInfo": [{}]}, "chunk 0.toolCallInfo[0]"),
        ({"toolCallInfo": ["x"]}, "chunk 0.toolCallInfo[0]"),
        ({"generatorSuggestionAnswers": {"a": 1}}, "chunk 0.generatorSuggestionAnswers"),
        ({"textMessageId": "q", "responseChunk": 3}, "chunk 0.responseChunk"),
        (  # a number JSON cannot hold (json.loads reads "Infinity"): was a bare ValueError
            {"toolCall": {"action": "f", "inputParameters": {"a": [float("inf")]}}},
            "chunk 0.toolCall.inputParameters",
        ),
        (
            {"toolCall": {"action": "f", "inputParameters": {"a": float("nan")}}},
            "chunk 0.toolCall.inputParameters",
        ),
    ],
)
def test_malformed_input_names_the_chunk_and_field(chunk: dict[str, Any], where: str) -> None:
    with pytest.raises(VendorDataError) as info:
        _decode([chunk])
    assert info.value.where == where
    assert isinstance(info.value, ToolwireError)


def test_a_non_object_chunk_is_a_vendor_data_error() -> None:
    with pytest.raises(VendorDataError, match="chunk 0"):
        _decode(["text"])


def test_stream_errors_and_truncation_raise_from_the_decoder() -> None:
    with pytest.raises(VendorStreamError) as info:
        _decode([{"textMessageId": "q", "status": {"code": 14, "message": "try later"}}])
    assert (info.value.error_type, info.value.message, info.value.retryable) == (
        "UNAVAILABLE",
        "try later",
        True,
    )
    with pytest.raises(TruncatedStream):
        _decode([{"textMessageId": "q", "responseChunk": "hi"}])
    # a status OK ends a turn like isFinal does
    events = _decode(
        [{"textMessageId": "q", "responseChunk": "hi"}, {"textMessageId": "q", "status": {}}]
    )
    assert events[-1].type is EventType.TEXT_MESSAGE_END


def test_the_final_response_text_is_used_only_when_nothing_was_streamed() -> None:
    final = {
        "textMessageId": "q",
        "isFinal": True,
        "reactiveModeFinalResponse": {"response": "All done."},
    }
    events = _decode([final])
    assert [e.delta for e in events if e.type is EventType.TEXT_MESSAGE_CONTENT] == ["All done."]


def test_async_decode_gives_the_same_events() -> None:
    lines = [
        json.loads(x) for x in (CASSETTES / "reactive_turn.jsonl").read_text("utf-8").splitlines()
    ]

    async def chunks() -> AsyncIterator[Any]:
        for x in lines:
            yield x

    async def collect() -> list[BaseEvent]:
        return [e async for e in dialogflow.adecode_stream(chunks())]

    assert _dump(asyncio.run(collect())) == _dump(_decode(lines))


def test_decode_response_is_the_turn_and_the_decoder_holds_the_interrupt() -> None:
    raw = recording_objects(CASSETTES / "reactive_confirmation.jsonl")
    events = dialogflow.decode_response(raw)
    assert events[0].type is EventType.TOOL_CALL_START
    assert not [e for e in events if e.type.value.startswith("RUN_")]
    decoder = dialogflow.Decoder()
    run = list(frame_run(decoder, raw, thread_id="t", run_id="r"))
    validate_stream(run)
    (intr,) = decoder.interrupts
    call = raw[0]["intermediateToolCallEvents"]["toolCallSuggestions"][0]["toolCallInfo"][
        "toolCall"
    ]
    assert intr.tool_call_id == call["answerRecord"]
    assert intr.metadata["dialogflow"]["inputParameters"] == call["inputParameters"]
    assert run[-1].outcome.type == "interrupt"


def test_a_confirmation_call_that_got_its_result_is_not_an_interrupt() -> None:
    call = {"action": "pay", "answerRecord": "ar", "state": "NEEDS_CONFIRMATION"}
    decoder = dialogflow.Decoder()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(
            frame_run(
                decoder,
                [{"toolCall": call, "toolCallResult": {"content": "ok"}}],
                thread_id="t",
                run_id="r",
            )
        )
    assert decoder.interrupts == []


def test_two_responses_on_one_thread_get_distinct_message_ids() -> None:
    from toolwire.cli import decode_runs

    def reply(n: int) -> dict[str, Any]:
        return {
            "replyText": "Sure.",
            "message": {"name": f"projects/p/conversations/c/messages/{n}"},
        }

    data = "\n".join(json.dumps(reply(n)) for n in (1, 2)).encode()
    events = list(decode_runs(dialogflow, data, "two.jsonl"))
    validate_stream(events)
    ids = [e.message_id for e in events if e.type is EventType.TEXT_MESSAGE_START]
    assert len(ids) == len(set(ids)) == 2


def test_a_response_without_suggestions_is_known_and_empty() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _decode([{"message": {"name": "m", "content": "hi"}}]) == []
