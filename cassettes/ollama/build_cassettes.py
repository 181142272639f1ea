"""Writes the hand-built Ollama ``/api/chat`` cassettes in this folder from the lines below.

Run: .venv/bin/python cassettes/ollama/build_cassettes.py. The bodies follow Ollama's API
reference (docs/api.md, "Generate a chat completion"): a streamed answer is NDJSON, one
``ChatResponse`` object a line (``application/x-ndjson``), the last with ``done: true``,
``done_reason`` and the counts; tool calls arrive whole with ``function.arguments`` an
object (newer servers add ``id`` and ``function.index``); ``thinking`` carries a thinking
model's reasoning; an error mid-stream is a line ``{"error": "..."}``. Each file is parsed
by the ollama SDK in tests/vendor_ollama.
"""

# ruff: noqa: E501  (the long lines are wire data)

import json
from pathlib import Path

from toolwire.testing.hand_built import write_cassette

OUT = Path(__file__).resolve().parent
URI = "http://127.0.0.1:11434/api/chat"
T = "2026-11-30T12:00:00.000000Z"

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


def line(model, message=None, done=False, **extra):
    out = {"model": model, "created_at": T}
    out["message"] = message if message is not None else {"role": "assistant", "content": ""}
    out["done"] = done
    out.update(extra)
    return out


def text(model, s):
    return line(model, {"role": "assistant", "content": s})


def think(model, s):
    return line(model, {"role": "assistant", "content": "", "thinking": s})


def calls(model, *cs):
    return line(model, {"role": "assistant", "content": "", "tool_calls": list(cs)})


def call(name, args, id=None, index=None):
    fn = {"name": name, "arguments": args}
    if index is not None:
        fn = {"index": index, **fn}
    out = {"function": fn}
    if id is not None:
        out = {"id": id, **out}
    return out


def last(model, reason="stop", prompt=26, evals=41):
    return line(
        model,
        done=True,
        done_reason=reason,
        total_duration=1830412000,
        load_duration=41235000,
        prompt_eval_count=prompt,
        prompt_eval_duration=120331000,
        eval_count=evals,
        eval_duration=1650004000,
    )


def ndjson(objs):
    """One compact object a line; U+2028 and U+2029 escaped, as the server's Go encoder does."""
    out = []
    for o in objs:
        text = json.dumps(o, separators=(",", ":"), ensure_ascii=False)
        out.append(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n")
    return "".join(out)


def cassette(name, comment, request, body, content_type="application/x-ndjson; charset=utf-8"):
    write_cassette(OUT / name, comment, request, body, uri=URI, content_type=content_type)


def ask(model, question, *, tools=(WEATHER, TIME), stream=True, **extra):
    body = {
        "model": model,
        "messages": [{"role": "user", "content": question}],
        "tools": list(tools),
        "stream": stream,
    }
    body.update(extra)
    return body


def main():
    m = "qwen3:8b"
    cassette(
        "parallel_three_calls.yaml",
        "a thinking model (newer server: ids and function.index) reasons, says a word, then makes three calls on one line.",
        ask(m, "Weather in Oslo and Lima, and the time in Oslo?", think=True),
        ndjson(
            [
                think(m, "The user wants"),
                think(m, " three things."),
                text(m, "Let me check."),
                calls(
                    m,
                    call("get_weather", {"city": "Oslo"}, "call_k2n8x1qa", 0),
                    call("get_weather", {"city": "Lima"}, "call_p0d4w7rm", 1),
                    call("get_time", {"city": "Oslo"}, "call_t5v3c9zb", 2),
                ),
                last(m),
            ]
        ),
    )
    m = "llama3.1:8b"
    cassette(
        "calls_without_ids.yaml",
        "an older server: calls arrive on two lines with no id and no index, one with empty arguments.",
        ask(m, "Weather in Quito, and what time is it?"),
        ndjson(
            [
                calls(
                    m,
                    call(
                        "get_weather", {"city": "Quito", "units": {"temp": "C", "wind": ["km/h"]}}
                    ),
                ),
                calls(m, call("get_time", {})),
                last(m, prompt=180, evals=37),
            ]
        ),
    )
    m = "llama3.2"
    cassette(
        "truncated.yaml",
        "the stream stops after a call and some text, before the line with done: true.",
        ask(m, "Weather in Oslo?"),
        ndjson(
            [
                text(m, "Checking"),
                text(m, " now."),
                calls(m, call("get_weather", {"city": "Oslo"}, "call_cut00001", 0)),
            ]
        ),
    )
    cassette(
        "in_stream_error.yaml",
        "the server reports an error on a line of its own mid-stream (a model runner that stopped).",
        ask(m, "Tell me a story."),
        ndjson(
            [
                text(m, "Once"),
                text(m, " upon"),
                {"error": "an error was encountered while running the model: unexpected EOF"},
            ]
        ),
    )
    cassette(
        "length.yaml",
        "the answer stops at num_predict: done_reason length; a line holds U+2028 (escaped, as Go writes it) inside a string.",
        ask(m, "Describe the sea.", tools=(), options={"num_predict": 8}),
        ndjson(
            [
                text(m, "The sea\u2028is"),
                text(m, " wide and"),
                text(m, " deep"),
                last(m, "length", 12, 8),
            ]
        ),
    )
    whole = {
        "model": m,
        "created_at": T,
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [call("get_weather", {"city": "Bergen"}, "call_w0l3b0dy", 0)],
        },
        "done": True,
        "done_reason": "stop",
        "total_duration": 912000000,
        "load_duration": 20000000,
        "prompt_eval_count": 150,
        "prompt_eval_duration": 80000000,
        "eval_count": 18,
        "eval_duration": 800000000,
    }
    cassette(
        "whole_response.yaml",
        "stream: false: one ChatResponse object, a call in it.",
        ask(m, "Weather in Bergen?", stream=False),
        json.dumps(whole, separators=(",", ":")),
        content_type="application/json; charset=utf-8",
    )
    m = "gemma3:12b"
    tiny_png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    history = {
        "model": m,
        "messages": [
            {"role": "system", "content": "You are terse."},
            {
                "role": "user",
                "content": "What is in this picture, and the weather there?",
                "images": [tiny_png],
            },
            {
                "role": "assistant",
                "content": "",
                "thinking": "A beach. Which city? Ask the tool.",
                "tool_calls": [
                    {
                        "id": "call_h1st0ry1",
                        "function": {
                            "index": 0,
                            "name": "get_weather",
                            "arguments": {"city": "Nice"},
                        },
                    }
                ],
            },
            {
                "role": "tool",
                "content": '{"temp_c": 24, "sky": "clear"}',
                "tool_name": "get_weather",
                "tool_call_id": "call_h1st0ry1",
            },
        ],
        "tools": [WEATHER],
        "stream": True,
    }
    cassette(
        "history_with_images.yaml",
        "a vision model's second turn: the user's image, the assistant's thinking and call, the tool's answer.",
        history,
        ndjson(
            [text(m, "A beach in Nice;"), text(m, " 24 °C and clear."), last(m, "stop", 310, 12)]
        ),
    )


if __name__ == "__main__":
    main()
