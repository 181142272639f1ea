"""The lead's CLI drives the Gemini adapter through the conventions in docs/architecture.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from _gemini_sdk import CORPUS, OWN

import toolwire.cli  # noqa: F401  (in the tree: a broken import must fail, not skip)
from toolwire.testing.calls import calls_from_events
from toolwire.testing.cli_run import CliResult, run_cli


def cli(*args: str, stdin: bytes | None = None) -> CliResult:
    return run_cli(*args, stdin=stdin)


def lines(out: bytes) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.decode().splitlines() if x.strip()]


def test_decode_a_cassette_then_validate() -> None:
    res = cli("decode", "--from", "gemini", str(OWN / "gemini3_parallel_calls_signature.yaml"))
    assert res.returncode == 0, res.stderr
    events = lines(res.stdout)
    starts = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert starts == ["fc-paris", "fc-tokyo", "fc-lima", "fc-time"]  # the cassette's ids
    assert events[-1]["outcome"]["pendingToolCallIds"] == starts
    ok = cli("validate", "-", stdin=res.stdout)
    assert ok.returncode == 0, ok.stderr


def test_decode_skips_recorded_calls_that_are_not_model_turns() -> None:
    assert CORPUS.is_dir(), f"conformance corpus not found at {CORPUS} (read from ../shared)"
    name = "pydantic+pydantic-ai__test_multimodal_tool_returns__test_model_sees_multiple_images"
    res = cli("decode", "--from", "gemini", str(CORPUS / f"{name}[google_gemini3].yaml"))
    assert res.returncode == 0, res.stderr
    runs = [e for e in lines(res.stdout) if e["type"] == "RUN_STARTED"]
    assert len(runs) == 2  # two generateContent calls; the image download is not a turn


def test_decode_then_encode_gives_gemini_sse_that_decodes_to_the_same_calls(tmp_path: Path) -> None:
    cassette = OWN / "vertex_partial_args.yaml"
    res = cli("decode", "--from", "gemini", str(cassette))
    assert res.returncode == 0, res.stderr
    agui = tmp_path / "run.jsonl"
    agui.write_bytes(res.stdout)
    enc = cli("encode", "--to", "gemini", str(agui))
    assert enc.returncode == 0, enc.stderr
    assert enc.stdout.startswith(b"data: {") and b"\r\n\r\n" in enc.stdout
    sse = tmp_path / "again.sse"
    sse.write_bytes(enc.stdout)
    again = cli("decode", "--from", "gemini", str(sse))
    assert again.returncode == 0, again.stderr

    def calls(out: bytes) -> list[tuple[str, str]]:
        return sorted((c.id, c.arguments) for c in calls_from_events(lines(out)))

    # the call ids are the ones the cassette's functionCall parts name (read here with yaml
    # and json, not the adapter), so an empty decode cannot pass as a round trip
    body = yaml.safe_load(cassette.read_text("utf-8"))["interactions"][0]["response"]["body"]
    recorded_ids = [
        p["functionCall"]["id"]
        for line in body["string"].splitlines()
        if line.startswith("data: ")
        for p in json.loads(line[6:])["candidates"][0]["content"]["parts"]
        if "id" in p.get("functionCall", {})
    ]
    assert recorded_ids == ["fc-trip", "fc-note"]
    assert [cid for cid, _ in calls(res.stdout)] == sorted(recorded_ids)
    assert calls(again.stdout) == calls(res.stdout)


def test_encode_request_and_decode_request(tmp_path: Path) -> None:
    req = cli(
        "decode-request", "--from", "gemini", str(OWN / "gemini3_function_response_media.yaml")
    )
    assert req.returncode == 0, req.stderr
    (run_input,) = lines(req.stdout)
    tools = [m for m in run_input["messages"] if m["role"] == "tool"]
    assert [t["toolCallId"] for t in tools] == ["fc-radar", "fc-report"]
    path = tmp_path / "input.json"
    path.write_text(json.dumps(run_input))
    body = cli("encode-request", "--to", "gemini", "--model", "gemini-2.5-flash", str(path))
    assert body.returncode == 0, body.stderr
    assert b"PartsDroppedWarning" in body.stderr or b"dropped" in body.stderr
    out = json.loads(body.stdout)
    responses = [p["function_response"] for p in out["contents"][2]["parts"]]
    assert [r["name"] for r in responses] == ["get_radar", "get_report"]
    assert all("parts" not in r for r in responses)
