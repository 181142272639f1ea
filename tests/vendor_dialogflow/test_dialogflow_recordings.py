"""How recordings become runs, and the CLI over them (decode, encode, requests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from _dialogflow_helpers import CASSETTES, RECORDINGS, recording_objects

from toolwire import adapters
from toolwire.errors import UnsupportedInput
from toolwire.protocol import validate_stream
from toolwire.testing.cli_run import run_cli

dialogflow = adapters.get("dialogflow")

INFO = {"toolCall": {"action": "f", "answerRecord": "a1"}, "toolCallResult": {"content": "x"}}
REACTIVE = [
    {"textMessageId": "q1", "responseChunk": "a"},
    {"textMessageId": "q1", "isFinal": True},
    {"textMessageId": "q2", "responseChunk": "b"},
    {"textMessageId": "q2", "status": {}},
    {"textMessageId": "q2", "responseChunk": "c", "isFinal": True},
]


def _chunks(data: bytes, name: str) -> list[list[dict[str, Any]]]:
    return [dialogflow.exchange_chunks(ex) for ex in dialogflow.load_recording(data, name)]


def test_reactive_turns_split_on_text_message_id_and_status() -> None:
    data = "\n".join(json.dumps(x) for x in REACTIVE).encode()
    assert _chunks(data, "x.jsonl") == [REACTIVE[0:2], REACTIVE[2:4], REACTIVE[4:5]]


def test_bare_infos_join_into_one_suggestion_and_responses_stand_alone() -> None:
    response = {"generatorSuggestionAnswers": []}
    data = json.dumps([INFO, INFO, response, response, INFO]).encode()
    assert _chunks(data, "x.json") == [
        [{"toolCallInfo": [INFO, INFO]}],
        [response],
        [response],
        [INFO],
    ]
    one = json.dumps(response, indent=2).encode()
    (ex,) = dialogflow.load_recording(one, "x.json")
    assert ex.content_type == "application/json" and ex.response_json() == response


def test_cassettes_make_one_run_per_interaction_and_keep_the_request() -> None:
    exchanges = dialogflow.load_recording(
        (CASSETTES / "analyze_content_confirmation.yaml").read_bytes(), "c.yaml"
    )
    assert len(exchanges) == 2
    assert exchanges[1].request_body["suggestionInput"]["action"] == "CONFIRM"
    assert all(dialogflow.is_model_exchange(ex) for ex in exchanges)


def test_toolwire_sse_is_read_back() -> None:
    body = dialogflow.to_sse([INFO])
    (ex,) = dialogflow.load_recording(body, "x.sse")
    assert dialogflow.exchange_chunks(ex) == [INFO]


def test_unreadable_recordings_say_why() -> None:
    with pytest.raises(UnsupportedInput, match="line 2"):
        dialogflow.load_recording(b'{"a": 1}\n{oops\n', "x.jsonl")
    with pytest.raises(UnsupportedInput, match="not a JSON object"):
        dialogflow.load_recording(b"[1, 2]", "x.json")


def _cli(*argv: str) -> tuple[int, str]:
    res = run_cli(*argv)
    return res.returncode, res.stdout.decode()


@pytest.mark.parametrize("name", RECORDINGS)
def test_cli_decode_prints_one_valid_run_per_response(name: str) -> None:
    code, text = _cli("decode", "--from", "dialogflow", str(CASSETTES / name))
    assert code == 0
    events = [json.loads(x) for x in text.splitlines()]
    validate_stream(events)
    starts = [e for e in events if e["type"] == "RUN_STARTED"]
    assert len({e["threadId"] for e in starts}) == 1
    # read off the file: a cassette's run per recorded interaction, a reactive stream's per
    # turn (textMessageId), and a list of bare ToolCallInfo objects is one suggestion
    objects = recording_objects(CASSETTES / name)
    if name.endswith(".yaml"):
        expected = len(yaml.safe_load((CASSETTES / name).read_text("utf-8"))["interactions"])
    elif name.endswith(".jsonl"):
        expected = len({o["textMessageId"] for o in objects})
    else:
        assert all(set(o) <= {"toolCall", "toolCallResult"} for o in objects)
        expected = 1
    assert len(starts) == expected


def test_cli_encode_and_request_commands(tmp_path: Path) -> None:
    name = "generate_suggestions_parallel.yaml"
    code, text = _cli("decode", "--from", "dialogflow", str(CASSETTES / name))
    assert code == 0
    run = tmp_path / "run.jsonl"
    run.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "encode", "--to", "dialogflow", str(run)],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    chunks = list(dialogflow.sse_chunks(proc.stdout))
    assert [c["toolCall"]["action"] for c in chunks] == ["get_order", "get_label", "find_refund"]
    assert b"text-message-dropped" in proc.stderr  # the loss is reported on stderr
    code, text = _cli(
        "decode-request",
        "--from",
        "dialogflow",
        str(CASSETTES / "analyze_content_confirmation.yaml"),
    )
    assert code == 0
    inputs = [json.loads(x) for x in text.splitlines()]
    assert [len(i.get("resume") or []) for i in inputs] == [0, 1]
    ri = tmp_path / "ri.json"
    ri.write_text(json.dumps(inputs[1]))
    code, text = _cli("encode-request", "--to", "dialogflow", "--model", "-", str(ri))
    assert code == 0
    (req,) = json.loads(text)["requests"]
    assert req["suggestionInput"]["action"] == "CONFIRM"
