"""An adapter package outside toolwire, declared under the ``toolwire.adapters`` entry point,
works everywhere a built-in does, with no file of toolwire edited.

The plugin is a copy of the built-in OpenAI Chat adapter under a new name (``acme_chat``),
written to a temporary folder with its distribution metadata (``*.dist-info`` with
``entry_points.txt``) and put on ``sys.path``: what ``pip install`` leaves behind. The
registry finds it through ``importlib.metadata``; ``adapters.get``, the four translation
commands, ``toolwire.run(..., vendor=)`` over a fake vendor and ``toolwire serve`` with the
plugin as provider are checked against what the built-in gives for the same input. A
broken plugin is an ``AdapterPluginError`` naming it, and the built-ins still work.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

import toolwire
from toolwire import adapters, cli
from toolwire.errors import AdapterPluginError, UnsupportedInput
from toolwire.server import create_app
from toolwire.testing.contract import check_adapter
from toolwire.testing.fake_vendor import FakeVendor, replies_from_cassette

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = ROOT / "src" / "toolwire" / "adapters" / "openai_chat"
CASSETTE = ROOT / "cassettes" / "openai_chat" / "parallel_three_interleaved.yaml"
NAME = "acme_chat"
KEY_ENV = "TW_PLUGIN_TEST_KEY"
KEY = "sk-plugin-test-0123456789abcdef"


def _write_dist(site: Path, dist: str, entry_points: dict[str, str]) -> None:
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[toolwire.adapters]\n{lines}")


def copy_adapter(site: Path, source: Path, name: str) -> None:
    """The built-in package under a new name: its vendor word and its self-imports renamed."""
    shutil.copytree(source, site / name, ignore=shutil.ignore_patterns("__pycache__"))
    old = source.name
    for path in (site / name).rglob("*"):
        if path.suffix not in (".py", ".json"):
            continue
        text = path.read_text(encoding="utf-8")
        text = text.replace(f"from toolwire.adapters import {old} as", f"import {name} as")
        text = text.replace(f"toolwire.adapters.{old}", name).replace(f'"{old}"', f'"{name}"')
        path.write_text(text, encoding="utf-8")


def _forget(prefix: str) -> None:
    for mod in [m for m in sys.modules if m == prefix or m.startswith(prefix + ".")]:
        del sys.modules[mod]


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    site = tmp_path / "site-packages"
    site.mkdir()
    copy_adapter(site, BUILT_IN, NAME)
    _write_dist(site, "acme_toolwire_chat", {NAME: NAME})
    monkeypatch.syspath_prepend(str(site))
    adapters.refresh()
    try:
        yield NAME
    finally:
        _forget(NAME)
        monkeypatch.undo()
        adapters.refresh()


def test_the_copy_edits_no_file_of_toolwire(plugin: str) -> None:
    module = adapters.get(plugin)
    assert Path(module.__file__ or "").resolve().parent.name == NAME
    assert not Path(module.__file__ or "").resolve().is_relative_to(ROOT / "src")


def test_the_registry_finds_and_checks_the_plugin(plugin: str) -> None:
    module = adapters.get(plugin)
    found = adapters.entry(plugin)
    assert (found.kind, found.builtin, found.package) == ("model", False, NAME)
    assert adapters.contract_gaps(module, "model") == []  # type: ignore[arg-type]
    assert plugin in adapters.names() and plugin in adapters.model_names()
    assert adapters.names()[: len(adapters.NAMES)] == adapters.NAMES  # built-ins first
    assert module.Decoder.vendor == plugin  # type: ignore[attr-defined]
    assert adapters.client(plugin) is module.CLIENT  # type: ignore[attr-defined]
    assert adapters.get(plugin.upper().replace("_", "-")) is module
    assert check_adapter(plugin) == []  # the check a plugin author runs on their package


def test_its_capability_rows_ship_in_its_package(plugin: str) -> None:
    from toolwire import capabilities

    assert plugin in capabilities.targets()
    assert capabilities.table(plugin)["families"] == capabilities.table("openai_chat")["families"]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


RUN_INPUT = {
    "threadId": "t1",
    "runId": "r1",
    "messages": [
        {"id": "u1", "role": "user", "content": "Weather in Paris?"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "call_1", "content": "sunny"},
    ],
    "tools": [{"name": "get_weather", "description": "Weather.", "parameters": {"type": "object"}}],
    "context": [],
    "state": {},
    "forwardedProps": {},
}


def _turn(jsonl: str) -> list[tuple[str, Any]]:
    """Each event's type and what it carries, without ids and vendor-prefixed metadata."""
    out = []
    for line in jsonl.splitlines():
        ev = json.loads(line)
        kept = ev.get("delta", ev.get("toolCallName", ev.get("content")))
        out.append((ev["type"], kept))
    return out


def test_the_four_translation_commands_take_the_plugin(
    plugin: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "input.json"
    source.write_text(json.dumps(RUN_INPUT))
    mine = _cli(capsys, "encode-request", "--to", plugin, "--model", "m", str(source))
    theirs = _cli(capsys, "encode-request", "--to", "openai_chat", "--model", "m", str(source))
    assert json.loads(mine) == json.loads(theirs)
    assert [m["role"] for m in json.loads(mine)["messages"]] == ["user", "assistant", "tool"]

    body = tmp_path / "body.json"
    body.write_text(mine)
    back = json.loads(_cli(capsys, "decode-request", "--from", plugin, str(body)))
    assert back["messages"][0]["content"] == "Weather in Paris?"
    assert back["messages"][1]["toolCalls"][0]["function"]["name"] == "get_weather"

    decoded = _cli(capsys, "decode", "--from", plugin, str(CASSETTE))
    same = _cli(capsys, "decode", "--from", "openai_chat", str(CASSETTE))
    assert _turn(decoded) == _turn(same)  # the minted ids name the vendor: the rest is equal
    assert "TOOL_CALL_ARGS" in [t for t, _ in _turn(decoded)]
    events = tmp_path / "events.jsonl"
    events.write_text(decoded)
    encoded = _cli(capsys, "encode", "--to", plugin, str(events))
    assert encoded == _cli(capsys, "encode", "--to", "openai_chat", str(events))
    assert encoded.rstrip().endswith("data: [DONE]")


def _run_over_fake_vendor(vendor: str) -> tuple[list[str], dict[str, Any]]:
    with FakeVendor(replies_from_cassette(CASSETTE)[:1]) as fake:
        client = openai.OpenAI(api_key=KEY, base_url=fake.base_url, max_retries=0)
        try:
            events = list(toolwire.run(client, RUN_INPUT, model="gpt-4.1", vendor=vendor))
        finally:
            client.close()
        sent = json.loads(fake.requests[0].body)
    return [e.type.value for e in events], sent


def test_toolwire_run_drives_the_plugin(plugin: str) -> None:
    types, sent = _run_over_fake_vendor(plugin)
    assert (types, sent) == _run_over_fake_vendor("openai_chat")
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert "TOOL_CALL_START" in types


async def _serve(provider: str) -> tuple[list[str], str]:
    with FakeVendor(replies_from_cassette(CASSETTE)[:1]) as fake:
        agent = {"provider": provider, "base_url": fake.base_url, "key_env": KEY_ENV}
        app = create_app({"agents": [agent]})
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            r = await http.post(f"/agents/{provider}", json=RUN_INPUT)
        path = fake.requests[0].path
    types = [json.loads(line[5:])["type"] for line in r.text.splitlines() if line[:5] == "data:"]
    return types, path


async def test_toolwire_serve_takes_the_plugin_as_provider(
    plugin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    types, path = await _serve(plugin)
    assert (types, path) == await _serve("openai_chat")
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert path.endswith("/chat/completions")


def test_the_serve_command_takes_the_plugin_as_provider(
    plugin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``toolwire serve --provider acme_chat``: the app it would serve has that agent."""
    import toolwire.server

    served: list[Any] = []
    monkeypatch.setattr(toolwire.server, "serve", lambda app, *a: served.append(app), raising=False)
    assert cli.main(["serve", "--provider", plugin]) == 0, capsys.readouterr().err
    (app,) = served
    agents = [(a.name, a.provider) for a in app.state.toolwire.config.agents]
    assert agents == [(plugin, plugin)]


def test_the_cassette_kit_takes_the_plugin_s_secrets(plugin: str, tmp_path: Path) -> None:
    """Its account header, key variable and key shape (given to the copy here) are filtered
    by a cassette kit imported where the plugin is installed (a fresh interpreter)."""
    client_py = tmp_path / "site-packages" / NAME / "client.py"
    text = client_py.read_text(encoding="utf-8")
    text = text.replace('"openai-project"}', '"openai-project", "x-acme-account"}')
    text = text.replace('key_env = ("OPENAI_API_KEY",)', 'key_env = ("ACME_API_KEY",)')
    text = text.replace(
        "key_shapes = (", 'key_shapes = (("an Acme key (acme-…)", r"acme-[0-9a-f]{24}"),'
    )
    client_py.write_text(text, encoding="utf-8")
    code = (
        "from toolwire.testing import cassettes, secrets\n"
        "print('x-acme-account' in secrets.REQUEST_HEADERS, 'x-acme-account' in "
        "secrets.RESPONSE_HEADERS, ('ACME_API_KEY',) in cassettes.KEY_VARIABLES)\n"
        "print(secrets._shape('acme-0123456789abcdef01234567'))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path / "site-packages"), *sys.path]),
    }
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == "True True True"
    assert second == "an Acme key (acme-…)"


# ------------------------------------------------------------------ broken plugins


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "half_adapter").mkdir()
    (site / "half_adapter" / "__init__.py").write_text("Decoder = object\n")
    (site / "raising_adapter").mkdir()
    (site / "raising_adapter" / "__init__.py").write_text("raise RuntimeError('boom')\n")
    _write_dist(
        site,
        "broken_plugins",
        {
            "missing": "no_such_package_anywhere",
            "half": "half_adapter",
            "raising": "raising_adapter",
            "anthropic": "half_adapter",  # a built-in's name: the built-in wins
        },
    )
    monkeypatch.syspath_prepend(str(site))
    adapters.refresh()
    try:
        yield site
    finally:
        for name in ("half_adapter", "raising_adapter"):
            _forget(name)
        monkeypatch.undo()
        adapters.refresh()


def test_a_broken_plugin_is_an_error_naming_it_and_the_built_ins_still_work(broken: Path) -> None:
    with pytest.raises(AdapterPluginError, match=r"'missing'.*no_such_package_anywhere"):
        adapters.get("missing")
    with pytest.raises(AdapterPluginError, match=r"'raising'.*RuntimeError: boom"):
        adapters.get("raising")
    with pytest.raises(AdapterPluginError, match=r"'half'.*lacks Encoder") as caught:
        adapters.get("half")
    assert isinstance(caught.value, UnsupportedInput) and caught.value.name == "half"
    assert set(adapters.broken()) == {"missing", "raising", "half", "anthropic"}
    assert adapters.names() == adapters.NAMES
    assert adapters.get("anthropic").__name__ == "toolwire.adapters.anthropic"
    assert adapters.model_names() == tuple(n for n, k in adapters.BUILTINS.items() if k == "model")


def test_the_cli_names_the_broken_plugin_in_one_line(
    broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "input.json"
    source.write_text(json.dumps(RUN_INPUT))
    code = cli.main(["encode-request", "--to", "half", "--model", "m", str(source)])
    out, err = capsys.readouterr()
    assert code != 0 and out == ""
    assert "adapter plugin 'half'" in err and len(err.strip().splitlines()) == 1
    assert _cli(capsys, "encode-request", "--to", "openai_chat", "--model", "m", str(source))
