"""The lead's CLI drives the adapter through the conventions (sse_chunks, load_recording, ...)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CASSETTES
from toolwire.testing.calls import calls_from_events
from toolwire.testing.cli_run import CliResult, run_cli
from toolwire.testing.recording_cache import recording


def cli(*args: str, stdin: bytes | None = None) -> CliResult:
    return run_cli(*args, stdin=stdin)


def lines(out: bytes) -> list[dict]:
    return [json.loads(x) for x in out.decode().splitlines() if x.strip()]


def test_decode_a_cassette_gives_one_run_per_recorded_run() -> None:
    import yaml

    doc = yaml.safe_load((CASSETTES / "consent.yaml").read_text())
    bodies = [i["response"]["body"]["string"] for i in doc["interactions"]]
    res = cli("decode", "--from", "asgard", str(CASSETTES / "consent.yaml"))
    assert res.returncode == 0, res.stderr
    events = lines(res.stdout)
    ends = [e for e in events if e["type"] in ("RUN_FINISHED", "RUN_ERROR")]
    # one run per recorded POST; the first stops at its consent frame, the second does not
    assert len(ends) == len(bodies) == 2
    assert ["asgard.tool_call.consent" in b for b in bodies] == [True, False]
    assert [e["outcome"]["type"] for e in ends] == ["interrupt", "success"]
    assert len({e["threadId"] for e in events if e["type"] == "RUN_STARTED"}) == 1


def test_decode_a_raw_sse_capture_with_two_runs(tmp_path: Path) -> None:
    import yaml

    doc = yaml.safe_load((CASSETTES / "consent.yaml").read_text())
    body = "".join(i["response"]["body"]["string"] for i in doc["interactions"])
    capture = tmp_path / "capture.sse"
    capture.write_text(body)
    res = cli("decode", "--from", "asgard", str(capture))
    assert res.returncode == 0, res.stderr
    assert sum(e["type"] == "RUN_STARTED" for e in lines(res.stdout)) == 2
    res = cli("validate", "-", stdin=res.stdout)
    assert res.returncode == 0, res.stderr


def test_decode_encode_and_back(tmp_path: Path) -> None:
    import yaml

    res = cli("decode", "--from", "asgard", str(CASSETTES / "parallel_calls.yaml"))
    assert res.returncode == 0, res.stderr
    agui = tmp_path / "run.jsonl"
    agui.write_bytes(res.stdout)
    enc = cli("encode", "--to", "asgard", str(agui))
    assert enc.returncode == 0, enc.stderr
    sse = tmp_path / "again.sse"
    sse.write_bytes(enc.stdout)
    again = cli("decode", "--from", "asgard", str(sse))
    assert again.returncode == 0, again.stderr

    def calls(evs: list[dict]) -> list[tuple[str, dict]]:
        return [(c.name, json.loads(c.arguments)) for c in calls_from_events(evs)]

    # the calls the cassette's tool_call.start frames hold (read with yaml and json)
    doc = yaml.safe_load((CASSETTES / "parallel_calls.yaml").read_text())
    body = doc["interactions"][0]["response"]["body"]["string"]
    frames = [json.loads(x[len("data: ") :]) for x in body.split("\n") if x.startswith("data: ")]
    recorded = [
        (s["toolCall"]["toolName"], s["toolCall"]["parameter"])
        for f in frames
        if f["eventType"] == "asgard.tool_call.start"
        for s in [f["fact"]["toolCallStart"]]
    ]
    assert len(recorded) == 3
    assert calls(lines(res.stdout)) == recorded
    assert calls(lines(again.stdout)) == recorded


def test_requests_both_ways(tmp_path: Path) -> None:
    import yaml

    doc = yaml.safe_load((CASSETTES / "consent.yaml").read_text())
    res = cli("decode-request", "--from", "asgard", str(CASSETTES / "consent.yaml"))
    assert res.returncode == 0, res.stderr
    inputs = lines(res.stdout)
    assert len(inputs) == 2
    ri = tmp_path / "ri.json"
    ri.write_text(json.dumps(inputs[1]))
    out = cli("encode-request", "--to", "asgard", "--model", "m", str(ri))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(doc["interactions"][1]["request"]["body"])


def test_truncated_capture_is_reported_as_an_error_run() -> None:
    res = cli("decode", "--from", "asgard", str(CASSETTES / "truncated.yaml"))
    assert res.returncode == 0, res.stderr  # a truncated run is data, not a CLI failure
    events = lines(res.stdout)
    assert events[0]["type"] == "RUN_STARTED"
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "truncated"
    assert not [e for e in events if e["type"] == "RUN_FINISHED"]


def test_json_and_jsonl_captures_decode_like_the_cassette(tmp_path: Path) -> None:
    import yaml

    doc = yaml.safe_load((CASSETTES / "parallel_calls.yaml").read_text())
    body = doc["interactions"][0]["response"]["body"]["string"]
    frames = [json.loads(x[len("data: ") :]) for x in body.split("\n") if x.startswith("data: ")]
    (tmp_path / "cap.json").write_text(json.dumps(frames))
    (tmp_path / "cap.jsonl").write_text("".join(json.dumps(f) + "\n" for f in frames))

    def calls(path: Path) -> list[str]:
        res = cli("decode", "--from", "asgard", str(path))
        assert res.returncode == 0, res.stderr
        return [e["toolCallId"] for e in lines(res.stdout) if e["type"] == "TOOL_CALL_START"]

    want = [
        f"{f['fact']['toolCallStart']['processId']}-{f['fact']['toolCallStart']['callSeq']}"
        for f in frames
        if f["eventType"] == "asgard.tool_call.start"
    ]
    assert calls(tmp_path / "cap.json") == calls(tmp_path / "cap.jsonl") == want
    assert calls(CASSETTES / "parallel_calls.yaml") == want


def test_a_process_id_repeated_across_runs_still_gives_thread_unique_call_ids(
    tmp_path: Path,
) -> None:
    from toolwire.adapters.asgard import envelope, to_sse

    def run(req: str) -> list[dict]:
        call = {
            "processId": "p",
            "callSeq": 0,
            "toolCall": {"toolsetName": "", "toolName": "f", "parameter": {"a": 1}},
        }
        frames = [
            ("asgard.run.init", {}),
            ("asgard.tool_call.start", call),
            ("asgard.tool_call.complete", dict(call, toolCallResult={"run": req})),
            ("asgard.run.done", {}),
        ]
        return [
            envelope(t, p, request_id=req, event_id=str(n), custom_channel_id="ch")
            for n, (t, p) in enumerate(frames)
        ]

    capture = tmp_path / "two_runs.sse"
    capture.write_bytes(to_sse(run("r1") + run("r2")))
    res = cli("decode", "--from", "asgard", str(capture))
    assert res.returncode == 0, res.stderr
    events = lines(res.stdout)
    starts = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert len(starts) == len(set(starts)) == 2


def test_a_run_error_carries_the_platforms_whole_error_object_in_metadata(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from toolwire.cli import main

    path = CASSETTES / "run_error.yaml"
    (ex,) = recording(path)
    frames = [
        json.loads(line[6:])
        for line in ex.response_body.decode().splitlines()
        if line.startswith("data: ")
    ]
    recorded = next(f["fact"]["runError"]["error"] for f in frames if f["fact"].get("runError"))
    assert main(["decode", "--from", "asgard", str(path)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (err,) = [e for e in events if e["type"] == "RUN_ERROR"]
    assert err["code"] == recorded["code"] and err["message"] == recorded["message"]
    assert err["metadata"] == {"asgard.error": recorded, "toolwire.finishReason": "error"}
