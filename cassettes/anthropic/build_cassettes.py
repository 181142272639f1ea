"""Writes the hand-built Anthropic cassettes in this folder from the event lists below.

Run: .venv/bin/python cassettes/anthropic/build_cassettes.py (the SSE follows
vendor-wire-formats.md §4A: one named event per block, LF, a blank line after each).
"""

# ruff: noqa: E501  (the long lines are wire data: signatures, base64 payloads, SSE lines)

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent
URI = "https://api.anthropic.com/v1/messages"


def j(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)


def sse(events):
    out = []
    for e in events:
        name = e["type"]
        if name == "ping":
            out.append('event: ping\ndata: {"type": "ping"}\n\n')
        else:
            out.append(f"event: {name}\ndata: {j(e)}\n\n")
    return "".join(out)


def indent(text, n):
    pad = " " * n
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


def interaction(req, body_text, ctype="text/event-stream; charset=utf-8", code=200, msg="OK"):
    req_json = j(req).replace("'", "''")
    if ctype.startswith("text/event-stream"):
        body = "      string: |+\n" + indent(body_text, 8)
    else:
        body = "      string: '" + body_text.replace("'", "''") + "'\n"
    return (
        "- request:\n"
        f"    body: '{req_json}'\n"
        "    headers:\n"
        "      content-type:\n      - application/json\n"
        "      anthropic-version:\n      - '2026-10-21'\n"
        "    method: POST\n"
        f"    uri: {URI}\n"
        "  response:\n"
        "    body:\n"
        f"{body}"
        "    headers:\n"
        "      content-type:\n"
        f"      - {ctype}\n"
        "    status:\n"
        f"      code: {code}\n"
        f"      message: {msg}\n"
    )


def write(name, interactions):
    text = "interactions:\n" + "".join(interactions) + "version: 1\n"
    (OUT / name).write_text(text)


def start(mid, model="claude-sonnet-4-6", inp=1200, read=0, write_=0, out=8):
    return {
        "type": "message_start",
        "message": {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": inp,
                "cache_creation_input_tokens": write_,
                "cache_read_input_tokens": read,
                "output_tokens": out,
            },
        },
    }


def cbs(i, block):
    return {"type": "content_block_start", "index": i, "content_block": block}


def d(i, delta):
    return {"type": "content_block_delta", "index": i, "delta": delta}


def stop(i):
    return {"type": "content_block_stop", "index": i}


def text(i, t):
    return d(i, {"type": "text_delta", "text": t})


def args(i, t):
    return d(i, {"type": "input_json_delta", "partial_json": t})


def think(i, t):
    return d(i, {"type": "thinking_delta", "thinking": t})


def sig(i, t):
    return d(i, {"type": "signature_delta", "signature": t})


def mdelta(reason, usage):
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": usage,
    }


MSTOP = {"type": "message_stop"}
PING = {"type": "ping"}

WEATHER_TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
    {
        "name": "get_time",
        "description": "Local time in an IANA time zone.",
        "input_schema": {
            "type": "object",
            "properties": {"timezone": {"type": "string"}},
            "required": ["timezone"],
        },
    },
]
MODEL = "claude-sonnet-4-6"
SIG1 = "EqQDCkYIBxgCKkDv3Zr0q8mXa1Qp4Jb9tYw2LwHkF7cN0sVbR5eUuT1gMd6oPzXy8AcKiE3nWl4rSjB2hQfO9vGmYtDxCp1aEgwh3kTnR8sLqV0yZ2cSDGnJf5bW7pQeA9uK4IjUXo1rC6vHs3tM8yBd0LgF2eN"
SIG2 = "ErcBCkYIBxgCKkBQx7mN2pL9vK3wR8tY5uJ1hG6fD4sA0zXcVbNm2QwErTyUiOpAsDfGhJkLzXcVbNm3QwErTyUiOpAsDfGhJkLzXcVbNmQ"

# 1. extended thinking + signature, a text block, two tool_use blocks; then the follow-up turn
q1 = "What's the weather in Paris and the local time in Tokyo? Use celsius."
thinking_text = [
    "The user wants two things: weather in Paris",
    " (celsius) and the current time in Tokyo.",
    " I can call both tools at once.",
]
req1 = {
    "model": MODEL,
    "max_tokens": 4096,
    "stream": True,
    "thinking": {"type": "enabled", "budget_tokens": 2048},
    "tools": WEATHER_TOOLS,
    "messages": [{"role": "user", "content": q1}],
}
ev1 = [
    start("msg_01ThnkSig7rQpZx2wVbNc4Ha", inp=612, read=0, write_=0, out=3),
    cbs(0, {"type": "thinking", "thinking": "", "signature": ""}),
    PING,
    think(0, thinking_text[0]),
    think(0, thinking_text[1]),
    think(0, thinking_text[2]),
    sig(0, SIG1),
    stop(0),
    cbs(1, {"type": "text", "text": ""}),
    text(1, "I'll check the weather in Paris"),
    text(1, " and the time in Tokyo."),
    stop(1),
    cbs(
        2,
        {
            "type": "tool_use",
            "id": "toolu_01Wx8Tq3NfYk2LmPa9Rc5Hv",
            "name": "get_weather",
            "input": {},
        },
    ),
    args(2, ""),
    args(2, '{"city": "Par'),
    args(2, 'is", "unit": "cel'),
    args(2, 'sius"}'),
    stop(2),
    cbs(
        3,
        {
            "type": "tool_use",
            "id": "toolu_01Tm4Kd7QzB1cXv6Ns2Jp8e",
            "name": "get_time",
            "input": {},
        },
    ),
    args(3, ""),
    args(3, '{"timezone": '),
    args(3, '"Asia/Tokyo"}'),
    stop(3),
    mdelta(
        "tool_use",
        {
            "input_tokens": 612,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 187,
        },
    ),
    MSTOP,
]
req2 = {
    "model": MODEL,
    "max_tokens": 4096,
    "stream": True,
    "thinking": {"type": "enabled", "budget_tokens": 2048},
    "tools": WEATHER_TOOLS,
    "messages": [
        {"role": "user", "content": q1},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "".join(thinking_text), "signature": SIG1},
                {"type": "text", "text": "I'll check the weather in Paris and the time in Tokyo."},
                {
                    "type": "tool_use",
                    "id": "toolu_01Wx8Tq3NfYk2LmPa9Rc5Hv",
                    "name": "get_weather",
                    "input": {"city": "Paris", "unit": "celsius"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_01Tm4Kd7QzB1cXv6Ns2Jp8e",
                    "name": "get_time",
                    "input": {"timezone": "Asia/Tokyo"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01Wx8Tq3NfYk2LmPa9Rc5Hv",
                    "content": "14°C, light rain",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01Tm4Kd7QzB1cXv6Ns2Jp8e",
                    "content": [{"type": "text", "text": "2025-11-29T22:41:07+09:00"}],
                },
            ],
        },
    ],
}
ev2 = [
    start("msg_01ThnkSig8sRqAy3xWcOd5Ib", inp=905, read=512, write_=0, out=2),
    cbs(0, {"type": "text", "text": ""}),
    PING,
    text(0, "In Paris it's 14°C with light rain; "),
    text(0, "in Tokyo it's 22:41."),
    stop(0),
    mdelta(
        "end_turn",
        {
            "input_tokens": 905,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 512,
            "output_tokens": 24,
        },
    ),
    MSTOP,
]
write("thinking_tool_use_signature.yaml", [interaction(req1, sse(ev1))])
# the next turn: the thinking block goes back with its signature, followed by both results
write("thinking_tool_results_followup.yaml", [interaction(req2, sse(ev2))])

# 2. web search server tool (+ citations on the answer)
reqw = {
    "model": MODEL,
    "max_tokens": 2048,
    "stream": True,
    "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
    "messages": [{"role": "user", "content": "Who won the 2024 Tour de France?"}],
}
hits = [
    {
        "type": "web_search_result",
        "url": "https://en.wikipedia.org/wiki/2024_Tour_de_France",
        "title": "2024 Tour de France - Wikipedia",
        "encrypted_content": "EqkCCioIBxgCIiQ3YmM0ZGQ1Ni0xYTVhLTQ0ZjctOTk3Ny1jNWE2ZTA5ZTAxNDgSDHpRb2xWc3RhZ2VzGgyT0pQk2mPf0wqE",
        "page_age": "3 weeks ago",
    },
    {
        "type": "web_search_result",
        "url": "https://www.letour.fr/en/overall-ranking",
        "title": "Overall ranking - Tour de France 2024",
        "encrypted_content": "EowCCioIBxgCIiRmMWE0YjQxNi1jZGE4LTQ2YmMtYjc2ZC0zYWFkMjE4NTU3MzESDEZ2c1p0bGlzdGluZxoMb3ZlcmFsbA",
        "page_age": None,
    },
]
cite = {
    "type": "web_search_result_location",
    "url": hits[0]["url"],
    "title": hits[0]["title"],
    "encrypted_index": "EpMBCioIBxgCIiQ3YmM0ZGQ1Ni0xYTVh",
    "cited_text": "Tadej Pogačar won the 2024 Tour de France, his third overall victory.",
}
evw = [
    start("msg_01WebSrch4kTpQx9Lm2Vn7Ab", inp=2210, out=1),
    cbs(0, {"type": "text", "text": ""}),
    text(0, "Let me look that up."),
    stop(0),
    cbs(
        1,
        {
            "type": "server_tool_use",
            "id": "srvtoolu_01Ws7Qe2Rt9Yu3Io5Pa8Sd",
            "name": "web_search",
            "input": {},
        },
    ),
    args(1, ""),
    args(1, '{"query": "2024 Tour de'),
    args(1, ' France winner"}'),
    stop(1),
    cbs(
        2,
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_01Ws7Qe2Rt9Yu3Io5Pa8Sd",
            "content": hits,
        },
    ),
    stop(2),
    cbs(3, {"type": "text", "text": ""}),
    d(3, {"type": "citations_delta", "citation": cite}),
    text(3, "Tadej Pogačar won the 2024 Tour de France."),
    stop(3),
    mdelta(
        "end_turn",
        {
            "input_tokens": 6412,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 96,
            "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
        },
    ),
    MSTOP,
]
write("web_search_server_tool.yaml", [interaction(reqw, sse(evw))])

# 3. overloaded_error mid-stream
reqo = {
    "model": MODEL,
    "max_tokens": 1024,
    "stream": True,
    "tools": WEATHER_TOOLS,
    "messages": [{"role": "user", "content": "Weather in Oslo?"}],
}
evo = [
    start("msg_01Ovld3dErr5Yq8Wz1Xc4Vb", inp=480, out=1),
    cbs(0, {"type": "text", "text": ""}),
    text(0, "Let me check the"),
    PING,
]
body_o = (
    sse(evo)
    + 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CVd9kZp4Rq7Tw2Xy5Ab"}\n\n'
)
write("overloaded_error.yaml", [interaction(reqo, body_o)])

# 4. four parallel tool_use blocks
reqp = {
    "model": MODEL,
    "max_tokens": 2048,
    "stream": True,
    "tools": WEATHER_TOOLS,
    "messages": [{"role": "user", "content": "Weather in Paris, Rome, Madrid and Lisbon?"}],
}
cities = [
    ("toolu_01Pa1Rs2Ty3Ui4Op5As6Df", "Paris"),
    ("toolu_01Ro7Me8Zx9Cv0Bn1Mq2We", "Rome"),
    ("toolu_01Ma3Dr4Id5Fg6Hj7Kl8Zx", "Madrid"),
    ("toolu_01Li9Sb0Oa1Qw2Er3Ty4Ui", "Lisbon"),
]
evp = [
    start("msg_01Par4Lel6Tq9Wz2Xc5Vb8N", inp=733, out=2),
    cbs(0, {"type": "text", "text": ""}),
    text(0, "Checking all four cities."),
    stop(0),
]
for k, (cid, city) in enumerate(cities, start=1):
    evp += [
        cbs(k, {"type": "tool_use", "id": cid, "name": "get_weather", "input": {}}),
        args(k, ""),
        args(k, '{"city": "'),
        args(k, city),
        args(k, '"}'),
        stop(k),
    ]
evp += [
    mdelta(
        "tool_use",
        {
            "input_tokens": 733,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 212,
        },
    ),
    MSTOP,
]
write("parallel_four_tool_use.yaml", [interaction(reqp, sse(evp))])

# 5. truncated stream: ends inside a tool_use block, no message_stop
evt = [
    start("msg_01Trnc8Ted2Qw5Er7Ty9Ui1O", inp=455, out=1),
    cbs(
        0,
        {
            "type": "tool_use",
            "id": "toolu_01Tr5Nc6Ax7Sd8Fg9Hj0Kl1",
            "name": "get_weather",
            "input": {},
        },
    ),
    args(0, ""),
    args(0, '{"city": "Ber'),
]
write("truncated_stream.yaml", [interaction(reqo, sse(evt))])

# 6. malformed and empty arguments (fine-grained tool streaming passes text through unvalidated)
reqm = {
    "model": MODEL,
    "max_tokens": 1024,
    "stream": True,
    "tools": [
        dict(WEATHER_TOOLS[0], eager_input_streaming=True),
        {
            "name": "list_cities",
            "description": "All known cities.",
            "input_schema": {"type": "object", "properties": {}},
        },
    ],
    "messages": [{"role": "user", "content": "List the cities, then the weather in Vienna."}],
}
evm = [
    start("msg_01MalFrm9Ed1Ar2Gs3Dt4Fy5", inp=512, out=1),
    cbs(
        0,
        {
            "type": "tool_use",
            "id": "toolu_01Em7Pt8Yz9Ar0Gs1Qw2Er3",
            "name": "list_cities",
            "input": {},
        },
    ),
    args(0, ""),
    stop(0),
    cbs(
        1,
        {
            "type": "tool_use",
            "id": "toolu_01Bd4Js5On6Mx7Cv8Bn9Mq0",
            "name": "get_weather",
            "input": {},
        },
    ),
    args(1, '{"city": "Vie'),
    args(1, 'nna", "unit": celsius'),
    stop(1),
    mdelta("max_tokens", {"output_tokens": 64}),
    MSTOP,
]
write("malformed_empty_arguments.yaml", [interaction(reqm, sse(evm))])

# 7. interleaved deltas of two open tool_use blocks (keyed by index)
evi = [
    start("msg_01IntLvd3Qw4Er5Ty6Ui7Op8", inp=640, out=1),
    cbs(
        0,
        {
            "type": "tool_use",
            "id": "toolu_01Iv1Aa2Bb3Cc4Dd5Ee6Ff",
            "name": "get_weather",
            "input": {},
        },
    ),
    cbs(
        1,
        {"type": "tool_use", "id": "toolu_01Iv7Gg8Hh9Ii0Jj1Kk2Ll", "name": "get_time", "input": {}},
    ),
    args(0, '{"city": '),
    args(1, '{"timezone": '),
    args(1, '"Europe/Paris"}'),
    args(0, '"Paris"}'),
    stop(1),
    stop(0),
    mdelta("tool_use", {"output_tokens": 58}),
    MSTOP,
]
write("interleaved_tool_use.yaml", [interaction(reqp, sse(evi))])

# 8. redacted thinking, MCP tool, bash code execution and a web_fetch error (beta tools)
reqx = {
    "model": MODEL,
    "max_tokens": 4096,
    "stream": True,
    "thinking": {"type": "enabled", "budget_tokens": 1024},
    "mcp_servers": [{"type": "url", "url": "https://mcp.example.com/sse", "name": "issues"}],
    "tools": [
        {"type": "code_execution_20250825", "name": "code_execution"},
        {"type": "web_fetch_20250910", "name": "web_fetch"},
    ],
    "messages": [
        {"role": "user", "content": "Count the open issues and fetch https://example.com/status"}
    ],
}
evx = [
    start("msg_01SrvMix5Qa6Ws7Ed8Rf9Tg0", inp=1880, out=1),
    cbs(
        0,
        {
            "type": "redacted_thinking",
            "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB0=",
        },
    ),
    stop(0),
    cbs(
        1,
        {
            "type": "mcp_tool_use",
            "id": "mcptoolu_01Mc1Pq2Rs3Tu4Vw5Xy6Za",
            "name": "count_open_issues",
            "server_name": "issues",
            "input": {},
        },
    ),
    args(1, '{"repo": "example/app"}'),
    stop(1),
    cbs(
        2,
        {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_01Mc1Pq2Rs3Tu4Vw5Xy6Za",
            "is_error": False,
            "content": [{"type": "text", "text": "42 open issues"}],
        },
    ),
    stop(2),
    cbs(
        3,
        {
            "type": "server_tool_use",
            "id": "srvtoolu_01Bs7Hc8Id9Je0Kf1Lg2Mh",
            "name": "bash_code_execution",
            "input": {},
        },
    ),
    args(3, '{"command": "echo $((40+2))"}'),
    stop(3),
    cbs(
        4,
        {
            "type": "bash_code_execution_tool_result",
            "tool_use_id": "srvtoolu_01Bs7Hc8Id9Je0Kf1Lg2Mh",
            "content": {
                "type": "bash_code_execution_result",
                "stdout": "42\n",
                "stderr": "",
                "return_code": 0,
                "content": [],
            },
        },
    ),
    stop(4),
    cbs(
        5,
        {
            "type": "server_tool_use",
            "id": "srvtoolu_01Wf3Nj4Ok5Pl6Qm7Rn8So",
            "name": "web_fetch",
            "input": {},
        },
    ),
    args(5, '{"url": "https://example.com/status"}'),
    stop(5),
    cbs(
        6,
        {
            "type": "web_fetch_tool_result",
            "tool_use_id": "srvtoolu_01Wf3Nj4Ok5Pl6Qm7Rn8So",
            "content": {"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"},
        },
    ),
    stop(6),
    cbs(7, {"type": "text", "text": ""}),
    text(7, "There are 42 open issues; the status page could not be fetched."),
    stop(7),
    mdelta(
        "end_turn",
        {
            "input_tokens": 5120,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 310,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 1},
        },
    ),
    MSTOP,
]
write("server_tools_mcp_code_execution.yaml", [interaction(reqx, sse(evx))])

# 9. media in tool results, each source kind (request side), answered by a short stream
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
PDF = "JVBERi0xLjQKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK"
reqmedia = {
    "model": MODEL,
    "max_tokens": 1024,
    "stream": True,
    "tools": [
        {
            "name": "fetch_report",
            "description": "Fetch the quarterly report and its charts.",
            "input_schema": {"type": "object", "properties": {"quarter": {"type": "string"}}},
        }
    ],
    "messages": [
        {"role": "user", "content": "Summarise the Q3 report."},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_01Md1Ia2Kb3Lc4Md5Ne6Of",
                    "name": "fetch_report",
                    "input": {"quarter": "Q3"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_01Md7Pg8Qh9Ri0Sj1Tk2Ul",
                    "name": "fetch_report",
                    "input": {"quarter": "Q2"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01Md1Ia2Kb3Lc4Md5Ne6Of",
                    "content": [
                        {
                            "type": "text",
                            "text": "Q3 revenue grew 12%; charts and report attached.",
                        },
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                        },
                        {
                            "type": "image",
                            "source": {
                                "type": "url",
                                "url": "https://example.com/charts/q3-revenue.png",
                            },
                        },
                        {
                            "type": "image",
                            "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
                        },
                        {
                            "type": "document",
                            "source": {
                                "type": "base64",
                                "media_type": "application/pdf",
                                "data": PDF,
                            },
                            "title": "Q3 report",
                        },
                        {
                            "type": "document",
                            "source": {"type": "url", "url": "https://example.com/reports/q3.pdf"},
                        },
                        {
                            "type": "document",
                            "source": {"type": "file", "file_id": "file_011CPMxVD3fHLUhvTqtsQA5w"},
                        },
                        {
                            "type": "document",
                            "source": {
                                "type": "text",
                                "media_type": "text/plain",
                                "data": "Appendix: all figures unaudited.",
                            },
                        },
                        {
                            "type": "search_result",
                            "source": "https://example.com/press/q3",
                            "title": "Q3 press release",
                            "content": [
                                {"type": "text", "text": "Record quarter for the company."},
                                {"type": "text", "text": "Guidance raised."},
                            ],
                        },
                    ],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01Md7Pg8Qh9Ri0Sj1Tk2Ul",
                    "is_error": True,
                    "content": [{"type": "text", "text": "Q2 report is archived and unavailable"}],
                },
                {"type": "text", "text": "Only Q3 matters."},
            ],
        },
    ],
}
evmedia = [
    start("msg_01MdiaRes3Qa4Ws5Ed6Rf7T", inp=3410, out=1),
    cbs(0, {"type": "text", "text": ""}),
    text(0, "Q3 revenue grew 12% and guidance was raised."),
    stop(0),
    mdelta(
        "end_turn",
        {
            "input_tokens": 3410,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 15,
        },
    ),
    MSTOP,
]
write("tool_result_media.yaml", [interaction(reqmedia, sse(evmedia))])

# 10. a non-streamed response (decode_response path)
reqn = {
    "model": MODEL,
    "max_tokens": 1024,
    "tools": WEATHER_TOOLS,
    "messages": [{"role": "user", "content": "Weather in Kyiv?"}],
}
resn = {
    "id": "msg_01NoStrm7Qa8Ws9Ed0Rf1Tg2",
    "type": "message",
    "role": "assistant",
    "model": MODEL,
    "content": [
        {"type": "text", "text": "Let me check."},
        {
            "type": "tool_use",
            "id": "toolu_01Ns3Ky4Iv5Qw6Er7Ty8Ui9",
            "name": "get_weather",
            "input": {"city": "Kyiv", "unit": "celsius"},
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 402,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 61,
    },
}
write("non_streamed_tool_use.yaml", [interaction(reqn, j(resn), ctype="application/json")])
# 9. a frontend tool answered by the UI, two turns in one file: turn 2's request holds turn 1's
#    text and tool_use block and the tool_result the UI sent (the replay provider's UI test
#    plays this conversation through the inspector page)
UI_TOOLS = [
    {
        "name": "change_background",
        "description": "Change the background colour of the user's page.",
        "input_schema": {
            "type": "object",
            "properties": {"color": {"type": "string", "description": "a CSS colour"}},
            "required": ["color"],
        },
    }
]
qf = "Please make my page background dark slate."
said = "I'll switch your background to dark slate."
reqf1 = {
    "model": MODEL,
    "max_tokens": 1024,
    "stream": True,
    "tools": UI_TOOLS,
    "messages": [{"role": "user", "content": qf}],
}
evf1 = [
    start("msg_01UiTool1Bg5Kc8Lm2Nq4Rs6", inp=388, out=2),
    cbs(0, {"type": "text", "text": ""}),
    text(0, "I'll switch your background"),
    text(0, " to dark slate."),
    stop(0),
    cbs(
        1,
        {
            "type": "tool_use",
            "id": "toolu_01UiBg7Hd2Jf4Kg6Lh8Mj0N",
            "name": "change_background",
            "input": {},
        },
    ),
    args(1, ""),
    args(1, '{"color": "#2f'),
    args(1, '3e46"}'),
    stop(1),
    mdelta(
        "tool_use",
        {
            "input_tokens": 388,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 58,
        },
    ),
    MSTOP,
]
reqf2 = {
    **reqf1,
    "messages": [
        {"role": "user", "content": qf},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": said},
                {
                    "type": "tool_use",
                    "id": "toolu_01UiBg7Hd2Jf4Kg6Lh8Mj0N",
                    "name": "change_background",
                    "input": {"color": "#2f3e46"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01UiBg7Hd2Jf4Kg6Lh8Mj0N",
                    "content": "background is now #2f3e46",
                }
            ],
        },
    ],
}
evf2 = [
    start("msg_01UiTool2Bg6Ld9Mn3Pr5St7", inp=471, out=1),
    cbs(0, {"type": "text", "text": ""}),
    text(0, "Done: your page now has"),
    text(0, " a dark slate background (#2f3e46)."),
    stop(0),
    mdelta(
        "end_turn",
        {
            "input_tokens": 471,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 19,
        },
    ),
    MSTOP,
]
write(
    "frontend_tool_conversation.yaml",
    [interaction(reqf1, sse(evf1)), interaction(reqf2, sse(evf2))],
)
print("ok")
