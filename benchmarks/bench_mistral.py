"""Mistral chat-completion streams for the benchmark suite, and the SDK's own parse of them.

The streams have the recorded shape (``cassettes/mistral``: plain ``data:`` chunks like Chat
Completions, a role chunk, content deltas (a string, or a list of ``thinking`` / ``text``
chunks from Magistral), ``tool_calls`` sent whole in one delta, each with its 9-character id
and its arguments as JSON text; the last chunk carries ``finish_reason`` and ``usage``; then
``[DONE]``). Mistral does not stream a call's arguments, so, as with Gemini, a call is one
chunk. Shapes:

* ``tool``     - Magistral thinking chunks, then one whole call per chunk
* ``text``     - text deltas, one call at the end
* ``parallel`` - three whole calls per chunk, as ``parallel_three_calls.yaml``

The SDK (``mistralai``'s ``chat.stream``: an event stream of ``CompletionEvent``) reads the
body in 16 KiB pieces, as a socket would hand them over.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

VENDOR = "mistral"
MODEL = "mistral-large-latest"
CID = "0f4c2a9be1d34c7a8e6b5d2f1a0c9e8d"
PIECE = 16 * 1024
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _id(i: int) -> str:
    """A call id of Mistral's form: nine letters and digits."""
    out = []
    for _ in range(9):
        i, r = divmod(i, len(_ALPHABET))
        out.append(_ALPHABET[r])
    return "".join(reversed(out))


def _chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> str:
    body: dict[str, Any] = {
        "id": CID, "object": "chat.completion.chunk", "created": 1764500000, "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }  # fmt: skip
    if usage is not None:
        body["usage"] = usage
    return "data: " + json.dumps(body, separators=(",", ":")) + "\n\n"


def _call(i: int, index: int, name: str = "get_weather") -> dict[str, Any]:
    args = {"city": f"City {i}", "days": [1, 2, 3], "units": "celsius"}
    return {
        "id": _id(7_000_000 + i),
        "function": {"name": name, "arguments": json.dumps(args)},
        "index": index,
    }


def build(shape: str, events: int) -> bytes:
    """``events`` SSE events of the recorded shape (``[DONE]`` included)."""
    out = [_chunk({"role": "assistant", "content": ""})]
    budget = events - 2  # the finish chunk, [DONE]
    if shape == "tool":
        for k in range(min(50, budget // 4)):
            thought = [{"type": "text", "text": f"step {k} of the plan. "}]
            out.append(_chunk({"content": [{"type": "thinking", "thinking": thought}]}))
        i = 0
        while len(out) < budget:
            out.append(_chunk({"tool_calls": [_call(i, i)]}))
            i += 1
    elif shape == "text":
        out += [_chunk({"content": f"word{k} "}) for k in range(budget - 2)]
        out.append(_chunk({"tool_calls": [_call(0, 0)]}))
    elif shape == "parallel":
        names = ("get_weather", "get_time", "search_docs")
        i = 0
        while len(out) < budget:
            calls = [_call(i + k, i + k, names[k]) for k in range(3)]
            out.append(_chunk({"tool_calls": calls}))
            i += 3
    else:
        raise ValueError(shape)
    usage = {"prompt_tokens": 91, "total_tokens": 91 + events, "completion_tokens": events}
    out.append(_chunk({"content": ""}, "tool_calls", usage))
    out.append("data: [DONE]\n\n")
    return "".join(out).encode("utf-8")


def _pieces(body: bytes) -> Iterator[bytes]:
    return (body[i : i + PIECE] for i in range(0, len(body), PIECE))


def sdk_objects(body: bytes) -> list[Any]:
    """mistralai's own parse: ``chat.stream`` (real client, in-memory transport), every
    ``CompletionEvent`` it yields."""
    import httpx2
    from mistralai.client import Mistral

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, content=_pieces(body), headers={"content-type": "text/event-stream"}
        )

    client = Mistral(api_key="bench", client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    with client.chat.stream(model=MODEL, messages=[{"role": "user", "content": "hi"}]) as stream:
        return list(stream)
