"""OpenAI Responses streams for the benchmark suite, and the SDK's own parse of them.

The streams have the recorded shape (``cassettes/openai_responses``: ``event:`` + ``data:`` per
event with a ``sequence_number``): response.created, a reasoning item with summary deltas, a
message with text deltas, ``function_call`` items fed by ``function_call_arguments.delta``, each
closed by ``arguments.done`` + ``output_item.done``, and ``response.completed`` with usage.
Shapes:

* ``tool``     - short reasoning, then calls one after another, each fed by many argument deltas
* ``text``     - a message of text deltas, one short call at the end
* ``parallel`` - three calls whose argument deltas interleave
"""

from __future__ import annotations

import json
from typing import Any

VENDOR = "openai_responses"
MODEL = "gpt-5"
RID = "resp_benchLongStream"


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.seq = 0

    def __call__(self, kind: str, **fields: Any) -> None:
        ev = {"type": kind, "sequence_number": self.seq, **fields}
        self.seq += 1
        self.parts.append(f"event: {kind}\ndata: {json.dumps(ev, separators=(',', ':'))}\n\n")


def _response(status: str, usage: Any = None) -> dict[str, Any]:
    return {
        "id": RID, "object": "response", "created_at": 1764400000, "status": status,
        "error": None, "incomplete_details": None, "instructions": None, "model": MODEL,
        "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": usage, "metadata": {},
    }  # fmt: skip


def _reasoning(w: _Writer, index: int, deltas: int) -> None:
    rs = {"id": "rs_bench", "type": "reasoning", "summary": []}
    w("response.output_item.added", output_index=index, item=rs)
    where = {"item_id": "rs_bench", "output_index": index, "summary_index": 0}
    w("response.reasoning_summary_part.added", **where, part={"type": "summary_text", "text": ""})
    for i in range(deltas):
        w("response.reasoning_summary_text.delta", **where, delta=f"thought {i} ")
    w("response.reasoning_summary_part.done", **where, part={"type": "summary_text", "text": ""})
    w("response.output_item.done", output_index=index, item={**rs, "encrypted_content": "gAAAA"})


def _message(w: _Writer, index: int, deltas: int) -> None:
    msg = {"id": "msg_bench", "type": "message", "status": "in_progress", "content": [],
           "role": "assistant"}  # fmt: skip
    w("response.output_item.added", output_index=index, item=msg)
    where = {"item_id": "msg_bench", "output_index": index, "content_index": 0}
    for i in range(deltas):
        w("response.output_text.delta", **where, delta=f"word{i} ", logprobs=[])
    w("response.output_item.done", output_index=index, item={**msg, "status": "completed"})


def _call(k: int, name: str, status: str) -> dict[str, Any]:
    return {"id": f"fc_bench_{k}", "type": "function_call", "status": status,
            "arguments": "", "call_id": f"call_bench_{k}", "name": name}  # fmt: skip


def _open(w: _Writer, k: int, index: int, name: str) -> None:
    w("response.output_item.added", output_index=index, item=_call(k, name, "in_progress"))


def _close(w: _Writer, k: int, index: int, name: str) -> None:
    w("response.function_call_arguments.done", item_id=f"fc_bench_{k}", output_index=index,
      arguments="")  # fmt: skip
    w("response.output_item.done", output_index=index, item=_call(k, name, "completed"))


def _args(w: _Writer, k: int, index: int, text: str) -> None:
    w("response.function_call_arguments.delta", item_id=f"fc_bench_{k}", output_index=index,
      delta=text)  # fmt: skip


def build(shape: str, events: int) -> bytes:
    """About ``events`` SSE events of the recorded shape."""
    w = _Writer()
    w("response.created", response=_response("in_progress"))
    budget = events - 1  # response.completed
    if shape == "tool":
        _reasoning(w, 0, 50)
        k = 0
        while budget - w.seq > 5:
            _open(w, k, 1 + k, "get_weather")
            span = min(2000, budget - w.seq - 2)
            for i in range(span):
                _args(w, k, 1 + k, f'{{"n": {i}, "s": "abcdefgh"}}, ')
            _close(w, k, 1 + k, "get_weather")
            k += 1
    elif shape == "text":
        _message(w, 0, budget - w.seq - 10)
        _open(w, 0, 1, "get_weather")
        _args(w, 0, 1, '{"city": "Paris"}')
        _close(w, 0, 1, "get_weather")
    elif shape == "parallel":
        _reasoning(w, 0, 10)
        names = ("get_weather", "get_time", "search_docs")
        for k, name in enumerate(names):
            _open(w, k, 1 + k, name)
        for i in range(max(0, budget - w.seq - 6)):
            _args(w, i % 3, 1 + i % 3, f'"v{i}", ')
        for k, name in enumerate(names):
            _close(w, k, 1 + k, name)
    else:
        raise ValueError(shape)
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": events, "output_tokens_details": {"reasoning_tokens": 10},
             "total_tokens": 100 + events}  # fmt: skip
    w("response.completed", response=_response("completed", usage))
    return "".join(w.parts).encode("utf-8")


def sdk_objects(body: bytes) -> list[Any]:
    """The openai SDK's own parse (``responses.create(stream=True)``, typed events, in memory)."""
    import httpx2
    from openai import OpenAI

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = OpenAI(
        api_key="sk-bench", http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )
    return list(client.responses.create(model=MODEL, input="bench", stream=True))
