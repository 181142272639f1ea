"""``adapters/cohere/client.py`` over the real ``cohere`` clients and a fake ``/v2/chat``
on 127.0.0.1: the SDK's retries off for the call, its errors with their status, the key a
secret. Runs over these clients are the shared driver tests' (tests/driver)."""

from __future__ import annotations

import asyncio

import cohere
import pytest
from _cohere_support import close, load

from toolwire import adapters
from toolwire.adapters.cohere.client import CLIENT
from toolwire.adapters.contract import VendorClient
from toolwire.testing.fake_vendor import FakeVendor, Reply

KEY = "cohereFAKEkey0123456789abcdefABCDEFGHIJ"
LIMITED = Reply(
    status=429, headers={"content-type": "application/json"}, chunks=[b'{"message":"slow down"}']
)


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


def test_the_key_is_found_as_a_secret() -> None:
    client = CLIENT.make_client(api_key=KEY, base_url="http://127.0.0.1:9")
    assert CLIENT.secrets(client) == [KEY]
    asyncio.run(CLIENT.aclose(client))
