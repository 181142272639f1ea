"""Re-chunking, encode round trips through Anthropic's SDK, and bad input."""

from __future__ import annotations

import functools
import json
import warnings
from pathlib import Path
from typing import Any

import anthropic
import pytest
from _anthropic_decode import calls, dump, run, sdk_calls, sdk_text, text
from _anthropic_sdk import CASSETTES, CORPUS, sdk_accumulate_sse, sdk_parse_sse
from ag_ui.core import (
    EventType,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TokenUsage,
    ToolCallChunkEvent,
    ToolCallResultEvent,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters.anthropic import (
    Decoder,
    Encoder,
    decode_stream,
    encode_stream,
    iter_sse_chunks,
    sse_chunks,
    to_sse,
)
from toolwire.errors import (
    ProtocolViolation,
    ToolwireError,
    TruncatedStream,
    VendorDataError,
    VendorStreamError,
)
from toolwire.losses import ContentLossWarning
from toolwire.protocol.runs import frame_run
from toolwire.testing.recording_cache import recording


def bodies(path: Path) -> list[bytes]:
    return [e.response_body for e in recording(path) if e.is_sse]


COMPLETE = [
    (p.stem, b)
    for p in sorted(CASSETTES.glob("*.yaml"))
    if p.stem not in ("overloaded_error", "truncated_stream")
    for b in bodies(p)
]
if CORPUS.is_dir():
    COMPLETE += [(p.stem[:50], b) for p in sorted(CORPUS.glob("*.yaml")) for b in bodies(p)]


# ---------------------------------------------------------------- re-chunking


@pytest.mark.parametrize(("name", "body"), COMPLETE, ids=[n for n, _ in COMPLETE])
@settings(max_examples=3 * settings.default.max_examples // 10, deadline=None)
@given(data=st.data())
def test_any_split_of_the_bytes_gives_the_same_events(name: str, body: bytes, data: Any) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=40)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    whole, _, err1 = run(sse_chunks(body))
    split, _, err2 = run(iter_sse_chunks(pieces))
    assert err1 is None and err2 is None
    assert dump(split) == dump(whole)


@settings(max_examples=settings.default.max_examples // 2, deadline=None)
@given(data=st.data())
def test_split_error_stream_still_raises_the_vendor_error(data: Any) -> None:
    (body,) = bodies(CASSETTES / "overloaded_error.yaml")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=20)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    _, _, err = run(iter_sse_chunks(pieces))
    assert isinstance(err, VendorStreamError) and err.error_type == "overloaded_error"


# ---------------------------------------------------------------- encode round trip


@pytest.mark.parametrize(("name", "body"), COMPLETE, ids=[n for n, _ in COMPLETE])
def test_encode_round_trip_through_the_sdk(name: str, body: bytes) -> None:
    events, decoder, err = run(sse_chunks(body))
    assert err is None
    encoded = to_sse(encode_stream(events, model=decoder.model or "unknown"))
    # Anthropic's SDK reads our bytes back to the same calls, ids, argument text and text
    original_raw = sdk_parse_sse(body)
    again_raw = sdk_parse_sse(encoded)
    assert sdk_calls(again_raw) == sdk_calls(original_raw)
    assert sdk_text(again_raw) == sdk_text(original_raw)
    # and our decoder gives back exactly the events it started from
    back, _, err2 = run(sse_chunks(encoded))
    assert err2 is None
    assert dump(back) == dump(events)


@pytest.mark.parametrize(
    "name",
    ["thinking_tool_use_signature", "web_search_server_tool", "parallel_four_tool_use"],
)
def test_sdk_accumulates_our_stream_to_the_same_message(name: str) -> None:
    (body, *_) = bodies(CASSETTES / f"{name}.yaml")
    events, _, _ = run(sse_chunks(body))
    final_in = sdk_accumulate_sse(body)
    final_out = sdk_accumulate_sse(to_sse(encode_stream(events, model=final_in.model)))
    assert final_out.id == final_in.id
    keep = ("type", "id", "name", "input", "text", "thinking", "signature", "tool_use_id", "data")
    shape_in = [{k: v for k, v in b.model_dump().items() if k in keep} for b in final_in.content]
    shape_out = [{k: v for k, v in b.model_dump().items() if k in keep} for b in final_out.content]
    assert shape_out == shape_in
    assert final_out.stop_reason == final_in.stop_reason


@pytest.mark.parametrize(("name", "body"), COMPLETE, ids=[n for n, _ in COMPLETE])
def test_a_framed_run_encodes_back_to_the_recorded_stop_reason(name: str, body: bytes) -> None:
    # frame_run puts the decoder's stop reason on RUN_FINISHED.metadata; the encoder must
    # send that one back (max_tokens, pause_turn, stop_sequence ...), not guess from the calls.
    decoder = Decoder()
    framed = list(frame_run(decoder, sse_chunks(body), thread_id="t", run_id="r"))
    assert isinstance(framed[-1], RunFinishedEvent)
    encoded = to_sse(encode_stream(framed, model=decoder.model or "m"))
    # read by the SDK's raw parser (its accumulator refuses the malformed-arguments cassette)
    (end_in,) = [e.delta for e in sdk_parse_sse(body) if e.type == "message_delta"]
    (end_out,) = [e.delta for e in sdk_parse_sse(encoded) if e.type == "message_delta"]
    assert (end_out.stop_reason, end_out.stop_sequence) == (
        end_in.stop_reason,
        end_in.stop_sequence,
    )


def test_a_stop_sequence_round_trips() -> None:
    stream = [
        {
            "type": "message_start",
            "message": {"id": "msg_s", "model": "m", "content": [], "usage": {"input_tokens": 3}},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "A"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "stop_sequence", "stop_sequence": "END"},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ]
    body = to_sse(stream)
    final_in = sdk_accumulate_sse(body)
    assert (final_in.stop_reason, final_in.stop_sequence) == ("stop_sequence", "END")
    framed = list(frame_run(Decoder(), sse_chunks(body), thread_id="t", run_id="r"))
    final_out = sdk_accumulate_sse(to_sse(encode_stream(framed, model="m")))
    assert (final_out.stop_reason, final_out.stop_sequence) == ("stop_sequence", "END")


def test_run_framing_carries_usage_and_errors() -> None:
    (body,) = bodies(CASSETTES / "thinking_tool_use_signature.yaml")
    events, decoder, _ = run(sse_chunks(body))
    framed = [
        RunStartedEvent(thread_id="t", run_id="r"),
        *events,
        RunFinishedEvent(thread_id="t", run_id="r", usage=decoder.usage),
    ]
    back, again, err = run(sse_chunks(to_sse(encode_stream(framed, model=decoder.model))))
    assert err is None
    assert dump(back) == dump(events)
    assert again.usage == decoder.usage
    failing = [
        RunStartedEvent(thread_id="t", run_id="r"),
        RunErrorEvent(message="Overloaded", code="overloaded_error"),
    ]
    raw = to_sse(encode_stream(failing))
    assert b"event: error\n" in raw
    with pytest.raises(anthropic.APIStatusError) as info:
        sdk_parse_sse(raw)
    assert info.value.body["error"]["type"] == "overloaded_error"


def test_chunk_events_are_expanded_before_encoding() -> None:
    chunks = list(
        encode_stream(
            [
                ToolCallChunkEvent(
                    tool_call_id="toolu_c",
                    tool_call_name="f",
                    parent_message_id="msg_c",
                    delta='{"a"',
                ),
                ToolCallChunkEvent(delta=": 1}"),
            ]
        )
    )
    back = list(decode_stream(chunks))
    assert calls(back) == [("toolu_c", "f", '{"a": 1}')]


def test_a_client_tool_result_is_a_reported_loss() -> None:
    events = [
        ToolCallChunkEvent(tool_call_id="toolu_x", tool_call_name="f", parent_message_id="m"),
        ToolCallResultEvent(message_id="r", tool_call_id="toolu_x", content="done"),
    ]
    enc = Encoder()
    with pytest.warns(ContentLossWarning, match="tool-result-dropped"):
        out = [c for e in events for c in enc.feed(e)] + enc.close()
    assert [lost.tool_call_id for lost in enc.losses] == ["toolu_x"]
    assert not any(c.get("content_block", {}).get("type") == "tool_result" for c in out)


def test_encoder_refuses_a_malformed_stream() -> None:
    from ag_ui.core import ToolCallArgsEvent

    with pytest.raises(ProtocolViolation) as info:
        list(encode_stream([ToolCallArgsEvent(tool_call_id="nope", delta="x")]))
    assert info.value.code == "tool-call-not-open"


def test_usage_maps_back_with_cache_taken_out_of_input() -> None:
    u = TokenUsage(
        provider="anthropic",
        input_tokens=1000,
        cached_input_tokens=600,
        cache_write_input_tokens=100,
        output_tokens=50,
    )
    chunks = list(
        encode_stream(
            [
                RunStartedEvent(thread_id="t", run_id="r"),
                RunFinishedEvent(thread_id="t", run_id="r", usage=[u]),
            ]
        )
    )
    delta = next(c for c in chunks if c["type"] == "message_delta")
    assert delta["usage"] == {
        "input_tokens": 300,
        "cache_creation_input_tokens": 100,
        "cache_read_input_tokens": 600,
        "output_tokens": 50,
    }
    d = Decoder()
    for c in chunks:
        d.feed(c)
    d.close()
    assert d.usage[0].input_tokens == 1000 and d.usage[0].cached_input_tokens == 600


# ---------------------------------------------------------------- bad input


START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}
TOOL = {
    "type": "content_block_start",
    "index": 0,
    "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
}


@pytest.mark.parametrize(
    ("chunks", "where"),
    [
        ([TOOL], "chunk 0"),  # content before message_start
        ([START, {"type": "content_block_start", "content_block": {"type": "text"}}], "index"),
        (
            [START, {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta"}}],
            "index",
        ),
        (
            [
                START,
                TOOL,
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": "x"},
                },
            ],
            "delta",
        ),
        (
            [
                START,
                TOOL,
                {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta"}},
            ],
            "partial_json",
        ),
        (
            [
                START,
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "tool_use", "name": "f"},
                },
            ],
            "content_block.id",
        ),
        ([{"type": "message_start", "message": {"type": "message"}}], "message.id"),
        ([START, {"type": "message_delta", "usage": {"output_tokens": -1}}], "output_tokens"),
        ([START, TOOL, {"type": "message_stop"}], "still open"),
        ([START, TOOL, TOOL], "already open"),
        ([5], "chunk 0"),
        ([{"index": 0}], "chunk 0: type"),
    ],
)
def test_malformed_chunks_name_the_chunk_and_field(chunks: list, where: str) -> None:
    with pytest.raises(VendorDataError) as info:
        d = Decoder()
        for c in chunks:
            d.feed(c)
    assert where in str(info.value)


def test_unknown_event_block_and_delta_types_are_skipped() -> None:
    chunks = [
        START,
        {"type": "future_event", "x": 1},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "hologram"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "hologram_delta"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "future_delta"}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ]
    events, _, err = run(chunks)
    assert err is None
    assert text(events) == "hi"
    assert [e.type.value for e in events] == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
    ]


def test_sse_without_event_lines_is_refused_clearly() -> None:
    body = b'data: {"type":"message_stop"}\n\n'
    with pytest.raises(VendorDataError, match="event:"):
        list(sse_chunks(body))


def test_error_event_with_text_data_still_raises_the_vendor_error() -> None:
    chunks = list(sse_chunks(b"event: error\ndata: upstream timed out\n\n"))
    _, _, err = run(chunks)
    assert isinstance(err, VendorStreamError)
    assert err.message == "upstream timed out"


def test_empty_stream_is_truncated() -> None:
    _, _, err = run([])
    assert isinstance(err, TruncatedStream)


def test_sdk_objects_and_dicts_give_the_same_events() -> None:
    (body, *_) = bodies(CASSETTES / "thinking_tool_use_signature.yaml")
    raw = sdk_parse_sse(body)
    from_objects = list(decode_stream(raw))
    from_dicts = list(decode_stream(sse_chunks(body)))
    assert dump(from_objects) == dump(from_dicts)


@pytest.mark.asyncio
async def test_adecode_stream_over_async_sdk_objects() -> None:
    from toolwire.adapters.anthropic import adecode_stream

    (body, *_) = bodies(CASSETTES / "parallel_four_tool_use.yaml")
    raw = sdk_parse_sse(body)

    async def source() -> Any:
        for ev in raw:
            yield ev

    got = [e async for e in adecode_stream(source())]
    assert dump(got) == dump(list(decode_stream(sse_chunks(body))))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


FUZZED = [
    "server_tools_mcp_code_execution",
    "web_search_server_tool",
    "thinking_tool_use_signature",
]


def _json_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (keys and list indexes), the value itself included."""
    out = [prefix]
    if isinstance(node, dict):
        for k in sorted(node):
            out += _json_paths(node[k], (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _json_paths(v, (*prefix, i))
    return out


@functools.cache
def _fuzz_chunk_text(name: str) -> str:
    # the cassette is parsed once, not once per example (YAML parsing was most of this test)
    (body, *_) = bodies(CASSETTES / f"{name}.yaml")
    return json.dumps(list(sse_chunks(body)))


def _fuzz_chunks(name: str) -> list[Any]:
    """A fresh copy each call: an example mangles it in place."""
    return json.loads(_fuzz_chunk_text(name))  # type: ignore[no-any-return]


FUZZ_PATHS = [(name, p) for name in FUZZED for p in _json_paths(_fuzz_chunks(name)) if p]


@settings(max_examples=9 * settings.default.max_examples, deadline=None)
@given(where=st.sampled_from(FUZZ_PATHS), value=JSON_VALUES)
def test_mangled_chunks_raise_only_toolwire_errors(where: tuple[str, Any], value: Any) -> None:
    """Any one place of any chunk (every depth equally likely, lists included) replaced by any
    JSON value: a result or a ToolwireError, never a bare KeyError/TypeError/AttributeError
    or a pydantic ValidationError."""
    name, path = where
    chunks = _fuzz_chunks(name)
    parent: Any = chunks
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = value
    try:
        d = Decoder()
        for c in chunks:
            d.feed(c)
        d.close()
    except ToolwireError:
        pass


def test_the_sdk_helper_stream_decodes_like_the_raw_one() -> None:
    import httpx2

    (body,) = bodies(CASSETTES / "thinking_tool_use_signature.yaml")

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = anthropic.Anthropic(
        api_key="sk-ant-test", http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )
    with client.messages.stream(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
    ) as s:
        from_helper = list(decode_stream(s))
    assert dump(from_helper) == dump(list(decode_stream(sse_chunks(body))))


def test_an_open_call_at_the_end_of_input_is_not_turned_into_success() -> None:
    (body,) = bodies(CASSETTES / "truncated_stream.yaml")
    events, _, err = run(sse_chunks(body))
    assert isinstance(err, TruncatedStream)
    chunks = list(encode_stream(events))
    assert chunks[-1]["type"] != "message_stop"
    again, _, err2 = run(chunks)
    assert isinstance(err2, TruncatedStream)
    assert dump(again) == dump(events)


def test_a_foreign_encrypted_value_is_not_sent_as_a_signature() -> None:
    from ag_ui.core import (
        ReasoningEncryptedValueEvent,
        ReasoningEndEvent,
        ReasoningMessageEndEvent,
        ReasoningMessageStartEvent,
        ReasoningStartEvent,
    )

    events = [
        ReasoningStartEvent(message_id="rs"),
        ReasoningMessageStartEvent(message_id="rs", role="reasoning"),
        ReasoningMessageEndEvent(message_id="rs"),
        ReasoningEncryptedValueEvent(
            subtype="message",
            entity_id="rs",
            encrypted_value="gAAAAB-openai",
            metadata={"toolwire.encryptedBy": "openai"},
        ),
        ReasoningEndEvent(message_id="rs"),
    ]
    enc = Encoder()
    with pytest.warns(ContentLossWarning, match="encrypted"):
        out = [c for e in events for c in enc.feed(e)] + enc.close()
    assert "gAAAAB" not in json.dumps(out)
    assert [lost.kind for lost in enc.losses] == ["encrypted-value-dropped"]


@pytest.mark.asyncio
async def test_adecode_stream_over_the_async_sdk_replaying_a_cassette() -> None:
    from _anthropic_sdk import request_bodies

    from toolwire.adapters.anthropic import adecode_stream
    from toolwire.testing import replay

    path = CASSETTES / "web_search_server_tool.yaml"
    (request,) = request_bodies(path)
    client = anthropic.AsyncAnthropic(api_key="sk-ant-test", max_retries=0)
    with replay(str(path), allow_playback_repeats=False):
        stream = await client.messages.create(**request)
        got = [e async for e in adecode_stream(stream)]
    (body,) = bodies(path)
    assert dump(got) == dump(list(decode_stream(sse_chunks(body))))


def _one_block_stream(block: Any) -> list[Any]:
    if isinstance(block, dict):
        start: Any = {"type": "content_block_start", "index": 0, "content_block": block}
    else:  # an SDK block: the whole event as the SDK's own object
        from anthropic.types import RawContentBlockStartEvent

        start = RawContentBlockStartEvent(type="content_block_start", index=0, content_block=block)
    return [
        START,
        start,
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]


def test_code_execution_text_editor_and_tool_search_results_as_parts() -> None:
    """Result blocks built with the SDK's own types, decoded to parts."""
    from anthropic.types import (
        CodeExecutionOutputBlock,
        CodeExecutionResultBlock,
        CodeExecutionToolResultBlock,
        TextEditorCodeExecutionToolResultBlock,
        TextEditorCodeExecutionViewResultBlock,
        ToolSearchToolResultBlock,
        ToolSearchToolSearchResultBlock,
    )
    from anthropic.types.tool_reference_block import ToolReferenceBlock

    code = CodeExecutionToolResultBlock(
        type="code_execution_tool_result",
        tool_use_id="srvtoolu_code",
        content=CodeExecutionResultBlock(
            type="code_execution_result",
            stdout="hello\n",
            stderr="warn\n",
            return_code=0,
            content=[CodeExecutionOutputBlock(type="code_execution_output", file_id="file_011out")],
        ),
    )
    view = TextEditorCodeExecutionToolResultBlock(
        type="text_editor_code_execution_tool_result",
        tool_use_id="srvtoolu_view",
        content=TextEditorCodeExecutionViewResultBlock(
            type="text_editor_code_execution_view_result",
            content="line 1\nline 2",
            file_type="text",
        ),
    )
    search = ToolSearchToolResultBlock(
        type="tool_search_tool_result",
        tool_use_id="srvtoolu_search",
        content=ToolSearchToolSearchResultBlock(
            type="tool_search_tool_search_result",
            tool_references=[ToolReferenceBlock(type="tool_reference", tool_name="get_rate")],
        ),
    )
    (r_code,) = [e for e in run(_one_block_stream(code))[0] if e.type.value == "TOOL_CALL_RESULT"]
    assert [p.text for p in r_code.content[:2]] == [code.content.stdout, code.content.stderr]
    assert r_code.content[2].source.value == code.content.content[0].file_id
    assert r_code.content[2].source.provider == "anthropic"
    assert r_code.metadata["anthropic.return_code"] == code.content.return_code
    (r_view,) = [e for e in run(_one_block_stream(view))[0] if e.type.value == "TOOL_CALL_RESULT"]
    assert r_view.content[0].text == view.content.content
    (r_search,) = [
        e for e in run(_one_block_stream(search))[0] if e.type.value == "TOOL_CALL_RESULT"
    ]
    assert [p.text for p in r_search.content] == ["get_rate"]
    # the same objects fed as SDK models give the same events
    for block in (code, view, search):
        from_dicts = run(_one_block_stream(block.model_dump(exclude_none=True)))[0]
        assert dump(from_dicts) == dump(run(_one_block_stream(block))[0])


def test_an_unknown_result_type_still_answers_its_call() -> None:
    block = {"type": "future_tool_result", "tool_use_id": "srvtoolu_f", "content": {"x": 1}}
    events, _, err = run(_one_block_stream(block))
    assert err is None
    (result,) = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert result.tool_call_id == "srvtoolu_f" and result.content == ""
    assert result.metadata["anthropic.block"] == block


@pytest.mark.parametrize(
    ("usage", "field"),
    [
        ({"input_tokens": 2**53}, "input_tokens"),
        ({"input_tokens": 2**52, "cache_read_input_tokens": 2**52}, "input_tokens"),
        ({"input_tokens": 1, "output_tokens": 2**53 - 1}, "total"),
    ],
)
def test_token_counts_past_what_usage_can_hold_are_a_vendor_data_error(
    usage: dict[str, int], field: str
) -> None:
    # TokenUsage counts are JSON-safe integers (at most 2**53 - 1): a count, or a sum of counts,
    # beyond that is bad vendor data, reported as such rather than as a pydantic error
    start = {"type": "message_start", "message": {"id": "m", "content": [], "usage": usage}}
    with pytest.raises(VendorDataError, match=field):
        list(decode_stream([start]))


@pytest.mark.parametrize("text", ["plain", "é clean", "cut \ud83d", "\udc00 alone"])
def test_an_sdk_delta_s_text_is_checked_on_the_fast_path(text: str) -> None:
    # SDK deltas are read without a full dump: the text is still checked, a lone surrogate
    # in it repaired with a warning, a clean one passed as it is
    from anthropic.types import RawContentBlockDeltaEvent

    from toolwire.adapters.anthropic.decoder import _delta_dict, _delta_fields
    from toolwire.protocol.jsontext import CheckedObject

    start = [
        {
            "type": "message_start",
            "message": {
                "id": "m",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "c",
                "usage": {"input_tokens": 1, "output_tokens": 0},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    delta = RawContentBlockDeltaEvent.model_validate(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}
    )
    d = Decoder()
    for chunk in start:
        d.feed(chunk)
    lone = any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        events = d.feed(delta)
    (content,) = [e for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT]
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    assert content.delta == expected
    assert any("surrogate" in str(w.message) for w in seen) == lone
    # the fast paths were the ones taken, and they vouch only for a clean text and an int
    # index: the SDK builds its stream events unvalidated
    assert (_delta_fields(delta) is None) == lone
    assert isinstance(_delta_dict(delta), CheckedObject) is not lone
    forged = RawContentBlockDeltaEvent.construct(
        type="content_block_delta", index="\ud800", delta=delta.delta
    )
    assert not isinstance(_delta_dict(forged), CheckedObject)
    taken: list[Any] = []
    rule = d._content_delta
    d._content_delta = lambda *given: taken.append(given) or rule(*given)  # type: ignore[method-assign]
    # the general path repairs the index's surrogate (a warning), then names what is wrong
    with pytest.warns(ContentLossWarning, match="surrogate"), pytest.raises(VendorDataError):
        d.feed(forged)
    assert taken == []  # an index that is not an int never reaches the rule
