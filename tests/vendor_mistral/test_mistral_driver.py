"""``toolwire.run`` / ``toolwire.arun`` over the real ``Mistral`` client and a fake
``/v1/chat/completions`` on 127.0.0.1, for what the shared driver tests (tests/driver, which
run every model adapter: retries, errors, keys, cancel, deadline) do not hold: a reasoning
turn over the async side."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

from _mistral_support import load, summarize
from mistralai.client import Mistral

import toolwire
from toolwire import adapters
from toolwire.protocol.machine import StreamMachine
from toolwire.testing.fake_vendor import FakeVendor, Reply

SSE = {"content-type": "text/event-stream"}
KEY = "mistralFAKEkey0123456789abcdefABC"


def _input(name: str) -> dict[str, Any]:
    request, _ = load(name)
    run = adapters.get("mistral").decode_request(request, thread_id="t", run_id="r")
    return run.model_dump(mode="json", by_alias=True)


def _valid(events: list[Any]) -> None:
    machine = StreamMachine()
    for ev in events:
        machine.feed(ev)
    machine.end_input()


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
