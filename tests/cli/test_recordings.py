"""Reading recordings: cassettes (plain, gzip !!binary, parsed_body), SSE captures, JSONL."""

from __future__ import annotations

import gzip
import json

import pytest
import yaml

from toolwire.errors import UnsupportedInput
from toolwire.recordings import cassette_exchanges, jsonl_chunks, load_recording


def test_plain_cassette_with_sse_body() -> None:
    doc = {
        "interactions": [
            {
                "request": {"method": "POST", "uri": "https://x/v1/messages", "body": '{"a": 1}'},
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["text/event-stream"]},
                    "body": {"string": "data: {}\n\n"},
                },
            }
        ]
    }
    (ex,) = load_recording(yaml.safe_dump(doc).encode(), "c.yaml")
    assert ex.is_sse and ex.request_body == {"a": 1} and ex.response_body == b"data: {}\n\n"


def test_gzip_binary_body_and_parsed_body_variant() -> None:
    raw = gzip.compress(json.dumps({"id": "r1"}).encode())
    doc = {
        "interactions": [
            {
                "request": {"method": "POST", "uri": "u", "parsed_body": {"model": "m"}},
                "response": {
                    "status": {"code": 200},
                    "headers": {"Content-Encoding": ["gzip"], "Content-Type": ["application/json"]},
                    "body": {"string": raw},
                },
            },
            {
                "request": {"method": "POST", "uri": "u"},
                "response": {"status": {"code": 200}, "parsed_body": {"id": "r2"}},
            },
        ]
    }
    first, second = cassette_exchanges(doc)
    assert first.response_json() == {"id": "r1"} and not first.is_sse
    assert first.request_body == {"model": "m"}
    assert second.response_json() == {"id": "r2"}


def test_sse_capture_json_and_jsonl() -> None:
    assert load_recording(b"event: x\ndata: {}\n\n", "s.sse")[0].is_sse
    assert load_recording(b'{"a": 1}', "r.json")[0].content_type == "application/json"
    (jl,) = load_recording(b'{"a": 1}\n{"b": 2}\n', "c.jsonl")
    assert jsonl_chunks(jl.response_body) == [{"a": 1}, {"b": 2}]


def test_garbage_is_unsupported_input_not_a_crash() -> None:
    with pytest.raises(UnsupportedInput):
        load_recording(b"hello", "x.txt")
    with pytest.raises(UnsupportedInput):
        load_recording(b"interactions: [1]", "x.yaml")
    with pytest.raises(UnsupportedInput):
        load_recording(b"a: [", "x.yaml")
