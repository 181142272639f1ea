"""The CLI wired for Anthropic: the README's main job and the other commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _anthropic_decode import sdk_calls
from _anthropic_sdk import CASSETTES, request_bodies, sdk_parse_sse

from toolwire import cli
from toolwire.protocol.machine import validate_stream
from toolwire.testing.calls import calls_from_events
from toolwire.testing.recording_cache import recording

MAIN_JOB = CASSETTES / "thinking_tool_use_signature.yaml"


def _lines(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def test_main_job_decodes_to_one_complete_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["decode", "--from", "anthropic", str(MAIN_JOB)]) == 0
    events = _lines(capsys.readouterr().out)
    validate_stream(events)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "RUN_STARTED" and events[0]["protocolVersion"] == "1.0"
    assert kinds[-1] == "RUN_FINISHED" and kinds.count("RUN_STARTED") == 1
    for needed in ("REASONING_ENCRYPTED_VALUE", "TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"):
        assert needed in kinds
    (body,) = [e.response_body for e in recording(MAIN_JOB)]
    expected = [c[0] for c in sdk_calls(sdk_parse_sse(body))]
    assert events[-1]["outcome"]["pendingToolCallIds"] == expected


def test_decode_reports_vendor_errors_as_run_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli.main(["decode", "--from", "anthropic", str(CASSETTES / "overloaded_error.yaml")]) == 0
    )
    events = _lines(capsys.readouterr().out)
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "overloaded_error"


def test_encode_gives_sse_the_sdk_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["decode", "--from", "anthropic", str(MAIN_JOB)]) == 0
    decoded = tmp_path / "run.jsonl"
    decoded.write_text(capsys.readouterr().out)
    out = tmp_path / "out.sse"
    with out.open("w") as fh:
        import contextlib

        with contextlib.redirect_stdout(fh):
            assert cli.main(["encode", "--to", "anthropic", str(decoded)]) == 0
    raw = sdk_parse_sse(out.read_bytes())
    (body,) = [e.response_body for e in recording(MAIN_JOB)]
    assert sdk_calls(raw) == sdk_calls(sdk_parse_sse(body))


def test_request_commands_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (body,) = request_bodies(CASSETTES / "tool_result_media.yaml")
    assert (
        cli.main(
            ["decode-request", "--from", "anthropic", str(CASSETTES / "tool_result_media.yaml")]
        )
        == 0
    )
    run_input = tmp_path / "input.json"
    run_input.write_text(capsys.readouterr().out)
    assert (
        cli.main(["encode-request", "--to", "anthropic", "--model", body["model"], str(run_input)])
        == 0
    )
    again = json.loads(capsys.readouterr().out)
    from _anthropic_norm import normalize

    assert normalize(again) == normalize(body)


REFERENCE = (
    Path(__file__).resolve().parents[3] / "shared" / "reference" / "streams" / "anthropic.sse"
)


def test_decode_of_a_raw_sse_capture(capsys: pytest.CaptureFixture[str]) -> None:
    assert REFERENCE.is_file(), f"{REFERENCE} is absent (read from ../shared/reference)"
    assert cli.main(["decode", "--from", "anthropic", str(REFERENCE)]) == 0
    events = _lines(capsys.readouterr().out)
    validate_stream(events)
    starts = [e for e in events if e["type"] == "TOOL_CALL_START"]
    expected = sdk_calls(sdk_parse_sse(REFERENCE.read_bytes()))
    assert [(s["toolCallId"], s["toolCallName"]) for s in starts] == [c[:2] for c in expected]
    args = {c.id: c.arguments for c in calls_from_events(events)}
    assert [args.get(c[0], "") for c in expected] == [c[2] for c in expected]


def test_legacy_flattens_server_tool_results(capsys: pytest.CaptureFixture[str]) -> None:
    path = CASSETTES / "web_search_server_tool.yaml"
    assert cli.main(["decode", "--from", "anthropic", "--legacy", str(path)]) == 0
    events = _lines(capsys.readouterr().out)
    (result,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    (ex,) = recording(path)
    (block,) = [
        e.content_block
        for e in sdk_parse_sse(ex.response_body)
        if e.type == "content_block_start" and e.content_block.type == "web_search_tool_result"
    ]
    # a peer before content parts gets the text parts (the hits' titles) joined, nothing else
    assert result["content"] == "".join(h.title for h in block.content)
