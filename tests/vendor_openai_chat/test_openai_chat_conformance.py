"""Real recorded traffic (../shared/conformance): SDK replay vs our decoder; request round trips."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from _openai_chat_sdk import SdkChoice, accumulate, from_completion, stream_body
from _openai_chat_support import CORPUS, dumped, summarize
from ag_ui.core import AssistantMessage, TextPart, ToolMessage, UserMessage
from openai import OpenAI

from toolwire.adapters import openai_chat
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run
from toolwire.recordings import Exchange
from toolwire.testing import replay
from toolwire.testing.recording_cache import recording

if not CORPUS.is_dir():  # never skipped: the suite runs beside ../shared
    raise AssertionError(f"conformance corpus not found at {CORPUS}")

FILES = sorted(CORPUS.glob("*.yaml"))


def exchanges(path: Path) -> list[Exchange]:
    return recording(path)


@functools.cache  # a client holds only settings; each new one costs a TLS context
def _client() -> OpenAI:
    return OpenAI(api_key="test-key")


def sdk_replay(path: Path) -> list[tuple[Exchange, Any]]:
    """Every interaction re-issued through the real SDK against the cassette (vcrpy)."""
    out = []
    client = _client()
    with replay(str(path), allow_playback_repeats=False):
        for ex in exchanges(path):
            body = dict(ex.request_body)
            if body.get("stream"):
                out.append((ex, list(client.chat.completions.create(**body))))
            else:
                out.append((ex, client.chat.completions.create(**body)))
    return out


def test_corpus_is_there() -> None:
    assert len(FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:70])
def test_decoder_matches_sdk(path: Path) -> None:
    for ex, parsed in sdk_replay(path):
        if isinstance(parsed, list):
            expected = accumulate(parsed)
            from_objects = list(openai_chat.decode_stream(parsed))
            from_bytes = list(openai_chat.decode_stream(openai_chat.sse_chunks(ex.response_body)))
            assert from_objects == from_bytes
            events = from_bytes
        else:
            expected = from_completion(parsed)
            events = openai_chat.decode_response(parsed)
            assert events == openai_chat.decode_response(ex.response_json())
        _same(expected, summarize(events), parsed)


def _same(expected: dict[int, SdkChoice], seen: dict[str, Any], parsed: Any) -> None:
    first = parsed[0].id if isinstance(parsed, list) else parsed.id
    assert first in seen or not any(c.text or c.calls for c in expected.values())
    for index, choice in expected.items():
        got = seen[first] if index == 0 else None
        assert got is not None, "only single-choice recordings are in the corpus"
        assert got.text == choice.text + choice.refusal
        want = [(c.id, c.name, c.arguments) for c in choice.calls]
        assert got.calls == want


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:70])
def test_runs_validate(path: Path) -> None:
    """Each response as one complete run passes the protocol machine (as `toolwire validate`)."""
    machine = StreamMachine()
    for n, ex in enumerate(exchanges(path)):
        dec = openai_chat.Decoder()
        if ex.is_sse:
            run = frame_run(
                dec,
                openai_chat.sse_chunks(ex.response_body),
                thread_id="t",
                run_id=f"r{n}",
                machine=machine,
            )
        else:
            run = frame_run(
                dec,
                [],
                thread_id="t",
                run_id=f"r{n}",
                whole_response=ex.response_json(),
                machine=machine,
            )
        events = list(run)
        assert events[-1].type.value == "RUN_FINISHED"
        recorded = _recorded_usage(ex)
        if recorded is None:
            assert not events[-1].usage
        else:
            (u,) = events[-1].usage
            assert u.provider == "openai"
            assert (u.input_tokens, u.output_tokens) == (
                recorded["prompt_tokens"],
                recorded["completion_tokens"],
            )
    machine.close()


def _recorded_usage(ex: Exchange) -> dict[str, Any] | None:
    """The usage object the recording itself holds (read with json.loads), if any."""
    if not ex.is_sse:
        usage: dict[str, Any] | None = ex.response_json().get("usage")
        return usage
    found = [
        json.loads(line[5:])["usage"]
        for line in ex.response_body.decode("utf-8").splitlines()
        if line.startswith("data:") and line[5:].strip() != "[DONE]" and '"usage"' in line
    ]
    found = [u for u in found if u]
    assert len(found) <= 1
    return found[0] if found else None


def _requests_with_tools() -> list[tuple[str, int, dict[str, Any]]]:
    out = []
    for path in FILES:
        for i, ex in enumerate(exchanges(path)):
            msgs = ex.request_body.get("messages", [])
            if any(m.get("tool_calls") or m.get("role") == "tool" for m in msgs):
                out.append((path.name, i, ex.request_body))
    return out


REQUESTS = _requests_with_tools()


def test_requests_found() -> None:
    assert len(REQUESTS) >= 15


@pytest.mark.parametrize("name,i,body", REQUESTS, ids=[f"{n[:50]}#{i}" for n, i, _ in REQUESTS])
def test_request_round_trip(name: str, i: int, body: dict[str, Any]) -> None:
    """decode_request -> encode_request gives back the messages and tools the protocol holds."""
    run = openai_chat.decode_request(body)
    assert run.protocol_version == "1.0"
    again = openai_chat.encode_request(run, model=body["model"])
    assert again["model"] == body["model"]
    assert [_norm_msg(m) for m in again["messages"]] == [_norm_msg(m) for m in body["messages"]]
    assert [_norm_tool(t) for t in again.get("tools", [])] == [
        _norm_tool(t) for t in body.get("tools", [])
    ]
    # and the decoded history pairs every call with its result, in call order
    calls = [
        c.id for m in run.messages if isinstance(m, AssistantMessage) for c in m.tool_calls or []
    ]
    results = [m.tool_call_id for m in run.messages if isinstance(m, ToolMessage)]
    assert calls == results


def _norm_msg(m: dict[str, Any]) -> dict[str, Any]:
    """A request message as the protocol holds it: author names, and a list of text parts in
    a system message, are kept; an absent and a null assistant content are the same; a tool
    message's ``name`` (sent by some clients, not in the API's type) has no AG-UI field."""
    out = {k: v for k, v in m.items() if v is not None}
    if out.get("role") == "tool":
        out.pop("name", None)
    if out.get("role") == "assistant" and out.get("content") == "" and out.get("tool_calls"):
        del out["content"]
    if out.get("role") in ("system", "developer") and isinstance(out.get("content"), list):
        out["content"] = "".join(p["text"] for p in out["content"])
    return json.loads(json.dumps(out, sort_keys=True))


def _norm_tool(t: dict[str, Any]) -> dict[str, Any]:
    fn = dict(t["function"])
    if not fn.get("description"):
        fn.pop("description", None)  # AG-UI's Tool.description is required: "" and absent agree
    return {"type": t["type"], "function": fn}


def test_relocated_media_in_corpus_decodes_to_parts() -> None:
    """pydantic-ai moves tool-result media into a user message: those parts decode as media."""
    kinds = []
    for _, _, body in REQUESTS:
        for m in openai_chat.decode_request(body).messages:
            if isinstance(m, UserMessage) and not isinstance(m.content, str):
                kinds.extend(p.type for p in m.content if not isinstance(p, TextPart))
    assert "image" in kinds and "document" in kinds


STREAMED = [
    (path.name, n, ex.response_body)
    for path in FILES
    for n, ex in enumerate(exchanges(path))
    if ex.is_sse
]


@pytest.mark.parametrize(
    "name,n,body", STREAMED, ids=[f"{name[:50]}#{n}" for name, n, _ in STREAMED]
)
def test_recorded_streams_encode_back(name: str, n: int, body: bytes) -> None:
    """decode -> encode_stream -> to_sse: the SDK reads the same calls, ids, arguments and text,
    and decoding our bytes gives the same events."""
    events = list(openai_chat.decode_stream(openai_chat.sse_chunks(body)))
    ours = openai_chat.to_sse(openai_chat.encode_stream(events))
    want, got = accumulate(stream_body(body)), accumulate(stream_body(ours))
    assert got.keys() == want.keys()
    for index, choice in want.items():
        assert [(c.id, c.name, c.arguments) for c in got[index].calls] == [
            (c.id, c.name, c.arguments) for c in choice.calls
        ]
        assert got[index].text == choice.text
    again = list(openai_chat.decode_stream(openai_chat.sse_chunks(ours)))
    assert dumped(again) == dumped(events)


def _continuations() -> list[tuple[str, int]]:
    """(file, i) where request i+1 continues request i's conversation after response i."""
    out = []
    for path in FILES:
        exs = exchanges(path)
        for i in range(len(exs) - 1):
            now, nxt = exs[i].request_body["messages"], exs[i + 1].request_body["messages"]
            if len(nxt) > len(now) and nxt[: len(now)] == now:
                out.append((path.name, i))
    return out


CONTINUED = _continuations()


@pytest.mark.parametrize("name,i", CONTINUED, ids=[f"{n[:50]}#{i}" for n, i in CONTINUED])
def test_decoded_calls_are_the_ones_the_client_sent_back(name: str, i: int) -> None:
    """The history our decoder assembles from response i holds exactly the calls (ids, names,
    argument bytes) the recorded client put in request i+1."""
    exs = exchanges(CORPUS / name)
    ex = exs[i]
    machine = StreamMachine()
    if ex.is_sse:
        run = frame_run(
            openai_chat.Decoder(),
            openai_chat.sse_chunks(ex.response_body),
            thread_id="t",
            run_id="r",
            machine=machine,
        )
    else:
        run = frame_run(
            openai_chat.Decoder(),
            [],
            thread_id="t",
            run_id="r",
            whole_response=ex.response_json(),
            machine=machine,
        )
    list(run)
    ours = [
        (c.id, c.function.name, c.function.arguments)
        for m in machine.messages
        if isinstance(m, AssistantMessage)
        for c in m.tool_calls or []
    ]
    sent_back = exs[i + 1].request_body["messages"][len(ex.request_body["messages"])]
    assert sent_back["role"] == "assistant"
    theirs = [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in sent_back.get("tool_calls") or []
    ]
    assert ours == theirs
