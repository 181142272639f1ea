"""Recordings of whole agent runs: model calls picked by method + path, the rest skipped.

A real agent test's cassette interleaves the model calls with tracing uploads (gzip or
protobuf bodies), an MCP server over streamable HTTP, prompt hubs, token fetches and
search APIs. Each vendor's own recorded cassette is interleaved with such traffic (built
to the shape vcrpy writes) and must decode to exactly what the bare cassette gives, with
one line on stderr saying what was skipped.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolwire import adapters, cli
from toolwire.recordings import Exchange, load_recording, select_model_exchanges

OURS = Path(__file__).resolve().parents[2] / "cassettes"

#: One cassette of ours per vendor, each holding model calls (their own tests parse them
#: with the vendor's SDK).
SOURCES = {
    "anthropic": "thinking_tool_use_signature.yaml",
    "openai_chat": "parallel_three_interleaved.yaml",
    "openai_responses": "reasoning_parallel_calls.yaml",
    "gemini": "gemini3_parallel_calls_signature.yaml",
    "dialogflow": "analyze_content_confirmation.yaml",
    "asgard": "parallel_calls.yaml",
}


def _interaction(
    method: str, uri: str, body: Any, ctype: str, status: int = 200, gz: bool = False
) -> dict[str, Any]:
    headers: dict[str, list[str]] = {"Content-Type": [ctype]}
    if gz:
        headers["Content-Encoding"] = ["gzip"]
    return {
        "request": {"method": method, "uri": uri, "body": None, "headers": {}},
        "response": {
            "status": {"code": status, "message": "OK"},
            "headers": headers,
            "body": {"string": body},
        },
    }


#: Other traffic of an agent run, as vcrpy records it.
NOISE = [
    # an OTLP trace upload: protobuf, gzip-compressed
    _interaction(
        "POST",
        "https://cloud.langfuse.com/api/public/otel/v1/traces/ingest",
        gzip.compress(b"\x0a\x8f\x01\x12\x00\xff\xfe"),
        "application/x-protobuf",
        gz=True,
    ),
    # an MCP server over streamable HTTP on localhost (JSON-RPC answered as SSE)
    _interaction(
        "POST",
        "http://127.0.0.1:8931/mcp",
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n\n',
        "text/event-stream",
    ),
    # a prompt hub fetch
    _interaction("GET", "https://api.smith.langchain.com/commits/x/latest", "<html>", "text/html"),
    # an auth token fetch (with a secret in the query string, never to be printed)
    _interaction(
        "POST",
        "https://oauth2.googleapis.com/token?key=SECRET123",
        '{"access_token": "t"}',
        "application/json",
    ),
    # a search API
    _interaction("GET", "https://api.tavily.com/search?q=x", "not json {", "text/plain"),
]


def _interleaved(doc: dict[str, Any]) -> dict[str, Any]:
    out: list[Any] = []
    for i, inter in enumerate(doc["interactions"]):
        out.append(NOISE[i % len(NOISE)])
        out.append(inter)
    out.extend(NOISE)
    return {**doc, "interactions": out}


MINTED = re.compile(r"\b(?:thread|run|msg)_[0-9a-f]{24}\b")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("vendor", sorted(SOURCES))
def test_a_recording_with_other_traffic_decodes_as_its_model_calls_alone(
    vendor: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = OURS / vendor / SOURCES[vendor]
    doc = yaml.safe_load(src.read_text())
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(yaml.safe_dump(_interleaved(doc)))
    code, bare, _ = _run(["decode", "--from", vendor, str(src)], capsys)
    assert code == 0 and bare
    code, out, err = _run(["decode", "--from", vendor, str(mixed)], capsys)
    assert code == 0, err

    def norm(text: str) -> list[Any]:
        # the thread id is minted from the file's bytes and the run ids from it: minted
        # ids are renamed in order of appearance, everything else must be equal
        names: dict[str, str] = {}
        renamed = MINTED.sub(lambda m: names.setdefault(m[0], f"id{len(names)}"), text)
        return [json.loads(line) for line in renamed.splitlines()]

    assert norm(out) == norm(bare)
    skipped = len(doc["interactions"]) + len(NOISE)
    lines = [line for line in err.splitlines() if "skipped" in line]
    assert len(lines) == 1
    assert f"skipped {skipped} of {skipped + len(doc['interactions'])}" in lines[0]
    assert "/v1/traces/ingest" in lines[0] and "GET /search" in lines[0]
    assert "SECRET123" not in err


@pytest.mark.parametrize("vendor", sorted(SOURCES))
def test_a_recording_without_a_model_call_exits_1_with_one_line(
    vendor: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "noise.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "interactions": NOISE}))
    code, out, err = _run(["decode", "--from", vendor, str(path)], capsys)
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"no {vendor} model call" in err and "SECRET123" not in err


def _ex(method: str, uri: str) -> Exchange:
    return Exchange(response_body=b"", method=method, uri=uri)


ROUTES = [
    # (vendor, method, uri, admitted)
    ("openai_chat", "POST", "https://api.openai.com/v1/chat/completions", True),
    (
        "openai_chat",
        "POST",
        "https://r.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21",
        True,
    ),
    ("openai_chat", "POST", "http://localhost:11434/v1/chat/completions", True),
    ("openai_chat", "POST", "https://openrouter.ai/api/v1/chat/completions/", True),
    ("openai_chat", "POST", "https://api.groq.com/openai/v1/chat/completions", True),
    ("openai_chat", "GET", "https://api.openai.com/v1/chat/completions", False),
    ("openai_chat", "POST", "https://api.openai.com/v1/embeddings", False),
    ("openai_chat", "POST", "https://api.openai.com/v1/responses", False),
    ("openai_responses", "POST", "https://api.openai.com/v1/responses", True),
    (
        "openai_responses",
        "POST",
        "https://r.openai.azure.com/openai/v1/responses?api-version=preview",
        True,
    ),
    ("openai_responses", "POST", "https://r.openai.azure.com/openai/responses", True),
    ("openai_responses", "GET", "https://api.openai.com/v1/responses/resp_1", False),
    ("openai_responses", "POST", "https://api.openai.com/v1/responses/resp_1/cancel", False),
    ("openai_responses", "POST", "https://api.openai.com/v1/chat/completions", False),
    ("anthropic", "POST", "https://api.anthropic.com/v1/messages", True),
    ("anthropic", "POST", "https://api.anthropic.com/v1/messages?beta=true", True),
    (
        "anthropic",
        "POST",
        "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude:streamRawPredict",
        True,
    ),
    ("anthropic", "POST", "https://api.anthropic.com/v1/messages/count_tokens", False),
    ("anthropic", "POST", "https://api.anthropic.com/v1/files", False),
    (
        "gemini",
        "POST",
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
        True,
    ),
    (
        "gemini",
        "POST",
        "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse",
        True,
    ),
    (
        "gemini",
        "POST",
        "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/g:streamGenerateContent",
        True,
    ),
    (
        "gemini",
        "POST",
        "https://generativelanguage.googleapis.com/v1beta/models/g:countTokens",
        False,
    ),
    ("gemini", "GET", "https://www.gstatic.com/webp/gallery3/1.png", False),
    (
        "dialogflow",
        "POST",
        "https://dialogflow.googleapis.com/v2/projects/p/conversations/c/participants/a:analyzeContent",
        True,
    ),
    ("dialogflow", "POST", "https://oauth2.googleapis.com/token", False),
    ("asgard", "POST", "https://api.asgard-ai.com/ns/n/bot-provider/b/message/sse", True),
    ("asgard", "POST", "https://api.asgard-ai.com/ns/n/bot-provider/b/upload", False),
]


@pytest.mark.parametrize(("vendor", "method", "uri", "admitted"), ROUTES)
def test_every_adapter_picks_its_model_calls_by_method_and_path(
    vendor: str, method: str, uri: str, admitted: bool
) -> None:
    route = adapters.get(vendor).MODEL_ROUTE
    assert route.admits(_ex(method, uri)) is admitted
    if hasattr(adapters.get(vendor), "is_model_exchange"):
        assert adapters.get(vendor).is_model_exchange(_ex(method, uri)) is admitted


def test_a_capture_without_uri_is_the_model_turn_and_nothing_is_reported() -> None:
    (ex,) = load_recording(b"data: {}\n\n", "x.sse")
    for vendor in SOURCES:
        selected = select_model_exchanges([ex], adapters.get(vendor).MODEL_ROUTE)
        assert selected.exchanges == [ex] and selected.report() is None


def test_decode_request_skips_other_traffic_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = OURS / "openai_chat" / SOURCES["openai_chat"]
    doc = yaml.safe_load(src.read_text())
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(yaml.safe_dump(_interleaved(doc)))
    code, out, err = _run(["decode-request", "--from", "openai_chat", str(mixed)], capsys)
    assert code == 0, err
    assert len(out.splitlines()) == len(doc["interactions"])
    assert "skipped" in err
