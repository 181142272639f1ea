"""The hand-built cassettes: each parsed by the real ``mistralai`` SDK (vcrpy replay), then by
the decoder, which must agree with it."""

from __future__ import annotations

import json

import pytest
from _mistral_support import CASSETTES, load, sdk, sdk_seen, summarize
from mistralai.client.errors import ResponseValidationError

from toolwire.adapters import mistral as adapter
from toolwire.errors import TruncatedStream, VendorStreamError
from toolwire.protocol.finish import FINISH_REASON_KEY
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run

FILES = sorted(p.name for p in CASSETTES.glob("*.yaml"))
COMPLETE = {
    "parallel_three_calls.yaml": "tool_calls",
    "calls_at_index_zero.yaml": "tool_calls",
    "magistral_thinking.yaml": "stop",
    "model_length.yaml": "length",
    "history_with_image.yaml": "stop",
    "whole_response.yaml": "tool_calls",
}


def decoded(name: str) -> list:
    body, raw = load(name)
    if body.get("stream"):
        return list(adapter.decode_stream(adapter.sse_chunks(raw)))
    return adapter.decode_response(json.loads(raw))


def test_every_cassette_is_tested() -> None:
    assert set(FILES) == {*COMPLETE, "truncated.yaml", "in_stream_error.yaml"}


# the SDK's stream choice type lists no model_length (its whole-response one does): its
# serializer says so when the decoder dumps that object
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@pytest.mark.parametrize("name", sorted(COMPLETE))
def test_the_sdk_and_the_decoder_agree(name: str) -> None:
    parsed = sdk(name)
    theirs = sdk_seen(parsed)
    events = decoded(name)
    ours = summarize(events)
    assert (ours.thinking, ours.text, ours.calls) == (theirs.thinking, theirs.text, theirs.calls)
    for cid, _, _ in ours.calls:
        assert len(cid) == 9 and cid.isalnum()
    # SDK objects in: the same events as the bytes
    if isinstance(parsed, list):
        assert list(adapter.decode_stream(parsed)) == events
    else:
        assert adapter.decode_response(parsed) == events


@pytest.mark.parametrize("name", sorted(COMPLETE))
def test_each_cassette_is_one_valid_run_with_its_finish_reason(name: str) -> None:
    body, raw = load(name)
    if body.get("stream"):
        run = list(frame_run(adapter.Decoder(), adapter.sse_chunks(raw), thread_id="t", run_id="r"))
    else:
        run = list(
            frame_run(
                adapter.Decoder(), [], whole_response=json.loads(raw), thread_id="t", run_id="r"
            )
        )
    machine = StreamMachine()
    for ev in run:
        machine.feed(ev)
    machine.end_input()
    assert run[-1].type == "RUN_FINISHED"
    assert run[-1].metadata[FINISH_REASON_KEY] == COMPLETE[name]
    assert run[-1].metadata["mistral.finish_reasons"] == [sdk_seen(sdk(name)).finish]


def test_usage_follows_the_last_chunk() -> None:
    _, raw = load("parallel_three_calls.yaml")
    run = list(frame_run(adapter.Decoder(), adapter.sse_chunks(raw), thread_id="t", run_id="r"))
    (usage,) = run[-1].usage
    parsed = sdk("parallel_three_calls.yaml")
    theirs = parsed[-1].data.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        theirs.prompt_tokens,
        theirs.completion_tokens,
        theirs.total_tokens,
    )


def test_calls_at_one_index_are_kept_apart_by_id() -> None:
    calls = summarize(decoded("calls_at_index_zero.yaml")).calls
    assert [c[:2] for c in calls] == [("Qu1t0WxA9", "get_weather"), ("Qu1t0TmB8", "get_time")]
    assert calls[1][2] == ""  # empty arguments stay empty


def test_a_cut_stream_is_truncated_not_success() -> None:
    parsed = sdk("truncated.yaml")  # the SDK yields what came, and says nothing
    assert all(c.finish_reason is None for e in parsed for c in e.data.choices)
    with pytest.raises(TruncatedStream, match="finish_reason"):
        decoded("truncated.yaml")


def test_an_error_in_the_stream_surfaces_with_its_type_and_message() -> None:
    with pytest.raises(ResponseValidationError):  # the SDK cannot read it as a chunk
        sdk("in_stream_error.yaml")
    with pytest.raises(VendorStreamError) as caught:
        decoded("in_stream_error.yaml")
    assert caught.value.error_type == "service_tier_capacity_exceeded"
    assert "capacity exceeded" in caught.value.message
    assert caught.value.retryable
