"""``adapters/ollama/client.py`` over the real ``ollama`` SDK clients and a fake ``/api/chat``
on 127.0.0.1: one streamed turn (sync and async) read as bytes and decoded, ids kept; HTTP
errors raised as the SDK's own; the key found and kept out of texts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import ollama
import pytest
from _ollama_support import load, summarize

from toolwire import clients
from toolwire.adapters import ollama as adapter
from toolwire.adapters.contract import VendorClient
from toolwire.adapters.ollama.client import CLIENT
from toolwire.errors import TruncatedStream
from toolwire.protocol.pushed import Piece
from toolwire.testing.fake_vendor import FakeVendor, Reply

NDJSON = {"content-type": "application/x-ndjson"}


def _pieces(body: bytes, size: int = 29) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def test_it_is_a_vendor_client() -> None:
    client: VendorClient = CLIENT  # mypy checks the members; here, at run time, the names
    for name in ("extras", "key_env", "secret_headers", "claims", "stream", "astream", "secrets"):
        assert hasattr(client, name)
    assert CLIENT.extras == ("ollama",)
    assert CLIENT.claims(ollama.Client(), None) and CLIENT.claims(ollama.AsyncClient(), None)
    assert not CLIENT.claims(object(), None)
    assert CLIENT.is_async(ollama.AsyncClient()) and not CLIENT.is_async(ollama.Client())


def test_a_streamed_turn_through_the_sync_client_keeps_the_server_s_ids() -> None:
    request, body = load("parallel_three_calls.yaml")
    with FakeVendor([Reply(headers=NDJSON, chunks=_pieces(body))]) as vendor:
        client = ollama.Client(host=vendor.base_url)
        streamed = list(CLIENT.stream(client, request))
        seen = vendor.requests[0]
    # a piece that completed no line is reported as clients.TICK (what keeps a sync run's
    # deadline in view under keep-alive lines); the driver drops it, as here. The others are
    # a network piece's lines at once (``Piece``: the driver reads them fused); iterating
    # one gives its chunk dicts
    assert all(type(c) is Piece for c in streamed if c is not clients.TICK)
    chunks = [c for p in streamed if p is not clients.TICK for c in p]
    assert chunks == list(adapter.sse_chunks(body))
    sent = json.loads(seen.body)
    assert seen.path == "/api/chat" and sent["stream"] is True
    assert sent["messages"] == request["messages"]
    events = list(adapter.decode_stream(chunks))
    assert [cid for cid, _, _ in summarize(events).calls] == [
        "call_k2n8x1qa",
        "call_p0d4w7rm",
        "call_t5v3c9zb",
    ]


def test_a_streamed_turn_through_the_async_client_reads_the_same() -> None:
    request, body = load("calls_without_ids.yaml")

    async def read(url: str) -> list[Any]:
        client = ollama.AsyncClient(host=url)
        return [c async for c in CLIENT.astream(client, request)]

    with FakeVendor([Reply(headers=NDJSON, chunks=_pieces(body))]) as vendor:
        streamed = asyncio.run(read(vendor.base_url))
    # as the sync side: a piece that completed no line is reported as clients.TICK
    assert all(type(c) is Piece for c in streamed if c is not clients.TICK)
    chunks = [c for p in streamed if p is not clients.TICK for c in p]
    assert chunks == list(adapter.sse_chunks(body))


def test_a_cut_body_is_truncation_not_success() -> None:
    request, body = load("parallel_three_calls.yaml")
    cut = body[: body.rindex(b"\n", 0, len(body) - 1) + 20]  # inside the last line
    with FakeVendor([Reply(headers=NDJSON, chunks=[cut])]) as vendor:
        client = ollama.Client(host=vendor.base_url)
        with pytest.raises(TruncatedStream):
            pieces = CLIENT.stream(client, request)
            list(adapter.decode_stream(c for p in pieces if p is not clients.TICK for c in p))


@pytest.mark.parametrize("status", [404, 503])
def test_an_http_error_is_the_sdk_s_own_error_with_its_status(status: int) -> None:
    request, _ = load("length.yaml")
    error = json.dumps({"error": f"model 'x' failed ({status})"}).encode()
    reply = Reply(status=status, headers={"content-type": "application/json"}, chunks=[error])
    with FakeVendor([reply]) as vendor:
        client = ollama.Client(host=vendor.base_url)
        with pytest.raises(ollama.ResponseError) as caught:
            list(CLIENT.stream(client, request))
    assert caught.value.status_code == status
    assert caught.value.error == f"model 'x' failed ({status})"
    assert (status in CLIENT.retryable_statuses) == (status == 503)


def test_a_whole_turn_through_the_client() -> None:
    request, body = load("whole_response.yaml")
    reply = Reply(headers={"content-type": "application/json"}, chunks=[body])
    with FakeVendor([reply]) as vendor:
        whole = CLIENT.complete(ollama.Client(host=vendor.base_url), request)
        assert json.loads(vendor.requests[0].body)["stream"] is False
    assert summarize(adapter.decode_response(whole)).calls == [
        ("call_w0l3b0dy", "get_weather", '{"city":"Bergen"}')
    ]


def test_the_key_is_a_secret_and_travels_as_a_bearer_header() -> None:
    key = "ollama-test-key-4f9a2c"
    client = CLIENT.make_client(api_key=key, base_url="http://127.0.0.1:9", http_client=None)
    assert isinstance(client, ollama.AsyncClient)
    assert CLIENT.secrets(client) == [key]
    assert "authorization" in CLIENT.secret_headers
    assert CLIENT.secrets(ollama.Client(host="http://127.0.0.1:9")) == []
    asyncio.run(CLIENT.aclose(client))


def test_generation_params_go_under_options() -> None:
    body: dict[str, Any] = {"model": "m", "messages": []}
    CLIENT.add_params(body, {"temperature": 0.2, "num_ctx": 8192, "think": True})
    assert body == {
        "model": "m",
        "messages": [],
        "think": True,
        "options": {"temperature": 0.2, "num_ctx": 8192},
    }
