"""Events -> Ollama lines: the bytes ``FRAMING.write`` makes are served by a fake ``/api/chat``
on 127.0.0.1 and read back by the real ``ollama`` SDK (sync and async), which must see the
same text, thinking and calls; decoding them again gives the same turn, ids included."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import ollama
import pytest
from _ollama_support import load, sdk_seen, summarize

from toolwire.adapters import ollama as adapter
from toolwire.errors import ProtocolViolation
from toolwire.losses import ToolwireWarning
from toolwire.testing.fake_vendor import FakeVendor, Reply

NDJSON = {"content-type": "application/x-ndjson"}
CASES = ["parallel_three_calls.yaml", "calls_without_ids.yaml", "length.yaml"]


def _pieces(body: bytes, size: int = 37) -> list[bytes]:
    """The body in pieces cut mid-line (and mid-character), as a network may deliver it."""
    return [body[i : i + size] for i in range(0, len(body), size)]


def decoded(name: str) -> list[Any]:
    _, body = load(name)
    return list(adapter.decode_stream(adapter.sse_chunks(body)))


def served(body: bytes, *, use_async: bool = False) -> list[Any]:
    """What the SDK's ``chat(stream=True)`` yields for ``body`` served over a socket."""
    with FakeVendor([Reply(headers=NDJSON, chunks=_pieces(body))]) as vendor:
        if not use_async:
            client = ollama.Client(host=vendor.base_url)
            out = list(client.chat(model="m", messages=[], stream=True))
        else:

            async def read() -> list[Any]:
                client = ollama.AsyncClient(host=vendor.base_url)
                stream = await client.chat(model="m", messages=[], stream=True)
                return [r async for r in stream]

            out = asyncio.run(read())
        assert vendor.requests[0].path == "/api/chat"
    return out


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", CASES)
def test_the_sdk_reads_back_what_the_encoder_wrote(name: str, use_async: bool) -> None:
    events = decoded(name)
    written = adapter.FRAMING.write(adapter.encode_stream(events))
    responses = served(written, use_async=use_async)
    assert responses[-1].done is True
    ours = summarize(events)
    theirs = sdk_seen(responses)
    assert (theirs.thinking, theirs.text) == (ours.thinking, ours.text)
    assert [(n, json.loads(a)) for _, n, a in theirs.calls] == [
        (n, json.loads(a)) for _, n, a in ours.calls
    ]
    # decoding the written bytes again: the same turn, the same call ids
    again = list(adapter.decode_stream(adapter.sse_chunks(written)))
    assert summarize(again) == ours


def test_the_last_line_keeps_the_reason_and_the_counts() -> None:
    _, body = load("length.yaml")
    from toolwire.protocol.runs import frame_run

    run = list(frame_run(adapter.Decoder(), adapter.sse_chunks(body), thread_id="t", run_id="r"))
    lines = list(adapter.encode_stream(run))
    last = lines[-1]
    assert last["done"] is True and last["done_reason"] == "length"
    (usage,) = run[-1].usage
    assert (last["prompt_eval_count"], last["eval_count"]) == (
        usage.input_tokens,
        usage.output_tokens,
    )


def test_a_run_error_is_an_error_line_the_sdk_raises() -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Once"},
        {"type": "RUN_ERROR", "message": "model runner stopped", "code": "error"},
    ]
    written = adapter.FRAMING.write(adapter.encode_stream(events))
    with pytest.raises(ollama.ResponseError, match="model runner stopped"):
        served(written)


def test_a_framed_run_cut_short_is_never_a_done_line() -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Once"},
    ]
    encoder = adapter.Encoder()
    lines = [line for ev in events for line in encoder.feed(ev)]
    assert all(line.get("done") is False for line in lines)
    with pytest.raises(ProtocolViolation, match="truncated"):
        encoder.close()


def test_arguments_that_are_no_object_are_sent_as_the_empty_object_and_reported() -> None:
    events = [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c1",
            "toolCallName": "f",
            "parentMessageId": "m",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '["a", "list"]'},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    ]
    encoder = adapter.Encoder()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        lines = [line for ev in events for line in encoder.feed(ev)] + encoder.close()
    (call,) = lines[0]["message"]["tool_calls"]
    assert call == {"id": "c1", "function": {"index": 0, "name": "f", "arguments": {}}}
    assert [loss.kind for loss in encoder.losses] == ["arguments-not-object"]
    assert sum(issubclass(w.category, ToolwireWarning) for w in seen) == 1
    assert lines[-1]["done"] is True


def test_what_a_chat_stream_cannot_carry_is_a_loss() -> None:
    events = [
        {"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": "c1", "content": "42"},
    ]
    encoder = adapter.Encoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder.feed(events[0])
    assert [loss.kind for loss in encoder.losses] == ["tool-result-dropped"]
