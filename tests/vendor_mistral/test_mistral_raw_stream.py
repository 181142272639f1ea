"""The Mistral driver reads the response bytes itself (issue 38): ``CLIENT.stream`` /
``astream`` over the real ``mistralai`` client and a fake ``/v1/chat/completions`` on
127.0.0.1 hand on toolwire's reader's chunk dicts, never the SDK's ``CompletionEvent``s;
what the SDK still does (the HTTP call, its errors) keeps its types, and what the bytes
say wrong is toolwire's error, sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _mistral_support import load
from ag_ui.core import EventType, RunAgentInput, UserMessage
from client_stream import after_first_event, flat
from mistralai.client import Mistral
from mistralai.client.errors import SDKError

import toolwire
from toolwire.adapters import mistral as adapter
from toolwire.adapters.mistral.client import CLIENT
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.testing.fake_vendor import FakeVendor, Reply

SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}
KEY = "mistral-FAKE-key-0123456789abcdef"
#: an event whose data is not JSON
NOT_JSON = b'data: {"id": "x", "object": "chat.completion.chunk", "choices": [oops\n\n'


def _chunks(replies: list[Reply], is_async: bool, name: str = "parallel_three_calls.yaml") -> Any:
    """What ``CLIENT`` hands the driver for the recorded request ``name`` (the ticks left
    out), and the requests the fake saw."""
    request, _ = load(name)
    with FakeVendor(replies) as vendor:
        client = Mistral(api_key=KEY, server_url=vendor.base_url)

        async def read() -> list[Any]:
            try:
                return [c async for c in CLIENT.astream(client, request)]
            finally:
                await CLIENT.aclose(client)

        try:
            got = asyncio.run(read()) if is_async else list(CLIENT.stream(client, request))
        finally:
            client.sdk_configuration.client.close()
        return flat(got), vendor.requests


ASYNC = pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])


@ASYNC
def test_a_turn_is_read_as_chunk_dicts_not_sdk_objects(is_async: bool) -> None:
    _, raw = load("parallel_three_calls.yaml")
    chunks, _ = _chunks([Reply(headers=SSE, chunks=[raw])], is_async)
    assert chunks and all(isinstance(c, dict) for c in chunks)
    # the same dicts toolwire's own reading of the recorded bytes gives
    assert chunks == list(adapter.FRAMING.read(raw))


@ASYNC
def test_an_event_that_is_not_json_is_toolwire_s_error(is_async: bool) -> None:
    _, raw = load("parallel_three_calls.yaml")
    body = after_first_event(raw, NOT_JSON)
    with pytest.raises(VendorDataError) as caught:
        _chunks([Reply(headers=SSE, chunks=[body])], is_async)
    assert "mistral" in str(caught.value)


def test_a_run_over_an_event_that_is_not_json_ends_with_toolwire_s_error() -> None:
    request, raw = load("parallel_three_calls.yaml")
    body = after_first_event(raw, NOT_JSON)
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u", content="hi")],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    with FakeVendor([Reply(headers=SSE, chunks=[body])] * 2) as vendor:
        client = Mistral(api_key=KEY, server_url=vendor.base_url)
        try:
            events = list(toolwire.run(client, run_input, model=request["model"]))
        finally:
            client.sdk_configuration.client.close()
        attempts = len(vendor.requests)
    last = events[-1]
    assert last.type == EventType.RUN_ERROR
    assert last.code == "VendorDataError"  # type: ignore[attr-defined]
    assert attempts == 1  # bad data is not worth another attempt


@ASYNC
def test_an_in_stream_error_event_reaches_the_decoder_as_a_dict(is_async: bool) -> None:
    _, raw = load("in_stream_error.yaml")
    chunks, _ = _chunks([Reply(headers=SSE, chunks=[raw])], is_async, "in_stream_error.yaml")
    assert chunks[-1]["object"] == "error"  # handed on, not raised by the SDK
    with pytest.raises(VendorStreamError) as caught:
        list(adapter.decode_stream(chunks))
    assert caught.value.error_type == "service_tier_capacity_exceeded"
    assert caught.value.retryable is True
    assert "capacity exceeded" in caught.value.message


@ASYNC
def test_a_stream_cut_before_its_end_is_truncated(is_async: bool) -> None:
    _, raw = load("truncated.yaml")
    chunks, _ = _chunks([Reply(headers=SSE, chunks=[raw])], is_async, "truncated.yaml")
    with pytest.raises(TruncatedStream):
        list(adapter.decode_stream(chunks))


@ASYNC
def test_a_stream_cut_inside_an_event_is_truncated(is_async: bool) -> None:
    """The event begun is dropped (the SSE rule) and the turn has no end: never success."""
    _, raw = load("parallel_three_calls.yaml")
    cut = raw.index(b"\n\n", len(raw) // 2) - 5
    chunks, _ = _chunks([Reply(headers=SSE, chunks=[raw[:cut]])], is_async)
    with pytest.raises(TruncatedStream):
        list(adapter.decode_stream(chunks))


@ASYNC
@pytest.mark.parametrize("status", [400, 500])
def test_an_http_error_is_the_sdk_s_error_with_its_status(status: int, is_async: bool) -> None:
    answer = b'{"object":"error","message":"no","type":"invalid_model","code":"1500"}'
    replies = [Reply(status=status, headers=JSON, chunks=[answer])] * 2
    with pytest.raises(SDKError) as caught:
        _chunks(replies, is_async)
    assert caught.value.status_code == status
    assert (status in CLIENT.retryable_statuses) is (status == 500)


@ASYNC
def test_a_200_json_body_is_still_refused_by_the_sdk(is_async: bool) -> None:
    answer = b'{"object":"error","message":"model: not found here","type":"not_found"}'
    with pytest.raises(SDKError) as caught:
        _chunks([Reply(status=200, headers=JSON, chunks=[answer])], is_async)
    assert "not found here" in str(caught.value.body)
