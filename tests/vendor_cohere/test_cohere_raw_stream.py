"""The Cohere driver reads the response bytes itself (issue 38): ``CLIENT.stream`` /
``astream`` over the real ``cohere`` clients and a fake ``/v2/chat`` on 127.0.0.1 hand on
toolwire's reader's chunk dicts, never the SDK's typed events; what the SDK still does
(the HTTP call, its errors) keeps its types, and what the bytes say wrong is toolwire's
error where the SDK's own reader would skip it, sync and async."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import cohere
import pytest
from _cohere_support import close, load
from ag_ui.core import EventType, RunAgentInput, UserMessage
from client_stream import after_first_event, flat
from cohere.errors import BadRequestError, InternalServerError

import toolwire
from toolwire.adapters import cohere as adapter
from toolwire.adapters.cohere.client import CLIENT
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.testing.fake_vendor import FakeVendor, Reply

SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}
KEY = "cohereFAKEkey0123456789abcdefABCDEFGHIJ"
#: an event whose data is not JSON
NOT_JSON = b'event: content-delta\ndata: {"type": "content-delta", oops\n\n'

ASYNC = pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])


def _chunks(replies: list[Reply], is_async: bool, name: str = "parallel_three_calls.yaml") -> Any:
    """What ``CLIENT`` hands the driver for the recorded request ``name`` (the ticks left
    out)."""
    request, _ = load(name)
    with FakeVendor(replies) as vendor:
        if is_async:

            async def read() -> list[Any]:
                client = cohere.AsyncClientV2(api_key=KEY, base_url=vendor.base_url)
                try:
                    return [c async for c in CLIENT.astream(client, request)]
                finally:
                    await CLIENT.aclose(client)

            got = asyncio.run(read())
        else:
            client = cohere.ClientV2(api_key=KEY, base_url=vendor.base_url)
            try:
                got = list(CLIENT.stream(client, request))
            finally:
                close(client)
    return flat(got)


def _run_input() -> RunAgentInput:
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u", content="hi")],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


@ASYNC
def test_a_turn_is_read_as_chunk_dicts_not_sdk_objects(is_async: bool) -> None:
    _, raw = load("parallel_three_calls.yaml")
    chunks = _chunks([Reply(headers=SSE, chunks=[raw[:700], raw[700:]])], is_async)
    assert chunks and all(isinstance(c, dict) for c in chunks)
    # the same dicts toolwire's own reading of the recorded bytes gives
    assert chunks == list(adapter.FRAMING.read(raw))


def test_the_sdk_s_own_reader_goes_on_past_an_event_that_is_not_json(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """What the next tests rest on: the SDK would go on past it, with a warning only."""
    request, raw = load("parallel_three_calls.yaml")
    kw = {k: v for k, v in request.items() if k != "stream"}
    body = after_first_event(raw, NOT_JSON)
    with FakeVendor([Reply(headers=SSE, chunks=[body])]) as vendor:
        client = cohere.ClientV2(api_key=KEY, base_url=vendor.base_url)
        try:
            with caplog.at_level(logging.WARNING):
                events = list(client.chat_stream(**kw))
        finally:
            close(client)
    assert events[-1].type == "message-end"  # read on to the end, the turn "complete"
    assert "as JSON" in caplog.text


@ASYNC
def test_an_event_that_is_not_json_is_toolwire_s_error(is_async: bool) -> None:
    _, raw = load("parallel_three_calls.yaml")
    body = after_first_event(raw, NOT_JSON)
    with pytest.raises(VendorDataError) as caught:
        _chunks([Reply(headers=SSE, chunks=[body])], is_async)
    assert "cohere" in str(caught.value)


@ASYNC
def test_a_run_over_an_event_that_is_not_json_ends_with_toolwire_s_error(is_async: bool) -> None:
    request, raw = load("parallel_three_calls.yaml")
    body = after_first_event(raw, NOT_JSON)
    with FakeVendor([Reply(headers=SSE, chunks=[body])] * 2) as vendor:
        if is_async:

            async def go() -> list[Any]:
                client = cohere.AsyncClientV2(api_key=KEY, base_url=vendor.base_url)
                try:
                    run = toolwire.arun(client, _run_input(), model=request["model"])
                    return [e async for e in run]
                finally:
                    await CLIENT.aclose(client)

            events = asyncio.run(go())
        else:
            client = cohere.ClientV2(api_key=KEY, base_url=vendor.base_url)
            try:
                events = list(toolwire.run(client, _run_input(), model=request["model"]))
            finally:
                close(client)
        attempts = len(vendor.requests)
    last = events[-1]
    assert last.type == EventType.RUN_ERROR
    assert last.code == "VendorDataError"  # type: ignore[attr-defined]
    assert attempts == 1  # bad data is not worth another attempt


@ASYNC
@pytest.mark.parametrize(
    ("message", "retryable"),
    [("model 'command-x' not found", False), ("overloaded: server busy", True)],
)
def test_a_200_json_error_document_is_cohere_s_error(
    message: str, retryable: bool, is_async: bool
) -> None:
    """Cohere's error body (a message, no type) sent with status 200 where a stream was
    asked for: its words kept; worth another attempt only when they say the server is
    busy."""
    answer = Reply(status=200, headers=JSON, chunks=[json.dumps({"message": message}).encode()])
    with pytest.raises(VendorStreamError) as caught:
        _chunks([answer], is_async)
    assert caught.value.vendor == "cohere" and caught.value.error_type == "error"
    assert caught.value.message == message and caught.value.retryable is retryable


@ASYNC
def test_a_200_json_document_that_is_no_error_is_not_success(is_async: bool) -> None:
    answer = Reply(status=200, headers=JSON, chunks=[b'{"id": "x", "finish_reason": "COMPLETE"}'])
    chunks = _chunks([answer], is_async)
    with pytest.raises(TruncatedStream):
        list(adapter.decode_stream(chunks))


@ASYNC
def test_an_in_stream_error_is_the_vendor_s_error(is_async: bool) -> None:
    _, raw = load("in_stream_error.yaml")
    chunks = _chunks([Reply(headers=SSE, chunks=[raw])], is_async, "in_stream_error.yaml")
    with pytest.raises(VendorStreamError) as caught:
        list(adapter.decode_stream(chunks))
    assert caught.value.error_type == "ERROR" and caught.value.retryable is False
    assert "internal server error" in caught.value.message


@ASYNC
def test_a_stream_cut_before_its_end_is_truncated(is_async: bool) -> None:
    _, raw = load("truncated.yaml")
    chunks = _chunks([Reply(headers=SSE, chunks=[raw])], is_async, "truncated.yaml")
    with pytest.raises(TruncatedStream):
        list(adapter.decode_stream(chunks))


@ASYNC
@pytest.mark.parametrize(("status", "error"), [(400, BadRequestError), (500, InternalServerError)])
def test_an_http_error_is_the_sdk_s_error_with_its_status(
    status: int, error: type[Exception], is_async: bool
) -> None:
    replies = [Reply(status=status, headers=JSON, chunks=[b'{"message":"no"}'])] * 2
    with pytest.raises(error) as caught:
        _chunks(replies, is_async)
    assert caught.value.status_code == status  # type: ignore[attr-defined]
    assert (status in CLIENT.retryable_statuses) is (status == 500)
