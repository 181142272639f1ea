"""The hand-built cassettes: each parsed by the real ``cohere`` SDK (vcrpy replay), then by
the decoder, which must agree with it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _cohere_support import CASSETTES, load, sdk, sdk_seen, summarize

from toolwire.adapters import cohere as adapter
from toolwire.errors import TruncatedStream, VendorStreamError
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run

FILES = sorted(p.name for p in CASSETTES.glob("*.yaml"))
COMPLETE = {
    "parallel_three_calls.yaml": "tool_calls",
    "thinking_and_citations.yaml": "stop",
    "max_tokens.yaml": "length",
    "whole_response.yaml": "tool_calls",
}


def decoded(name: str) -> list[Any]:
    body, raw = load(name)
    if body.get("stream"):
        return list(adapter.decode_stream(adapter.sse_chunks(raw)))
    return adapter.decode_response(json.loads(raw))


def _run(name: str) -> list[Any]:
    body, raw = load(name)
    if body.get("stream"):
        return list(
            frame_run(adapter.Decoder(), adapter.sse_chunks(raw), thread_id="t", run_id="r")
        )
    return list(
        frame_run(adapter.Decoder(), [], whole_response=json.loads(raw), thread_id="t", run_id="r")
    )


def test_every_cassette_is_tested() -> None:
    assert set(FILES) == {*COMPLETE, "truncated.yaml", "in_stream_error.yaml"}


@pytest.mark.parametrize("name", sorted(COMPLETE))
def test_the_sdk_and_the_decoder_agree(name: str) -> None:
    parsed = sdk(name)
    events = decoded(name)
    assert summarize(events) == sdk_seen(parsed)
    # SDK objects in: the same events as the bytes
    if isinstance(parsed, list):
        assert list(adapter.decode_stream(parsed)) == events
    else:
        assert adapter.decode_response(parsed) == events


@pytest.mark.parametrize("name", sorted(COMPLETE))
def test_each_cassette_is_one_valid_run_with_its_finish_reason(name: str) -> None:
    run = _run(name)
    machine = StreamMachine()
    for ev in run:
        machine.feed(ev)
    machine.end_input()
    assert run[-1].type == "RUN_FINISHED"
    assert run[-1].metadata[FINISH_REASON_KEY] == COMPLETE[name]


def test_usage_counts_the_tokens_the_model_read_and_wrote() -> None:
    _, raw = load("parallel_three_calls.yaml")
    last = [
        json.loads(line[6:]) for line in raw.decode().split("\n") if line.startswith("data: {")
    ][-1]
    (usage,) = _run("parallel_three_calls.yaml")[-1].usage
    tokens = last["delta"]["usage"]["tokens"]
    assert (usage.input_tokens, usage.output_tokens) == (
        tokens["input_tokens"],
        tokens["output_tokens"],
    )
    assert usage.total_tokens == tokens["input_tokens"] + tokens["output_tokens"]


def test_the_tool_plan_is_the_message_text_and_marked_so() -> None:
    events = decoded("parallel_three_calls.yaml")
    start = next(e for e in events if e.type == "TEXT_MESSAGE_START")
    assert start.metadata == {"cohere.tool_plan": True}
    assert summarize(events).text == "I will look up the weather and the time."


def test_citations_ride_on_run_finished() -> None:
    end = _run("thinking_and_citations.yaml")[-1]
    (citation,) = end.metadata["cohere.citations"]
    assert citation["text"] == "4 °C" and citation["sources"][0]["id"] == "weather-oslo"


def test_a_cut_stream_is_truncated_not_success() -> None:
    parsed = sdk("truncated.yaml")  # the SDK yields what came, and says nothing
    assert parsed[-1].type == "tool-call-delta"
    with pytest.raises(TruncatedStream, match="message-end"):
        decoded("truncated.yaml")


def test_an_error_finish_surfaces_with_its_text() -> None:
    parsed = sdk("in_stream_error.yaml")
    said = parsed[-1].delta
    with pytest.raises(VendorStreamError) as caught:
        decoded("in_stream_error.yaml")
    assert (caught.value.error_type, caught.value.message) == (said.finish_reason, said.error)
