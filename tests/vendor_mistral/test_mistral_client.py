"""``adapters/mistral/client.py`` over the real ``mistralai`` SDK and a fake
``/v1/chat/completions`` on 127.0.0.1: a streamed turn sync and async, the SDK's retries
off (one request for a 503), its errors with their status, the key a secret."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from _mistral_support import load, summarize
from mistralai.client import Mistral
from mistralai.client.errors import SDKError
from mistralai.client.utils import BackoffStrategy, RetryConfig

from toolwire import clients
from toolwire.adapters import mistral as adapter
from toolwire.adapters.contract import VendorClient
from toolwire.adapters.mistral.client import CLIENT
from toolwire.protocol.pushed import Piece
from toolwire.testing.fake_vendor import FakeVendor, Reply

SSE = {"content-type": "text/event-stream"}


def test_it_is_a_vendor_client() -> None:
    client: VendorClient = CLIENT
    assert client.extras == ("mistral",) and "MISTRAL_API_KEY" in client.key_env
    assert CLIENT.claims(Mistral(api_key="k"), None) and not CLIENT.claims(object(), None)


def test_a_streamed_turn_sync_and_async_decodes_with_the_server_s_ids() -> None:
    request, raw = load("parallel_three_calls.yaml")

    async def read(client: Mistral) -> list[Any]:
        return [e async for e in CLIENT.astream(client, request)]

    for use_async in (False, True):
        with FakeVendor([Reply(headers=SSE, chunks=[raw[:100], raw[100:]])]) as vendor:
            client = Mistral(api_key="test-key", server_url=vendor.base_url)
            if use_async:
                events = asyncio.run(read(client))
            else:
                events = list(CLIENT.stream(client, request))
            sent = json.loads(vendor.requests[0].body)
        assert sent["messages"] == request["messages"] and sent["stream"] is True
        # the response's bytes read by toolwire's reader: chunk dicts, not the SDK's
        # CompletionEvent objects (a piece that completed no chunk is clients.TICK)
        chunks = [c for e in events if e is not clients.TICK for c in e]
        assert all(isinstance(e, Piece) for e in events if e is not clients.TICK)
        assert chunks and all(isinstance(c, dict) for c in chunks)
        calls = summarize(list(adapter.decode_stream(chunks))).calls
        assert [c[0] for c in calls] == ["K2n8x1qAb", "P0d4w7rMc", "T5v3c9zBd"]


def test_the_sdk_s_own_retries_are_off_for_the_call() -> None:
    request, _ = load("parallel_three_calls.yaml")
    busy = Reply(
        status=503, headers={"content-type": "application/json"}, chunks=[b'{"message":"busy"}']
    )
    retrying = RetryConfig("backoff", BackoffStrategy(1, 1, 1.0, 2000), False)
    with FakeVendor([busy, busy]) as vendor:
        client = Mistral(api_key="test-key", server_url=vendor.base_url, retry_config=retrying)
        with pytest.raises(SDKError) as caught:
            list(CLIENT.stream(client, request))
        assert len(vendor.requests) == 1  # the client's own policy would have tried again
    assert caught.value.status_code == 503 and 503 in CLIENT.retryable_statuses


def test_a_whole_turn_through_the_client() -> None:
    request, raw = load("whole_response.yaml")
    with FakeVendor([Reply(headers={"content-type": "application/json"}, chunks=[raw])]) as v:
        response = CLIENT.complete(Mistral(api_key="k", server_url=v.base_url), request)
    calls = summarize(adapter.decode_response(response)).calls
    assert calls == [("B3rg3nWx1", "get_weather", '{"city": "Bergen"}')]


def test_the_key_is_found_as_a_secret() -> None:
    client = CLIENT.make_client(api_key="mistral-secret-1234", base_url="http://127.0.0.1:9")
    assert CLIENT.secrets(client) == ["mistral-secret-1234"]
    assert "authorization" in CLIENT.secret_headers
