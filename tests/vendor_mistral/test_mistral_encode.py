"""Events -> Mistral chunks: the SSE ``to_sse`` writes is served by a fake
``/v1/chat/completions`` on 127.0.0.1 and read back by the real ``mistralai`` SDK (sync and
async); ids leave as nine letters and digits, the same call id for the same input."""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from typing import Any

import pytest
from _mistral_support import load, sdk_seen, summarize
from mistralai.client import Mistral

from toolwire.adapters import mistral as adapter
from toolwire.errors import ProtocolViolation
from toolwire.testing.fake_vendor import FakeVendor, Reply

SSE = {"content-type": "text/event-stream"}
CASES = ["parallel_three_calls.yaml", "calls_at_index_zero.yaml", "magistral_thinking.yaml"]
NINE = re.compile(r"[a-zA-Z0-9]{9}")


def _pieces(body: bytes, size: int = 41) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def decoded(name: str) -> list[Any]:
    _, raw = load(name)
    return list(adapter.decode_stream(adapter.sse_chunks(raw)))


def served(body: bytes, *, use_async: bool = False) -> list[Any]:
    with FakeVendor([Reply(headers=SSE, chunks=_pieces(body))]) as vendor:
        client = Mistral(api_key="test-key", server_url=vendor.base_url)
        if not use_async:
            with client.chat.stream(model="m", messages=[{"role": "user", "content": "hi"}]) as s:
                out = list(s)
        else:

            async def read() -> list[Any]:
                stream = await client.chat.stream_async(
                    model="m", messages=[{"role": "user", "content": "hi"}]
                )
                return [e async for e in stream]

            out = asyncio.run(read())
        assert vendor.requests[0].path == "/v1/chat/completions"
    return out


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", CASES)
def test_the_sdk_reads_back_what_the_encoder_wrote(name: str, use_async: bool) -> None:
    events = decoded(name)
    written = adapter.to_sse(adapter.encode_stream(events))
    theirs = sdk_seen(served(written, use_async=use_async))
    ours = summarize(events)
    assert (theirs.thinking, theirs.text, theirs.calls) == (ours.thinking, ours.text, ours.calls)
    again = summarize(list(adapter.decode_stream(adapter.sse_chunks(written))))
    assert again == ours


def test_foreign_ids_leave_as_nine_characters_the_same_each_time() -> None:
    events = [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "toolu_01A09q90qw90lq917835lq9",
            "toolCallName": "f",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "toolu_01A09q90qw90lq917835lq9", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "toolu_01A09q90qw90lq917835lq9"},
    ]

    def sent() -> tuple[str, list[str]]:
        encoder = adapter.Encoder()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            chunks = [c for ev in events for c in encoder.feed(ev)] + encoder.close()
        ids = [
            tc["id"]
            for c in chunks
            for ch in c["choices"]
            for tc in ch["delta"].get("tool_calls", [])
        ]
        (one,) = ids
        return one, [loss.kind for loss in encoder.losses]

    first, kinds = sent()
    assert NINE.fullmatch(first) and kinds == ["call-id-remapped"]
    assert sent()[0] == first


def test_a_framed_run_cut_short_never_finishes() -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Once"},
    ]
    encoder = adapter.Encoder()
    chunks = [c for ev in events for c in encoder.feed(ev)]
    assert all(ch["finish_reason"] is None for c in chunks for ch in c["choices"])
    with pytest.raises(ProtocolViolation, match="truncated"):
        encoder.close()


def test_the_finish_and_usage_of_a_decoded_run_are_written_back() -> None:
    from toolwire.protocol.runs import frame_run

    _, raw = load("model_length.yaml")
    run = list(frame_run(adapter.Decoder(), adapter.sse_chunks(raw), thread_id="t", run_id="r"))
    last = list(adapter.encode_stream(run))[-1]
    assert last["choices"][0]["finish_reason"] == "model_length"
    recorded = [
        json.loads(line[6:]) for line in raw.decode().split("\n") if line.startswith("data: {")
    ]
    assert last["usage"] == recorded[-1]["usage"]


def test_a_thinking_signature_survives_decode_encode_decode() -> None:
    base = {"id": "a1b2c3", "object": "chat.completion.chunk", "created": 1, "model": "magistral"}
    think = {"type": "thinking", "thinking": [{"type": "text", "text": "hm"}], "signature": "s1g"}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"content": [think]}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {"content": "Yes."}, "finish_reason": "stop"}]},
    ]
    first = list(adapter.decode_stream(chunks))
    again = list(
        adapter.decode_stream(adapter.sse_chunks(adapter.to_sse(adapter.encode_stream(first))))
    )
    signed = [e.encrypted_value for e in again if e.type == "REASONING_ENCRYPTED_VALUE"]
    assert signed == ["s1g"]
    assert summarize(again) == summarize(first)
