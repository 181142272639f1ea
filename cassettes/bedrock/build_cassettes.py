"""Writes the hand-built Bedrock Converse cassettes in this folder.

Run: .venv/bin/python cassettes/bedrock/build_cassettes.py

The response bodies are AWS event streams built here to the documented frame layout
(prelude: total and headers lengths, big-endian uint32, and their CRC32; string headers
``:event-type`` / ``:content-type`` / ``:message-type``; the JSON payload; the message
CRC32), independently of toolwire's writer, and stored the way vcrpy stores binary bodies
(``!!binary``). Real ConverseStream payloads carry a padding member ``p`` that the SDK
drops; some events here carry one too. ``tests/vendor_bedrock`` parses every body with
botocore's own event-stream parser, so a malformed cassette cannot sit here.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parent
HOST = "https://bedrock-runtime.us-east-1.amazonaws.com"
CLAUDE = "us.anthropic.claude-sonnet-4-20250514-v1:0"
NOVA = "amazon.nova-pro-v1:0"


def _header(name: str, value: str) -> bytes:
    raw = value.encode("utf-8")
    key = name.encode("utf-8")
    return bytes([len(key)]) + key + bytes([7]) + struct.pack(">H", len(raw)) + raw


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream frame (string headers only, which is all Converse sends)."""
    hbytes = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(hbytes) + len(payload) + 4
    prelude = struct.pack(">II", total, len(hbytes))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + hbytes + payload
    return message + struct.pack(">I", zlib.crc32(message))


def event(name: str, payload: dict[str, Any]) -> bytes:
    data = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, data)


def exception(name: str, message: str) -> bytes:
    data = json.dumps({"message": message}).encode("utf-8")
    headers = {
        ":exception-type": name,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return frame(headers, data)


def stream(*events: bytes) -> bytes:
    return b"".join(events)


# ---------------------------------------------------------------- events


def start() -> bytes:
    return event("messageStart", {"role": "assistant", "p": "abcdefghijklmnop"})


def text(i: int, t: str) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": i, "delta": {"text": t}, "p": "abc"})


def use(i: int, tid: str, name: str) -> bytes:
    return event(
        "contentBlockStart",
        {"contentBlockIndex": i, "start": {"toolUse": {"toolUseId": tid, "name": name}}},
    )


def args(i: int, t: str) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": i, "delta": {"toolUse": {"input": t}}})


def think(i: int, t: str) -> bytes:
    return event(
        "contentBlockDelta", {"contentBlockIndex": i, "delta": {"reasoningContent": {"text": t}}}
    )


def sig(i: int, s: str) -> bytes:
    return event(
        "contentBlockDelta",
        {"contentBlockIndex": i, "delta": {"reasoningContent": {"signature": s}}},
    )


def redacted(i: int, data: bytes) -> bytes:
    b64 = base64.b64encode(data).decode("ascii")
    return event(
        "contentBlockDelta",
        {"contentBlockIndex": i, "delta": {"reasoningContent": {"redactedContent": b64}}},
    )


def stop(i: int) -> bytes:
    return event("contentBlockStop", {"contentBlockIndex": i, "p": "abcdefgh"})


def mstop(reason: str) -> bytes:
    return event("messageStop", {"stopReason": reason})


def meta(inp: int, out: int, read: int | None = None, write: int | None = None) -> bytes:
    usage: dict[str, Any] = {"inputTokens": inp, "outputTokens": out, "totalTokens": inp + out}
    if read is not None:
        usage["cacheReadInputTokens"] = read
    if write is not None:
        usage["cacheWriteInputTokens"] = write
    return event("metadata", {"usage": usage, "metrics": {"latencyMs": 812}})


# ---------------------------------------------------------------- requests

WEATHER = {
    "toolSpec": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "inputSchema": {
            "json": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            }
        },
    }
}
SEARCH = {
    "toolSpec": {
        "name": "search_docs",
        "description": "Search the handbook.",
        "inputSchema": {"json": {"type": "object", "properties": {"q": {"type": "string"}}}},
    }
}
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode("ascii")
PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").decode("ascii")


def ask(text_: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"text": text_}]}


def body(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "messages": messages,
        "system": [{"text": "You are a helpful assistant."}],
        "inferenceConfig": {"maxTokens": 1024},
    }
    if tools:
        out["toolConfig"] = {"tools": tools, "toolChoice": {"auto": {}}}
    return out


def interaction(
    model: str,
    request: dict[str, Any],
    response: bytes | str,
    *,
    streamed: bool = True,
    code: int = 200,
) -> dict[str, Any]:
    from urllib.parse import quote

    op = "converse-stream" if streamed else "converse"
    ctype = "application/vnd.amazon.eventstream" if streamed else "application/json"
    return {
        "request": {
            "body": json.dumps(request, separators=(",", ":")),
            "headers": {
                "Content-Type": ["application/json"],
                "User-Agent": ["Boto3/1.40.0 md/Botocore#1.40.0 ua/2.1 os/linux lang/python"],
            },
            "method": "POST",
            "uri": f"{HOST}/model/{quote(model, safe='')}/{op}",
        },
        "response": {
            "body": {"string": response},
            "headers": {
                "Content-Type": [ctype],
                "x-amzn-RequestId": ["0b7c6c1e-5c2e-4b1b-9d0e-3f7a2f6f0a11"],
            },
            "status": {"code": code, "message": "OK" if code == 200 else "Error"},
        },
    }


def write(name: str, interactions: list[dict[str, Any]]) -> None:
    doc = {"interactions": interactions, "version": 1}
    (OUT / name).write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


# ---------------------------------------------------------------- cassettes


def parallel_three_tool_use() -> None:
    first = body([ask("Weather in Paris, Oslo and Lima?")], [WEATHER])
    resp = stream(
        start(),
        text(0, "Checking all three."),
        stop(0),
        use(1, "tooluse_Paris01", "get_weather"),
        args(1, '{"city":'),
        args(1, ' "Paris"}'),
        stop(1),
        use(2, "tooluse_Oslo02", "get_weather"),
        args(2, '{"city": "Oslo"}'),
        stop(2),
        use(3, "tooluse_Lima03", "get_weather"),
        args(3, '{"ci'),
        args(3, 'ty": "Lima"}'),
        stop(3),
        mstop("tool_use"),
        meta(412, 96, read=0, write=0),
    )
    assistant = {
        "role": "assistant",
        "content": [
            {"text": "Checking all three."},
            {
                "toolUse": {
                    "toolUseId": "tooluse_Paris01",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                }
            },
            {
                "toolUse": {
                    "toolUseId": "tooluse_Oslo02",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                }
            },
            {
                "toolUse": {
                    "toolUseId": "tooluse_Lima03",
                    "name": "get_weather",
                    "input": {"city": "Lima"},
                }
            },
        ],
    }
    results = {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "tooluse_Paris01", "content": [{"json": {"temp_c": 18}}]}},
            {"toolResult": {"toolUseId": "tooluse_Oslo02", "content": [{"text": "4 C, snow"}]}},
            {
                "toolResult": {
                    "toolUseId": "tooluse_Lima03",
                    "content": [{"text": "service down"}],
                    "status": "error",
                }
            },
        ],
    }
    second = body([first["messages"][0], assistant, results], [WEATHER])
    resp2 = stream(
        start(),
        text(0, "Paris 18 C, Oslo 4 C with snow; "),
        text(0, "Lima is unavailable."),
        stop(0),
        mstop("end_turn"),
        meta(530, 22, read=400, write=0),
    )
    write(
        "parallel_three_tool_use.yaml",
        [interaction(CLAUDE, first, resp), interaction(CLAUDE, second, resp2)],
    )


def interleaved_blocks() -> None:
    req = body([ask("Search twice.")], [SEARCH])
    resp = stream(
        start(),
        use(0, "tooluse_a", "search_docs"),
        use(1, "tooluse_b", "search_docs"),
        args(0, '{"q": "le'),
        args(1, '{"q": "pa'),
        args(0, 'ave"}'),
        args(1, 'y"}'),
        stop(1),
        stop(0),
        mstop("tool_use"),
        meta(100, 30),
    )
    write("interleaved_tool_use.yaml", [interaction(NOVA, req, resp)])


def malformed_and_empty_arguments() -> None:
    req = body([ask("Call both.")], [WEATHER, SEARCH])
    resp = stream(
        start(),
        use(0, "tooluse_empty", "search_docs"),
        stop(0),
        use(1, "tooluse_bad", "get_weather"),
        args(1, '{"city": "Par'),
        stop(1),
        mstop("tool_use"),
        meta(90, 12),
    )
    write("malformed_empty_arguments.yaml", [interaction(CLAUDE, req, resp)])


def reasoning_with_signatures() -> None:
    req = body([ask("Think, then check the weather in Rome.")], [WEATHER])
    req["additionalModelRequestFields"] = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    resp = stream(
        start(),
        think(0, "The user wants Rome. "),
        think(0, "I should call get_weather."),
        sig(0, "EqoBCkgIARABGAIiQL8mYm9ndXMtc2lnbmF0dXJlLWZvci10ZXN0cw=="),
        stop(0),
        redacted(1, b"\x01\x02opaque-redacted-reasoning\xff"),
        stop(1),
        text(2, "Let me check."),
        stop(2),
        use(3, "tooluse_Rome", "get_weather"),
        args(3, '{"city": "Rome"}'),
        stop(3),
        mstop("tool_use"),
        meta(220, 140, read=0, write=180),
    )
    assistant = {
        "role": "assistant",
        "content": [
            {
                "reasoningContent": {
                    "reasoningText": {
                        "text": "The user wants Rome. I should call get_weather.",
                        "signature": "EqoBCkgIARABGAIiQL8mYm9ndXMtc2lnbmF0dXJlLWZvci10ZXN0cw==",
                    }
                }
            },
            {
                "reasoningContent": {
                    "redactedContent": base64.b64encode(
                        b"\x01\x02opaque-redacted-reasoning\xff"
                    ).decode("ascii")
                }
            },
            {"text": "Let me check."},
            {
                "toolUse": {
                    "toolUseId": "tooluse_Rome",
                    "name": "get_weather",
                    "input": {"city": "Rome"},
                }
            },
        ],
    }
    follow = body(
        [
            req["messages"][0],
            assistant,
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "tooluse_Rome",
                            "content": [{"text": "21 C, sunny"}],
                            "status": "success",
                        }
                    }
                ],
            },
        ],
        [WEATHER],
    )
    follow["additionalModelRequestFields"] = req["additionalModelRequestFields"]
    resp2 = stream(
        start(), text(0, "Rome: 21 C and sunny."), stop(0), mstop("end_turn"), meta(400, 10)
    )
    write(
        "reasoning_tool_use_signature.yaml",
        [interaction(CLAUDE, req, resp), interaction(CLAUDE, follow, resp2)],
    )


def tool_result_media() -> None:
    assistant = {
        "role": "assistant",
        "content": [
            {
                "toolUse": {
                    "toolUseId": "tooluse_chart",
                    "name": "render_chart",
                    "input": {"kind": "bar"},
                }
            },
            {"toolUse": {"toolUseId": "tooluse_report", "name": "fetch_report", "input": {}}},
        ],
    }
    results = {
        "role": "user",
        "content": [
            {
                "toolResult": {
                    "toolUseId": "tooluse_chart",
                    "content": [
                        {"text": "Here is the chart."},
                        {"image": {"format": "png", "source": {"bytes": PNG}}},
                    ],
                }
            },
            {
                "toolResult": {
                    "toolUseId": "tooluse_report",
                    "content": [
                        {
                            "document": {
                                "format": "pdf",
                                "name": "Q3 report",
                                "source": {"bytes": PDF},
                            }
                        },
                        {
                            "image": {
                                "format": "jpeg",
                                "source": {
                                    "s3Location": {
                                        "uri": "s3://reports-bucket/q3/cover.jpg",
                                        "bucketOwner": "123456789012",
                                    }
                                },
                            }
                        },
                    ],
                }
            },
        ],
    }
    tools = [
        {"toolSpec": {"name": "render_chart", "inputSchema": {"json": {"type": "object"}}}},
        {"toolSpec": {"name": "fetch_report", "inputSchema": {"json": {"type": "object"}}}},
    ]
    req = body([ask("Chart and report please."), assistant, results], tools)
    resp = stream(
        start(),
        text(0, "The chart shows growth; the report agrees."),
        stop(0),
        mstop("end_turn"),
        meta(1900, 12),
    )
    write("tool_result_media.yaml", [interaction(CLAUDE, req, resp)])


def truncated_stream() -> None:
    req = body([ask("Weather in Oslo?")], [WEATHER])
    whole = stream(start(), use(0, "tooluse_cut", "get_weather"), args(0, '{"city": "Os'))
    cut = whole + args(0, 'lo"}')[:20]  # the stream ends inside a frame
    write("truncated_stream.yaml", [interaction(CLAUDE, req, cut)])


def no_message_stop() -> None:
    req = body([ask("Hello?")])
    resp = stream(start(), text(0, "Hel"), text(0, "lo"), stop(0))  # whole frames, no messageStop
    write("no_message_stop.yaml", [interaction(CLAUDE, req, resp)])


def throttled_mid_stream() -> None:
    req = body([ask("Weather in Oslo?")], [WEATHER])
    resp = stream(
        start(),
        text(0, "Let me"),
        exception("throttlingException", "Too many tokens, please wait before trying again."),
    )
    write("throttling_exception.yaml", [interaction(CLAUDE, req, resp)])


def non_streamed() -> None:
    req = body([ask("Weather in Paris?")], [WEATHER])
    resp = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"text": "Checking."},
                    {
                        "toolUse": {
                            "toolUseId": "tooluse_whole",
                            "name": "get_weather",
                            "input": {"city": "Paris"},
                        }
                    },
                ],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 300, "outputTokens": 25, "totalTokens": 325},
        "metrics": {"latencyMs": 640},
    }
    write(
        "non_streamed_tool_use.yaml",
        [interaction(NOVA, req, json.dumps(resp, separators=(",", ":")), streamed=False)],
    )


if __name__ == "__main__":
    parallel_three_tool_use()
    interleaved_blocks()
    malformed_and_empty_arguments()
    reasoning_with_signatures()
    tool_result_media()
    truncated_stream()
    no_message_stop()
    throttled_mid_stream()
    non_streamed()
