"""Requests: a ResumeEntry answering a confirmation <-> SuggestionInput, checked by the SDK."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
import yaml
from _dialogflow_helpers import CASSETTES
from ag_ui.core import ResumeEntry, RunAgentInput
from google.cloud import dialogflow_v2 as df  # a dev dependency: never skipped

from toolwire import adapters
from toolwire.cli import decode_runs
from toolwire.errors import UnsupportedInput
from toolwire.losses import ContentLossWarning, Loss
from toolwire.protocol import validate_stream

dialogflow = adapters.get("dialogflow")
NAME = "analyze_content_confirmation.yaml"
RECORD = "projects/acme-support/locations/global/answerRecords/ar-cancel-4"


def _interrupted() -> tuple[list[Any], list[Any]]:
    """The history and interrupts of the first (interrupted) run of the recording."""
    events = list(decode_runs(dialogflow, (CASSETTES / NAME).read_bytes(), NAME))
    first_end = next(i for i, e in enumerate(events) if e.type.value == "RUN_FINISHED")
    run = events[: first_end + 1]
    return validate_stream(run).messages, list(run[-1].outcome.interrupts)


def _recorded_confirmation() -> dict[str, Any]:
    doc = yaml.safe_load((CASSETTES / NAME).read_text("utf-8"))
    body: dict[str, Any] = json.loads(doc["interactions"][1]["request"]["body"])
    return body


def _check_sdk(body: dict[str, Any]) -> None:
    for req in body["requests"]:
        df.AnalyzeContentRequest.from_json(json.dumps(req))
        df.StreamingReactiveCompanionSuggestionsRequest.from_json(json.dumps(req))


def _input(messages: list[Any], *entries: ResumeEntry) -> RunAgentInput:
    return RunAgentInput(thread_id="t", run_id="r2", messages=messages, resume=list(entries))


def test_confirm_with_edited_parameters_is_the_recorded_request() -> None:
    history, (intr,) = _interrupted()
    recorded = _recorded_confirmation()
    si = recorded["suggestionInput"]
    entry = ResumeEntry(
        interrupt_id=intr.id,
        status="resolved",
        payload={"action": "CONFIRM", "parameters": si["parameters"]},
    )
    body = dialogflow.encode_request(_input(history, entry), send_time=si["sendTime"])
    _check_sdk(body)
    assert body == {"requests": [recorded]}


def test_confirm_without_parameters_resends_the_original_ones() -> None:
    history, (intr,) = _interrupted()
    entry = ResumeEntry(interrupt_id=intr.id, status="resolved", payload={"action": "CONFIRM"})
    body = dialogflow.encode_request(_input(history, entry))
    _check_sdk(body)
    doc = yaml.safe_load((CASSETTES / NAME).read_text("utf-8"))
    first = json.loads(doc["interactions"][0]["response"]["body"]["string"])
    gs = first["humanAgentSuggestionResults"][0]["generateSuggestionsResponse"]
    original = gs["generatorSuggestionAnswers"][0]["generatorSuggestion"]["toolCallInfo"][0]
    assert body["requests"][0]["suggestionInput"] == {
        "answerRecord": RECORD,
        "parameters": original["toolCall"]["inputParameters"],
        "action": "CONFIRM",
    }
    # the interrupt alone (no history) is enough, too
    alone = dialogflow.encode_request(_input([], entry), interrupts=[intr])
    assert alone == body


def test_a_cancelled_entry_is_cancel_and_never_confirm() -> None:
    history, (intr,) = _interrupted()
    for payload in (None, {"action": "CONFIRM"}, {"parameters": {"x": 1}}):
        entry = ResumeEntry(interrupt_id=intr.id, status="cancelled", payload=payload)
        body = dialogflow.encode_request(_input(history, entry))
        _check_sdk(body)
        si = body["requests"][0]["suggestionInput"]
        assert si["action"] == "CANCEL"


def test_a_resolved_entry_without_an_action_is_refused_rather_than_confirmed() -> None:
    history, (intr,) = _interrupted()
    entry = ResumeEntry(interrupt_id=intr.id, status="resolved", payload={"parameters": {}})
    with pytest.raises(UnsupportedInput, match=r"resume\[0\]\.payload\.action: missing"):
        dialogflow.encode_request(_input(history, entry))
    bad = ResumeEntry(interrupt_id=intr.id, status="resolved", payload={"action": "APPROVE"})
    with pytest.raises(UnsupportedInput, match="not a SuggestionInput action"):
        dialogflow.encode_request(_input(history, bad))


def test_a_call_without_an_answer_record_cannot_be_addressed() -> None:
    decoder = dialogflow.Decoder()
    from toolwire.protocol import frame_run

    events = list(
        frame_run(
            decoder,
            [{"toolCall": {"action": "pay", "state": "NEEDS_CONFIRMATION"}}],
            thread_id="t",
            run_id="r",
        )
    )
    (intr,) = decoder.interrupts
    history = validate_stream(events).messages
    entry = ResumeEntry(interrupt_id=intr.id, status="resolved", payload={"action": "REVISE"})
    with pytest.raises(UnsupportedInput, match="without an answer record"):
        dialogflow.encode_request(_input(history, entry))


def test_decode_request_then_encode_request_gives_the_recorded_body_back() -> None:
    recorded = _recorded_confirmation()
    run_input = dialogflow.decode_request(recorded)
    (entry,) = run_input.resume or []
    assert entry.interrupt_id == RECORD
    assert entry.status == "resolved"
    assert entry.payload == {
        "action": "CONFIRM",
        "parameters": recorded["suggestionInput"]["parameters"],
    }
    assert dialogflow.encode_request(run_input) == {"requests": [recorded]}
    # a CANCEL reads as a cancelled entry and goes back as CANCEL
    cancel = {
        "requests": [{"participant": "p/1", "suggestionInput": {"answerRecord": "a", "action": 1}}]
    }
    again = dialogflow.decode_request(cancel)
    assert again.resume is not None and again.resume[0].status == "cancelled"
    assert dialogflow.encode_request(again) == {
        "requests": [
            {"participant": "p/1", "suggestionInput": {"answerRecord": "a", "action": "CANCEL"}}
        ]
    }


def test_decode_request_takes_sdk_objects_and_refuses_a_missing_answer_record() -> None:
    recorded = _recorded_confirmation()
    sdk = df.AnalyzeContentRequest.from_json(json.dumps(recorded))
    assert dialogflow.decode_request(sdk).resume == dialogflow.decode_request(recorded).resume
    from toolwire.errors import VendorDataError

    with pytest.raises(VendorDataError, match=r"suggestionInput\.answerRecord: missing"):
        dialogflow.decode_request({"suggestionInput": {"action": "CONFIRM"}})


def test_a_history_without_resume_entries_sends_nothing_and_says_so() -> None:
    history, _ = _interrupted()
    losses: list[Loss] = []
    with pytest.warns(ContentLossWarning, match="history-not-sent"):
        body = dialogflow.encode_request(_input(history), model="any", losses=losses)
    assert body == {"requests": []}
    assert [loss.kind for loss in losses] == ["history-not-sent"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dialogflow.encode_request(_input([])) == {"requests": []}


def test_the_recorded_text_input_is_the_runs_user_message_and_goes_back_unchanged() -> None:
    # AnalyzeContentRequest.textInput is the participant's turn: the run's input must hold it
    doc = yaml.safe_load((CASSETTES / NAME).read_text("utf-8"))
    recorded: dict[str, Any] = json.loads(doc["interactions"][0]["request"]["body"])
    text = recorded["textInput"]["text"]
    run_input = dialogflow.decode_request(recorded)
    (user,) = run_input.messages
    assert (user.role, user.content) == ("user", text)
    body = dialogflow.encode_request(run_input)
    assert body == {"requests": [recorded]}
    # an AnalyzeContentRequest (StreamingReactiveCompanionSuggestionsRequest.textInput is a
    # plain string, not a TextInput)
    (req,) = body["requests"]
    df.AnalyzeContentRequest.from_json(json.dumps(req))
    # the CLI's run input restates it too
    events = list(decode_runs(dialogflow, (CASSETTES / NAME).read_bytes(), NAME))
    started = events[0]
    assert started.input is not None
    assert [m.content for m in started.input.messages] == [text]


def test_one_request_for_the_requests_list_decodes_as_a_list_of_it() -> None:
    """Google's JSON reader takes one value for a repeated field (issue 36): ``requests`` as
    one object says what a one-element list says; the encoder still writes a list."""
    one = {"participant": "p/1", "suggestionInput": {"answerRecord": "a", "action": 1}}
    loose = dialogflow.decode_request({"requests": one})
    listed = dialogflow.decode_request({"requests": [one]})
    assert loose.resume == listed.resume and loose.resume is not None
    assert dialogflow.encode_request(loose)["requests"][0]["participant"] == "p/1"
    from toolwire.errors import VendorDataError

    with pytest.raises(VendorDataError, match="requests: expected a list or an object, got str"):
        dialogflow.decode_request({"requests": "a"})
