"""``toolwire.run`` / ``toolwire.arun`` over the real ``ollama`` clients and a fake
``/api/chat`` on 127.0.0.1, for what the shared driver tests (tests/driver, which run every
model adapter: retries, errors, keys, cancel, deadline) do not hold: a recorded turn the
server cut short."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import ollama
from _ollama_support import load
from ag_ui.core import EventType

import toolwire
from toolwire import adapters
from toolwire.protocol.machine import StreamMachine
from toolwire.testing.fake_vendor import FakeVendor, Reply

NDJSON = {"content-type": "application/x-ndjson"}


def _input(name: str) -> dict[str, Any]:
    request, _ = load(name)
    run = adapters.get("ollama").decode_request(request, thread_id="t", run_id="r")
    return run.model_dump(mode="json", by_alias=True)


def _valid(events: list[Any]) -> None:
    machine = StreamMachine()
    for ev in events:
        machine.feed(ev)
    machine.end_input()


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
