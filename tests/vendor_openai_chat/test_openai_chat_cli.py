"""The CLI wired for Chat Completions: decode, encode, and the request commands."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from _openai_chat_sdk import accumulate, stream_body
from _openai_chat_support import PROJECT_CASSETTES

from toolwire import cli
from toolwire.protocol.machine import validate_stream
from toolwire.testing.calls import calls_from_events
from toolwire.testing.recording_cache import recording

PARALLEL = PROJECT_CASSETTES / "parallel_three_interleaved.yaml"
TWO = PROJECT_CASSETTES / "two_choices.yaml"


def _lines(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def _exchange(path: Path):  # type: ignore[no-untyped-def]
    (ex,) = recording(path)
    return ex


_calls = calls_from_events


def test_decode_gives_one_valid_run_with_the_sdks_calls(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["decode", "--from", "openai_chat", str(PARALLEL)]) == 0
    events = _lines(capsys.readouterr().out)
    validate_stream(events)
    kinds = [e["type"] for e in events]
    assert (kinds[0], kinds[-1], kinds.count("RUN_STARTED")) == ("RUN_STARTED", "RUN_FINISHED", 1)
    (choice,) = accumulate(stream_body(_exchange(PARALLEL).response_body)).values()
    expected = [(c.id, c.name, c.arguments) for c in choice.calls]
    assert sorted(_calls(events)) == sorted(expected)
    assert events[-1]["outcome"]["pendingToolCallIds"] == [c[0] for c in expected]


def test_encode_gives_sse_the_sdk_reads_back_to_the_same_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["decode", "--from", "openai_chat", str(TWO)]) == 0
    decoded = tmp_path / "run.jsonl"
    decoded.write_text(capsys.readouterr().out)
    out = tmp_path / "out.sse"
    with out.open("w") as fh, contextlib.redirect_stdout(fh):
        assert cli.main(["encode", "--to", "openai_chat", str(decoded)]) == 0
    want = accumulate(stream_body(_exchange(TWO).response_body))
    got = accumulate(stream_body(out.read_bytes()))
    assert sorted(got) == sorted(want) == [0, 1]
    for i, choice in want.items():
        assert [(c.id, c.name, c.arguments) for c in got[i].calls] == [
            (c.id, c.name, c.arguments) for c in choice.calls
        ]
        assert (got[i].text, got[i].finish_reason) == (choice.text, choice.finish_reason)


def test_request_commands_round_trip_and_report_losses_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = PROJECT_CASSETTES / "relocated_media.yaml"
    body = _exchange(path).request_body
    assert cli.main(["decode-request", "--from", "openai_chat", str(path)]) == 0
    run_input = tmp_path / "input.json"
    run_input.write_text(capsys.readouterr().out)
    args = ["encode-request", "--to", "openai_chat", "--model", body["model"], str(run_input)]
    assert cli.main(args) == 0
    captured = capsys.readouterr()
    again = json.loads(captured.out)
    assert again["messages"] == body["messages"]
    assert captured.err == ""
    # the recorded request already has its media in a user message; put an image back in a
    # tool result and the default (drop) says so on stderr
    ri = json.loads(run_input.read_text())
    tool = next(m for m in ri["messages"] if m["role"] == "tool")
    tool["content"] = [
        {"type": "text", "text": "chart"},
        {"type": "image", "source": {"type": "url", "value": "https://example.com/c.png"}},
    ]
    run_input.write_text(json.dumps(ri))
    assert cli.main(args) == 0
    captured = capsys.readouterr()
    assert "image" in captured.err and tool["toolCallId"] in captured.err
    sent = next(
        m
        for m in json.loads(captured.out)["messages"]
        if m.get("tool_call_id") == tool["toolCallId"]
    )
    assert sent["content"] == [{"type": "text", "text": "chart"}]
