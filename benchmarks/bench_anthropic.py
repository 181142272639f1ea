"""Anthropic Messages streams for the benchmark suite, and the SDK's own parse of them.

The streams have the recorded shape (``cassettes/anthropic``: ``event:`` + ``data:`` per event;
message_start, content blocks opened by content_block_start and fed by text / thinking /
input_json_delta deltas, content_block_stop, message_delta with usage, message_stop), grown to
the asked number of events. Shapes:

* ``tool``     - a thinking block with its signature, then long tool_use blocks (argument deltas)
* ``text``     - one long text block, one short tool_use block at the end
* ``parallel`` - many short tool_use blocks in a row, as ``parallel_four_tool_use.yaml``

Run this vendor alone: ``python -m benchmarks --vendor anthropic``.
"""

from __future__ import annotations

import json
from typing import Any

VENDOR = "anthropic"
MODEL = "claude-sonnet-4-6"


def _event(payload: dict[str, Any]) -> str:
    return f"event: {payload['type']}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"


def _start() -> str:
    message = {
        "id": "msg_01Bench", "type": "message", "role": "assistant", "model": MODEL,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 900, "output_tokens": 1},
    }  # fmt: skip
    return _event({"type": "message_start", "message": message})


def _delta(index: int, delta: dict[str, Any]) -> str:
    return _event({"type": "content_block_delta", "index": index, "delta": delta})


def _block(index: int, block: dict[str, Any], deltas: list[dict[str, Any]]) -> list[str]:
    out = [_event({"type": "content_block_start", "index": index, "content_block": block})]
    out += [_delta(index, d) for d in deltas]
    out.append(_event({"type": "content_block_stop", "index": index}))
    return out


def _tool(index: int, pieces: int) -> list[str]:
    block = {"type": "tool_use", "id": f"toolu_{index:08d}", "name": "get_weather", "input": {}}
    args = ['{"items": ['] + [f'{{"n": {k}, "s": "abcdefgh"}}, ' for k in range(pieces - 2)]
    args.append('"end"]}')
    return _block(index, block, [{"type": "input_json_delta", "partial_json": a} for a in args])


def build(shape: str, events: int) -> bytes:
    """About ``events`` SSE events of the recorded shape."""
    out = [_start()]
    budget = events - 3  # message_start, message_delta, message_stop
    index = 0
    if shape == "tool":
        thinking = [
            {"type": "thinking_delta", "thinking": f"step {k} of the plan. "} for k in range(50)
        ]
        thinking.append({"type": "signature_delta", "signature": "EqQBCkYIBxgCKkA" * 8})
        out += _block(0, {"type": "thinking", "thinking": "", "signature": ""}, thinking)
        index = 1
        while budget - len(out) > 3:
            out += _tool(index, min(2000, budget - len(out) - 2))
            index += 1
    elif shape == "text":
        words = [{"type": "text_delta", "text": f"word{k} "} for k in range(budget - 10)]
        out += _block(0, {"type": "text", "text": ""}, words)
        out += _tool(1, 5)
    elif shape == "parallel":
        while budget - len(out) > 8:
            out += _tool(index, 6)
            index += 1
    else:
        raise ValueError(shape)
    usage = {"output_tokens": events}
    delta = {"stop_reason": "tool_use", "stop_sequence": None}
    out.append(_event({"type": "message_delta", "delta": delta, "usage": usage}))
    out.append(_event({"type": "message_stop"}))
    return "".join(out).encode("utf-8")


def sdk_objects(body: bytes) -> list[Any]:
    """The anthropic SDK's own parse of ``body`` (real client, in-memory transport)."""
    import anthropic
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = anthropic.Anthropic(
        api_key="sk-ant-bench",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    stream = client.messages.create(
        model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "hi"}], stream=True
    )
    return list(stream)
