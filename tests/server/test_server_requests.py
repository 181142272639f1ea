"""What the endpoint answers before a stream starts (4xx with a JSON reason) and the agent list."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from _serve import asgi_client, events_of, run_input

from toolwire.server import ConfigError, config_from_mapping, create_app, load_config

HELLO = run_input([{"id": "u1", "role": "user", "content": "hello"}])
JSON = {"content-type": "application/json"}


@pytest.fixture
def app_config() -> dict[str, object]:
    return {
        "agents": [
            {"provider": "replay"},
            {
                "name": "claude",
                "provider": "anthropic",
                "model": "claude-x",
                "key_env": "TW_TEST_KEY",
            },
        ],
        "body_limit": 4096,
    }


async def _post(app: object, path: str, **kw: object) -> httpx.Response:
    async with asgi_client(app) as client:  # type: ignore[arg-type]
        return await client.post(path, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("body", "status", "error", "says"),
    [
        (b"{not json", 400, "not_json", "not JSON"),
        (b"[1, 2]", 422, "not_run_agent_input", "expected an object, got list"),
        (b'{"threadId": "t"}', 422, "not_run_agent_input", "runId"),
        (
            json.dumps({**HELLO, "messages": [{"role": "user"}]}).encode(),
            422,
            "not_run_agent_input",
            "messages",
        ),
        (b"{" + b" " * 5000 + b"}", 413, "too_large", "4096"),
    ],
)
async def test_bad_bodies_are_refused_with_a_reason(
    app_config: dict[str, object], body: bytes, status: int, error: str, says: str
) -> None:
    r = await _post(create_app(app_config), "/agents/replay", content=body, headers=JSON)
    assert r.status_code == status
    assert r.headers["content-type"] == "application/json"
    assert r.json()["error"] == error
    assert says in r.json()["reason"]


async def test_the_body_limit_holds_without_a_content_length(app_config: dict[str, object]) -> None:
    async def pieces() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b" " * 1000

    r = await _post(create_app(app_config), "/agents/replay", content=pieces(), headers=JSON)
    assert r.status_code == 413 and r.json()["error"] == "too_large"


async def test_unknown_agent_and_missing_key(
    app_config: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TW_TEST_KEY", raising=False)
    app = create_app(app_config)
    r = await _post(app, "/agents/nobody", json=HELLO)
    assert r.status_code == 404 and r.json()["error"] == "unknown_agent"
    assert "replay, claude" in r.json()["reason"]
    r = await _post(app, "/agents/claude", json=HELLO)
    assert r.status_code == 409 and r.json()["error"] == "unavailable"
    assert "TW_TEST_KEY is not set" in r.json()["reason"]


async def test_after_the_stream_starts_a_failure_is_run_error(
    app_config: dict[str, object],
) -> None:
    proto = {"accept": "application/vnd.ag-ui.event+proto"}  # not offered: SSE all the same
    r = await _post(create_app(app_config), "/agents/replay", json=HELLO, headers=proto)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    events = events_of(r.text)
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[0]["threadId"] == "t1" and events[0]["runId"] == "r1"
    assert events[1]["code"] == "replay_no_match"


async def test_agents_are_listed(
    app_config: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TW_TEST_KEY", "sk-ant-never-shown-3141")
    async with asgi_client(create_app(app_config)) as client:
        listed = (await client.get("/agents")).json()
        page = await client.get("/inspector/config.json")
    assert [(a["name"], a["provider"], a["model"], a["available"]) for a in listed] == [
        ("replay", "replay", "recorded", True),
        ("claude", "anthropic", "claude-x", True),
    ]
    agents = page.json()["agents"]
    assert [(a["id"], a["url"]) for a in agents] == [
        ("replay", "../agents/replay"),
        ("claude", "../agents/claude"),
    ]
    assert "sk-ant-never-shown-3141" not in json.dumps(listed) + page.text
    # the page offers what the replay agent can answer; a real model needs no such list
    assert "preset" not in agents[1]
    offered = agents[0]["preset"]["quickMessages"]
    assert offered and len(set(offered)) == len(offered)


async def test_the_page_offers_the_recorded_first_prompts_that_play(tmp_path: Path) -> None:
    """The first user message of each recorded conversation: offered when, sent alone, it
    plays; a recording whose opening turn also holds a system prompt is not offered."""
    from toolwire.server._replay import index_recordings

    own = Path(__file__).resolve().parents[2] / "cassettes" / "anthropic"
    folder = tmp_path / "anthropic"
    folder.mkdir()
    frontend = own / "frontend_tool_conversation.yaml"
    (folder / frontend.name).write_bytes(frontend.read_bytes())
    question = index_recordings([folder])[0].exchange.request_body["messages"][0]["content"]
    with_system = frontend.read_text().replace(
        '"messages":[{"role":"user","content":"Please',
        '"system":"Be brief.","messages":[{"role":"user","content":"Not offered. Please',
    )
    (folder / "with_system.yaml").write_text(with_system)
    config = {"agents": [{"name": "replay", "provider": "replay", "cassettes": [str(folder)]}]}
    async with asgi_client(create_app(config)) as client:
        page = (await client.get("/inspector/config.json")).json()
    assert page["agents"][0]["preset"]["quickMessages"] == [question]


async def test_the_page_is_served_and_home_redirects() -> None:
    async with asgi_client(create_app()) as client:
        home = await client.get("/", follow_redirects=False)
        page = await client.get("/inspector/")
        script = await client.get("/inspector/app.js")
    assert home.status_code == 307 and home.headers["location"] == "/inspector/"
    assert page.status_code == 200 and '<div id="root">' in page.text
    assert script.status_code == 200 and len(script.content) > 100_000


async def test_the_app_mounts_under_a_prefix() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    host = Starlette(routes=[Mount("/ai", app=create_app())])
    async with asgi_client(host) as client:
        listed = await client.get("/ai/agents")
        home = await client.get("/ai/", follow_redirects=False)
        r = await client.post("/ai/agents/replay", json=HELLO)
    assert listed.json()[0]["name"] == "replay"
    assert home.headers["location"] == "/ai/inspector/"
    assert events_of(r.text)[0]["type"] == "RUN_STARTED"


def test_config_errors_name_the_field(tmp_path: Path) -> None:
    bad = [
        ({"agents": [{"provider": "acme"}]}, "agents[0].provider"),
        ({"agents": [{"provider": "replay", "modle": "x"}]}, "agents[0].modle"),
        ({"agents": [{"provider": "replay"}, {"provider": "replay"}]}, "two agents"),
        ({"body_limit": -1}, "body_limit"),
        ({"agents": [{"provider": "replay", "cassettes": [str(tmp_path)]}]}, "no recorded request"),
    ]
    for raw, says in bad:
        with pytest.raises(ConfigError, match=r"config: .*") as info:
            create_app(raw)
        assert says in str(info.value)
    toml = tmp_path / "serve.toml"
    toml.write_text(
        '[[agents]]\nname = "claude"\nprovider = "anthropic"\nmodel = "claude-sonnet-4-5"\n'
        "params = { max_tokens = 1024 }\n"
    )
    cfg = load_config(toml)
    assert cfg.agents[0].params == {"max_tokens": 1024}
    assert cfg == config_from_mapping(
        {
            "agents": [
                {
                    "name": "claude",
                    "provider": "anthropic",
                    "model": "claude-sonnet-4-5",
                    "params": {"max_tokens": 1024},
                }
            ]
        }
    )
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_config(tmp_path / "bad.json")


def test_import_toolwire_imports_no_server_part() -> None:
    code = (
        "import sys, toolwire, toolwire.cli\n"
        "parts = ('starlette', 'uvicorn', 'agui_inspector', 'toolwire.server')\n"
        "bad = [m for m in parts if m in sys.modules]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


#: a body large enough to take the event loop a while to read (every body is parsed in a
#: worker thread; this size is where a parse on the loop would show)
THREADED_BODY = 64 * 1024


@pytest.mark.parametrize(
    ("body", "status", "error", "says"),
    [
        (b"{not json" + b" " * 70_000, 400, "not_json", "not JSON"),
        (b"[1, 2" + b" " * 70_000 + b"]", 422, "not_run_agent_input", "got list"),
    ],
)
async def test_a_large_body_read_in_a_thread_is_refused_the_same_way(
    body: bytes, status: int, error: str, says: str
) -> None:
    assert len(body) >= THREADED_BODY
    r = await _post(
        create_app({"agents": [{"provider": "replay"}]}),
        "/agents/replay",
        content=body,
        headers={"content-type": "application/json"},
    )
    assert (r.status_code, r.json()["error"]) == (status, error)
    assert says in r.json()["reason"]


async def test_a_large_run_input_runs_as_a_small_one() -> None:
    app = create_app({"agents": [{"provider": "replay"}]})
    padding = [
        {"id": f"p{i}", "role": "user", "content": "x" * 1000} for i in range(THREADED_BODY // 900)
    ]
    big = {**HELLO, "messages": [*padding, *HELLO["messages"]]}  # type: ignore[list-item]
    assert len(json.dumps(big)) >= THREADED_BODY
    async with asgi_client(app) as client:
        small_r = await client.post("/agents/replay", json=HELLO)
        big_r = await client.post("/agents/replay", json=big)
    small, large = events_of(small_r.text), events_of(big_r.text)
    assert big_r.status_code == small_r.status_code == 200
    assert large[0]["type"] == "RUN_STARTED"
    assert large[-1]["type"] == small[-1]["type"]
