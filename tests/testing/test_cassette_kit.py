"""The cassette kit end to end: pytest runs (pytester) of an agent test recording, replaying,
snapshotting and refusing, with Anthropic's real SDK against FakeVendor on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path

import anthropic  # imported here, so the in-process pytest runs below reuse it (speed)
import pytest
import vcr  # type: ignore[import-untyped]
import yaml

import toolwire.driver
import toolwire.testing.cassettes
from toolwire.adapters import anthropic as anthropic_adapter
from toolwire.recordings import load_recording
from toolwire.testing.fake_vendor import FakeVendor, Reply, replies_from_cassette
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
TURN1 = ROOT / "cassettes" / "anthropic" / "thinking_tool_use_signature.yaml"
TURN2 = ROOT / "cassettes" / "anthropic" / "thinking_tool_results_followup.yaml"
FAKE_KEY = "sk-ant-api03-" + "Fk3y" * 10 + "-AbCdEf"
ORG = "3f0c9a52-8d41-4d7e-9b0e-0c6f2a1d7e55"
_PRELOADED = (anthropic, vcr, toolwire.driver)

AGENT = """
import os
import uuid

import anthropic
import toolwire
from toolwire.protocol.machine import StreamMachine

TOOLS = [
    {"name": "get_weather", "description": "Current weather for a city",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
    {"name": "get_time", "description": "Local time in a city",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
]
ANSWERS = {"get_weather": "14°C, light rain", "get_time": "22:41"}
QUESTION = os.environ.get("AGENT_QUESTION", "Weather in Paris and time in Tokyo?")


def client():
    return anthropic.Anthropic(base_url=os.environ["AGENT_BASE_URL"], max_retries=0)


def run_input(messages):
    return {"threadId": "thread-" + uuid.uuid4().hex, "runId": str(uuid.uuid4()), "state": {},
            "messages": messages, "tools": TOOLS, "context": [], "forwardedProps": {}}


def turn(messages):
    return list(toolwire.run(client(), run_input(messages), model="claude-sonnet-4-5",
                             max_tokens=1024, retry=toolwire.RetryPolicy(attempts=1)))


def test_weather_agent(toolwire_cassette):
    with toolwire_cassette("weather.yaml"):
        turn1 = turn([{"id": "u1", "role": "user", "content": QUESTION}])
        machine = StreamMachine()
        for event in turn1:
            machine.feed(event)
        history = [m.model_dump(mode="json", by_alias=True, exclude_none=True)
                   for m in machine.messages]
        results = [{"id": "r-" + e.tool_call_id, "role": "tool", "toolCallId": e.tool_call_id,
                    "content": ANSWERS[e.tool_call_name]}
                   for e in turn1 if e.type == "TOOL_CALL_START"]
        turn2 = turn(history + results)
    assert [e.type for e in turn2 if e.type == "TOOL_CALL_START"] == []
    toolwire_cassette.assert_snapshot(turn1 + turn2)
"""


def _replies(extra_headers: dict[str, str] | None = None) -> list[Reply]:
    replies = replies_from_cassette(TURN1) + replies_from_cassette(TURN2)
    headers = {"set-cookie": "__cf_bm=abc123; path=/", "anthropic-organization-id": ORG}
    headers |= extra_headers or {}
    return [dataclasses.replace(r, headers={**r.headers, **headers}) for r in replies]


@pytest.fixture(scope="module", autouse=True)
def _imports_outside_pytester(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Record and replay the agent once in this process before any in-process pytest run.

    An in-process run (pytester) removes the modules first imported during it when it ends;
    a module the HTTP stack imports lazily would then be imported twice and its exception
    classes would no longer match (later tests would see ``httpcore2`` errors unmapped).
    """
    namespace: dict[str, object] = {}
    exec(compile(AGENT, "agent", "exec"), namespace)
    test = namespace["test_weather_agent"]
    folder = tmp_path_factory.mktemp("warm")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        with FakeVendor(_replies()) as fv:
            mp.setenv("AGENT_BASE_URL", fv.base_url)
            test(toolwire.testing.cassettes.CassetteKit(folder, record_mode="once"))  # type: ignore[operator]
        test(toolwire.testing.cassettes.CassetteKit(folder))  # type: ignore[operator]
    assert (folder / "weather.agui.jsonl").is_file()


@pytest.fixture
def agent(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(test_agent=AGENT)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    # replay needs no server: nothing listens on port 9 (discard), a request sent there fails
    monkeypatch.setenv("AGENT_BASE_URL", "http://127.0.0.1:9")
    return pytester


def _record(agent: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> FakeVendor:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with FakeVendor(_replies()) as fv:
        monkeypatch.setenv("AGENT_BASE_URL", fv.base_url)
        result = agent.runpytest("--record-mode=once", *args)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("AGENT_BASE_URL", "http://127.0.0.1:9")
    result.assert_outcomes(passed=1)
    return fv


def _cassette(agent: pytest.Pytester) -> Path:
    return agent.path / "cassettes" / "test_agent" / "weather.yaml"


def _snapshot(agent: pytest.Pytester) -> Path:
    return agent.path / "cassettes" / "test_agent" / "weather.agui.jsonl"


def test_recording_filters_the_key_and_account_headers_then_replays_offline(
    agent: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    fv = _record(agent, monkeypatch)
    # the SDK really sent the key to the server...
    sent = [
        r.headers.get("x-api-key", "") + r.headers.get("authorization", "") for r in fv.requests
    ]
    assert len(sent) == 2 and all(FAKE_KEY in s for s in sent)
    text = _cassette(agent).read_text("utf-8")
    # ...and the cassette holds neither it nor the account headers
    assert FAKE_KEY not in text
    assert "Fk3y" not in text
    assert ORG not in text and "__cf_bm" not in text
    doc = yaml.safe_load(text)
    assert len(doc["interactions"]) == 2
    for inter in doc["interactions"]:
        names = {k.lower() for k in inter["request"]["headers"]}
        assert not names & {"x-api-key", "authorization", "cookie"}
        assert not {k.lower() for k in inter["response"]["headers"]} & {
            "set-cookie",
            "anthropic-organization-id",
        }
    # the stored bodies are the vendor's: the SDK-parsed stream of each reply decodes the same
    recorded = load_recording(text.encode(), "weather.yaml")
    for ex, source in zip(recorded, [TURN1, TURN2], strict=True):
        (orig,) = recording(source)
        assert list(anthropic_adapter.sse_chunks(ex.response_body)) == list(
            anthropic_adapter.sse_chunks(orig.response_body)
        )
    assert _snapshot(agent).is_file()
    first = _snapshot(agent).read_bytes()
    # replay: no server, no key; the same snapshot byte for byte (fresh uuids every run)
    result = agent.runpytest()
    result.assert_outcomes(passed=1)
    assert _snapshot(agent).read_bytes() == first
    events = [json.loads(line) for line in first.decode().splitlines()]
    assert [e["threadId"] for e in events if e["type"] == "RUN_STARTED"] == [
        "thread-1",
        "thread-2",
    ]


def test_turn_two_replays_turn_two_not_turn_one(
    agent: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _record(agent, monkeypatch)
    events = [json.loads(x) for x in _snapshot(agent).read_text("utf-8").splitlines()]
    starts = [i for i, e in enumerate(events) if e["type"] == "RUN_STARTED"]
    assert len(starts) == 2
    turn2 = events[starts[1] :]
    (orig,) = recording(TURN2)
    texts = [
        c["delta"]["text"]
        for c in anthropic_adapter.sse_chunks(orig.response_body)
        if c.get("type") == "content_block_delta" and c["delta"].get("type") == "text_delta"
    ]
    assert [e["delta"] for e in turn2 if e["type"] == "TEXT_MESSAGE_CONTENT"] == texts
    assert not [e for e in turn2 if e["type"] == "TOOL_CALL_START"]
    # and the replay run itself (assert in the agent test: turn 2 holds no tool call) passes
    agent.runpytest().assert_outcomes(passed=1)


def test_a_changed_stream_fails_with_an_event_level_diff_and_update_rewrites_it(
    agent: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _record(agent, monkeypatch)
    good = _snapshot(agent).read_bytes()
    lines = good.decode().splitlines()
    i = next(n for n, x in enumerate(lines) if '"TOOL_CALL_ARGS"' in x)
    event = json.loads(lines[i])
    event["delta"] = event["delta"].replace("Par", "Lyo")
    lines[i] = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    _snapshot(agent).write_text("\n".join(lines) + "\n", "utf-8")

    result = agent.runpytest()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"event {i}: TOOL_CALL_ARGS for {event['toolCallId']}: delta" in out
    assert "Lyo" in out and "→" in out
    assert "--toolwire-update" in out

    result = agent.runpytest("--toolwire-update")
    result.assert_outcomes(passed=1)
    assert _snapshot(agent).read_bytes() == good
    assert "1 AG-UI snapshot(s) written" in result.stdout.str()


def test_a_missing_snapshot_fails_in_mode_none(
    agent: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _record(agent, monkeypatch)
    _snapshot(agent).unlink()
    result = agent.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no AG-UI snapshot at*--toolwire-update*"])
    assert not _snapshot(agent).exists()


def test_mode_none_names_the_field_when_a_request_is_not_in_the_cassette(
    agent: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _record(agent, monkeypatch)
    monkeypatch.setenv("AGENT_QUESTION", "Weather in Lyon?")
    result = agent.runpytest()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "CassetteMiss" in out
    assert "POST http://127.0.0.1:9/v1/messages is not in the cassette" in out
    assert 'body.messages[0].content[0].text: recorded "Weather in Paris and time in Tokyo?"' in out
    assert "--record-mode=new_episodes" in out


def test_mode_none_without_a_cassette_says_to_record_it(agent: pytest.Pytester) -> None:
    result = agent.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*weather.yaml does not exist*--record-mode=once*"])


def test_a_key_that_survives_filtering_refuses_the_write(
    agent: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    leaked = "sk-proj-" + "L3ak" * 8
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    # a header named for a credential is filtered (issue 35); one named for nothing is scanned
    with FakeVendor(_replies({"x-debug-echo": leaked})) as fv:
        monkeypatch.setenv("AGENT_BASE_URL", fv.base_url)
        result = agent.runpytest("--record-mode=once")
    result.assert_outcomes(errors=0, failed=1)
    out = result.stdout.str()
    assert "SecretInCassette" in out
    assert "interaction 0: response header x-debug-echo" in out
    assert "sk-…" in out
    assert leaked not in out and FAKE_KEY not in out
    assert not _cassette(agent).exists()


def test_record_mode_option_coexists_with_pytest_recording_in_either_order(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        test_modes=textwrap.dedent(
            """
            def test_mode(toolwire_cassette, request):
                mode = request.config.getoption("record_mode")
                print("MODE", toolwire_cassette.record_mode, mode)
            """
        )
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    ours, theirs = "toolwire.testing.plugin", "pytest_recording.plugin"
    for order in ([ours, theirs], [theirs, ours], [ours]):
        args = [x for name in order for x in ("-p", name)]
        result = pytester.runpytest_inprocess(*args, "-s", "--record-mode=all")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines(["*MODE all all*"])
        helped = pytester.runpytest_inprocess(*args, "--help")
        assert helped.ret == 0
        text = helped.stdout.str()
        assert "--toolwire-update" in text and "--record-mode" in text
        assert ("all,rewrite}" in text) == (theirs in order)
    # pytest-recording's extra mode means: record afresh
    result = pytester.runpytest_inprocess("-p", theirs, "-p", ours, "-s", "--record-mode=rewrite")
    result.stdout.fnmatch_lines(["*MODE all rewrite*"])
    # default, with neither option given: none
    result = pytester.runpytest_inprocess("-p", ours, "-s")
    result.stdout.fnmatch_lines(["*MODE none None*"])
