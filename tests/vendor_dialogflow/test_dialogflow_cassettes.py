"""Project recordings: each is parsed by google-cloud-dialogflow, replayed, and decoded.

The recordings in ``cassettes/dialogflow/`` are hand-built from the documented
proto3 JSON shape; the SDK parses every one strictly (unknown fields fail) so a
malformed fixture cannot sit there. Expected values are read from the files.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from _dialogflow_helpers import CASSETTES, RECORDINGS, compact, infos_of, recording_objects
from ag_ui.core import AssistantMessage, BaseEvent, EventType, ToolMessage
from google.auth.credentials import AnonymousCredentials
from google.cloud import dialogflow_v2 as df  # a dev dependency: never skipped

from toolwire import adapters
from toolwire.cli import decode_runs
from toolwire.protocol import frame_run, validate_stream
from toolwire.testing import replay

dialogflow = adapters.get("dialogflow")
YAMLS = [n for n in RECORDINGS if n.endswith(".yaml")]


def _response_type(uri: str) -> Any:
    if uri.endswith("suggestions:generate"):
        return df.GenerateSuggestionsResponse
    if uri.endswith(":analyzeContent"):
        return df.AnalyzeContentResponse
    raise AssertionError(f"no SDK type for {uri}")


def _request_type(uri: str) -> Any:
    return (
        df.GenerateSuggestionsRequest
        if uri.endswith("suggestions:generate")
        else (df.AnalyzeContentRequest)
    )


def test_every_recording_is_listed() -> None:
    # no file in the folder escapes the parametrized tests (e.g. a .yml or .sse added later)
    assert sorted(p.name for p in CASSETTES.iterdir() if p.is_file()) == RECORDINGS
    assert len(RECORDINGS) >= 8, RECORDINGS


@pytest.mark.parametrize("name", RECORDINGS)
def test_the_sdk_parses_every_object_strictly(name: str) -> None:
    path = CASSETTES / name
    if name.endswith(".yaml"):
        doc = yaml.safe_load(path.read_text("utf-8"))
        for inter in doc["interactions"]:
            uri = inter["request"]["uri"]
            _response_type(uri).from_json(inter["response"]["body"]["string"])
            _request_type(uri).from_json(inter["request"]["body"])
    elif name.endswith(".jsonl"):
        for line in path.read_text("utf-8").splitlines():
            df.StreamingReactiveCompanionSuggestionsResponse.from_json(line)
    objects = recording_objects(path)
    infos = [i for o in objects for i in infos_of(o)]
    assert infos, f"{name} holds no ToolCallInfo"
    for info in infos:
        df.GeneratorSuggestion.ToolCallInfo.from_json(json.dumps(info))


def _sdk_responses(name: str) -> list[Any]:
    """Each recorded call made again through the SDK's REST client, under vcrpy replay."""
    doc = yaml.safe_load((CASSETTES / name).read_text("utf-8"))
    conv = df.ConversationsClient(credentials=AnonymousCredentials(), transport="rest")
    part = df.ParticipantsClient(credentials=AnonymousCredentials(), transport="rest")
    out = []
    with replay(str(CASSETTES / name), match="path"):
        for inter in doc["interactions"]:
            uri = inter["request"]["uri"]
            path = uri.split("/v2/", 1)[1]
            body = json.loads(inter["request"]["body"])
            if uri.endswith("suggestions:generate"):
                request = df.GenerateSuggestionsRequest.from_json(json.dumps(body))
                request.conversation = path.rsplit("/suggestions:generate", 1)[0]
                out.append(conv.generate_suggestions(request=request))
            else:
                request = df.AnalyzeContentRequest.from_json(json.dumps(body))
                request.participant = path.rsplit(":analyzeContent", 1)[0]
                out.append(part.analyze_content(request=request))
    return out


def _dump(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def _run(chunks: list[Any], n: int = 0) -> list[BaseEvent]:
    return list(frame_run(dialogflow.Decoder(), chunks, thread_id="t", run_id=f"r{n}"))


@pytest.mark.parametrize("name", YAMLS)
def test_sdk_objects_replayed_over_rest_decode_like_the_recorded_json(name: str) -> None:
    sdk = _sdk_responses(name)
    raw = recording_objects(CASSETTES / name)
    assert len(sdk) == len(raw)
    for n, (obj, js) in enumerate(zip(sdk, raw, strict=True)):
        from_sdk = _dump(_run([obj], n))
        from_json = _dump(_run([js], n))
        # A Struct is a map: the SDK object has lost the key order, so its argument
        # text holds the same JSON value with keys sorted; everything else is equal.
        for a, b in zip(from_sdk, from_json, strict=True):
            if a["type"] == "TOOL_CALL_ARGS":
                assert json.loads(a.pop("delta")) == json.loads(b.pop("delta"))
        assert from_sdk == from_json
        assert any(e["type"] == "TOOL_CALL_START" for e in from_json)


def _expected_result(res: dict[str, Any]) -> tuple[str, Any]:
    if "error" in res:
        return "error", res["error"].get("message", "")
    if "rawContent" in res:
        return "bytes", base64.b64decode(res["rawContent"])
    return "text", res.get("content", "")


@pytest.mark.parametrize("name", RECORDINGS)
def test_decoded_history_holds_what_the_recording_holds(name: str) -> None:
    path = CASSETTES / name
    events = list(decode_runs(dialogflow, path.read_bytes(), name))
    machine = validate_stream(events)
    calls = {
        c.id: c
        for m in machine.messages
        if isinstance(m, AssistantMessage)
        for c in m.tool_calls or []
    }
    results = {m.tool_call_id: m for m in machine.messages if isinstance(m, ToolMessage)}
    recorded = [i for o in recording_objects(path) for i in infos_of(o)]
    names = sorted(c.function.name for c in calls.values())

    # one AG-UI call per recorded call; a reactive stream lists a call again in later chunks
    def name_of(info: dict[str, Any]) -> str:
        msg = info.get("toolCall") or info["toolCallResult"]
        if msg.get("action"):
            return str(msg["action"])
        if msg.get("toolDisplayName"):
            return str(msg["toolDisplayName"])
        src = next(v for k, v in msg.items() if k in ("tool", "cesTool", "cesToolset", "cesApp"))
        return str(src.rsplit("/", 1)[1])

    if name.endswith(".jsonl"):
        # a reactive stream restates a call in later chunks, then with its result: one call,
        # in the position it was first listed, holding the last (most complete) listing
        distinct: dict[str, dict[str, Any]] = {}
        for i in recorded:
            distinct[json.dumps(i.get("toolCall"), sort_keys=True)] = i
        infos = list(distinct.values())
    else:
        infos = recorded
    assert names == sorted(name_of(i) for i in infos)
    # every call, with or without an answer record, in recorded order: its name, its
    # arguments (compact JSON of inputParameters, "" when there are none) and its result
    ordered = [
        c for m in machine.messages if isinstance(m, AssistantMessage) for c in m.tool_calls or []
    ]
    assert len(ordered) == len(infos)
    for call, info in zip(ordered, infos, strict=True):
        tc = info.get("toolCall") or {}
        assert call.function.name == name_of(info)
        if tc.get("answerRecord"):
            assert call.id == tc["answerRecord"]
        params = tc.get("inputParameters")
        assert call.function.arguments == ("" if params is None else compact(params))
        res = info.get("toolCallResult")
        if res is None:
            assert call.id not in results
            continue
        if call.id not in results:  # a run that errored before reaching it
            assert any(e.type is EventType.RUN_ERROR for e in events)
            continue
        msg = results[call.id]
        kind, value = _expected_result(res)
        if kind == "bytes":
            assert isinstance(msg.content, list) and len(msg.content) == 1
            source = msg.content[0].source
            assert base64.b64decode(source.value) == value
        else:
            assert msg.content == value
            assert msg.error == (value if kind == "error" else None)


def test_the_parallel_calls_share_one_assistant_message_and_the_text_follows() -> None:
    path = CASSETTES / "generate_suggestions_parallel.yaml"
    machine = validate_stream(decode_runs(dialogflow, path.read_bytes(), path.name))
    roles = [m.role for m in machine.messages]
    assert roles == ["assistant", "tool", "tool", "tool", "assistant"]
    first = machine.messages[0]
    assert isinstance(first, AssistantMessage) and first.tool_calls is not None
    assert [c.function.name for c in first.tool_calls] == ["get_order", "get_label", "find_refund"]
    label = machine.messages[2]
    assert isinstance(label, ToolMessage) and isinstance(label.content, list)
    assert label.content[0].type == "image"
    assert label.content[0].source.mime_type == "image/png"  # the bytes start with the PNG magic
    refund = machine.messages[3]
    assert isinstance(refund, ToolMessage)
    assert refund.error == "refund service timed out"
    assert refund.metadata is not None
    assert refund.metadata["dialogflow"]["error"] == {
        "message": "refund service timed out",
        "retryable": True,
    }
    text = machine.messages[4]
    raw = recording_objects(path)[0]
    answer = raw["generatorSuggestionAnswers"][0]["generatorSuggestion"]
    assert text.content == answer["freeFormSuggestion"]["response"]


def _file_events(name: str) -> list[BaseEvent]:
    path: Path = CASSETTES / name
    return list(decode_runs(dialogflow, path.read_bytes(), name))


def test_a_confirmation_ends_the_run_with_an_interrupt_and_the_confirmed_call_runs_next() -> None:
    events = _file_events("analyze_content_confirmation.yaml")
    finished = [e for e in events if e.type is EventType.RUN_FINISHED]
    assert len(finished) == 2
    first = finished[0].outcome
    assert first is not None and first.type == "interrupt"
    (intr,) = first.interrupts
    record = "projects/acme-support/locations/global/answerRecords/ar-cancel-4"
    assert intr.tool_call_id == record and intr.id == record
    assert intr.response_schema["properties"]["action"]["enum"] == ["CONFIRM", "REVISE", "CANCEL"]
    assert intr.message == "Cancel order 1182 and refund 42.50 EUR"
    assert finished[1].outcome is not None and finished[1].outcome.type == "success"
    # the confirmed call is never answered in the interrupted run
    first_run = events[: events.index(finished[0])]
    assert not [e for e in first_run if e.type is EventType.TOOL_CALL_RESULT]


def test_reactive_stream_emits_each_call_once_and_its_result_when_it_arrives() -> None:
    events = _file_events("reactive_turn.jsonl")
    starts = [e.tool_call_id for e in events if e.type is EventType.TOOL_CALL_START]
    results = [e.tool_call_id for e in events if e.type is EventType.TOOL_CALL_RESULT]
    assert len(starts) == len(set(starts)) == 3
    assert sorted(results) == sorted(starts)
    # the track result came in the chunk before the get_order one
    assert results[0].endswith("ar-r-2") and results[1].endswith("ar-r-1")
    texts = "".join(e.delta for e in events if e.type is EventType.TEXT_MESSAGE_CONTENT)
    lines = recording_objects(CASSETTES / "reactive_turn.jsonl")
    assert texts == "".join(x.get("responseChunk", "") for x in lines)
    assert texts == lines[-1]["reactiveModeFinalResponse"]["response"]
    activity = [e for e in events if e.type is EventType.ACTIVITY_SNAPSHOT]
    assert [a.content["text"] for a in activity] == ["Looking up order 1182..."]
    assert events[-1].type is EventType.RUN_FINISHED


def test_truncated_reactive_stream_is_a_run_error_never_success() -> None:
    events = _file_events("reactive_truncated.jsonl")
    assert events[-1].type is EventType.RUN_ERROR
    assert events[-1].code == "truncated"
    assert not [e for e in events if e.type is EventType.RUN_FINISHED]


def test_status_error_in_the_stream_surfaces_with_its_code_and_message() -> None:
    events = _file_events("reactive_status_error.jsonl")
    line = recording_objects(CASSETTES / "reactive_status_error.jsonl")[-1]
    assert events[-1].type is EventType.RUN_ERROR
    assert events[-1].code == "INTERNAL"  # google.rpc.Code 13
    assert line["status"]["message"] in events[-1].message


def test_a_failed_feature_fails_the_run_after_what_the_other_features_returned() -> None:
    events = _file_events("analyze_content_feature_error.yaml")
    kinds = [e.type for e in events]
    assert EventType.TOOL_CALL_RESULT in kinds
    assert kinds[-1] is EventType.RUN_ERROR
    assert events[-1].code == "RESOURCE_EXHAUSTED"  # google.rpc.Code 8
    assert "Quota exceeded" in events[-1].message


def test_bare_tool_call_infos_make_one_run_with_one_assistant_message() -> None:
    events = _file_events("tool_call_infos.json")
    assert sum(e.type is EventType.RUN_STARTED for e in events) == 1
    parents = {e.parent_message_id for e in events if e.type is EventType.TOOL_CALL_START}
    assert len(parents) == 1
    raw = recording_objects(CASSETTES / "tool_call_infos.json")
    snapshot = next(
        e for e in events if e.type is EventType.TOOL_CALL_RESULT and isinstance(e.content, list)
    )
    part = snapshot.content[0]
    # bytes with no magic number we are sure of: a document with the generic type
    assert part.type == "document"
    assert part.source.mime_type == "application/octet-stream"
    assert base64.b64decode(part.source.value) == base64.b64decode(
        raw[1]["toolCallResult"]["rawContent"]
    )


def test_a_cancelled_status_ends_the_run_cancelled_after_closing_what_is_open() -> None:
    # seed-peers §2.5: CANCELLED (google.rpc.Code 1) after cancel_reactive_query ->
    # RUN_FINISHED{outcome: cancelled}, after closing everything open; never an error, never success
    name = "reactive_cancelled.jsonl"
    events = _file_events(name)
    validate_stream(events)
    line = recording_objects(CASSETTES / name)[-1]
    assert line["status"]["code"] == 1
    assert not [e for e in events if e.type is EventType.RUN_ERROR]
    last = events[-1]
    assert last.type is EventType.RUN_FINISHED
    assert last.outcome is not None and last.outcome.type == "cancelled"
    kinds = [e.type for e in events]
    assert kinds.count(EventType.TEXT_MESSAGE_START) == kinds.count(EventType.TEXT_MESSAGE_END) == 1
    texts = "".join(e.delta for e in events if e.type is EventType.TEXT_MESSAGE_CONTENT)
    assert texts == recording_objects(CASSETTES / name)[0]["responseChunk"]
    (start,) = [e for e in events if e.type is EventType.TOOL_CALL_START]
    assert start.tool_call_id.endswith("ar-r-30")
    assert not [e for e in events if e.type is EventType.TOOL_CALL_RESULT]
