"""``toolwire serve --provider`` for the adapters added on the registry (ollama, mistral, cohere):
the server builds the vendor's own async client from ``CLIENT.make_client``, streams a turn
from a fake vendor on 127.0.0.1 and sends a valid AG-UI run; the key stays in the server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from _serve import CASSETTES, asgi_client, events_of, run_input

from toolwire.protocol.machine import StreamMachine
from toolwire.server import create_app
from toolwire.testing.calls import calls_from_events
from toolwire.testing.fake_vendor import FakeVendor, Reply
from toolwire.testing.recording_cache import recording

KEY_ENV = "TW_FAKE_NEW_VENDOR_KEY"
KEY = "newvendorFAKEkey0123456789abcdef"
CASES = {
    "ollama": (CASSETTES / "ollama" / "parallel_three_calls.yaml", "application/x-ndjson"),
    "mistral": (CASSETTES / "mistral" / "parallel_three_calls.yaml", "text/event-stream"),
    "cohere": (CASSETTES / "cohere" / "parallel_three_calls.yaml", "text/event-stream"),
}


@pytest.fixture(autouse=True)
def fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def _reply(path: Path, ctype: str) -> tuple[Reply, bytes]:
    body = recording(path)[0].response_body
    return Reply(headers={"content-type": ctype}, chunks=[body[:64], body[64:]]), body


@pytest.mark.parametrize("provider", sorted(CASES))
async def test_a_provider_agent_streams_a_valid_run_with_the_vendor_s_calls(provider: str) -> None:
    path, ctype = CASES[provider]
    reply, _ = _reply(path, ctype)
    with FakeVendor([reply]) as vendor:
        agent = {"provider": provider, "base_url": vendor.base_url, "key_env": KEY_ENV}
        app = create_app({"agents": [agent]})
        async with asgi_client(app) as client:
            listed = await client.get("/agents")
            r = await client.post(
                f"/agents/{provider}",
                json=run_input([{"id": "u1", "role": "user", "content": "Weather?"}]),
                timeout=httpx.Timeout(30),
            )
        seen = vendor.requests
    assert r.status_code == 200
    events = events_of(r.text)
    machine = StreamMachine()
    for ev in events:
        machine.feed(ev)
    machine.end_input()
    assert events[-1]["type"] == "RUN_FINISHED"
    calls = [(c.name, json.loads(c.arguments)) for c in calls_from_events(events)]
    assert calls == [
        ("get_weather", {"city": "Oslo"}),
        ("get_weather", {"city": "Lima"}),
        ("get_time", {"city": "Oslo"}),
    ]
    assert seen[0].headers["authorization"] == f"Bearer {KEY}"
    sent: dict[str, Any] = json.loads(seen[0].body)
    assert sent["messages"][-1]["content"] == "Weather?"
    assert KEY not in listed.text + r.text
