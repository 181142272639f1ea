"""``toolwire.run`` / ``toolwire.arun`` over the real ``ollama`` clients and a fake
``/api/chat`` on 127.0.0.1: the registry picks the adapter from the client, the driver's
retry policy answers a 503 (the SDK has none), the key never reaches an event."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import ollama
from _ollama_support import load, summarize
from ag_ui.core import EventType

import toolwire
from toolwire import adapters
from toolwire.protocol.machine import StreamMachine
from toolwire.testing.fake_vendor import FakeVendor, Reply

NDJSON = {"content-type": "application/x-ndjson"}
KEY = "ollama-FAKE-key-0123456789abcdef"
BUSY = Reply(status=503, headers={"content-type": "application/json"}, chunks=[b'{"error":"busy"}'])
FAST = toolwire.RetryPolicy(attempts=3, initial_backoff=0.01, max_backoff=0.02)


def _input(name: str) -> dict[str, Any]:
    request, _ = load(name)
    run = adapters.get("ollama").decode_request(request, thread_id="t", run_id="r")
    return run.model_dump(mode="json", by_alias=True)


def _valid(events: list[Any]) -> None:
    machine = StreamMachine()
    for ev in events:
        machine.feed(ev)
    machine.end_input()


def test_the_registry_takes_an_ollama_client() -> None:
    assert "ollama" in adapters.model_names()
    assert adapters.client("ollama").claims(ollama.Client(), None)


def test_a_run_over_the_sync_client_retries_a_503_and_keeps_the_server_s_ids() -> None:
    _, body = load("parallel_three_calls.yaml")
    served = Reply(headers=NDJSON, chunks=[body[:50], body[50:]])
    with FakeVendor([BUSY, served]) as vendor:
        client = ollama.Client(host=vendor.base_url, headers={"authorization": f"Bearer {KEY}"})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            events = list(
                toolwire.run(
                    client, _input("parallel_three_calls.yaml"), model="qwen3:8b", retry=FAST
                )
            )
        seen = vendor.requests
    assert [r.outcome for r in seen] == ["complete", "complete"]
    sent = json.loads(seen[1].body)
    assert sent["model"] == "qwen3:8b" and sent["stream"] is True
    assert seen[1].headers["authorization"] == f"Bearer {KEY}"
    _valid(events)
    assert events[-1].type == EventType.RUN_FINISHED
    assert [c for c, _, _ in summarize(events).calls] == [
        "call_k2n8x1qa",
        "call_p0d4w7rm",
        "call_t5v3c9zb",
    ]
    assert KEY not in "".join(e.model_dump_json() for e in events)


def test_a_run_over_the_async_client_and_a_cut_stream_is_run_error() -> None:
    _, body = load("truncated.yaml")

    async def go(url: str) -> list[Any]:
        client = ollama.AsyncClient(host=url)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [
                e async for e in toolwire.arun(client, _input("truncated.yaml"), model="llama3.2")
            ]

    with FakeVendor([Reply(headers=NDJSON, chunks=[body])]) as vendor:
        events = asyncio.run(go(vendor.base_url))
    assert events[-1].type == EventType.RUN_ERROR and events[-1].code == "truncated"
    _valid(events)


def test_a_refused_request_is_run_error_with_the_server_s_words_and_no_retry() -> None:
    refused = Reply(
        status=404,
        headers={"content-type": "application/json"},
        chunks=[b'{"error":"model \\"nope\\" not found, try pulling it first"}'],
    )
    with FakeVendor([refused]) as vendor:
        client = ollama.Client(host=vendor.base_url)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            events = list(toolwire.run(client, _input("length.yaml"), model="nope", retry=FAST))
        assert len(vendor.requests) == 1
    assert events[-1].type == EventType.RUN_ERROR
    assert "not found" in events[-1].message
