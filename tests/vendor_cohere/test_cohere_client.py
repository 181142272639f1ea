"""``adapters/cohere/client.py`` and ``toolwire.run`` / ``arun`` over the real ``cohere``
clients and a fake ``/v2/chat`` on 127.0.0.1: the SDK's retries off (the driver's policy
answers a 429), its errors with their status, the key a secret never in an event."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import cohere
import pytest
from _cohere_support import close, load, summarize
from ag_ui.core import EventType

import toolwire
from toolwire import adapters
from toolwire.adapters.cohere.client import CLIENT
from toolwire.adapters.contract import VendorClient
from toolwire.protocol.machine import StreamMachine
from toolwire.testing.fake_vendor import FakeVendor, Reply

SSE = {"content-type": "text/event-stream"}
KEY = "cohereFAKEkey0123456789abcdefABCDEFGHIJ"
LIMITED = Reply(
    status=429, headers={"content-type": "application/json"}, chunks=[b'{"message":"slow down"}']
)
FAST = toolwire.RetryPolicy(attempts=3, initial_backoff=0.01, max_backoff=0.02)


def _input(name: str) -> dict[str, Any]:
    request, _ = load(name)
    run = adapters.get("cohere").decode_request(request, thread_id="t", run_id="r")
    return run.model_dump(mode="json", by_alias=True)


def _valid(events: list[Any]) -> None:
    machine = StreamMachine()
    for ev in events:
        machine.feed(ev)
    machine.end_input()


def test_it_is_a_vendor_client_the_registry_hands_out() -> None:
    client: VendorClient = adapters.client("cohere")
    assert client is CLIENT and "cohere" in adapters.model_names()
    sync, async_ = cohere.ClientV2(api_key="k"), cohere.AsyncClientV2(api_key="k")
    assert CLIENT.claims(sync, None) and CLIENT.is_async(async_) and not CLIENT.is_async(sync)
    close(sync)
    asyncio.run(CLIENT.aclose(async_))
    assert not CLIENT.claims(object(), None)


def test_the_sdk_s_own_retries_are_off_for_the_call() -> None:
    request, _ = load("max_tokens.yaml")
    with FakeVendor([LIMITED, LIMITED]) as vendor:
        client = cohere.ClientV2(api_key=KEY, base_url=vendor.base_url)
        with pytest.raises(cohere.errors.TooManyRequestsError) as caught:
            list(CLIENT.stream(client, request))
        close(client)
        assert len(vendor.requests) == 1  # the SDK alone would have tried twice more
    assert caught.value.status_code == 429


def test_a_sync_run_retries_by_the_driver_s_policy_and_keeps_the_ids() -> None:
    _, body = load("parallel_three_calls.yaml")
    with FakeVendor([LIMITED, Reply(headers=SSE, chunks=[body[:90], body[90:]])]) as vendor:
        client = cohere.ClientV2(api_key=KEY, base_url=vendor.base_url)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            events = list(
                toolwire.run(
                    client,
                    _input("parallel_three_calls.yaml"),
                    model="command-a-03-2025",
                    retry=FAST,
                )
            )
        seen = vendor.requests
    assert len(seen) == 2 and seen[1].headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(seen[1].body)["stream"] is True
    _valid(events)
    assert events[-1].type == EventType.RUN_FINISHED
    assert [c for c, _, _ in summarize(events).calls] == [
        "get_weather_k2n8x1qa7b4c",
        "get_weather_p0d4w7rm9d2e",
        "get_time_t5v3c9zb1f6g",
    ]
    assert KEY not in "".join(e.model_dump_json() for e in events)


def test_an_async_run_and_an_error_finish_is_run_error() -> None:
    _, body = load("in_stream_error.yaml")

    async def go(url: str) -> list[Any]:
        client = cohere.AsyncClientV2(api_key=KEY, base_url=url)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return [
                    e
                    async for e in toolwire.arun(
                        client,
                        _input("in_stream_error.yaml"),
                        model="command-a-03-2025",
                        retry=FAST,
                    )
                ]
        finally:
            await CLIENT.aclose(client)

    with FakeVendor([Reply(headers=SSE, chunks=[body])]) as vendor:
        events = asyncio.run(go(vendor.base_url))
    assert events[-1].type == EventType.RUN_ERROR
    assert "internal server error" in events[-1].message


def test_the_key_is_found_as_a_secret() -> None:
    client = CLIENT.make_client(api_key=KEY, base_url="http://127.0.0.1:9")
    assert CLIENT.secrets(client) == [KEY]
    asyncio.run(CLIENT.aclose(client))
