"""The `toolwire` command as a black box: validate, help, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolwire.cli import main
from toolwire.protocol.sse import encode_agui_sse
from toolwire.testing.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "agui_tool_calls.jsonl"


def _write(tmp_path: Path, events: list[dict[str, object]], name: str = "s.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(path)


def test_validate_accepts_the_shipped_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(EXAMPLE)]) == 0
    assert "valid: 13 events, 1 run(s)" in capsys.readouterr().out


def test_validate_accepts_sse_input(tmp_path: Path) -> None:
    from toolwire.protocol.machine import StreamMachine

    m = StreamMachine()
    events = [e for line in EXAMPLE.read_text().splitlines() for e in m.feed(json.loads(line))]
    path = tmp_path / "s.sse"
    path.write_bytes(encode_agui_sse(events))
    assert main(["validate", str(path)]) == 0


@pytest.mark.parametrize(
    ("events", "code", "index"),
    [
        (
            [{"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}],
            "event-before-run-started",
            0,
        ),
        (
            [
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
                {"type": "TOOL_CALL_END", "toolCallId": "c"},
            ],
            "tool-call-not-open",
            1,
        ),
        (
            [
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
                {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
            ],
            "truncated",
            1,
        ),
        (
            [
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
                {"type": "TOOL_CALL_CHUNK", "toolCallName": "f"},
            ],
            "chunk-missing-tool-call-id",
            1,
        ),
    ],
)
def test_validate_rejects_each_fatal_case_with_its_code_and_index(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    events: list[dict[str, object]],
    code: str,
    index: int,
) -> None:
    assert main(["validate", _write(tmp_path, events)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0  # one line
    assert f"violation {code} at event {index}:" in err


def test_unreadable_input_is_exit_1_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert main(["validate", str(bad)]) == 1
    assert "line 1: not JSON" in capsys.readouterr().err
    assert main(["validate", str(tmp_path / "missing.jsonl")]) == 1


def test_usage_errors_exit_2() -> None:
    with pytest.raises(SystemExit) as info:
        main(["validate"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["decode", "--from", "anthropic"])
    assert info.value.code == 2


@pytest.mark.parametrize(
    "argv",
    [[], ["validate"], ["decode"], ["encode"], ["encode-request"], ["decode-request"]],
)
def test_help_everywhere(argv: list[str]) -> None:
    res = run_cli(*argv, "--help")
    assert res.returncode == 0
    assert res.stdout.decode().startswith("usage: toolwire")


def test_python_m_toolwire_cli_is_the_command() -> None:
    """The module entry point, in a process of its own (the cases above run ``main``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire.cli", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: toolwire")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["decode", "--from", "nobody", "{file}"], "argument --from: unknown adapter 'nobody'"),
        (["encode", "--to", "nope", "{file}"], "argument --to: unknown adapter 'nope'; known:"),
        (
            ["encode-request", "--to", "dialogflow", "--model", "m", "--unanswered=drop", "{file}"],
            "--unanswered is for anthropic",
        ),
        (["serve", "--provider", "nope"], "--provider nope: config: agent 'nope': unknown"),
        (["serve", "--port", "99999"], "argument --port: a port is a number from 0 to 65535"),
    ],
)
def test_every_usage_error_exits_2_saying_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    """An argument the command cannot use is a usage error like argparse's own (README: 2)."""
    path = _write(tmp_path, [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}])
    with pytest.raises(SystemExit) as info:
        main([path if a == "{file}" else a for a in argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert says in err
    assert "Traceback" not in err


def test_an_empty_file_is_not_a_valid_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for text in ("", "\n  \n"):
        path = tmp_path / "empty.jsonl"
        path.write_text(text)
        assert main(["validate", str(path)]) == 1
        captured = capsys.readouterr()
        assert (captured.out, captured.err.count("\n")) == ("", 1)
        assert "no events: an empty stream is not an AG-UI run" in captured.err


def test_a_vendor_sse_stream_is_not_a_valid_agui_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Anthropic's own SSE, from the shipped recording: every event type is Anthropic's."""
    from toolwire.recordings import load_yaml

    cassette = ROOT / "cassettes" / "anthropic" / "thinking_tool_use_signature.yaml"
    recorded = load_yaml(cassette.read_text(encoding="utf-8"), "cassette")
    body = recorded["interactions"][0]["response"]["body"]["string"]
    path = tmp_path / "anthropic.sse"
    path.write_text(body)
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1  # the reason alone, none of the per-event warnings
    assert "not an AG-UI stream: none of its" in captured.err
    assert "message_start" in captured.err


def test_an_unknown_type_among_agui_events_is_ignored_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The processing model: a newer peer's event type is dropped and named, not fatal."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "FROM_THE_FUTURE", "x": 1},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    assert main(["validate", _write(tmp_path, events)]) == 0
    captured = capsys.readouterr()
    assert "valid: 3 events, 1 run(s), 1 of an unknown type ignored" in captured.out
    assert "FROM_THE_FUTURE" in captured.err


def test_decode_restates_the_recorded_request_as_the_runs_input(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cassette = ROOT / "cassettes" / "anthropic" / "thinking_tool_use_signature.yaml"
    assert main(["decode", "--from", "anthropic", str(cassette)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    starts = [e for e in events if e["type"] == "RUN_STARTED"]
    assert starts, "one run per recorded response"
    for start in starts:
        assert start["protocolVersion"] == "1.0"
        assert start["input"]["runId"] == start["runId"]
        assert start["input"]["threadId"] == start["threadId"]
    first_user = starts[0]["input"]["messages"][0]
    assert first_user["role"] == "user" and "Paris" in first_user["content"]


#: toolwire.finishReason per vendor reason, as docs/decisions.md's table gives it
FINISH = "toolwire.finishReason"
_NEUTRAL_ANTHROPIC = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
_NEUTRAL_GEMINI = {"STOP": "stop", "MAX_TOKENS": "length"}


@pytest.mark.parametrize(
    ("vendor", "name"),
    [
        ("anthropic", "thinking_tool_use_signature.yaml"),
        ("anthropic", "parallel_four_tool_use.yaml"),
        ("gemini", "gemini3_parallel_calls_signature.yaml"),
        ("openai_chat", "two_choices.yaml"),
    ],
)
def test_how_the_vendor_ended_each_turn_reaches_run_finished(
    vendor: str, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolwire.protocol.sse import parse_sse
    from toolwire.testing.recording_cache import recording

    path = ROOT / "cassettes" / vendor / name
    expected = []
    for ex in recording(path):
        payloads = [json.loads(e.data) for e in parse_sse(ex.response_body) if e.data[:1] == "{"]
        if vendor == "anthropic":
            reasons = [p["delta"]["stop_reason"] for p in payloads if p["type"] == "message_delta"]
            expected.append(
                {"anthropic.stop_reason": reasons[-1], FINISH: _NEUTRAL_ANTHROPIC[reasons[-1]]}
            )
        elif vendor == "gemini":
            reasons = [
                c["finishReason"] for p in payloads for c in p["candidates"] if "finishReason" in c
            ]
            calls = any(
                "functionCall" in part
                for p in payloads
                for c in p["candidates"]
                for part in c.get("content", {}).get("parts", [])
            )
            neutral = (
                "tool_calls" if reasons[-1] == "STOP" and calls else _NEUTRAL_GEMINI[reasons[-1]]
            )
            expected.append({"gemini.finishReason": reasons[-1], FINISH: neutral})
        else:
            by_choice = {
                c["index"]: c["finish_reason"]
                for p in payloads
                for c in p.get("choices", [])
                if c.get("finish_reason")
            }
            ordered = [by_choice[i] for i in sorted(by_choice)]
            # the neutral reason is choice 0's: the turn AG-UI carries on
            expected.append({"openai.finish_reasons": ordered, FINISH: ordered[0]})
    assert main(["decode", "--from", vendor, str(path)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    got = [e.get("metadata") for e in events if e["type"] == "RUN_FINISHED"]
    assert got == expected


def test_decode_request_output_feeds_encode_request_one_body_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolwire.testing.recording_cache import recording

    recorded = []
    lines = []
    for name in ("thinking_tool_use_signature.yaml", "parallel_four_tool_use.yaml"):
        cassette = ROOT / "cassettes" / "anthropic" / name
        recorded += [e.request_body for e in recording(cassette)]
        assert main(["decode-request", "--from", "anthropic", str(cassette)]) == 0
        lines += capsys.readouterr().out.splitlines()
    jsonl = tmp_path / "inputs.jsonl"
    jsonl.write_text("\n".join(lines) + "\n")
    assert len(lines) == len(recorded) > 1
    assert main(["encode-request", "--to", "anthropic", "--model", "m", str(jsonl)]) == 0
    bodies = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    def blocks(messages: list[dict[str, object]]) -> list[dict[str, object]]:
        # Anthropic's string content is shorthand for one text block
        return [
            {**m, "content": [{"type": "text", "text": m["content"]}]}
            if isinstance(m["content"], str)
            else m
            for m in messages
        ]

    assert [blocks(b["messages"]) for b in bodies] == [blocks(r["messages"]) for r in recorded]


def test_the_inputs_toolwire_restates_state_the_protocol_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """decode's RUN_STARTED.input and decode-request's output are toolwire's own AG-UI: a
    reader (toolwire serve, toolwire.run) must not take them for a pre-parts peer."""
    from ag_ui.core import PROTOCOL_VERSION

    cassette = ROOT / "cassettes" / "anthropic" / "thinking_tool_use_signature.yaml"
    assert main(["decode", "--from", "anthropic", str(cassette)]) == 0
    started = json.loads(capsys.readouterr().out.splitlines()[0])
    assert started["input"]["protocolVersion"] == PROTOCOL_VERSION
    assert main(["decode-request", "--from", "anthropic", str(cassette)]) == 0
    restated = json.loads(capsys.readouterr().out.splitlines()[0])
    assert restated["protocolVersion"] == PROTOCOL_VERSION
