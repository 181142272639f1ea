"""An SDK object nested past what its own dump can write (the SDKs build stream events
unvalidated, so a vendor's extra field arrives as it came) is a toolwire error naming the
chunk, never pydantic's bare ``ValueError`` or a ``RecursionError``."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import adapters
from toolwire.errors import ToolwireError


def _nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


def _anthropic(extra: Any) -> list[Any]:
    from anthropic._models import construct_type
    from anthropic.types import RawMessageStreamEvent

    start = {
        "type": "message_start",
        "extra": extra,  # (a delta is read from its fields alone: its extras are not read)
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                    "model": "m", "usage": {"input_tokens": 1, "output_tokens": 0}},
    }  # fmt: skip
    block = {"type": "content_block_start", "index": 0,
             "content_block": {"type": "text", "text": ""}}  # fmt: skip
    delta = {"type": "content_block_delta", "index": 0,
             "delta": {"type": "text_delta", "text": "x"}}  # fmt: skip
    return [construct_type(type_=RawMessageStreamEvent, value=c) for c in (start, block, delta)]


def _openai_chat(extra: Any) -> list[Any]:
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "m", "created": 1,
             "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}],
             "extra": extra}  # fmt: skip
    return [construct_type(type_=ChatCompletionChunk, value=chunk)]


def _openai_responses(extra: Any) -> list[Any]:
    from openai._models import construct_type
    from openai.types.responses import ResponseStreamEvent

    created = {"type": "response.created", "sequence_number": 0, "extra": extra,
               "response": {"id": "resp_1", "object": "response", "created_at": 1,
                            "model": "m", "status": "in_progress", "output": []}}  # fmt: skip
    return [construct_type(type_=ResponseStreamEvent, value=created)]


BUILDERS = {"anthropic": _anthropic, "openai_chat": _openai_chat,
            "openai_responses": _openai_responses}  # fmt: skip


@pytest.mark.parametrize("vendor", BUILDERS)
@pytest.mark.parametrize("depth", [300, 5000])
def test_a_deep_sdk_object_is_a_named_toolwire_error(vendor: str, depth: int) -> None:
    chunks = BUILDERS[vendor](_nested(depth))
    adapter = adapters.get(vendor)
    with pytest.raises(ToolwireError) as caught:
        list(adapter.decode_stream(chunks))
    assert "chunk" in str(caught.value)
    with pytest.raises(ToolwireError):  # and chunk by chunk
        decoder = adapter.Decoder()
        for c in chunks:
            decoder.feed(c)
