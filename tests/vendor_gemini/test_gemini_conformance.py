"""Real recorded Gemini traffic (the read-only corpus in ../shared) through google-genai and us.

For every recorded model response: google-genai replays it (vcrpy, no network) and our decoder
reads both the SDK's objects and the raw recorded bytes. The calls (ids, names, arguments),
text, signatures and usage must equal what the recording holds, and the run must validate.
Every recorded request carrying calls or results must survive decode_request -> encode_request
(as google-genai puts it on the wire) unchanged in everything the protocol holds.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from _gemini_project import b64, calls_of, request_view, text_of_stream
from _gemini_sdk import CORPUS, model_of, sdk_responses, sdk_wire_request

from toolwire.adapters import gemini
from toolwire.protocol import frame_run, validate_stream
from toolwire.recordings import Exchange
from toolwire.testing.recording_cache import recording

if not CORPUS.is_dir():  # never skipped: the suite runs beside ../shared
    raise AssertionError(f"conformance corpus not found at {CORPUS}")

FILES = sorted(CORPUS.glob("*.yaml"))


def _exchanges() -> list[Any]:
    out = []
    for path in FILES:
        for n, ex in enumerate(recording(path)):
            if "googleapis.com" in ex.uri:
                out.append(pytest.param(path, n, ex, id=f"{path.stem[:60]}:{n}"))
    return out


EXCHANGES = _exchanges()


def _raw_chunks(ex: Exchange) -> list[dict[str, Any]]:
    if ex.is_sse:
        return list(gemini.sse_chunks(ex.response_body))
    return [ex.response_json()]


def _run(chunks: list[Any], run_id: str) -> list[Any]:
    return list(frame_run(gemini.Decoder(), chunks, thread_id="t", run_id=run_id))


def test_the_corpus_is_there() -> None:
    assert len(FILES) >= 10
    assert any(":streamGenerateContent" in p.values[2].uri for p in EXCHANGES)


@pytest.mark.parametrize(("path", "n", "ex"), EXCHANGES)
def test_recorded_response_decodes_to_what_the_recording_and_the_sdk_hold(
    path: Path, n: int, ex: Exchange
) -> None:
    earlier = [e for e in recording(path)[:n] if "googleapis" in e.uri]
    sdk = sdk_responses(path, ex, earlier)
    from_sdk = _run(sdk, f"r{n}")
    from_raw = _run(_raw_chunks(ex), f"r{n}")
    # SDK objects and plain dicts give the same events
    assert [e.model_dump() for e in from_sdk] == [e.model_dump() for e in from_raw]
    validate_stream([e.model_dump(by_alias=True, exclude_none=True) for e in from_raw])
    assert from_raw[-1].type.value == "RUN_FINISHED"

    recorded_calls = []
    recorded_text = []
    sigs: dict[int, str] = {}
    for chunk in _raw_chunks(ex):
        for part in chunk["candidates"][0].get("content", {}).get("parts", []):
            if "functionCall" in part:
                if "thoughtSignature" in part:
                    sigs[len(recorded_calls)] = part["thoughtSignature"]
                recorded_calls.append(part["functionCall"])
            elif "text" in part and not part.get("thought"):
                recorded_text.append(part["text"])
    sdk_calls = [
        p.function_call
        for r in sdk
        for p in (r.candidates[0].content.parts or [])
        if p.function_call is not None
    ]
    ours = calls_of(from_raw)
    assert len(ours) == len(recorded_calls) == len(sdk_calls)
    triples = zip(ours, recorded_calls, sdk_calls, strict=True)
    for k, ((cid, name, text), rec, fc) in enumerate(triples):
        assert name == rec["name"] == fc.name
        # argument text: the recorded args object, compact; the SDK parses it to the same value
        expected = json.dumps(rec.get("args", {}), separators=(",", ":"), ensure_ascii=False)
        assert text == expected
        assert json.loads(text) == (fc.args or {})
        if fc.id is not None:
            assert cid == fc.id == rec["id"]
        enc = [
            e.encrypted_value
            for e in from_raw
            if e.type.value == "REASONING_ENCRYPTED_VALUE" and e.entity_id == cid
        ]
        if k in sigs:
            assert enc == [sigs[k]]
            sdk_sig = [
                p.thought_signature
                for r in sdk
                for p in r.candidates[0].content.parts or []
                if p.function_call is fc
            ]
            assert [b64(s) for s in sdk_sig if s] == enc
        else:
            assert enc == []
    assert text_of_stream(from_raw) == "".join(recorded_text)
    sdk_text = "".join(
        p.text or ""
        for r in sdk
        for p in (r.candidates[0].content.parts or [])
        if not p.thought and p.text
    )
    assert text_of_stream(from_raw) == sdk_text

    usage = from_raw[-1].usage
    last = sdk[-1].usage_metadata
    assert usage is not None and last is not None
    assert usage[0].provider == "google"
    assert usage[0].total_tokens == last.total_token_count
    assert usage[0].input_tokens == last.prompt_token_count
    assert usage[0].reasoning_tokens == last.thoughts_token_count
    assert usage[0].output_tokens == (last.candidates_token_count or 0) + (
        last.thoughts_token_count or 0
    )


def _carries_tools(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
    return any(k in p for p in parts for k in ("functionCall", "function_call"))


REQUESTS = [p for p in EXCHANGES if _carries_tools(p.values[2].request_body)]


def test_some_recorded_requests_carry_calls_and_results() -> None:
    assert len(REQUESTS) >= 10


@pytest.mark.parametrize(("path", "n", "ex"), REQUESTS)
def test_recorded_request_survives_decode_then_encode(path: Path, n: int, ex: Exchange) -> None:
    body = ex.request_body
    vertex = "aiplatform" in ex.uri
    backend = "vertex" if vertex else "gemini_api"
    run_input = gemini.decode_request(body, backend=backend)
    with_ids = '"id"' in json.dumps(body["contents"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing recorded may be lost on the way back
        kwargs = gemini.encode_request(
            run_input, model=model_of(ex.uri), backend=backend, call_ids=with_ids
        )
    wire = sdk_wire_request(kwargs, vertex=vertex)
    assert request_view(wire) == request_view(body)
    names = [d["name"] for t in body.get("tools", []) for d in t.get("functionDeclarations", [])]
    assert [d["name"] for t in wire.get("tools", []) for d in t["functionDeclarations"]] == names
