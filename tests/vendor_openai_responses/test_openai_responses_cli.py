"""The lead's CLI drives the Responses adapter (decode, validate, encode, both request verbs).

Expected values come from the cassettes themselves (their ``data:`` lines and recorded
request bodies, read with ``json.loads``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _openai_responses_support import OURS, exchanges, final_items, payloads

import toolwire.cli  # noqa: F401  (a broken CLI import fails here, it does not skip)
from toolwire.testing.calls import calls_from_events
from toolwire.testing.cli_run import CliResult, run_cli


def cli(*args: str, stdin: bytes | None = None) -> CliResult:
    return run_cli(*args, stdin=stdin)


def lines(out: bytes) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.decode().splitlines() if x.strip()]


calls = calls_from_events


def test_decode_a_cassette_validate_encode_and_decode_again(tmp_path: Path) -> None:
    path = OURS / "reasoning_parallel_calls.yaml"
    items = final_items(payloads(exchanges(path)[0].response_body))
    recorded = sorted(
        (i["call_id"], i["name"], i["arguments"]) for i in items if i["type"] == "function_call"
    )
    res = cli("decode", "--from", "openai_responses", str(path))
    assert res.returncode == 0, res.stderr
    events = lines(res.stdout)
    assert events[0]["type"] == "RUN_STARTED" and events[0]["protocolVersion"]
    assert events[-1]["type"] == "RUN_FINISHED"
    assert sorted(calls(events)) == recorded
    assert cli("validate", "-", stdin=res.stdout).returncode == 0
    sse = cli("decode", "--from", "openai_responses", "--sse", str(path))
    assert sse.returncode == 0 and sse.stdout.startswith(b"data: {"), sse.stderr
    agui = tmp_path / "run.jsonl"
    agui.write_bytes(res.stdout)
    enc = cli("encode", "--to", "openai_responses", str(agui))
    assert enc.returncode == 0, enc.stderr
    assert enc.stdout.startswith(b"event: response.created\n")
    wire = tmp_path / "again.sse"
    wire.write_bytes(enc.stdout)
    again = cli("decode", "--from", "openai_responses", str(wire))
    assert again.returncode == 0, again.stderr
    assert sorted(calls(lines(again.stdout))) == recorded


@pytest.mark.parametrize(
    ("name", "code"),
    [("incomplete.yaml", "incomplete"), ("truncated.yaml", "truncated")],
)
def test_a_turn_that_did_not_complete_ends_in_run_error(name: str, code: str) -> None:
    res = cli("decode", "--from", "openai_responses", str(OURS / name))
    assert res.returncode == 0, res.stderr
    last = lines(res.stdout)[-1]
    assert (last["type"], last["code"]) == ("RUN_ERROR", code)


def test_decode_request_then_encode_request(tmp_path: Path) -> None:
    path = OURS / "tool_output_media.yaml"
    (ex,) = exchanges(path)
    sent = ex.request_body
    assert isinstance(sent, dict)
    req = cli("decode-request", "--from", "openai_responses", str(path))
    assert req.returncode == 0, req.stderr
    (run_input,) = lines(req.stdout)
    file = tmp_path / "input.json"
    file.write_text(json.dumps(run_input))
    body = cli("encode-request", "--to", "openai_responses", "--model", sent["model"], str(file))
    assert body.returncode == 0, body.stderr
    out = json.loads(body.stdout)
    # the whole recorded input (calls, results with their media parts) and tools come back
    assert out["input"] == sent["input"]
    assert out["tools"] == sent["tools"]
    assert any(i.get("type") == "function_call_output" for i in out["input"])
