"""Found when tried as a new user would: over a real SDK stream, an in-stream vendor error
is raised by the SDK as an exception. frame_run / aframe_run must still end the run with
RUN_ERROR (code = the vendor's error type, retryable known), as the same bytes decoded
without the SDK do; the SDK-objects path through toolwire.run must too."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from _driver_support import (
    CASE_IDS,
    CASES,
    Case,
    broken_reply,
    cases,
    check_run,
    clean_reply,
    comparable,
    offline,
    recorded_error_type,
    run_input,
    split_half,
)
from ag_ui.core import BaseEvent, EventType

from toolwire import adapters
from toolwire.protocol.runs import aframe_run, frame_run
from toolwire.testing.fake_vendor import FakeVendor, Reply

params = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
MESSAGES = [{"role": "user", "content": "hi"}]


def _sdk_stream(case: Case, client: Any) -> Any:
    """The SDK's own streaming call, as a user hands it to toolwire."""
    return case.sdk_stream(client, case.model)


async def _async_sdk_stream(case: Case, client: Any) -> Any:
    stream = case.asdk_stream(client, case.model)
    return await stream if inspect.isawaitable(stream) else stream


def _framed(case: Case, chunks: Any) -> list[BaseEvent]:
    decoder = adapters.get(case.vendor).Decoder()
    return list(frame_run(decoder, chunks, thread_id="t", run_id="r"))


async def _aframed(case: Case, chunks: Any) -> list[BaseEvent]:
    decoder = adapters.get(case.vendor).Decoder()
    return [ev async for ev in aframe_run(decoder, chunks, thread_id="t", run_id="r")]


@pytest.mark.parametrize("case", cases("test_an_in_stream_error_raised_by_the_sdk_is_run_error"))
def test_an_in_stream_error_raised_by_the_sdk_is_run_error(case: Case, tmp_path: Path) -> None:
    with FakeVendor([broken_reply(case)]) as fv:
        client = case.client(fv.base_url, False)
        events = _framed(case, _sdk_stream(case, case.no_retries(client)))
    check_run(events, tmp_path)
    expected = offline(case, case.broken)
    assert events[-1].type == EventType.RUN_ERROR
    assert events[-1].code == recorded_error_type(case)  # what the recording itself says
    assert comparable(events)[:-1] == comparable(expected)[:-1]  # the same turn up to it
    if case.sdk_raises_stream_errors:  # classified from the SDK's exception
        # overloaded / server / throttling errors are worth another attempt
        assert events[-1].metadata["toolwire.retryable"] is case.stream_error_retryable


@pytest.mark.parametrize("case", cases("test_the_same_over_an_async_sdk_stream"))
async def test_the_same_over_an_async_sdk_stream(case: Case, tmp_path: Path) -> None:
    with FakeVendor([broken_reply(case)]) as fv:
        client = case.client(fv.base_url, True)
        stream = await _async_sdk_stream(case, case.no_retries(client))
        events = await _aframed(case, stream)
    check_run(events, tmp_path)
    expected = offline(case, case.broken)
    assert events[-1].type == EventType.RUN_ERROR
    assert events[-1].code == expected[-1].code == recorded_error_type(case)


@params
def test_a_connection_reset_under_an_sdk_stream_is_run_error(case: Case, tmp_path: Path) -> None:
    reply = clean_reply(case)
    cut = Reply(headers=reply.headers, chunks=reply.chunks, reset_after=split_half(reply))
    with FakeVendor([cut]) as fv:
        client = case.client(fv.base_url, False)
        events = _framed(case, _sdk_stream(case, case.no_retries(client)))
    check_run(events, tmp_path)
    assert events[-1].type == EventType.RUN_ERROR
    assert events[-1].code == "connection_error"
    assert events[-1].metadata["toolwire.retryable"] is True


@pytest.mark.parametrize("case", cases("test_a_clean_sdk_stream_frames_as_the_offline_decode"))
def test_a_clean_sdk_stream_frames_as_the_offline_decode(case: Case, tmp_path: Path) -> None:
    with FakeVendor([clean_reply(case)]) as fv:
        client = case.client(fv.base_url, False)
        events = _framed(case, _sdk_stream(case, client))
    check_run(events, tmp_path)
    assert comparable(events) == comparable(offline(case, case.clean))


@params
async def test_aframe_run_equals_frame_run_on_the_same_chunks(case: Case) -> None:
    body = clean_reply(case).chunks
    adapter = adapters.get(case.vendor)
    chunks = list(adapter.sse_chunks(b"".join(body)))

    async def agen() -> Any:
        for chunk in chunks:
            yield chunk

    sync = _framed(case, chunks)
    assert [e.model_dump() for e in await _aframed(case, agen())] == [e.model_dump() for e in sync]
    broken = list(adapter.sse_chunks(b"".join(broken_reply(case).chunks)))

    async def bgen() -> Any:
        for chunk in broken:
            yield chunk

    assert [e.model_dump() for e in await _aframed(case, bgen())] == [
        e.model_dump() for e in _framed(case, broken)
    ]


@pytest.mark.parametrize("cassette", ["clean", "broken"])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_the_sdk_objects_path_of_the_driver(
    cassette: str, is_async: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AnthropicBedrock streams AWS event-stream frames, not SSE, so the driver reads the
    SDK's event objects for it: the same path, forced on a plain Anthropic client."""
    import asyncio

    import toolwire
    from toolwire.adapters.anthropic import client as anthropic_client

    monkeypatch.setattr(anthropic_client, "_is_bedrock", lambda client: True)
    case = CASES[0]
    reply = clean_reply(case) if cassette == "clean" else broken_reply(case)
    with FakeVendor([reply]) as fv:
        client = case.client(fv.base_url, is_async)
        ri = run_input(case)
        if is_async:

            async def collect() -> list[BaseEvent]:
                return [ev async for ev in toolwire.arun(client, ri, model=case.model)]

            events = asyncio.run(collect())
        else:
            events = list(toolwire.run(client, ri, model=case.model))
    check_run(events, tmp_path)
    expected = offline(case, case.clean if cassette == "clean" else case.broken)
    assert comparable(events) == comparable(expected)
    assert len(fv.requests) == 1
