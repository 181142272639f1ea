"""The hand-built cassettes: each parsed by the real ``ollama`` SDK (vcrpy replay), then by
the decoder, which must agree with the SDK and with the raw lines."""

from __future__ import annotations

import json
from typing import Any

import ollama
import pytest
from _ollama_support import CASSETTES, load, raw_lines, sdk_seen, summarize, without_ids

from toolwire.adapters import ollama as adapter
from toolwire.errors import TruncatedStream, VendorStreamError
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run
from toolwire.testing import replay

FILES = sorted(p.name for p in CASSETTES.glob("*.yaml"))
COMPLETE = [
    "parallel_three_calls.yaml",
    "calls_without_ids.yaml",
    "length.yaml",
    "history_with_images.yaml",
    "whole_response.yaml",
]


def sdk(name: str) -> Any:
    """The SDK's own parse: the recorded request re-issued through ``Client.chat``."""
    body, _ = load(name)
    client = ollama.Client(host="http://127.0.0.1:11434")
    kw = {k: v for k, v in body.items() if k in ("tools", "think", "options", "format")}
    with replay(str(CASSETTES / name), match="path"):  # the SDK drops empty fields and ids
        result = client.chat(
            model=body["model"], messages=body["messages"], stream=body["stream"], **kw
        )
        return list(result) if body["stream"] else result


def decoded(name: str) -> list[Any]:
    _, body = load(name)
    return list(adapter.decode_stream(adapter.sse_chunks(body)))


def test_every_cassette_is_tested() -> None:
    assert set(FILES) == {*COMPLETE, "truncated.yaml", "in_stream_error.yaml"}


@pytest.mark.parametrize("name", COMPLETE)
def test_the_sdk_and_the_decoder_agree(name: str) -> None:
    parsed = sdk(name)
    responses = parsed if isinstance(parsed, list) else [parsed]
    assert responses[-1].done is True
    events = decoded(name)
    assert without_ids(summarize(events)) == sdk_seen(responses)
    # the ids are the server's where it sent them (the SDK drops them: read the raw lines)
    _, body = load(name)
    sent = [
        c.get("id") for line in raw_lines(body) for c in (line["message"].get("tool_calls") or [])
    ]
    got = [cid for cid, _, _ in summarize(events).calls]
    assert len(got) == len(sent) and len(set(got)) == len(got)
    for mine, theirs in zip(got, sent, strict=True):
        if theirs is not None:
            assert mine == theirs
    # SDK objects in: the same turn (the SDK's models drop ``id`` and ``function.index``,
    # so where the server sent them the SDK objects decode with minted ids instead)
    from_sdk = list(adapter.decode_stream(responses))
    assert without_ids(summarize(from_sdk)) == without_ids(summarize(events))
    if all(i is None for i in sent):
        assert from_sdk == events


@pytest.mark.parametrize("name", COMPLETE)
def test_each_cassette_is_one_valid_run(name: str) -> None:
    _, body = load(name)
    run = list(frame_run(adapter.Decoder(), adapter.sse_chunks(body), thread_id="t", run_id="r"))
    machine = StreamMachine()
    for ev in run:
        machine.feed(ev)
    machine.end_input()
    assert run[-1].type == "RUN_FINISHED"


def test_minted_ids_are_deterministic_and_distinct() -> None:
    first = summarize(decoded("calls_without_ids.yaml")).calls
    again = summarize(decoded("calls_without_ids.yaml")).calls
    assert first == again
    assert [n for _, n, _ in first] == ["get_weather", "get_time"]
    assert first[0][0] != first[1][0] and all(cid.startswith("call_") for cid, _, _ in first)
    # empty arguments on the wire are the empty object, as sent
    assert first[1][2] == "{}"


def test_the_three_parallel_calls_keep_order_ids_and_arguments() -> None:
    calls = summarize(decoded("parallel_three_calls.yaml")).calls
    assert calls == [
        ("call_k2n8x1qa", "get_weather", '{"city":"Oslo"}'),
        ("call_p0d4w7rm", "get_weather", '{"city":"Lima"}'),
        ("call_t5v3c9zb", "get_time", '{"city":"Oslo"}'),
    ]


def _finished(name: str) -> Any:
    _, body = load(name)
    run = list(frame_run(adapter.Decoder(), adapter.sse_chunks(body), thread_id="t", run_id="r"))
    return run[-1]


def test_usage_and_finish_reasons_come_from_the_last_line() -> None:
    _, body = load("parallel_three_calls.yaml")
    last = raw_lines(body)[-1]
    end = _finished("parallel_three_calls.yaml")
    (usage,) = end.usage
    assert (usage.input_tokens, usage.output_tokens) == (
        last["prompt_eval_count"],
        last["eval_count"],
    )
    assert usage.total_tokens == last["prompt_eval_count"] + last["eval_count"]
    assert usage.reasoning_tokens is None and usage.cached_input_tokens is None
    # Ollama says "stop" after calls too: the turn made calls, so it is tool_calls
    assert end.metadata["ollama.done_reason"] == "stop"
    assert end.metadata[FINISH_REASON_KEY] == "tool_calls"
    end = _finished("length.yaml")
    assert end.metadata[FINISH_REASON_KEY] == "length"


def test_a_line_separator_inside_a_string_is_text() -> None:
    assert summarize(decoded("length.yaml")).text == "The sea\u2028is wide and deep"


def test_a_cut_stream_is_truncated_not_success() -> None:
    parsed = sdk("truncated.yaml")  # the SDK yields what came, and says nothing
    assert parsed[-1].done is False
    with pytest.raises(TruncatedStream, match="done: true"):
        decoded("truncated.yaml")


def test_an_error_line_surfaces_like_the_sdk() -> None:
    with pytest.raises(ollama.ResponseError) as sdk_error:
        sdk("in_stream_error.yaml")
    with pytest.raises(VendorStreamError) as ours:
        decoded("in_stream_error.yaml")
    assert ours.value.vendor == "ollama"
    assert ours.value.message == sdk_error.value.error


def test_the_whole_response_decodes_like_its_stream_would() -> None:
    body, raw = load("whole_response.yaml")
    assert body["stream"] is False
    whole = json.loads(raw)
    from_dict = adapter.decode_response(whole)
    from_sdk = adapter.decode_response(sdk("whole_response.yaml"))
    assert without_ids(summarize(from_dict)) == without_ids(summarize(from_sdk))
    assert summarize(from_dict).calls == [("call_w0l3b0dy", "get_weather", '{"city":"Bergen"}')]
    # one line streamed gives the same events as the whole body
    assert list(adapter.decode_stream([whole])) == from_dict
