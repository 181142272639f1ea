"""Project cassettes: each replayed through Anthropic's SDK and through our decoder.

Expected values come from the SDK's parse of the same bytes (ids, names, argument
text, text, signatures, usage) or from the recording itself, never from the
code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import pytest
from _anthropic_decode import (
    args_object,
    calls,
    dump,
    framed,
    run,
    run_exchange,
    sdk_calls,
    sdk_text,
    text,
)
from _anthropic_sdk import CASSETTES, sdk_final_messages, sdk_responses
from ag_ui.core import ReasoningMessage, ToolMessage

from toolwire.adapters.anthropic import decode_response
from toolwire.errors import TruncatedStream, VendorStreamError
from toolwire.protocol.machine import StreamMachine, validate_stream
from toolwire.testing.recording_cache import recording

ALL = sorted(CASSETTES.glob("*.yaml"))


def exchanges(name: str) -> list:
    path = CASSETTES / name
    return recording(path)


def test_the_expected_cassettes_are_shipped() -> None:
    names = {p.name for p in ALL}
    assert {
        "thinking_tool_use_signature.yaml",
        "thinking_tool_results_followup.yaml",
        "web_search_server_tool.yaml",
        "overloaded_error.yaml",
        "parallel_four_tool_use.yaml",
        "truncated_stream.yaml",
        "malformed_empty_arguments.yaml",
        "interleaved_tool_use.yaml",
        "server_tools_mcp_code_execution.yaml",
        "tool_result_media.yaml",
        "non_streamed_tool_use.yaml",
    } <= names


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_sdk_parses_and_decoder_agrees(path: Path) -> None:
    """The SDK reads every cassette; our decoder gives the SDK's calls and text, whether it
    is fed our own SSE parse or the SDK's event objects."""
    sdk = sdk_responses(path)
    recorded = recording(path)
    assert len(sdk) == len(recorded)
    for got, ex in zip(sdk, recorded, strict=True):
        ours, _, err = run_exchange(ex)
        if isinstance(got, list):
            raw = [e for e in got if not isinstance(e, Exception)]
            from_sdk, _, sdk_err = run(raw)
            if got and isinstance(got[-1], Exception):
                assert isinstance(err, VendorStreamError)  # SDK objects never carry the error
            else:
                assert type(err) is type(sdk_err)
                assert dump(ours) == dump(from_sdk)
            assert calls(ours) == sdk_calls(raw)
            assert text(ours) == sdk_text(raw)
        else:
            from_sdk = decode_response(got)
            assert dump(ours) == dump(from_sdk)
            expected = [(b.id, b.name, b.input) for b in got.content if b.type == "tool_use"]
            assert [(i, n, args_object(a)) for i, n, a in calls(ours)] == expected


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_every_response_frames_to_a_valid_run(path: Path) -> None:
    machine = StreamMachine()
    events = []
    for ex in recording(path):
        events += framed(ex, machine)
    assert events[0].type.value == "RUN_STARTED"
    assert events[-1].type.value in ("RUN_FINISHED", "RUN_ERROR")
    validate_stream(events)
    for e in events:
        assert e.type.value != "TOOL_CALL_CHUNK"


def test_thinking_signature_text_and_two_calls() -> None:
    path = CASSETTES / "thinking_tool_use_signature.yaml"
    final = sdk_final_messages(path)[0]
    thinking = next(b for b in final.content if b.type == "thinking")
    ex = exchanges(path.name)[0]
    events, decoder, err = run_exchange(ex)
    assert err is None
    kinds = [e.type.value for e in events]
    # a thinking block, then text, then two calls, in the order the vendor sent them
    assert kinds.index("REASONING_START") < kinds.index("TEXT_MESSAGE_START")
    assert kinds.index("TEXT_MESSAGE_END") < kinds.index("TOOL_CALL_START")
    reasoning = "".join(e.delta for e in events if e.type.value == "REASONING_MESSAGE_CONTENT")
    assert reasoning == thinking.thinking
    enc = [e for e in events if e.type.value == "REASONING_ENCRYPTED_VALUE"]
    assert len(enc) == 1 and enc[0].encrypted_value == thinking.signature
    assert enc[0].subtype == "message"
    tool_blocks = [b for b in final.content if b.type == "tool_use"]
    assert len(tool_blocks) == 2
    got = calls(events)
    assert [c[0] for c in got] == [b.id for b in tool_blocks]
    assert [json.loads(c[2]) for c in got] == [b.input for b in tool_blocks]
    starts = [e for e in events if e.type.value == "TOOL_CALL_START"]
    assert {s.parent_message_id for s in starts} == {final.id}
    assert decoder.stop_reason == final.stop_reason == "tool_use"
    # history: one reasoning message (text + signature) before the assistant message
    machine = StreamMachine()
    framed(ex, machine)
    history = machine.messages
    assert isinstance(history[0], ReasoningMessage)
    assert history[0].content == thinking.thinking
    assert history[0].encrypted_value == thinking.signature
    assert history[1].id == final.id
    assert [c.id for c in history[1].tool_calls] == [b.id for b in tool_blocks]


@pytest.mark.parametrize(
    "name", ["thinking_tool_use_signature.yaml", "thinking_tool_results_followup.yaml"]
)
def test_usage_counts_cache_inside_input(name: str) -> None:
    path = CASSETTES / name
    finals = sdk_final_messages(path)
    for final, ex in zip(finals, exchanges(path.name), strict=True):
        _, decoder, _ = run_exchange(ex)
        (u,) = decoder.usage
        sdk = final.usage
        expected_in = (
            sdk.input_tokens
            + (sdk.cache_read_input_tokens or 0)
            + (sdk.cache_creation_input_tokens or 0)
        )
        assert u.provider == "anthropic"
        assert u.model == final.model
        assert u.input_tokens == expected_in
        assert u.output_tokens == sdk.output_tokens
        assert u.cached_input_tokens == sdk.cache_read_input_tokens
        assert u.total_tokens == expected_in + sdk.output_tokens
        # the cache counts are inside the input total, not beside it
        assert u.input_tokens >= (u.cached_input_tokens or 0) + (u.cache_write_input_tokens or 0)


def test_the_followup_turn_read_from_the_cache() -> None:
    (ex,) = exchanges("thinking_tool_results_followup.yaml")
    _, decoder, _ = run_exchange(ex)
    assert ex.response_body.count(b'"cache_read_input_tokens":512') == 2  # the recording says so
    assert decoder.usage[0].cached_input_tokens == 512


def test_usage_leaves_out_counts_the_vendor_did_not_send() -> None:
    ex = exchanges("malformed_empty_arguments.yaml")[0]
    _, decoder, _ = run_exchange(ex)
    (u,) = decoder.usage
    assert u.output_tokens == 64
    assert u.reasoning_tokens is None  # never a made-up zero


def test_overloaded_error_mid_stream() -> None:
    path = CASSETTES / "overloaded_error.yaml"
    (got,) = sdk_responses(path)
    exc = got[-1]
    assert isinstance(exc, anthropic.APIStatusError)
    _, _, err = run_exchange(exchanges(path.name)[0])
    assert isinstance(err, VendorStreamError)
    assert err.error_type == exc.body["error"]["type"] == "overloaded_error"
    assert err.message == exc.body["error"]["message"]
    assert err.retryable
    run_events = framed(exchanges(path.name)[0])
    assert run_events[-1].type.value == "RUN_ERROR"
    assert run_events[-1].code == "overloaded_error"
    assert "RUN_FINISHED" not in [e.type.value for e in run_events]


def test_truncated_stream_is_never_success() -> None:
    path = CASSETTES / "truncated_stream.yaml"
    (got,) = sdk_responses(path)
    assert got[-1].type != "message_stop"  # the SDK sees the cut too
    events, _, err = run_exchange(exchanges(path.name)[0])
    assert isinstance(err, TruncatedStream)
    assert calls(events) == sdk_calls(got)  # what arrived is passed on as it was
    run_events = framed(exchanges(path.name)[0])
    assert run_events[-1].type.value == "RUN_ERROR" and run_events[-1].code == "truncated"


def test_malformed_and_empty_arguments_pass_through_byte_for_byte() -> None:
    path = CASSETTES / "malformed_empty_arguments.yaml"
    (got,) = sdk_responses(path)
    events, _, err = run_exchange(exchanges(path.name)[0])
    assert err is None
    expected = sdk_calls(got)
    assert calls(events) == expected
    assert expected[0][2] == ""  # the empty call: no argument text at all
    with pytest.raises(ValueError):
        json.loads(expected[1][2])  # the other is not JSON, and is passed on anyway
    # no empty TOOL_CALL_ARGS
    assert all(e.delta for e in events if e.type.value == "TOOL_CALL_ARGS")
    # each call ends where its block stops, even with unparseable text
    ends = [e.tool_call_id for e in events if e.type.value == "TOOL_CALL_END"]
    assert ends == [c[0] for c in expected]


def test_four_parallel_calls() -> None:
    path = CASSETTES / "parallel_four_tool_use.yaml"
    final = sdk_final_messages(path)[0]
    events, _, _ = run_exchange(exchanges(path.name)[0])
    blocks = [b for b in final.content if b.type == "tool_use"]
    assert len(blocks) == 4
    assert [(i, n, json.loads(a)) for i, n, a in calls(events)] == [
        (b.id, b.name, b.input) for b in blocks
    ]
    assert [s.parent_message_id for s in events if s.type.value == "TOOL_CALL_START"] == [
        final.id
    ] * 4


def test_interleaved_blocks_are_kept_apart_by_index() -> None:
    path = CASSETTES / "interleaved_tool_use.yaml"
    final = sdk_final_messages(path)[0]
    events, _, _ = run_exchange(exchanges(path.name)[0])
    got = {i: json.loads(a) for i, _, a in calls(events)}
    assert got == {b.id: b.input for b in final.content if b.type == "tool_use"}
    # both calls are open at once: START, START before either END
    kinds = [e.type.value for e in events]
    assert (
        kinds.index("TOOL_CALL_END") > [i for i, k in enumerate(kinds) if k == "TOOL_CALL_START"][1]
    )


def test_web_search_server_tool_becomes_call_and_result() -> None:
    path = CASSETTES / "web_search_server_tool.yaml"
    (got,) = sdk_responses(path)
    result_block = next(
        e.content_block
        for e in got
        if e.type == "content_block_start" and e.content_block.type == "web_search_tool_result"
    )
    events, _, err = run_exchange(exchanges(path.name)[0])
    assert err is None
    (result,) = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert result.tool_call_id == result_block.tool_use_id
    hits = result_block.content
    assert [p.metadata["url"] for p in result.content] == [h.url for h in hits]
    assert [p.metadata["title"] for p in result.content] == [h.title for h in hits]
    assert [p.text for p in result.content] == [h.title for h in hits]
    # the call is answered in-stream, so nothing is left pending
    run_events = framed(exchanges(path.name)[0])
    assert run_events[-1].outcome.pending_tool_call_ids is None
    # citations of the answer ride on the text block's end
    ends = [e for e in events if e.type.value == "TEXT_MESSAGE_END" and e.metadata]
    assert ends and ends[-1].metadata["anthropic.citations"][0]["url"] == hits[0].url


def test_mcp_code_execution_and_error_results() -> None:
    path = CASSETTES / "server_tools_mcp_code_execution.yaml"
    (got,) = sdk_responses(path)
    blocks = {e.content_block.type: e.content_block for e in got if e.type == "content_block_start"}
    machine = StreamMachine()
    framed(exchanges(path.name)[0], machine)
    tools = {m.tool_call_id: m for m in machine.messages if isinstance(m, ToolMessage)}
    mcp = blocks["mcp_tool_result"]
    assert tools[mcp.tool_use_id].content[0].text == mcp.content[0].text
    assert tools[mcp.tool_use_id].error is None
    bash = blocks["bash_code_execution_tool_result"]
    assert tools[bash.tool_use_id].content[0].text == bash.content.stdout
    fetch = blocks["web_fetch_tool_result"]
    assert tools[fetch.tool_use_id].error == fetch.content.error_code
    assert tools[fetch.tool_use_id].metadata["anthropic.error_code"] == fetch.content.error_code
    redacted = blocks["redacted_thinking"]
    (reasoning,) = [m for m in machine.messages if isinstance(m, ReasoningMessage)]
    assert reasoning.content == "" and reasoning.encrypted_value == redacted.data


def test_non_streamed_response_decodes_like_its_stream() -> None:
    path = CASSETTES / "non_streamed_tool_use.yaml"
    (message,) = sdk_responses(path)
    events = decode_response(message)
    assert text(events) == message.content[0].text
    ((cid, name, args),) = calls(events)
    assert (cid, name, json.loads(args)) == (
        message.content[1].id,
        message.content[1].name,
        message.content[1].input,
    )


def test_only_messages_calls_are_model_turns() -> None:
    from toolwire.adapters.anthropic import is_model_exchange
    from toolwire.recordings import Exchange

    def ex(uri: str) -> Exchange:
        return Exchange(response_body=b"", uri=uri)

    assert is_model_exchange(ex("https://api.anthropic.com/v1/messages"))
    assert is_model_exchange(ex("https://api.anthropic.com/v1/messages?beta=true"))
    assert not is_model_exchange(ex("https://api.anthropic.com/v1/messages/count_tokens"))
    assert not is_model_exchange(ex("https://api.anthropic.com/v1/files"))
    assert is_model_exchange(ex(""))  # an .sse capture or JSONL chunks
    for path in ALL:
        assert all(is_model_exchange(e) for e in recording(path))
