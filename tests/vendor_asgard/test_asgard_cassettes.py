"""Our hand-built cassettes: well-formed per the platform's types, replayed with vcrpy,
and decoded to what the frames themselves say (expected values come from the frames)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _asgard_shapes import ShapeError, check_frame, check_request

from conftest import ALL, POSTS, replay_cassette
from toolwire.adapters import asgard
from toolwire.errors import TruncatedStream, VendorStreamError
from toolwire.losses import held
from toolwire.protocol import parse_sse, validate_stream
from toolwire.testing.calls import calls_from_events


def test_there_are_cassettes() -> None:
    assert len(ALL) >= 7


def frames_of(body: bytes) -> list[dict[str, Any]]:
    """The frames, parsed by the shared SSE parser and json (not by the adapter)."""
    return [json.loads(ev.data) for ev in parse_sse(body)]


def test_cassette_is_well_formed(cassette: str) -> None:
    for n, ex in enumerate(replay_cassette(cassette)):
        assert "text/event-stream" in ex.content_type
        assert ex.body.endswith(b"\n\n"), "an SSE body must end with a blank line"
        frames = frames_of(ex.body)
        assert frames
        for i, frame in enumerate(frames):
            check_frame(frame, f"{cassette}[{n}] frame {i}")
        assert [f["requestId"] for f in frames] == [frames[0]["requestId"]] * len(frames)
        if cassette == "rejoin.yaml":  # a GET replay: no body, no run.init, requestId ""
            assert ex.request == {} and frames[0]["requestId"] == ""
            continue
        check_request(ex.request, f"{cassette}[{n}].request")
        assert frames[0]["eventType"] == "asgard.run.init"


def test_shape_checker_rejects_what_the_types_forbid() -> None:
    frame = frames_of(replay_cassette("parallel_calls.yaml")[0].body)[10]
    assert frame["eventType"] == "asgard.tool_call.start"
    check_frame(frame)
    bad = json.loads(json.dumps(frame))
    bad["fact"]["toolCallStart"]["callSeq"] = "0"
    with pytest.raises(ShapeError, match="callSeq"):
        check_frame(bad)
    bad = json.loads(json.dumps(frame))
    bad["fact"]["messageStart"] = {"message": {}}
    with pytest.raises(ShapeError, match="only toolCallStart"):
        check_frame(bad)


def test_sse_chunks_matches_a_plain_parse(cassette: str) -> None:
    for ex in replay_cassette(cassette):
        assert list(asgard.sse_chunks(ex.body)) == frames_of(ex.body)


def _expected(frames: list[dict[str, Any]]) -> dict[str, Any]:
    """What a faithful decoding must hold, read off the frames (§3.4), with the SDK's reducer
    rules: the first start of a (processId, callSeq) wins, a complete without a start still
    carries the whole call, a second complete is ignored; nothing after run.done counts."""
    calls: dict[str, dict[str, Any]] = {}
    results: dict[str, dict[str, Any]] = {}
    for fr in frames:
        et = fr["eventType"]
        if et == "asgard.run.done":
            break
        if et in ("asgard.tool_call.start", "asgard.tool_call.complete"):
            p = fr["fact"]["toolCallStart" if et.endswith("start") else "toolCallComplete"]
            cid = f"{p['processId']}-{p['callSeq']}"
            calls.setdefault(
                cid, {"name": p["toolCall"]["toolName"], "args": p["toolCall"]["parameter"]}
            )
            if et.endswith("complete") and cid not in results:
                res = p["toolCallResult"]
                err = p.get("isError") is True or (isinstance(res, dict) and bool(res.get("error")))
                results[cid] = {"result": res, "error": err}
    return {"calls": calls, "results": results}


#: the recordings made to hold what AG-UI 1.0 cannot carry (late announcements, cancelled
#: subagents, a contradicting complete text, frames after the end)
LOSSY = {"edge_cases.yaml", "subagents.yaml"}


@pytest.mark.parametrize("name", POSTS)  # the failed and the truncated run too
def test_decoded_calls_and_results_equal_the_frames(name: str) -> None:
    for ex in replay_cassette(name):
        frames = frames_of(ex.body)
        want = _expected(frames)
        assert want["calls"], f"{name}: a recorded run with no call checks nothing here"
        with held() as lost:
            events = list(asgard.decode_run(frames))
        # the recordings built to hold what AG-UI cannot carry lose it; the others nothing
        assert bool(lost) == (name in LOSSY), [str(x) for x in lost]
        validate_stream(events)
        got_calls = {c.id: c for c in calls_from_events(events)}
        got_results: dict[str, dict[str, Any]] = {}
        for ev in events:
            d = ev.model_dump(by_alias=True, exclude_none=True)
            if d["type"] == "TOOL_CALL_RESULT":
                got_results[d["toolCallId"]] = d
        assert list(got_calls) == list(want["calls"])
        for cid, call in want["calls"].items():
            assert got_calls[cid].name == call["name"]
            assert json.loads(got_calls[cid].arguments) == call["args"]
        assert set(got_results) == set(want["results"])
        for cid, res in want["results"].items():
            got = got_results[cid]
            value = res["result"]
            if isinstance(value, str):
                assert got["content"] == value
            elif value is None:
                assert got["content"] == ""
            else:
                assert json.loads(got["content"]) == value
            assert ("toolwire.error" in got.get("metadata", {})) == res["error"]


def test_text_equals_the_complete_frames() -> None:
    frames = frames_of(replay_cassette("parallel_calls.yaml")[0].body)
    want = {
        fr["fact"]["messageComplete"]["message"]["messageId"]: fr["fact"]["messageComplete"][
            "message"
        ]["text"]
        for fr in frames
        if fr["eventType"] == "asgard.message.complete"
    }
    text: dict[str, str] = {}
    for ev in asgard.decode_stream(frames):
        d = ev.model_dump(by_alias=True)
        if d["type"] == "TEXT_MESSAGE_CONTENT":
            text[d["messageId"]] = text.get(d["messageId"], "") + d["delta"]
    assert text == want


def test_usage_is_summed_per_model_from_the_frames() -> None:
    frames = frames_of(replay_cassette("parallel_calls.yaml")[0].body)
    usage = [f["fact"]["completionModelUsage"] for f in frames if f["eventType"].endswith("usage")]
    d = asgard.Decoder()
    for fr in frames:
        d.feed(fr)
    d.close()
    assert len(d.usage) == 1
    u = d.usage[0]
    assert u.model == usage[0]["completionModelName"]
    assert u.input_tokens == sum(x["inputTokens"] for x in usage)
    assert u.output_tokens == sum(x["outputTokens"] for x in usage)
    assert u.total_tokens == sum(x["totalTokens"] for x in usage)
    assert u.provider is None  # not guessed
    assert (d.thread_id, d.run_id) == (frames[0]["customChannelId"], frames[0]["requestId"])


def test_run_error_cassette_surfaces_the_vendor_error() -> None:
    frames = frames_of(replay_cassette("run_error.yaml")[0].body)
    err = frames[-1]["fact"]["runError"]["error"]
    with pytest.raises(VendorStreamError) as info:
        list(asgard.decode_stream(frames))
    assert info.value.error_type == err["code"]
    assert info.value.message == err["message"]
    events = list(asgard.decode_run(frames))
    validate_stream(events)
    assert events[-1].type == "RUN_ERROR"
    assert events[-1].code == err["code"]


def test_truncated_cassette_is_never_success() -> None:
    frames = frames_of(replay_cassette("truncated.yaml")[0].body)
    assert all(f["eventType"] not in ("asgard.run.done", "asgard.run.error") for f in frames)
    with pytest.raises(TruncatedStream):
        list(asgard.decode_stream(frames))
    events = list(asgard.decode_run(frames))
    assert events[-1].type == "RUN_ERROR"
    assert all(e.type != "RUN_FINISHED" for e in events)


def test_rejoin_replay_is_one_messages_snapshot() -> None:
    frames = frames_of(replay_cassette("rejoin.yaml")[0].body)
    events = list(asgard.decode_run(frames))
    validate_stream(events)
    assert [e.type for e in events] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    want = []
    for f in frames:
        if f["eventType"] == "asgard.message.user":
            u = f["fact"]["messageUser"]
            want.append(("user", u["messageId"], u["text"]))
        elif f["eventType"] == "asgard.message.complete":
            m = f["fact"]["messageComplete"]["message"]
            want.append(("assistant", m["messageId"], m["text"]))
    got = [(m.role, m.id, m.content) for m in events[1].messages]
    assert got == want
