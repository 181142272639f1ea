"""``toolwire.run`` / ``toolwire.arun`` over the real ``Mistral`` client and a fake
``/v1/chat/completions`` on 127.0.0.1: the registry picks the adapter, the driver's retry
policy (not the SDK's) answers a 429, the key never reaches an event."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

from _mistral_support import load, summarize
from ag_ui.core import EventType
from mistralai.client import Mistral

import toolwire
from toolwire import adapters
from toolwire.protocol.machine import StreamMachine
from toolwire.testing.fake_vendor import FakeVendor, Reply

SSE = {"content-type": "text/event-stream"}
KEY = "mistralFAKEkey0123456789abcdefABC"
LIMITED = Reply(
    status=429,
    headers={"content-type": "application/json"},
    chunks=[b'{"object":"error","message":"Requests rate limit exceeded","type":"rate_limited"}'],
)
FAST = toolwire.RetryPolicy(attempts=3, initial_backoff=0.01, max_backoff=0.02)


def _input(name: str) -> dict[str, Any]:
    request, _ = load(name)
    run = adapters.get("mistral").decode_request(request, thread_id="t", run_id="r")
    return run.model_dump(mode="json", by_alias=True)


def _valid(events: list[Any]) -> None:
    machine = StreamMachine()
    for ev in events:
        machine.feed(ev)
    machine.end_input()


def test_a_sync_run_retries_a_429_once_and_decodes_the_turn() -> None:
    _, body = load("parallel_three_calls.yaml")
    with FakeVendor([LIMITED, Reply(headers=SSE, chunks=[body])]) as vendor:
        client = Mistral(api_key=KEY, server_url=vendor.base_url)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            events = list(
                toolwire.run(
                    client,
                    _input("parallel_three_calls.yaml"),
                    model="mistral-large-latest",
                    retry=FAST,
                )
            )
        seen = vendor.requests
    assert len(seen) == 2 and seen[1].headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(seen[1].body)["model"] == "mistral-large-latest"
    _valid(events)
    assert events[-1].type == EventType.RUN_FINISHED
    assert [c for c, _, _ in summarize(events).calls] == ["K2n8x1qAb", "P0d4w7rMc", "T5v3c9zBd"]
    assert KEY not in "".join(e.model_dump_json() for e in events)


def test_an_async_run_over_the_same_client() -> None:
    _, body = load("magistral_thinking.yaml")

    async def go(url: str) -> list[Any]:
        client = Mistral(api_key=KEY, server_url=url)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [
                e
                async for e in toolwire.arun(
                    client, _input("magistral_thinking.yaml"), model="magistral-medium-latest"
                )
            ]

    with FakeVendor([Reply(headers=SSE, chunks=[body])]) as vendor:
        events = asyncio.run(go(vendor.base_url))
    _valid(events)
    seen = summarize(events)
    assert seen.thinking == "221 = 13 × 17." and seen.text == "No: 221 = 13 × 17."
