"""Cohere v2 chat streams for the benchmark suite, and the SDK's own parse of them.

The streams have the recorded shape (``cassettes/cohere``: ``event:`` + ``data:`` per event;
``message-start``; ``tool-plan-delta``; ``content-start`` / ``content-delta`` /
``content-end`` for text; ``tool-call-start`` (the call's id and name), ``tool-call-delta``
(argument fragments), ``tool-call-end``, one call after the other by ``index``;
``message-end`` with ``finish_reason`` and ``usage``), grown to the asked number of events.
Shapes:

* ``tool``     - a tool plan, then long calls fed by argument deltas
* ``text``     - one long text block, one short call at the end
* ``parallel`` - many short calls in a row, as ``parallel_three_calls.yaml``

The SDK's parse is ``ClientV2.chat_stream`` (real client, in-memory transport): every
``StreamedChatResponseV2`` event it yields.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

VENDOR = "cohere"
MODEL = "command-a-03-2025"
#: the model the request histories name: a vision model, so the images of the media rows
#: are sent (command-a-03-2025 takes none: they would be dropped, with a loss)
REQUEST_MODEL = "command-a-vision-07-2025"
PIECE = 16 * 1024


def _event(payload: dict[str, Any]) -> str:
    return f"event: {payload['type']}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"


def _start() -> str:
    message = {
        "role": "assistant",
        "content": [],
        "tool_plan": "",
        "tool_calls": [],
        "citations": [],
    }
    payload = {"id": "c14c80c3-18eb-4519-9460-6c92edd8cfb4", "type": "message-start"}
    payload["delta"] = {"message": message}
    return _event(payload)


def _call(index: int, name: str, args: list[str]) -> list[str]:
    head = {"id": f"{name}_bench{index:08d}", "type": "function"}
    head["function"] = {"name": name, "arguments": ""}
    out = [_event({"type": "tool-call-start", "index": index, "delta": _calls(head)})]
    for text in args:
        piece = {"function": {"arguments": text}}
        out.append(_event({"type": "tool-call-delta", "index": index, "delta": _calls(piece)}))
    out.append(_event({"type": "tool-call-end", "index": index}))
    return out


def _calls(value: dict[str, Any]) -> dict[str, Any]:
    return {"message": {"tool_calls": value}}


def _long_args(pieces: int) -> list[str]:
    args = ['{"items": ['] + [f'{{"n": {k}, "s": "abcdefgh"}}, ' for k in range(pieces - 2)]
    return [*args, '"end"]}']


def _content(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"index": index, "delta": {"message": {"content": delta}}}


def build(shape: str, events: int) -> bytes:
    """About ``events`` SSE events of the recorded shape."""
    out = [_start()]
    budget = events - 1  # message-end
    if shape == "tool":
        for k in range(min(50, budget // 4)):
            plan = {"message": {"tool_plan": f"step {k} of the plan. "}}
            out.append(_event({"type": "tool-plan-delta", "delta": plan}))
        index = 0
        while budget - len(out) > 3:
            out += _call(index, "get_weather", _long_args(min(2000, budget - len(out) - 2)))
            index += 1
    elif shape == "text":
        start = {"type": "text", "text": ""}
        out.append(_event({"type": "content-start", **_content(0, start)}))
        for k in range(budget - 8):
            out.append(_event({"type": "content-delta", **_content(0, {"text": f"word{k} "})}))
        out.append(_event({"type": "content-end", "index": 0}))
        out += _call(0, "get_weather", ['{"city":', ' "Paris"}'])
    elif shape == "parallel":
        names = ("get_weather", "get_time", "search_docs")
        index = 0
        while budget - len(out) > 6:
            out += _call(index, names[index % 3], _long_args(4))
            index += 1
    else:
        raise ValueError(shape)
    usage = {
        "billed_units": {"input_tokens": 31, "output_tokens": events},
        "tokens": {"input_tokens": 511, "output_tokens": events},
    }
    end = {"finish_reason": "TOOL_CALL", "usage": usage}
    out.append(_event({"type": "message-end", "delta": end}))
    return "".join(out).encode("utf-8")


def _pieces(body: bytes) -> Iterator[bytes]:
    return (body[i : i + PIECE] for i in range(0, len(body), PIECE))


def sdk_objects(body: bytes) -> list[Any]:
    """The cohere SDK's own parse: ``ClientV2.chat_stream`` over an in-memory transport."""
    import cohere
    import httpx

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content=_pieces(body), headers={"content-type": "text/event-stream"}
        )

    client = cohere.ClientV2(
        api_key="bench", httpx_client=httpx.Client(transport=httpx.MockTransport(handler))
    )
    messages: Any = [{"role": "user", "content": "hi"}]
    return list(client.chat_stream(model=MODEL, messages=messages))
