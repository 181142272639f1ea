"""vcrpy under toolwire: replay consumes interactions in order by body, recording stores
decoded bodies without credentials, and ``toolwire decode`` reads what any VCR tool wrote."""

from __future__ import annotations

import gzip
import json
import textwrap
from pathlib import Path

import anthropic
import brotli  # type: ignore[import-untyped]
import httpx2
import pytest
import vcr  # type: ignore[import-untyped]
import yaml

from toolwire.errors import CassetteMiss, SecretInCassette
from toolwire.testing import replay
from toolwire.testing.cassettes import CassetteKit
from toolwire.testing.cli_run import run_cli
from toolwire.testing.fake_vendor import FakeVendor, Reply, replies_from_cassette
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
TURN1 = ROOT / "cassettes" / "anthropic" / "thinking_tool_use_signature.yaml"
TURN2 = ROOT / "cassettes" / "anthropic" / "thinking_tool_results_followup.yaml"


def _two_turn_cassette(tmp_path: Path) -> Path:
    """The two recorded Anthropic turns as one conversation cassette (turn 1 first)."""
    docs = [yaml.safe_load(p.read_text("utf-8")) for p in (TURN1, TURN2)]
    doc = {"version": 1, "interactions": docs[0]["interactions"] + docs[1]["interactions"]}
    path = tmp_path / "conversation.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    return path


def _bodies() -> list[dict[str, object]]:
    return [recording(p)[0].request_body for p in (TURN1, TURN2)]


def _texts(stream: object) -> list[str]:
    return [
        e.delta.text
        for e in stream  # type: ignore[attr-defined]
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    ]


def test_replay_answers_each_turn_with_its_own_recording_in_either_order(tmp_path: Path) -> None:
    path = _two_turn_cassette(tmp_path)
    one, two = _bodies()
    client = anthropic.Anthropic(api_key="test", max_retries=0)
    with replay(str(path)):
        turn2_first = _texts(client.messages.create(**two))  # type: ignore[arg-type]
        turn1 = [e.type for e in client.messages.create(**one)]  # type: ignore[arg-type]
    assert "In Paris" in "".join(turn2_first)
    assert "content_block_start" in turn1
    # before the fix (path only, repeats allowed) the second request got interaction 0 again
    with replay(str(path)):
        list(client.messages.create(**one))  # type: ignore[arg-type]
        again = _texts(client.messages.create(**two))  # type: ignore[arg-type]
    assert again == turn2_first


def test_replay_plays_an_interaction_once(tmp_path: Path) -> None:
    path = _two_turn_cassette(tmp_path)
    one, _ = _bodies()
    client = anthropic.Anthropic(api_key="test", max_retries=0)
    with replay(str(path)):
        list(client.messages.create(**one))  # type: ignore[arg-type]
        with pytest.raises(anthropic.APIConnectionError) as info:
            client.messages.create(**one)  # type: ignore[arg-type]
    assert "already been played" in str(info.value.__cause__)


def test_replay_names_the_differing_field(tmp_path: Path) -> None:
    path = _two_turn_cassette(tmp_path)
    one, _ = _bodies()
    changed = json.loads(json.dumps(one))
    changed["max_tokens"] = 7
    client = anthropic.Anthropic(api_key="test", max_retries=0)
    with replay(str(path)), pytest.raises(anthropic.APIConnectionError) as info:
        client.messages.create(**changed)  # type: ignore[arg-type]
    assert "body.max_tokens: recorded" in str(info.value.__cause__)


def test_recording_stores_gzip_and_brotli_bodies_decoded(tmp_path: Path) -> None:
    payload = {"ok": True, "text": "caf\u00e9 " * 50}
    raw = json.dumps(payload).encode()
    replies = [
        Reply(
            headers={"content-encoding": "gzip", "content-type": "application/json"},
            chunks=[gzip.compress(raw)],
        ),
        Reply(
            headers={"content-encoding": "br", "content-type": "application/json"},
            chunks=[brotli.compress(raw)],
        ),
    ]
    kit = CassetteKit(tmp_path, record_mode="once")
    with FakeVendor(replies) as fv, kit("compressed.yaml"), httpx2.Client() as http:
        got = [http.post(f"{fv.base_url}/v1/{n}", json={"n": n}).json() for n in ("gz", "br")]
    assert got == [payload, payload]
    doc = yaml.safe_load((tmp_path / "compressed.yaml").read_text("utf-8"))
    for inter in doc["interactions"]:
        headers = {k.lower() for k in inter["response"]["headers"]}
        assert "content-encoding" not in headers
        assert json.loads(inter["response"]["body"]["string"]) == payload
    # and it replays
    with CassetteKit(tmp_path)("compressed.yaml"), httpx2.Client() as http:
        again = [
            http.post(f"http://127.0.0.1:9/v1/{n}", json={"n": n}).json() for n in ("gz", "br")
        ]
    assert again == [payload, payload]


def test_key_query_parameter_is_not_recorded_and_not_matched(tmp_path: Path) -> None:
    key = "AIza" + "Q" * 35
    kit = CassetteKit(tmp_path, record_mode="once")
    with (
        FakeVendor([Reply(chunks=[b'{"candidates": []}'])]) as fv,
        kit("g.yaml"),
        httpx2.Client() as http,
    ):
        http.post(f"{fv.base_url}/v1beta/models/m:generateContent?key={key}", json={"contents": []})
    text = (tmp_path / "g.yaml").read_text("utf-8")
    assert key not in text and "key=" not in text
    with CassetteKit(tmp_path)("g.yaml"), httpx2.Client() as http:
        r = http.post(
            "http://127.0.0.1:9/v1/models/m:generateContent?key=other", json={"contents": []}
        )
    assert r.json() == {"candidates": []}


def test_mode_none_miss_is_raised_at_the_end_of_the_block_even_if_the_agent_swallowed_it(
    tmp_path: Path,
) -> None:
    path = _two_turn_cassette(tmp_path)
    one, _ = _bodies()
    client = anthropic.Anthropic(api_key="test", max_retries=0)
    with pytest.raises(CassetteMiss) as info, CassetteKit(tmp_path)(path.name):
        try:
            client.messages.create(**{**one, "model": "claude-other"})  # type: ignore[arg-type]
        except anthropic.APIConnectionError:
            pass  # an agent that turns failures into RUN_ERROR does this
    assert "body.model: recorded" in str(info.value) and "claude-other" in str(info.value)


# the inner session runs in this process: pytest-asyncio's "loop scope unset" notice would land
# in the outer warning summary, so the inner ini sets it as the project's own does
_INNER_INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"


def _decode(path: Path) -> list[dict[str, object]]:
    res = run_cli("decode", "--from", "anthropic", str(path))
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]


def _expected_types() -> list[str]:
    out: list[str] = []
    for p in (TURN1, TURN2):
        out += [e["type"] for e in _decode(p)]
    return out


def test_toolwire_decode_reads_kit_vcrpy_json_and_pytest_recording_cassettes(
    tmp_path: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replies = replies_from_cassette(TURN1) + replies_from_cassette(TURN2)
    bodies = _bodies()

    def converse(base_url: str) -> None:
        client = anthropic.Anthropic(
            api_key="sk-ant-api03-" + "k" * 40, base_url=base_url, max_retries=0
        )
        for body in bodies:
            list(client.messages.create(**body))  # type: ignore[arg-type]

    expected = _expected_types()
    assert expected.count("RUN_STARTED") == 2
    # the kit's own cassette
    with FakeVendor(replies) as fv, CassetteKit(tmp_path, record_mode="once")("kit.yaml"):
        converse(fv.base_url)
    assert [e["type"] for e in _decode(tmp_path / "kit.yaml")] == expected
    # plain vcrpy, JSON serializer
    with (
        FakeVendor(replies) as fv,
        vcr.VCR(serializer="json").use_cassette(str(tmp_path / "plain.json")),
    ):
        converse(fv.base_url)
    assert [e["type"] for e in _decode(tmp_path / "plain.json")] == expected
    # pytest-recording, its defaults
    pytester.makepyfile(
        test_rec=textwrap.dedent(
            f"""
            import anthropic, pytest
            BODIES = {bodies!r}

            @pytest.mark.vcr
            def test_talk():
                import os
                base = os.environ["BASE"]
                c = anthropic.Anthropic(api_key="x" * 20, base_url=base, max_retries=0)
                for body in BODIES:
                    list(c.messages.create(**body))
            """
        )
    )
    pytester.makeini(_INNER_INI)
    with FakeVendor(replies) as fv:
        monkeypatch.setenv("BASE", fv.base_url)
        result = pytester.runpytest_inprocess("--record-mode=once")
    result.assert_outcomes(passed=1)
    cassette = pytester.path / "cassettes" / "test_rec" / "test_talk.yaml"
    assert [e["type"] for e in _decode(cassette)] == expected


def test_a_refused_write_leaves_no_file_and_a_filter_makes_it_pass(tmp_path: Path) -> None:
    leaked = "sk-proj-" + "L3ak" * 8
    # (a header named for a credential is filtered by name: issue 35; this one is named for
    # nothing, so only the scan finds the key)
    reply = Reply(headers={"x-debug-echo": leaked}, chunks=[b'{"ok": true}'])
    with pytest.raises(SecretInCassette) as info:
        with FakeVendor([reply]) as fv, CassetteKit(tmp_path, record_mode="once")("s.yaml"):
            httpx2.post(f"{fv.base_url}/v1/x", json={})
    assert info.value.findings == [
        "interaction 0: response header x-debug-echo: an OpenAI/Anthropic-style secret key (sk-…)"
    ]
    assert not (tmp_path / "s.yaml").exists()
    # vcrpy's patches are gone: a plain request reaches the server again
    with FakeVendor([Reply(chunks=[b"{}"])]) as fv:
        assert httpx2.post(f"{fv.base_url}/v1/y", json={}).json() == {}
    kit = CassetteKit(tmp_path, record_mode="once")
    with (
        FakeVendor([reply]) as fv,
        kit("s.yaml", filter_response_headers=["X-Debug-Echo"]),
    ):
        httpx2.post(f"{fv.base_url}/v1/x", json={})
    text = (tmp_path / "s.yaml").read_text("utf-8")
    assert leaked not in text and "x-debug-echo" not in text


def test_openai_and_gemini_clients_record_without_their_credentials(tmp_path: Path) -> None:
    import openai
    from google import genai
    from google.genai import types

    openai_key = "sk-proj-" + "0pEnAiK3y" * 4
    google_key = "AIza" + "G00gleK3y0123456789abcdefghijklmnop"[:35]
    chat = replies_from_cassette(
        ROOT / "cassettes" / "openai_chat" / "parallel_three_interleaved.yaml"
    )
    gem = replies_from_cassette(
        ROOT / "cassettes" / "gemini" / "gemini3_parallel_calls_signature.yaml"
    )
    kit = CassetteKit(tmp_path, record_mode="once")
    with FakeVendor(chat + gem[:1]) as fv, kit("both.yaml"):
        oa = openai.OpenAI(
            api_key=openai_key,
            organization="org-T0olwireOrg",
            project="proj_T0olwireProj",
            base_url=fv.base_url + "/v1",
            max_retries=0,
        )
        list(
            oa.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True
            )
        )
        g = genai.Client(api_key=google_key, http_options=types.HttpOptions(base_url=fv.base_url))
        list(g.models.generate_content_stream(model="gemini-3-pro-preview", contents="hi"))
        seen = [r.headers for r in fv.requests]
    assert seen[0]["authorization"] == f"Bearer {openai_key}"
    assert seen[0]["openai-organization"] == "org-T0olwireOrg"
    assert seen[1]["x-goog-api-key"] == google_key
    text = (tmp_path / "both.yaml").read_text("utf-8")
    for secret in (openai_key, google_key, "org-T0olwireOrg", "proj_T0olwireProj"):
        assert secret not in text
    assert len(yaml.safe_load(text)["interactions"]) == 2


async def test_async_with_replays_for_the_async_sdk(tmp_path: Path) -> None:
    path = _two_turn_cassette(tmp_path)
    _, two = _bodies()
    client = anthropic.AsyncAnthropic(api_key="test", max_retries=0)
    async with CassetteKit(tmp_path)(path.name):
        stream = await client.messages.create(**two)  # type: ignore[arg-type]
        texts = [
            e.delta.text
            async for e in stream
            if e.type == "content_block_delta" and e.delta.type == "text_delta"
        ]
    assert "In Paris" in "".join(texts)


def test_new_episodes_adds_a_turn_and_keeps_the_first(tmp_path: Path) -> None:
    one = Reply(chunks=[b'{"turn": 1}'])
    two = Reply(chunks=[b'{"turn": 2}'])
    with FakeVendor([one]) as fv, CassetteKit(tmp_path, record_mode="once")("c.yaml"):
        httpx2.post(f"{fv.base_url}/v1/x", json={"messages": ["a"]})
    with FakeVendor([two]) as fv, CassetteKit(tmp_path, record_mode="new_episodes")("c.yaml"):
        assert httpx2.post(f"{fv.base_url}/v1/x", json={"messages": ["a"]}).json() == {"turn": 1}
        assert httpx2.post(f"{fv.base_url}/v1/x", json={"messages": ["a", "b"]}).json() == {
            "turn": 2
        }
        assert len(fv.requests) == 1  # turn 1 came from the cassette
    with CassetteKit(tmp_path)("c.yaml"), httpx2.Client() as http:
        got = [
            http.post("http://127.0.0.1:9/v1/x", json={"messages": m}).json()
            for m in (["a", "b"], ["a"])
        ]
    assert got == [{"turn": 2}, {"turn": 1}]


def test_pytest_recordings_vcr_config_adds_filters_and_a_record_mode(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def vcr_config():
            return {"record_mode": "once", "filter_headers": ["x-team-token"]}
        """
    )
    pytester.makepyfile(
        test_cfg="""
        import os, httpx2

        def test_call(toolwire_cassette):
            with toolwire_cassette("cfg.yaml"):
                headers = {"x-team-token": "t0k3n-abc"}
                httpx2.post(os.environ["BASE"] + "/v1/x", json={}, headers=headers)
        """
    )
    pytester.makeini(_INNER_INI)
    with FakeVendor([Reply(chunks=[b"{}"])]) as fv:
        monkeypatch.setenv("BASE", fv.base_url)
        result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)
    assert fv.requests[0].headers["x-team-token"] == "t0k3n-abc"
    text = (pytester.path / "cassettes" / "test_cfg" / "cfg.yaml").read_text("utf-8")
    assert "t0k3n-abc" not in text and "x-team-token" not in text


@pytest.mark.parametrize(
    "body",
    [
        b'event: a\ndata: {"t": "caf\xc3\xa9\\tx"}\n\nevent: b\ndata: {}\n\n',
        b"data: 1\r\n\r\ndata: 2\r\n\r\n",
        b"data: trailing blank \n\ndata: x\n\n",
        b"line\n\tindented\n  spaced\nno newline at end",
    ],
)
def test_bodies_stored_as_blocks_replay_byte_for_byte(tmp_path: Path, body: bytes) -> None:
    reply = Reply(headers={"content-type": "text/event-stream"}, chunks=[body])
    with FakeVendor([reply]) as fv, CassetteKit(tmp_path, record_mode="once")("b.yaml"):
        assert httpx2.post(f"{fv.base_url}/v1/s", json={}).content == body
    with CassetteKit(tmp_path)("b.yaml"):
        assert httpx2.post("http://127.0.0.1:9/v1/s", json={}).content == body
