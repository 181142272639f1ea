"""Events -> Cohere v2 stream events: the SSE ``to_sse`` writes is served by a fake
``/v2/chat`` on 127.0.0.1 and read back by the real ``cohere`` SDK (``ClientV2`` and
``AsyncClientV2``), which must see the same plan, text, thinking and calls."""

from __future__ import annotations

import asyncio
from typing import Any

import cohere
import pytest
from _cohere_support import close, load, sdk_seen, summarize

from toolwire.adapters import cohere as adapter
from toolwire.errors import ProtocolViolation
from toolwire.losses import ToolwireWarning
from toolwire.protocol.runs import frame_run
from toolwire.testing.fake_vendor import FakeVendor, Reply

SSE = {"content-type": "text/event-stream"}
CASES = ["parallel_three_calls.yaml", "thinking_and_citations.yaml", "max_tokens.yaml"]


def _pieces(body: bytes, size: int = 43) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def _run(name: str) -> list[Any]:
    _, raw = load(name)
    return list(frame_run(adapter.Decoder(), adapter.sse_chunks(raw), thread_id="t", run_id="r"))


def served(body: bytes, *, use_async: bool = False) -> list[Any]:
    msgs = [{"role": "user", "content": "hi"}]
    with FakeVendor([Reply(headers=SSE, chunks=_pieces(body))]) as vendor:
        if not use_async:
            client = cohere.ClientV2(api_key="test-key", base_url=vendor.base_url)
            try:
                out = list(client.chat_stream(model="m", messages=msgs))
            finally:
                close(client)
        else:

            async def read() -> list[Any]:
                client = cohere.AsyncClientV2(api_key="test-key", base_url=vendor.base_url)
                try:
                    return [e async for e in client.chat_stream(model="m", messages=msgs)]
                finally:
                    await adapter.CLIENT.aclose(client)

            out = asyncio.run(read())
        assert vendor.requests[0].path == "/v2/chat"
    return out


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", CASES)
def test_the_sdk_reads_back_what_the_encoder_wrote(name: str, use_async: bool) -> None:
    run = _run(name)
    written = adapter.to_sse(adapter.encode_stream(run))
    parsed = served(written, use_async=use_async)
    assert parsed[-1].type == "message-end"
    assert sdk_seen(parsed) == summarize(run)
    # decoded again: the same run (message id, ids, finish, usage, citations)
    again = list(
        frame_run(adapter.Decoder(), adapter.sse_chunks(written), thread_id="t", run_id="r")
    )
    assert summarize(again) == summarize(run)
    assert again[-1].metadata == run[-1].metadata and again[-1].usage == run[-1].usage


def test_a_framed_run_cut_short_never_ends_the_message() -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Once"},
    ]
    encoder = adapter.Encoder()
    chunks = [c for ev in events for c in encoder.feed(ev)]
    assert all(c["type"] != "message-end" for c in chunks)
    with pytest.raises(ProtocolViolation, match="truncated"):
        encoder.close()


def test_a_run_error_is_an_error_finish() -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "RUN_ERROR", "message": "model overloaded", "code": "server_error"},
    ]
    with pytest.warns(ToolwireWarning, match="the code 'server_error' is not sent"):
        chunks = list(adapter.encode_stream(events))
    assert chunks[-1] == {
        "type": "message-end",
        "delta": {"finish_reason": "ERROR", "error": "model overloaded"},
    }
