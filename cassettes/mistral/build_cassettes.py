"""Writes the hand-built Mistral chat completions cassettes in this folder from the chunks below.

Run: .venv/bin/python cassettes/mistral/build_cassettes.py. The SSE follows Mistral's API
reference (``POST /v1/chat/completions`` with ``stream: true``): ``data:`` lines only, a
blank line after each event, ``data: [DONE]`` last; a ``CompletionChunk`` carries
``choices[].delta`` (``role``, ``content`` as a string or a list of chunks, ``tool_calls``
whole in one delta with nine-character ids) and ``finish_reason``; the last chunk carries
``usage``. Each file is parsed by the mistralai SDK in tests/vendor_mistral.
"""

# ruff: noqa: E501  (the long lines are wire data)

import json
from pathlib import Path

from toolwire.testing.hand_built import write_cassette

OUT = Path(__file__).resolve().parent
URI = "https://api.mistral.ai/v1/chat/completions"

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Local time in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def dump(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)


def chunk(cid, model, delta, finish=None, usage=None, index=0):
    c = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 1764500000,
        "model": model,
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }
    if usage is not None:
        c["usage"] = usage
    return c


def call(id_, name, args, index=0):
    return {"id": id_, "function": {"name": name, "arguments": args}, "index": index}


def usage(prompt, completion):
    return {
        "prompt_tokens": prompt,
        "total_tokens": prompt + completion,
        "completion_tokens": completion,
    }


def sse(payloads, done=True):
    parts = [f"data: {p if isinstance(p, str) else dump(p)}\n\n" for p in payloads]
    if done:
        parts.append("data: [DONE]\n\n")
    return "".join(parts)


def cassette(name, comment, request, body, content_type="text/event-stream; charset=utf-8"):
    write_cassette(OUT / name, comment, request, body, uri=URI, content_type=content_type)


def ask(model, question, *, tools=(WEATHER, TIME), stream=True, **extra):
    body = {"model": model, "messages": [{"role": "user", "content": question}], "stream": stream}
    if tools:
        body["tools"] = list(tools)
    body.update(extra)
    return body


def main():
    m, cid = "mistral-large-latest", "0f4c2a9be1d34c7a8e6b5d2f1a0c9e8d"
    cassette(
        "parallel_three_calls.yaml",
        "a word of text, then three calls whole in one delta (index 0, 1, 2), finish_reason tool_calls with usage.",
        ask(m, "Weather in Oslo and Lima, and the time in Oslo?"),
        sse(
            [
                chunk(cid, m, {"role": "assistant", "content": ""}),
                chunk(cid, m, {"content": "Checking."}),
                chunk(
                    cid,
                    m,
                    {
                        "tool_calls": [
                            call("K2n8x1qAb", "get_weather", '{"city": "Oslo"}', 0),
                            call("P0d4w7rMc", "get_weather", '{"city": "Lima"}', 1),
                            call("T5v3c9zBd", "get_time", '{"city": "Oslo"}', 2),
                        ]
                    },
                ),
                chunk(cid, m, {"content": ""}, "tool_calls", usage(91, 64)),
            ]
        ),
    )
    cid = "7e1d0c3b5a2f4e6d8c9b0a1f2e3d4c5b"
    cassette(
        "calls_at_index_zero.yaml",
        "two calls in two deltas, both at index 0, one with empty arguments (the ids tell them apart).",
        ask(m, "Weather in Quito, and the time there?"),
        sse(
            [
                chunk(cid, m, {"role": "assistant", "content": ""}),
                chunk(
                    cid,
                    m,
                    {
                        "tool_calls": [
                            call(
                                "Qu1t0WxA9", "get_weather", '{"city":"Quito","units":{"temp":"C"}}'
                            )
                        ]
                    },
                ),
                chunk(cid, m, {"tool_calls": [call("Qu1t0TmB8", "get_time", "")]}),
                chunk(cid, m, {"content": ""}, "tool_calls", usage(120, 40)),
            ]
        ),
    )
    m, cid = "magistral-medium-latest", "3c5e7a9b1d2f4a6c8e0b2d4f6a8c0e1f"
    cassette(
        "magistral_thinking.yaml",
        "Magistral: content as chunks, thinking first (a list of text chunks), then the answer.",
        ask(m, "Is 221 prime?", tools=()),
        sse(
            [
                chunk(cid, m, {"role": "assistant", "content": ""}),
                chunk(
                    cid,
                    m,
                    {
                        "content": [
                            {"type": "thinking", "thinking": [{"type": "text", "text": "221 = 13"}]}
                        ]
                    },
                ),
                chunk(
                    cid,
                    m,
                    {
                        "content": [
                            {"type": "thinking", "thinking": [{"type": "text", "text": " × 17."}]}
                        ]
                    },
                ),
                chunk(cid, m, {"content": [{"type": "text", "text": "No: 221 = 13 × 17."}]}),
                chunk(cid, m, {"content": ""}, "stop", usage(15, 30)),
            ]
        ),
    )
    m, cid = "mistral-small-latest", "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"
    cassette(
        "model_length.yaml",
        "the context is full: finish_reason model_length.",
        ask(m, "Summarize the thread.", tools=()),
        sse(
            [
                chunk(cid, m, {"role": "assistant", "content": ""}),
                chunk(cid, m, {"content": "The thread"}),
                chunk(cid, m, {"content": " covers"}, "model_length", usage(32000, 2)),
            ]
        ),
    )
    cassette(
        "truncated.yaml",
        "the stream stops after a call, before any finish_reason and [DONE].",
        ask(m, "Weather in Oslo?"),
        sse(
            [
                chunk(cid, m, {"role": "assistant", "content": ""}),
                chunk(
                    cid, m, {"tool_calls": [call("Cut0ff1Ab", "get_weather", '{"city":"Oslo"}')]}
                ),
            ],
            done=False,
        ),
    )
    cassette(
        "in_stream_error.yaml",
        "an error object in the stream after some text.",
        ask(m, "Tell me a story.", tools=()),
        sse(
            [
                chunk(cid, m, {"role": "assistant", "content": ""}),
                chunk(cid, m, {"content": "Once"}),
                {
                    "object": "error",
                    "message": "Service tier capacity exceeded for this model.",
                    "type": "service_tier_capacity_exceeded",
                    "param": None,
                    "code": "3505",
                },
            ],
            done=False,
        ),
    )
    whole = {
        "id": "5b4a3c2d1e0f9a8b7c6d5e4f3a2b1c0d",
        "object": "chat.completion",
        "created": 1764500100,
        "model": m,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "B3rg3nWx1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Bergen"}'},
                            "index": 0,
                        }
                    ],
                    "prefix": False,
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 80, "total_tokens": 101, "completion_tokens": 21},
    }
    cassette(
        "whole_response.yaml",
        "stream: false: one ChatCompletionResponse with a call.",
        ask(m, "Weather in Bergen?", stream=False),
        json.dumps(whole, separators=(",", ":")),
        content_type="application/json",
    )
    history = {
        "model": "mistral-medium-latest",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in this picture, and the weather there?"},
                    {"type": "image_url", "image_url": "https://example.com/beach.jpg"},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "N1ceWx001",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Nice"}'},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "N1ceWx001",
                "name": "get_weather",
                "content": '{"temp_c": 24, "sky": "clear"}',
            },
        ],
        "tools": [WEATHER],
        "stream": True,
    }
    cid = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"
    cassette(
        "history_with_image.yaml",
        "a second turn: the user's image URL, the assistant's call, the tool's answer; the model answers.",
        history,
        sse(
            [
                chunk(cid, "mistral-medium-latest", {"role": "assistant", "content": ""}),
                chunk(
                    cid, "mistral-medium-latest", {"content": "A beach in Nice; 24 °C and clear."}
                ),
                chunk(cid, "mistral-medium-latest", {"content": ""}, "stop", usage(310, 12)),
            ]
        ),
    )


if __name__ == "__main__":
    main()
