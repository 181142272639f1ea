"""Writes the hand-built Chat Completions cassettes in this folder from the chunk lists below.

Run: .venv/bin/python cassettes/openai_chat/build_cassettes.py. The SSE follows
vendor-wire-formats.md §1-§2: ``data:`` lines only, LF, a blank line after each
event, ``data: [DONE]`` last (except where a cut stream is the point), bodies in
a keep-chomping ``|+`` block so the last event keeps its blank line. Each file is
parsed by the openai SDK in tests/vendor_openai_chat.
"""

# ruff: noqa: E501  (the long lines are wire data)

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent
URI = "https://api.openai.com/v1/chat/completions"


def dump(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)


def chunk(cid, choices, usage="absent", model="gpt-4o-2024-08-06", **extra):
    c = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 1764400000,
        "model": model,
        "system_fingerprint": "fp_tw0001",
        "choices": choices,
    }
    if usage != "absent":
        c["usage"] = usage
    c.update(extra)
    return c


def ch(delta, index=0, finish=None):
    return {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}


def tc(index, id=None, name=None, args=None, type_="function"):
    d = {"index": index}
    if id is not None:
        d["id"] = id
    if type_ is not None and id is not None:
        d["type"] = type_
    fn = {}
    if name is not None:
        fn["name"] = name
    if args is not None or name is not None:
        fn["arguments"] = args
    if fn:
        d["function"] = fn
    return d


def sse(payloads, done=True):
    parts = [f"data: {p if isinstance(p, str) else dump(p)}\n\n" for p in payloads]
    if done:
        parts.append("data: [DONE]\n\n")
    return "".join(parts)


def block(text, indent):
    pad = " " * indent
    return "\n".join(pad + line if line else "" for line in text.split("\n"))


def write(name, request, body, ctype="text/event-stream; charset=utf-8", note=""):
    req = json.dumps(request, indent=2, ensure_ascii=False)
    if body.endswith("\n\n"):
        resp = "      string: |+\n" + block(body.rstrip("\n"), 8) + "\n\n"
    else:
        resp = "      string: |-\n" + block(body, 8) + "\n"
    text = (
        f"# {note}\n"
        "version: 1\ninteractions:\n- request:\n    method: POST\n"
        f"    uri: {URI}\n    body: |-\n{block(req, 6)}\n    headers:\n"
        "      content-type: [application/json]\n"
        "  response:\n    status: {code: 200, message: OK}\n    headers:\n"
        f"      content-type: [{ctype}]\n    body:\n{resp}"
    )
    (OUT / name).write_text(text)


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
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
        "parameters": {
            "type": "object",
            "properties": {"tz": {"type": "string"}},
            "required": ["tz"],
        },
    },
}
NOARG = {
    "type": "function",
    "function": {"name": "get_location", "parameters": {"type": "object", "properties": {}}},
}


def req(text, tools, **kw):
    r = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": text}],
        "stream": True,
        "tools": tools,
    }
    r.update(kw)
    return r


# A: three parallel calls, interleaved fragments, two entries in one delta, usage chunk.
C = "chatcmpl-twParallel3"
a = [
    chunk(C, [ch({"role": "assistant", "content": "", "refusal": None})], None),
    chunk(C, [ch({"content": "Looking up three things."})], None),
    chunk(C, [ch({"tool_calls": [tc(0, "call_tw_par_1", "get_weather", "")]})], None),
    chunk(C, [ch({"tool_calls": [tc(1, "call_tw_par_2", "get_time", "")]})], None),
    chunk(C, [ch({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]})], None),
    chunk(C, [ch({"tool_calls": [tc(2, "call_tw_par_3", "get_weather", '{"ci')]})], None),
    chunk(
        C,
        [ch({"tool_calls": [{"index": 1, "function": {"arguments": '{"tz":"Asia/Tokyo"}'}}]})],
        None,
    ),
    chunk(
        C,
        [
            ch(
                {
                    "tool_calls": [
                        {"index": 0, "function": {"arguments": ' "Paris"}'}},
                        {"index": 2, "function": {"arguments": 'ty":"Lima"}'}},
                    ]
                }
            )
        ],
        None,
    ),
    chunk(C, [ch({}, finish="tool_calls")], None),
    chunk(
        C,
        [],
        {
            "prompt_tokens": 120,
            "completion_tokens": 64,
            "total_tokens": 184,
            "prompt_tokens_details": {"cached_tokens": 96, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
    ),
]
write(
    "parallel_three_interleaved.yaml",
    req(
        "Weather in Paris and Lima, and the time in Tokyo?",
        [WEATHER, TIME],
        parallel_tool_calls=True,
        stream_options={"include_usage": True},
    ),
    sse(a),
    note="Hand-built: text, then three parallel calls whose argument fragments interleave (two in one delta); usage chunk.",
)

# B: n=2, each choice with its own calls; choices interleave, one chunk carries both.
C = "chatcmpl-twTwoChoices"
b = [
    chunk(
        C,
        [ch({"role": "assistant", "content": ""}, 0), ch({"role": "assistant", "content": ""}, 1)],
        None,
    ),
    chunk(C, [ch({"content": "Checking Oslo."}, 0)], None),
    chunk(C, [ch({"tool_calls": [tc(0, "call_tw_n2_a", "get_weather", "")]}, 1)], None),
    chunk(C, [ch({"tool_calls": [tc(0, "call_tw_n1_a", "get_weather", '{"city":')]}, 0)], None),
    chunk(
        C,
        [
            ch({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":"Oslo"}'}}]}, 1),
            ch({"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]}, 0),
        ],
        None,
    ),
    chunk(
        C,
        [ch({"tool_calls": [tc(1, "call_tw_n2_b", "get_time", '{"tz":"Europe/Oslo"}')]}, 1)],
        None,
    ),
    chunk(C, [ch({}, 0, "tool_calls")], None),
    chunk(C, [ch({}, 1, "tool_calls")], None),
    chunk(C, [], {"prompt_tokens": 90, "completion_tokens": 70, "total_tokens": 160}),
]
write(
    "two_choices.yaml",
    req("Weather in Oslo?", [WEATHER, TIME], n=2, stream_options={"include_usage": True}),
    sse(b),
    note="Hand-built: n=2, both choices make calls; their chunks interleave and one chunk carries both.",
)

# B2: n=2 and both choices name their call with the same id (seen in real recordings).
C = "chatcmpl-twN2SameId"
b2 = [
    chunk(C, [ch({"role": "assistant", "content": None}, 0)], None),
    chunk(C, [ch({"role": "assistant", "content": None}, 1)], None),
    chunk(C, [ch({"tool_calls": [tc(0, "call_tw_same_1", "get_weather", "")]}, 0)], None),
    chunk(C, [ch({"tool_calls": [tc(0, "call_tw_same_1", "get_weather", "")]}, 1)], None),
    chunk(
        C,
        [
            ch({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":"Oslo"}'}}]}, 0),
            ch({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":"Bergen"}'}}]}, 1),
        ],
        None,
    ),
    chunk(C, [ch({}, 0, "tool_calls")], None),
    chunk(C, [ch({}, 1, "tool_calls")], None),
    chunk(C, [], {"prompt_tokens": 40, "completion_tokens": 30, "total_tokens": 70}),
]
write(
    "n2_repeated_id.yaml",
    req("Weather in Oslo?", [WEATHER], n=2, stream_options={"include_usage": True}),
    sse(b2),
    note="Hand-built: n=2, and choice 1's call reuses choice 0's tool_calls[].id.",
)

# C: malformed JSON arguments, and an empty argument string.
C = "chatcmpl-twMalformed"
c = [
    chunk(C, [ch({"role": "assistant", "content": None})]),
    chunk(C, [ch({"tool_calls": [tc(0, "call_tw_bad_1", "get_weather", "")]})]),
    chunk(C, [ch({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Par'}}]})]),
    chunk(C, [ch({"tool_calls": [{"index": 0, "function": {"arguments": 'is", }'}}]})]),
    chunk(C, [ch({"tool_calls": [tc(1, "call_tw_bad_2", "get_location", "")]})]),
    chunk(C, [ch({}, finish="tool_calls")]),
]
write(
    "malformed_arguments.yaml",
    req("Where am I and what is the weather in Paris?", [WEATHER, NOARG]),
    sse(c),
    note="Hand-built: one call whose argument text is not valid JSON, one whose argument text is empty.",
)

# D: cut mid-arguments, before any finish_reason (no [DONE]).
C = "chatcmpl-twTruncated"
d = [
    chunk(C, [ch({"role": "assistant", "content": ""})]),
    chunk(C, [ch({"tool_calls": [tc(0, "call_tw_cut_1", "get_weather", "")]})]),
    chunk(C, [ch({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":"Ro'}}]})]),
]
write(
    "truncated_before_finish.yaml",
    req("Weather in Rome?", [WEATHER]),
    sse(d, done=False),
    note="Hand-built: the connection drops mid-arguments; no finish_reason and no [DONE].",
)

# E: [DONE] arrives, but no choice ever finished.
C = "chatcmpl-twDoneNoFinish"
e = [
    chunk(C, [ch({"role": "assistant", "content": ""})]),
    chunk(C, [ch({"content": "The answer is"})]),
]
write(
    "done_without_finish.yaml",
    req("Say something.", [WEATHER]),
    sse(e),
    note="Hand-built: a proxy ends the stream with [DONE] although the choice never got a finish_reason.",
)

# F: in-stream error object.
C = "chatcmpl-twError"
f = [
    chunk(C, [ch({"role": "assistant", "content": ""})]),
    chunk(C, [ch({"tool_calls": [tc(0, "call_tw_err_1", "get_weather", '{"city":')]})]),
    {
        "error": {
            "message": "The server had an error while processing your request. Sorry about that!",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    },
]
write(
    "in_stream_error.yaml",
    req("Weather in Kyiv?", [WEATHER]),
    sse(f),
    note="Hand-built: a top-level error object arrives mid-stream (the SDK raises APIError).",
)

# G: OpenAI-compatible quirks: no type, arguments null, id and name on every fragment, both calls in one delta.
C = "chatcmpl-twCompat"
g = [
    chunk(C, [ch({"role": "assistant"})], model="qwen3:8b"),
    chunk(
        C,
        [
            ch(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_cmp_a",
                            "function": {"name": "get_weather", "arguments": None},
                        },
                        {
                            "index": 1,
                            "id": "call_cmp_b",
                            "function": {"name": "get_time", "arguments": None},
                        },
                    ]
                }
            )
        ],
        model="qwen3:8b",
    ),
    chunk(
        C,
        [
            ch(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_cmp_a",
                            "function": {"name": "get_weather", "arguments": '{"city": "Bern"}'},
                        },
                        {
                            "index": 1,
                            "id": "call_cmp_b",
                            "function": {
                                "name": "get_time",
                                "arguments": '{"tz": "Europe/Zurich"}',
                            },
                        },
                    ]
                }
            )
        ],
        model="qwen3:8b",
    ),
    chunk(C, [ch({"content": ""}, finish="tool_calls")], model="qwen3:8b"),
]
write(
    "compat_repeated_ids.yaml",
    req("Weather and time in Bern?", [WEATHER, TIME]),
    sse(g),
    note="Hand-built in the shape OpenAI-compatible servers send: no type, arguments null, id and name repeated on every fragment, two calls per delta.",
)

# H: a server that reuses index 0 for every call, told apart by id.
C = "chatcmpl-twIndexReuse"
h = [
    chunk(C, [ch({"role": "assistant", "content": None})], model="deepseek-chat"),
    chunk(
        C,
        [ch({"tool_calls": [tc(0, "call_reuse_1", "get_weather", '{"city":')]})],
        model="deepseek-chat",
    ),
    chunk(
        C,
        [ch({"tool_calls": [{"index": 0, "function": {"arguments": '"Quito"}'}}]})],
        model="deepseek-chat",
    ),
    chunk(
        C,
        [ch({"tool_calls": [tc(0, "call_reuse_2", "get_weather", '{"city":"Bogota"}')]})],
        model="deepseek-chat",
    ),
    chunk(C, [ch({}, finish="tool_calls")], model="deepseek-chat"),
]
write(
    "compat_index_reuse.yaml",
    req("Weather in Quito and Bogota?", [WEATHER]),
    sse(h),
    note="Hand-built: a compatible server that reuses tool_calls index 0 for every call and distinguishes them by id.",
)

# I: legacy function_call delta.
C = "chatcmpl-twLegacy"
legacy = [
    chunk(
        C,
        [
            ch(
                {
                    "role": "assistant",
                    "content": None,
                    "function_call": {"name": "get_weather", "arguments": ""},
                }
            )
        ],
        model="gpt-3.5-turbo-0613",
    ),
    chunk(C, [ch({"function_call": {"arguments": '{"city":'}})], model="gpt-3.5-turbo-0613"),
    chunk(C, [ch({"function_call": {"arguments": '"Cairo"}'}})], model="gpt-3.5-turbo-0613"),
    chunk(C, [ch({}, finish="function_call")], model="gpt-3.5-turbo-0613"),
]
write(
    "legacy_function_call.yaml",
    {
        "model": "gpt-3.5-turbo-0613",
        "messages": [{"role": "user", "content": "Weather in Cairo?"}],
        "stream": True,
        "functions": [WEATHER["function"]],
    },
    sse(legacy),
    note="Hand-built: the deprecated function_call delta (functions= request), finish_reason function_call.",
)

# J: refusal.
C = "chatcmpl-twRefusal"
j = [
    chunk(C, [ch({"role": "assistant", "content": None, "refusal": ""})]),
    chunk(C, [ch({"refusal": "I'm sorry, "})]),
    chunk(C, [ch({"refusal": "I can't help with that."})]),
    chunk(C, [ch({}, finish="stop")]),
]
write(
    "refusal.yaml",
    req("Help me pick a lock.", [WEATHER]),
    sse(j),
    note="Hand-built: a refusal streamed in delta.refusal.",
)

# K: a follow-up request whose tool result media was relocated to a user message (each source kind), non-streamed answer.
IMG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
PDF = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK"
k_req = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "You describe what tools return."},
        {"role": "user", "content": "Fetch the chart and the report."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_tw_media_1",
                    "type": "function",
                    "function": {"name": "get_chart", "arguments": "{}"},
                },
                {
                    "id": "call_tw_media_2",
                    "type": "function",
                    "function": {"name": "get_report", "arguments": '{"year":2026}'},
                },
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_tw_media_1",
            "content": [{"type": "text", "text": "chart attached"}],
        },
        {
            "role": "tool",
            "tool_call_id": "call_tw_media_2",
            "content": [{"type": "text", "text": "report attached"}],
        },
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "data:image/png;base64," + IMG}},
                {
                    "type": "image_url",
                    "image_url": {"url": "https://example.com/chart.png", "detail": "low"},
                },
                {"type": "file", "file": {"file_id": "file-tw0000000000000000000001"}},
                {
                    "type": "file",
                    "file": {
                        "file_data": "data:application/pdf;base64," + PDF,
                        "filename": "report.pdf",
                    },
                },
            ],
        },
    ],
    "tools": [
        {
            "type": "function",
            "function": {"name": "get_chart", "parameters": {"type": "object", "properties": {}}},
        },
        {
            "type": "function",
            "function": {
                "name": "get_report",
                "description": "The yearly report.",
                "strict": True,
                "parameters": {
                    "type": "object",
                    "properties": {"year": {"type": "integer"}},
                    "required": ["year"],
                    "additionalProperties": False,
                },
            },
        },
    ],
}
k_resp = {
    "id": "chatcmpl-twMedia",
    "object": "chat.completion",
    "created": 1764400000,
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "A one-pixel chart and a one-page report.",
                "refusal": None,
                "annotations": [],
            },
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": {
        "prompt_tokens": 1500,
        "completion_tokens": 12,
        "total_tokens": 1512,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    },
    "service_tier": "default",
    "system_fingerprint": "fp_tw0001",
}
write(
    "relocated_media.yaml",
    k_req,
    json.dumps(k_resp, indent=2),
    ctype="application/json",
    note="Hand-built: tool results answered as text, their media (data image, URL image, OpenAI file id, inline PDF) relocated to the user message after them; a whole (non-streamed) answer.",
)

# L: DeepSeek-style reasoning_content before a call.
C = "chatcmpl-twReasoning"
rsn = [
    chunk(
        C,
        [ch({"role": "assistant", "content": None, "reasoning_content": ""})],
        model="deepseek-reasoner",
    ),
    chunk(
        C,
        [ch({"content": None, "reasoning_content": "The user wants Lisbon weather; "})],
        model="deepseek-reasoner",
    ),
    chunk(
        C,
        [ch({"content": None, "reasoning_content": "call get_weather."})],
        model="deepseek-reasoner",
    ),
    chunk(
        C,
        [
            ch(
                {
                    "content": None,
                    "reasoning_content": None,
                    "tool_calls": [tc(0, "call_tw_rsn_1", "get_weather", '{"city":"Lisbon"}')],
                }
            )
        ],
        model="deepseek-reasoner",
    ),
    chunk(
        C,
        [ch({"content": None, "reasoning_content": None}, finish="tool_calls")],
        model="deepseek-reasoner",
    ),
    chunk(
        C,
        [],
        {
            "prompt_tokens": 40,
            "completion_tokens": 30,
            "total_tokens": 70,
            "completion_tokens_details": {"reasoning_tokens": 22},
        },
        model="deepseek-reasoner",
    ),
]
write(
    "compat_reasoning_content.yaml",
    req("Weather in Lisbon?", [WEATHER], model="deepseek-reasoner"),
    sse(rsn),
    note="Hand-built in DeepSeek's shape: reasoning_content deltas, then a call; usage with reasoning tokens.",
)
