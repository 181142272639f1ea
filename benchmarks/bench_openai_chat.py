"""OpenAI Chat Completions streams for the benchmark suite, and the SDK's own parse of them.

The streams have the recorded shape (``cassettes/openai_chat``: plain ``data:`` chunks, a role
chunk, text deltas, ``tool_calls`` deltas by index, a finish chunk, a usage chunk, ``[DONE]``).
Shapes:

* ``tool``     - calls one after another, each fed by many argument fragments
* ``text``     - text deltas, one short call at the end
* ``parallel`` - three calls whose argument fragments interleave, as
  ``parallel_three_interleaved.yaml``

The SDK reads the body in 16 KiB pieces, as a socket would hand them over.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

VENDOR = "openai_chat"
MODEL = "gpt-4o-2024-08-06"
CID = "chatcmpl-benchLongStream"
PIECE = 16 * 1024


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    body = {
        "id": CID, "object": "chat.completion.chunk", "created": 1764400000, "model": MODEL,
        "system_fingerprint": "fp_bench",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        "usage": None,
    }  # fmt: skip
    return "data: " + json.dumps(body, separators=(",", ":")) + "\n\n"


def _open(k: int, name: str) -> str:
    call = {"index": k, "id": f"call_bench_{k}", "type": "function"}
    call["function"] = {"name": name, "arguments": ""}
    return _chunk({"tool_calls": [call]})


def _args(k: int, text: str) -> str:
    return _chunk({"tool_calls": [{"index": k, "function": {"arguments": text}}]})


def build(shape: str, events: int) -> bytes:
    """About ``events`` SSE events of the recorded shape."""
    out = [_chunk({"role": "assistant", "content": "", "refusal": None})]
    budget = events - 3  # finish, usage, [DONE]
    if shape == "tool":
        k = 0
        while budget - len(out) > 3:
            out.append(_open(k, "get_weather"))
            out.append(_args(k, '{"items": ['))
            span = min(2000, budget - len(out) - 1)
            out += [_args(k, f'{{"n": {i}, "s": "abcdefgh"}}, ') for i in range(span)]
            out.append(_args(k, '"end"]}'))
            k += 1
    elif shape == "text":
        out += [_chunk({"content": f"word{i} "}) for i in range(budget - 4)]
        out += [_open(0, "get_weather"), _args(0, '{"city": '), _args(0, '"Paris"}')]
    elif shape == "parallel":
        names = ("get_weather", "get_time", "search_docs")
        out += [_open(k, name) for k, name in enumerate(names)]
        out += [_args(k, '{"items": [') for k in range(3)]
        rest = budget - len(out) - 3
        out += [_args(i % 3, f'"v{i}", ') for i in range(rest)]
        out += [_args(k, '"end"]}') for k in range(3)]
    else:
        raise ValueError(shape)
    out.append(_chunk({}, "tool_calls"))
    usage = {"prompt_tokens": 100, "completion_tokens": events, "total_tokens": 100 + events}
    tail = {"id": CID, "object": "chat.completion.chunk", "created": 1764400000}
    tail.update(model=MODEL, choices=[], usage=usage)
    out.append("data: " + json.dumps(tail, separators=(",", ":")) + "\n\n")
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def _pieces(body: bytes) -> Iterator[bytes]:
    return (body[i : i + PIECE] for i in range(0, len(body), PIECE))


def sdk_objects(body: bytes) -> list[Any]:
    """The openai SDK's own parse (``chat.completions.create(stream=True)``, in memory)."""
    import httpx2
    from openai import OpenAI

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, content=_pieces(body), headers={"content-type": "text/event-stream"}
        )

    client = OpenAI(
        api_key="bench", http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )
    return list(client.chat.completions.create(model="gpt-4o", messages=[], stream=True))
