"""Ollama ``/api/chat`` streams for the benchmark suite, and the SDK's own parse of them.

The streams have the recorded shape (``cassettes/ollama``: NDJSON, one JSON object a line,
each with ``model``, ``created_at``, ``message`` and ``done``; ``message.thinking`` and
``message.content`` deltas; ``message.tool_calls`` whole, each call's ``arguments`` a JSON
object and its ``id`` and ``function.index`` as newer servers send them; the last line
``done: true`` with ``done_reason`` and the timings). Ollama does not stream a call's
arguments, so a call is one line. Shapes:

* ``tool``     - thinking lines, then one whole call per line
* ``text``     - content lines, one call at the end
* ``parallel`` - three whole calls per line, as ``parallel_three_calls.yaml``

The SDK's parse is ``ollama.Client.chat(stream=True)`` (real client, in-memory transport):
one ``ChatResponse`` per line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

VENDOR = "ollama"
MODEL = "qwen3:8b"
#: the model the request histories name: a vision model, so the images of the media rows
#: are sent (qwen3 takes none: they would be dropped, with a loss)
REQUEST_MODEL = "qwen3-vl:8b"
#: a call's ``arguments`` is an object: the encoder parses each call's argument text
ARGUMENTS_AS_OBJECTS = True
PIECE = 16 * 1024
_AT = "2026-11-30T12:00:00.000000Z"


def _line(message: dict[str, Any]) -> str:
    line = {"model": MODEL, "created_at": _AT, "message": message, "done": False}
    return json.dumps(line, separators=(",", ":")) + "\n"


def _call(i: int, name: str = "get_weather") -> dict[str, Any]:
    args = {"city": f"City {i}", "days": [1, 2, 3], "units": "celsius"}
    return {"id": f"call_{i:08d}", "function": {"index": i, "name": name, "arguments": args}}


def _calls(calls: list[dict[str, Any]]) -> str:
    return _line({"role": "assistant", "content": "", "tool_calls": calls})


def build(shape: str, events: int) -> bytes:
    """``events`` NDJSON lines of the recorded shape (the ``done`` line included)."""
    out: list[str] = []
    budget = events - 1  # the done line
    if shape == "tool":
        for k in range(min(50, budget // 4)):
            out.append(_line({"role": "assistant", "content": "", "thinking": f"step {k}. "}))
        i = 0
        while len(out) < budget:
            out.append(_calls([_call(i)]))
            i += 1
    elif shape == "text":
        out += [_line({"role": "assistant", "content": f"word{k} "}) for k in range(budget - 1)]
        out.append(_calls([_call(0)]))
    elif shape == "parallel":
        names = ("get_weather", "get_time", "search_docs")
        i = 0
        while len(out) < budget:
            out.append(_calls([_call(i + k, names[k]) for k in range(3)]))
            i += 3
    else:
        raise ValueError(shape)
    last = {
        "model": MODEL, "created_at": _AT, "message": {"role": "assistant", "content": ""},
        "done": True, "done_reason": "stop", "total_duration": 1830412000,
        "load_duration": 41235000, "prompt_eval_count": 26, "prompt_eval_duration": 120331000,
        "eval_count": events, "eval_duration": 1650004000,
    }  # fmt: skip
    out.append(json.dumps(last, separators=(",", ":")) + "\n")
    return "".join(out).encode("utf-8")


def _pieces(body: bytes) -> Iterator[bytes]:
    return (body[i : i + PIECE] for i in range(0, len(body), PIECE))


def sdk_objects(body: bytes) -> list[Any]:
    """The ollama SDK's own parse: ``Client.chat(stream=True)`` over an in-memory transport,
    one ``ChatResponse`` per line."""
    import httpx
    import ollama

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content=_pieces(body), headers={"content-type": "application/x-ndjson"}
        )

    client = ollama.Client(host="http://127.0.0.1:11434", transport=httpx.MockTransport(handler))
    return list(client.chat(model=MODEL, messages=[{"role": "user", "content": "hi"}], stream=True))
