"""Writes the hand-built Cohere v2 chat cassettes in this folder from the events below.

Run: .venv/bin/python cassettes/cohere/build_cassettes.py. The SSE follows Cohere's v2 chat
streaming reference: each event an ``event: <type>`` line and one ``data:`` line holding
the event object (its ``type`` inside), a blank line after each; ``message-start`` (the
message id), ``tool-plan-delta``, ``tool-call-start`` / ``-delta`` / ``-end`` by index,
``content-start`` / ``-delta`` / ``-end`` (``text`` or ``thinking``), ``citation-start`` /
``-end``, and ``message-end`` with ``finish_reason`` and ``usage``. Each file is parsed by
the cohere SDK in tests/vendor_cohere.
"""

# ruff: noqa: E501  (the long lines are wire data)

import json
from pathlib import Path

from toolwire.testing.hand_built import write_cassette

OUT = Path(__file__).resolve().parent
URI = "https://api.cohere.com/v2/chat"

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


def sse(events, done=False):
    parts = [f"event: {e['type']}\ndata: {dump(e)}\n\n" for e in events]
    if done:
        parts.append("data: [DONE]\n\n")
    return "".join(parts)


def start(mid):
    return {
        "id": mid,
        "type": "message-start",
        "delta": {
            "message": {
                "role": "assistant",
                "content": [],
                "tool_plan": "",
                "tool_calls": [],
                "citations": [],
            }
        },
    }


def plan(text):
    return {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": text}}}


def call_start(i, id_, name):
    return {
        "type": "tool-call-start",
        "index": i,
        "delta": {
            "message": {
                "tool_calls": {
                    "id": id_,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
            }
        },
    }


def call_delta(i, args):
    return {
        "type": "tool-call-delta",
        "index": i,
        "delta": {"message": {"tool_calls": {"function": {"arguments": args}}}},
    }


def call_end(i):
    return {"type": "tool-call-end", "index": i}


def content_start(i, kind="text"):
    return {
        "type": "content-start",
        "index": i,
        "delta": {"message": {"content": {"type": kind, kind: ""}}},
    }


def content_delta(i, text, kind="text"):
    return {"type": "content-delta", "index": i, "delta": {"message": {"content": {kind: text}}}}


def content_end(i):
    return {"type": "content-end", "index": i}


def end(reason, inp, out, **extra):
    usage = {
        "billed_units": {"input_tokens": inp, "output_tokens": out},
        "tokens": {"input_tokens": inp + 480, "output_tokens": out + 3},
    }
    return {"type": "message-end", "delta": {"finish_reason": reason, "usage": usage, **extra}}


def cassette(name, comment, request, body, content_type="text/event-stream"):
    write_cassette(OUT / name, comment, request, body, uri=URI, content_type=content_type)


def ask(model, question, *, tools=(WEATHER, TIME), stream=True, **extra):
    body = {"model": model, "messages": [{"role": "user", "content": question}], "stream": stream}
    if tools:
        body["tools"] = list(tools)
    body.update(extra)
    return body


def main():
    m = "command-a-03-2025"
    mid = "c14c80c3-18eb-4519-9460-6c92edd8cfb4"
    cassette(
        "parallel_three_calls.yaml",
        "a tool plan, then three calls, their arguments in fragments, interleaved with nothing; finish TOOL_CALL.",
        ask(m, "Weather in Oslo and Lima, and the time in Oslo?"),
        sse(
            [
                start(mid),
                plan("I will look up"),
                plan(" the weather and the time."),
                call_start(0, "get_weather_k2n8x1qa7b4c", "get_weather"),
                call_delta(0, '{"city":'),
                call_delta(0, ' "Oslo"}'),
                call_end(0),
                call_start(1, "get_weather_p0d4w7rm9d2e", "get_weather"),
                call_delta(1, '{"city": "Lima"}'),
                call_end(1),
                call_start(2, "get_time_t5v3c9zb1f6g", "get_time"),
                call_delta(2, '{"city": "Oslo"}'),
                call_end(2),
                end("TOOL_CALL", 31, 62),
            ]
        ),
    )
    mid = "7d2a1b3c-0e4f-4a5b-8c6d-9e0f1a2b3c4d"
    cassette(
        "thinking_and_citations.yaml",
        "a reasoning model thinks, answers, and cites the tool result it was given; [DONE] after message-end.",
        {
            "model": "command-a-reasoning-08-2025",
            "messages": [
                {"role": "user", "content": "Weather in Oslo?"},
                {
                    "role": "assistant",
                    "tool_plan": "I will check the weather.",
                    "tool_calls": [
                        {
                            "id": "get_weather_0s10w3a7h3r0",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                        }
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": "get_weather_0s10w3a7h3r0",
                    "content": [
                        {
                            "type": "document",
                            "document": {
                                "data": {"temp_c": 4, "sky": "rain"},
                                "id": "weather-oslo",
                            },
                        }
                    ],
                },
            ],
            "tools": [WEATHER],
            "thinking": {"type": "enabled"},
            "stream": True,
        },
        sse(
            [
                start(mid),
                content_start(0, "thinking"),
                content_delta(0, "The tool says 4 °C", "thinking"),
                content_delta(0, " and rain.", "thinking"),
                content_end(0),
                content_start(1),
                content_delta(1, "It is 4 °C"),
                content_delta(1, " and raining in Oslo."),
                {
                    "type": "citation-start",
                    "index": 0,
                    "delta": {
                        "message": {
                            "citations": {
                                "start": 6,
                                "end": 10,
                                "text": "4 °C",
                                "sources": [
                                    {
                                        "type": "tool",
                                        "id": "weather-oslo",
                                        "tool_output": {"temp_c": "4", "sky": "rain"},
                                    }
                                ],
                                "content_index": 1,
                                "type": "TEXT_CONTENT",
                            }
                        }
                    },
                },
                {"type": "citation-end", "index": 0},
                content_end(1),
                end("COMPLETE", 120, 30),
            ],
            done=True,
        ),
    )
    mid = "9a8b7c6d-5e4f-4a2b-9c0d-1e2f3a4b5c6d"
    cassette(
        "max_tokens.yaml",
        "the answer stops at max_tokens.",
        ask(m, "Describe the sea.", tools=(), max_tokens=4),
        sse(
            [
                start(mid),
                content_start(0),
                content_delta(0, "The sea is"),
                content_delta(0, " wide"),
                content_end(0),
                end("MAX_TOKENS", 12, 4),
            ]
        ),
    )
    cassette(
        "truncated.yaml",
        "the stream stops inside a call's arguments, before message-end.",
        ask(m, "Weather in Oslo?"),
        sse(
            [
                start(mid),
                plan("Checking."),
                call_start(0, "get_weather_cut0ff000001", "get_weather"),
                call_delta(0, '{"city": "Os'),
            ]
        ),
    )
    cassette(
        "in_stream_error.yaml",
        "message-end with finish_reason ERROR and the error's text, after some text.",
        ask(m, "Tell me a story.", tools=()),
        sse(
            [
                start(mid),
                content_start(0),
                content_delta(0, "Once"),
                {
                    "type": "message-end",
                    "delta": {
                        "finish_reason": "ERROR",
                        "error": "internal server error, please try again",
                    },
                },
            ]
        ),
    )
    whole = {
        "id": "5b4a3c2d-1e0f-4a8b-9c6d-5e4f3a2b1c0d",
        "finish_reason": "TOOL_CALL",
        "message": {
            "role": "assistant",
            "tool_plan": "I will check the weather in Bergen.",
            "tool_calls": [
                {
                    "id": "get_weather_b3rg3nwx1a2b",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Bergen"}'},
                }
            ],
        },
        "usage": {
            "billed_units": {"input_tokens": 80, "output_tokens": 21},
            "tokens": {"input_tokens": 560, "output_tokens": 24},
        },
    }
    cassette(
        "whole_response.yaml",
        "stream: false: one V2ChatResponse with a plan and a call.",
        ask(m, "Weather in Bergen?", stream=False),
        json.dumps(whole, separators=(",", ":")),
        content_type="application/json",
    )


if __name__ == "__main__":
    main()
