"""The recorded corpus (real Anthropic traffic, read from ../shared, never copied here).

Every file replays through Anthropic's SDK and through our decoder with the same
calls, ids, argument text and text; each response frames to a valid AG-UI run;
every request carrying tool calls or results survives decode_request ->
encode_request in everything the protocol holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _anthropic_sdk import CORPUS, request_bodies, sdk_responses

if not CORPUS.is_dir():  # never skipped: the suite runs beside ../shared
    raise AssertionError(
        f"{CORPUS} is absent: the recorded corpus is read from ../shared, not shipped"
    )

import json

from _anthropic_decode import (
    args_object,
    calls,
    dump,
    framed,
    run,
    run_exchange,
    sdk_calls,
    sdk_text,
    text,
)
from _anthropic_norm import normalize, system_text

from toolwire.adapters.anthropic import decode_request, decode_response, encode_request
from toolwire.protocol.machine import StreamMachine, validate_stream
from toolwire.testing.recording_cache import recording

FILES = sorted(CORPUS.glob("*.yaml"))


def test_corpus_is_there() -> None:
    assert len(FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[:80])
def test_replay_sdk_and_decoder_agree(path: Path) -> None:
    sdk = sdk_responses(path)
    recorded = [e for e in recording(path) if "/v1/messages" in e.uri]
    assert len(sdk) == len(recorded)
    for got, ex in zip(sdk, recorded, strict=True):
        ours, _, err = run_exchange(ex)
        assert err is None
        if isinstance(got, list):
            from_sdk, _, sdk_err = run(got)
            assert sdk_err is None
            assert dump(ours) == dump(from_sdk)
            assert calls(ours) == sdk_calls(got)
            assert text(ours) == sdk_text(got)
        else:
            assert dump(ours) == dump(decode_response(got))
            kinds = ("tool_use", "server_tool_use", "mcp_tool_use")
            expected = [(b.id, b.name, b.input) for b in got.content if b.type in kinds]
            assert [(i, n, args_object(a)) for i, n, a in calls(ours)] == expected


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[:80])
def test_responses_frame_to_valid_runs(path: Path) -> None:
    machine = StreamMachine()
    events = []
    for ex in recording(path):
        if "/v1/messages" in ex.uri:
            events += framed(ex, machine)
    validate_stream(events)
    kinds = [e.type.value for e in events]
    # one run per recorded model exchange, each ended by a RUN_FINISHED (the corpus holds no
    # vendor errors)
    exchanges = [e for e in recording(path) if "/v1/messages" in e.uri]
    assert kinds.count("RUN_STARTED") == kinds.count("RUN_FINISHED") == len(exchanges)


def _carries_tools(body: dict) -> bool:
    blob = json.dumps(body["messages"])
    return '"tool_use"' in blob or '"tool_result"' in blob


REQUESTS = [(p, i, b) for p in FILES for i, b in enumerate(request_bodies(p)) if _carries_tools(b)]


def test_corpus_has_tool_requests() -> None:
    assert len(REQUESTS) >= 8


@pytest.mark.parametrize(
    ("path", "n", "body"), REQUESTS, ids=[f"{p.stem[:60]}-{i}" for p, i, _ in REQUESTS]
)
def test_request_round_trip(path: Path, n: int, body: dict) -> None:
    ri = decode_request(body)
    again = encode_request(ri, model=body["model"])
    assert normalize(again) == normalize(body)
    assert system_text(again) == system_text(body)
    assert again["max_tokens"]
    # the request options come back too when asked for
    full = encode_request(ri, model=body["model"], use_forwarded_props=True)
    for key in ("max_tokens", "stream", "tool_choice"):
        if key in body:
            assert full[key] == body[key]
    assert [t["name"] for t in full.get("tools", [])] == [t["name"] for t in body.get("tools", [])]
