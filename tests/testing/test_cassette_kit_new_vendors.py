"""The cassette kit on the adapters added on the registry (ollama, mistral, cohere): a call
through each vendor's real SDK, recorded with ``make_vcr("all")`` against a fake vendor on
127.0.0.1, leaves a cassette that holds the exchange but not the key (the header each
``CLIENT`` names as secret is filtered), and replays to the same chunks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolwire import adapters
from toolwire.testing import make_vcr
from toolwire.testing.fake_vendor import FakeVendor, Reply
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
KEY = "kitFAKEkey0123456789abcdefABCDEFGH"


def _ollama(url: str) -> list[Any]:
    import ollama

    client = ollama.Client(host=url, headers={"authorization": f"Bearer {KEY}"})
    return [p.message.content for p in client.chat(model="m", messages=[], stream=True)]


def _mistral(url: str) -> list[Any]:
    from mistralai.client import Mistral

    client = Mistral(api_key=KEY, server_url=url)
    with client.chat.stream(model="m", messages=[{"role": "user", "content": "hi"}]) as s:
        return [c.delta.content for e in s for c in e.data.choices]


def _cohere(url: str) -> list[Any]:
    import cohere

    client = cohere.ClientV2(api_key=KEY, base_url=url)
    return [
        e.type for e in client.chat_stream(model="m", messages=[{"role": "user", "content": "hi"}])
    ]


CASES: dict[str, tuple[str, str, Callable[[str], list[Any]]]] = {
    "ollama": ("parallel_three_calls.yaml", "application/x-ndjson", _ollama),
    "mistral": ("parallel_three_calls.yaml", "text/event-stream", _mistral),
    "cohere": ("parallel_three_calls.yaml", "text/event-stream", _cohere),
}


@pytest.mark.parametrize("vendor", sorted(CASES))
def test_a_recorded_call_keeps_the_exchange_and_drops_the_key(vendor: str, tmp_path: Path) -> None:
    name, ctype, call = CASES[vendor]
    body = recording(ROOT / "cassettes" / vendor / name)[0].response_body
    assert set(adapters.client(vendor).secret_headers) >= {"authorization"}
    out = tmp_path / f"{vendor}.yaml"
    with FakeVendor([Reply(headers={"content-type": ctype}, chunks=[body])]) as fake:
        with make_vcr("all").use_cassette(str(out)):
            live = call(fake.base_url)
        assert any(KEY in v for v in fake.requests[0].headers.values())  # it was sent
    text = out.read_text("utf-8")
    assert KEY not in text and KEY[-12:] not in text
    (ex,) = recording(out)
    assert list(adapters.get(vendor).FRAMING.read(ex.response_body)) == list(
        adapters.get(vendor).FRAMING.read(body)
    )
    with make_vcr("none").use_cassette(str(out)):
        assert call("http://127.0.0.1:9") == live  # replayed, no server there
