"""The four CLI commands for Bedrock: cassettes with binary bodies, raw event-stream files,
request bodies both ways, and ``encode`` writing event-stream bytes botocore parses."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _bedrock_sdk import CASSETTES, MODEL, sdk_events, validate
from ag_ui.core import EventType

from toolwire import cli
from toolwire.adapters.bedrock import to_boto3
from toolwire.protocol.events import parse_event
from toolwire.recordings import load_recording


@dataclass
class Done:
    returncode: int
    stdout: bytes
    stderr: bytes


def toolwire_cli(*args: str, stdin: bytes | None = None) -> Done:
    """The CLI in this process, its stdout as the bytes it writes (a binary framing too)."""
    out, err = io.BytesIO(), io.StringIO()
    wrapper = io.TextIOWrapper(out, encoding="utf-8")
    old = sys.stdout, sys.stdin
    sys.stdout = wrapper
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stderr(err):
            code = cli.main(list(args))
        wrapper.flush()
    finally:
        sys.stdout, sys.stdin = old
    return Done(code, out.getvalue(), err.getvalue().encode())


def lines(out: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def test_decode_reads_a_cassette_with_binary_bodies_as_complete_runs() -> None:
    done = toolwire_cli(
        "decode", "--from", "bedrock", str(CASSETTES / "parallel_three_tool_use.yaml")
    )
    assert done.returncode == 0, done.stderr
    events = lines(done.stdout)
    kinds = [e["type"] for e in events]
    assert kinds.count("RUN_STARTED") == 2 and kinds.count("RUN_FINISHED") == 2
    assert len({e["threadId"] for e in events if e["type"] == "RUN_STARTED"}) == 1
    calls = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert calls == ["tooluse_Paris01", "tooluse_Oslo02", "tooluse_Lima03"]
    for e in events:
        parse_event(e)  # every line is an AG-UI event
    check = toolwire_cli("validate", "-", stdin=done.stdout)
    assert check.returncode == 0, check.stderr


def test_decode_reads_a_raw_event_stream_file(tmp_path: Path) -> None:
    path = CASSETTES / "reasoning_tool_use_signature.yaml"
    raw = load_recording(path.read_bytes(), path.name)[0].response_body
    capture = tmp_path / "turn.bin"
    capture.write_bytes(raw)
    done = toolwire_cli("decode", "--from", "bedrock", str(capture))
    assert done.returncode == 0, done.stderr
    events = lines(done.stdout)
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    assert any(e["type"] == "REASONING_ENCRYPTED_VALUE" for e in events)


def test_decode_of_a_truncated_cassette_ends_in_run_error() -> None:
    done = toolwire_cli("decode", "--from", "bedrock", str(CASSETTES / "truncated_stream.yaml"))
    assert done.returncode == 0, done.stderr
    assert lines(done.stdout)[-1]["type"] == "RUN_ERROR"


def test_encode_writes_event_stream_bytes_botocore_parses_back(tmp_path: Path) -> None:
    decoded = toolwire_cli(
        "decode", "--from", "bedrock", str(CASSETTES / "interleaved_tool_use.yaml")
    )
    events = tmp_path / "run.jsonl"
    events.write_bytes(decoded.stdout)
    done = toolwire_cli("encode", "--to", "bedrock", str(events))
    assert done.returncode == 0, done.stderr
    theirs = sdk_events(done.stdout)
    starts = [
        e["contentBlockStart"]["start"]["toolUse"]["toolUseId"]
        for e in theirs
        if "contentBlockStart" in e
    ]
    assert starts == ["tooluse_a", "tooluse_b"]
    assert theirs[-2] == {"messageStop": {"stopReason": "tool_use"}}
    # and the bytes decode back to the same calls
    again = tmp_path / "again.bin"
    again.write_bytes(done.stdout)
    back = lines(toolwire_cli("decode", "--from", "bedrock", str(again)).stdout)
    assert [e["toolCallId"] for e in back if e["type"] == EventType.TOOL_CALL_START.value] == [
        "tooluse_a",
        "tooluse_b",
    ]


def test_decode_request_then_encode_request_gives_a_body_botocore_validates(tmp_path: Path) -> None:
    decoded = toolwire_cli(
        "decode-request", "--from", "bedrock", str(CASSETTES / "tool_result_media.yaml")
    )
    assert decoded.returncode == 0, decoded.stderr
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_bytes(decoded.stdout)
    done = toolwire_cli("encode-request", "--to", "bedrock", "--model", MODEL, str(inputs))
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    validate("ConverseStream", to_boto3(body))
    assert body["modelId"] == MODEL
    # a text-only model: the media dropped, each loss one line on stderr
    done = toolwire_cli(
        "encode-request", "--to", "bedrock", "--model", "meta.llama3-70b-instruct-v1:0", str(inputs)
    )
    assert done.returncode == 0
    assert done.stderr.decode().count("dropped") == 3
