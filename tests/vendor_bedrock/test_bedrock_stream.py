"""ConverseStream bytes -> AG-UI and back, checked with botocore's own event-stream parser."""

from __future__ import annotations

import contextlib
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from _bedrock_sdk import CASSETTES, sdk_events
from ag_ui.core import EventType, RunFinishedEvent, RunStartedEvent, TokenUsage
from botocore.eventstream import ChecksumMismatch, EventStreamError
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters.bedrock import (
    FRAMING,
    Decoder,
    Encoder,
    decode_response,
    decode_stream,
    encode_stream,
    sse_chunks,
    to_sse,
)
from toolwire.errors import ToolwireError, TruncatedStream, VendorDataError, VendorStreamError
from toolwire.losses import ContentLossWarning
from toolwire.protocol.runs import frame_run
from toolwire.recordings import load_recording


def exchanges(path: Path) -> list[Any]:
    return load_recording(path.read_bytes(), path.name)


BROKEN = {"truncated_stream", "no_message_stop", "throttling_exception"}
STREAMS = [
    (p.stem, i, ex.response_body)
    for p in sorted(CASSETTES.glob("*.yaml"))
    for i, ex in enumerate(exchanges(p))
    if "eventstream" in ex.content_type and p.stem not in BROKEN
]


def plain(events: list[Any]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def calls(events: list[Any]) -> list[tuple[str, str, str]]:
    """(id, name, argument text) of every call, argument pieces joined."""
    out: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for e in events:
        if e.type == EventType.TOOL_CALL_START:
            names[e.tool_call_id] = e.tool_call_name
            out[e.tool_call_id] = []
        elif e.type == EventType.TOOL_CALL_ARGS:
            out[e.tool_call_id].append(e.delta)
    return [(i, names[i], "".join(a)) for i, a in out.items()]


def sdk_calls(events: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """The same, read from botocore's event dicts alone (no toolwire)."""
    out: dict[int, list[Any]] = {}
    for ev in events:
        if "contentBlockStart" in ev and "toolUse" in ev["contentBlockStart"]["start"]:
            use = ev["contentBlockStart"]["start"]["toolUse"]
            out[ev["contentBlockStart"]["contentBlockIndex"]] = [use["toolUseId"], use["name"], ""]
        elif "contentBlockDelta" in ev and "toolUse" in ev["contentBlockDelta"]["delta"]:
            out[ev["contentBlockDelta"]["contentBlockIndex"]][2] += ev["contentBlockDelta"][
                "delta"
            ]["toolUse"]["input"]
    return [tuple(v) for v in out.values()]  # type: ignore[misc]


def sdk_text(events: list[dict[str, Any]]) -> str:
    return "".join(
        ev["contentBlockDelta"]["delta"].get("text", "")
        for ev in events
        if "contentBlockDelta" in ev
    )


def text(events: list[Any]) -> str:
    return "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)


@pytest.mark.parametrize(("name", "n", "body"), STREAMS, ids=[f"{s[0]}-{s[1]}" for s in STREAMS])
def test_cassette_bytes_decode_as_botocore_reads_them(name: str, n: int, body: bytes) -> None:
    theirs = sdk_events(body, size=13)
    ours = list(sse_chunks(body))
    assert len(ours) == len(theirs)
    events = list(decode_stream(ours))
    # the SDK's dicts (padding dropped, blobs as bytes) give the very same events
    assert plain(list(decode_stream(theirs))) == plain(events)
    assert calls(events) == sdk_calls(theirs)
    assert text(events) == sdk_text(theirs)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_split_of_the_bytes_gives_the_same_events(data: st.DataObject) -> None:
    name, _, body = data.draw(st.sampled_from(STREAMS))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=20)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert plain(list(decode_stream(sse_chunks(pieces)))) == plain(
        list(decode_stream(sse_chunks(body)))
    ), name


def test_the_push_reader_gives_what_the_whole_body_gives() -> None:
    for _, _, body in STREAMS:
        reader = FRAMING.reader()
        chunks = []
        for i in range(0, len(body), 5):
            chunks += reader.feed(body[i : i + 5])
        chunks += reader.close()
        assert chunks == list(FRAMING.read(body))


def test_parallel_calls_keep_their_ids_names_and_argument_text() -> None:
    (first, _) = exchanges(CASSETTES / "parallel_three_tool_use.yaml")
    events = list(decode_stream(sse_chunks(first.response_body)))
    assert calls(events) == [
        ("tooluse_Paris01", "get_weather", '{"city": "Paris"}'),
        ("tooluse_Oslo02", "get_weather", '{"city": "Oslo"}'),
        ("tooluse_Lima03", "get_weather", '{"ci' + 'ty": "Lima"}'),
    ]
    starts = [e for e in events if e.type == EventType.TOOL_CALL_START]
    assert len({e.parent_message_id for e in starts}) == 1 and starts[0].parent_message_id


def test_interleaved_blocks_stay_apart_and_end_where_converse_ends_them() -> None:
    (ex,) = exchanges(CASSETTES / "interleaved_tool_use.yaml")
    events = list(decode_stream(sse_chunks(ex.response_body)))
    assert calls(events) == [
        ("tooluse_a", "search_docs", '{"q": "leave"}'),
        ("tooluse_b", "search_docs", '{"q": "pay"}'),
    ]
    ends = [e.tool_call_id for e in events if e.type == EventType.TOOL_CALL_END]
    assert ends == ["tooluse_b", "tooluse_a"]


def test_malformed_and_empty_arguments_pass_through_as_they_came() -> None:
    (ex,) = exchanges(CASSETTES / "malformed_empty_arguments.yaml")
    events = list(decode_stream(sse_chunks(ex.response_body)))
    assert calls(events) == [
        ("tooluse_empty", "search_docs", ""),
        ("tooluse_bad", "get_weather", '{"city": "Par'),
    ]


def test_reasoning_and_its_signature_and_redacted_content_survive() -> None:
    (first, _) = exchanges(CASSETTES / "reasoning_tool_use_signature.yaml")
    theirs = sdk_events(first.response_body)
    events = list(decode_stream(sse_chunks(first.response_body)))
    values = [e for e in events if e.type == EventType.REASONING_ENCRYPTED_VALUE]
    assert [v.encrypted_value for v in values] == [
        "EqoBCkgIARABGAIiQL8mYm9ndXMtc2lnbmF0dXJlLWZvci10ZXN0cw==",
        # botocore hands the redacted blob over as bytes; toolwire keeps its base64
        __import__("base64")
        .b64encode(
            next(
                ev["contentBlockDelta"]["delta"]["reasoningContent"]["redactedContent"]
                for ev in theirs
                if "redactedContent"
                in ev.get("contentBlockDelta", {}).get("delta", {}).get("reasoningContent", {})
            )
        )
        .decode(),
    ]
    thought = "".join(e.delta for e in events if e.type == EventType.REASONING_MESSAGE_CONTENT)
    assert thought == "The user wants Rome. I should call get_weather."


def test_usage_counts_the_cache_inside_the_input() -> None:
    (first, _) = exchanges(CASSETTES / "reasoning_tool_use_signature.yaml")
    decoder = Decoder()
    list(decoder.events(sse_chunks(first.response_body)))
    assert decoder.usage == [
        TokenUsage(
            provider="bedrock",
            input_tokens=220 + 180,
            cached_input_tokens=0,  # stated by the stream: a zero it sent, not one made up
            cache_write_input_tokens=180,
            output_tokens=140,
            total_tokens=220 + 180 + 140,
        )
    ]
    assert decoder.run_metadata["bedrock.stop_reason"] == "tool_use"
    assert decoder.run_metadata["toolwire.finishReason"] == "tool_calls"


def test_a_stream_cut_inside_a_frame_is_truncated() -> None:
    (ex,) = exchanges(CASSETTES / "truncated_stream.yaml")
    with pytest.raises(TruncatedStream, match="inside event-stream frame"):
        list(decode_stream(sse_chunks(ex.response_body)))


def test_whole_frames_without_message_stop_are_truncated_never_success() -> None:
    (ex,) = exchanges(CASSETTES / "no_message_stop.yaml")
    assert sdk_events(ex.response_body)  # botocore reads the frames: they are whole
    with pytest.raises(TruncatedStream, match="no messageStop"):
        list(decode_stream(sse_chunks(ex.response_body)))
    run = list(frame_run(Decoder(), sse_chunks(ex.response_body), thread_id="t", run_id="r"))
    assert run[-1].type == EventType.RUN_ERROR


def test_an_exception_frame_is_a_vendor_error_with_its_type_retryable() -> None:
    (ex,) = exchanges(CASSETTES / "throttling_exception.yaml")
    with pytest.raises(EventStreamError, match="throttlingException"):
        sdk_events(ex.response_body)
    with pytest.raises(VendorStreamError) as info:
        list(decode_stream(sse_chunks(ex.response_body)))
    assert info.value.error_type == "throttlingException"
    assert info.value.retryable
    assert "Too many tokens" in info.value.message


def test_a_validation_exception_is_not_retryable() -> None:
    body = to_sse(
        [{"messageStart": {"role": "assistant"}}, {"validationException": {"message": "bad"}}]
    )
    with pytest.raises(VendorStreamError) as info:
        list(decode_stream(sse_chunks(body)))
    assert info.value.error_type == "validationException" and not info.value.retryable


def test_a_corrupted_byte_is_never_success() -> None:
    for _, _, body in STREAMS[:3]:
        bad = bytearray(body)
        bad[len(bad) // 2] ^= 0x40
        with pytest.raises(ChecksumMismatch):
            sdk_events(bytes(bad))
        with pytest.raises(ToolwireError):
            list(decode_stream(sse_chunks(bytes(bad))))


def test_text_is_refused_the_event_stream_is_binary() -> None:
    with pytest.raises(VendorDataError, match="binary"):
        list(sse_chunks("not bytes"))


@pytest.mark.parametrize(
    ("chunks", "match"),
    [
        (
            [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}}],
            "before messageStart",
        ),
        (
            [
                {"messageStart": {"role": "assistant"}},
                {
                    "contentBlockDelta": {
                        "contentBlockIndex": 0,
                        "delta": {"toolUse": {"input": "{}"}},
                    }
                },
            ],
            "no contentBlockStart opened",
        ),
        (
            [
                {"messageStart": {"role": "assistant"}},
                {"contentBlockDelta": {"contentBlockIndex": -1, "delta": {"text": "x"}}},
            ],
            "not a block index",
        ),
        (
            [
                {"messageStart": {"role": "assistant"}},
                {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}},
                {"messageStop": {"stopReason": "end_turn"}},
            ],
            "still open",
        ),
        (
            [
                {"messageStart": {"role": "assistant"}},
                {
                    "contentBlockStart": {
                        "contentBlockIndex": 0,
                        "start": {"toolUse": {"name": "f"}},
                    }
                },
            ],
            "toolUseId",
        ),
        ([{"messageStart": {}, "messageStop": {}}], "one \\{eventType: payload\\} member"),
        (
            [
                {"messageStart": {"role": "assistant"}},
                {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": 5}}},
            ],
            "text",
        ),
    ],
)
def test_malformed_chunks_name_the_chunk_and_field(chunks: list[Any], match: str) -> None:
    with pytest.raises(VendorDataError, match=match) as info:
        list(decode_stream(chunks))
    assert "chunk" in str(info.value)


def test_an_unknown_event_type_is_skipped_and_announced() -> None:
    chunks = [
        {"messageStart": {"role": "assistant"}},
        {"someFutureEvent": {"x": 1}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "hi"}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]
    with pytest.warns(ContentLossWarning, match="'someFutureEvent' event has no AG-UI event"):
        assert text(list(decode_stream(chunks))) == "hi"


def test_material_after_the_end_is_a_loss_not_an_error() -> None:
    chunks = [
        {"messageStart": {"role": "assistant"}},
        {"messageStop": {"stopReason": "end_turn"}},
        {
            "metadata": {
                "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                "metrics": {"latencyMs": 1},
            }
        },
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "late"}}},
    ]
    decoder = Decoder()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        events = list(decoder.events(chunks))
    assert text(events) == ""
    assert [loss.kind for loss in decoder.losses] == ["material-after-end"]


def test_a_whole_converse_response_decodes_as_its_stream_would() -> None:
    (ex,) = exchanges(CASSETTES / "non_streamed_tool_use.yaml")
    response = json.loads(ex.response_body)
    events = decode_response(response)
    assert calls(events) == [("tooluse_whole", "get_weather", '{"city":"Paris"}')]
    assert text(events) == "Checking."
    stream = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Checking."}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 1,
                "start": {"toolUse": {"toolUseId": "tooluse_whole", "name": "get_weather"}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 1,
                "delta": {"toolUse": {"input": '{"city":"Paris"}'}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    assert plain(events) == plain(list(decode_stream(stream)))


# ---------------------------------------------------------------- encode


def framed(events: list[Any]) -> list[Any]:
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        *events,
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


@pytest.mark.parametrize(("name", "n", "body"), STREAMS, ids=[f"{s[0]}-{s[1]}" for s in STREAMS])
def test_encoded_bytes_botocore_parses_back_to_the_same_calls(
    name: str, n: int, body: bytes
) -> None:
    events = list(decode_stream(sse_chunks(body)))
    chunks = list(encode_stream(events))
    data = to_sse(chunks)
    theirs = sdk_events(data, size=11)  # botocore's parser: every frame and CRC valid
    assert sdk_calls(theirs) == calls(events)
    assert sdk_text(theirs) == text(events)
    assert plain(list(decode_stream(sse_chunks(data)))) == plain(events)
    assert plain(list(decode_stream(theirs))) == plain(events)


def test_a_run_encodes_with_its_stop_reason_and_usage() -> None:
    (first, _) = exchanges(CASSETTES / "parallel_three_tool_use.yaml")
    run = list(frame_run(Decoder(), sse_chunks(first.response_body), thread_id="t", run_id="r"))
    data = to_sse(encode_stream(run))
    theirs = sdk_events(data)
    assert theirs[-2] == {"messageStop": {"stopReason": "tool_use"}}
    assert theirs[-1]["metadata"]["usage"] == {
        "inputTokens": 412,
        "outputTokens": 96,
        "totalTokens": 508,
        "cacheReadInputTokens": 0,
        "cacheWriteInputTokens": 0,
    }


def test_a_run_error_encodes_as_an_exception_frame_botocore_raises() -> None:
    (ex,) = exchanges(CASSETTES / "throttling_exception.yaml")
    run = list(frame_run(Decoder(), sse_chunks(ex.response_body), thread_id="t", run_id="r"))
    assert run[-1].type == EventType.RUN_ERROR
    data = to_sse(encode_stream(run))
    with pytest.raises(EventStreamError, match="throttlingException"):
        sdk_events(data)


def test_a_foreign_call_id_is_mapped_to_converses_rule() -> None:
    from ag_ui.core import ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent

    long_id = "call_" + "x" * 80 + ".v1:2"
    events = framed(
        [
            ToolCallStartEvent(tool_call_id=long_id, tool_call_name="f", parent_message_id="m"),
            ToolCallArgsEvent(tool_call_id=long_id, delta="{}"),
            ToolCallEndEvent(tool_call_id=long_id),
        ]
    )
    encoder = Encoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = [c for e in events for c in encoder.feed(e)] + encoder.close()
    (tid,) = [u for _, u, _ in sdk_calls(sdk_events(to_sse(chunks)))][:0] or [
        c["contentBlockStart"]["start"]["toolUse"]["toolUseId"]
        for c in chunks
        if "contentBlockStart" in c
    ]
    import re

    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tid)
    assert encoder.losses  # the mapping is said


def test_an_open_call_at_the_end_of_a_framed_run_is_never_encoded_as_success() -> None:
    from ag_ui.core import ToolCallStartEvent

    encoder = Encoder()
    encoder.feed(RunStartedEvent(thread_id="t", run_id="r"))
    encoder.feed(ToolCallStartEvent(tool_call_id="c", tool_call_name="f", parent_message_id="m"))
    with pytest.raises(ToolwireError):
        encoder.close()


# ---------------------------------------------------------------- the binary framing's own
# forms of the text-level hostile tests (tests/hostile covers the text framings)


def test_deep_json_in_a_frame_payload_is_a_vendor_data_error() -> None:
    from toolwire.protocol.eventstream import write_frame

    deep = ("[" * 500 + "]" * 500).encode()
    data = write_frame({":event-type": "messageStart", ":message-type": "event"}, deep)
    with pytest.raises(VendorDataError, match="nested deeper"):
        list(sse_chunks(data))


def test_invalid_utf8_in_a_frame_payload_names_the_frame() -> None:
    from toolwire.protocol.eventstream import write_frame

    data = write_frame({":event-type": "messageStart"}, b'{"role": "\xff"}')
    with pytest.raises(VendorDataError, match="frame 0"):
        list(sse_chunks(data))


def test_a_surrogate_in_a_caller_built_event_is_written_as_its_escape() -> None:
    from ag_ui.core import TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent

    run = framed(
        [
            TextMessageStartEvent(message_id="m", role="assistant"),
            TextMessageContentEvent(message_id="m", delta="half \ud83d"),
            TextMessageEndEvent(message_id="m"),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = to_sse(encode_stream(run))
    assert b"half \\ud83d" in data  # valid UTF-8 in the payload, the escape reads back
    theirs = sdk_events(data)
    assert "half" in sdk_text(theirs)


# ---------------------------------------------------------------- the delta fast path


def _outcome(chunks: list[Any], fast: bool) -> tuple[Any, ...]:
    """Every event as JSON and every warning, or the error and how far the events got;
    ``fast=False``: no chunk's delta fields read (every chunk through the general handler)."""
    from unittest import mock

    from toolwire.adapters.bedrock import decoder as decoder_module

    general = mock.patch.object(decoder_module, "_delta_fields", lambda chunk: None)
    with contextlib.nullcontext() if fast else general:
        decoder = Decoder()
        got: list[str] = []
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                for chunk in chunks:
                    got += [e.model_dump_json() for e in decoder.feed(chunk)]
                got += [e.model_dump_json() for e in decoder.close()]
            except ToolwireError as exc:
                return ("error", type(exc).__name__, str(exc), got)
        return ("events", got, [str(w.message) for w in seen], decoder.chunk_index)


@pytest.mark.parametrize(("name", "n", "body"), STREAMS, ids=[f"{s[0]}-{s[1]}" for s in STREAMS])
def test_the_delta_fast_path_gives_what_the_general_path_gives(
    name: str, n: int, body: bytes
) -> None:
    theirs = sdk_events(body)
    assert _outcome(theirs, True) == _outcome(theirs, False)


def _opened(delta: dict[str, Any], start: dict[str, Any] | None = None) -> list[Any]:
    head: list[Any] = [{"messageStart": {"role": "assistant"}}]
    if start is not None:
        head.append({"contentBlockStart": {"contentBlockIndex": 0, "start": start}})
    else:
        head.append({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": ""}}})
    return [*head, {"contentBlockDelta": {"contentBlockIndex": 0, "delta": delta}}]


DEEP: Any = {}
for _ in range(300):
    DEEP = {"a": DEEP}
TOOL = {"toolUse": {"toolUseId": "t1", "name": "f"}}
HOSTILE = {
    "a surrogate": _opened({"text": "half \ud83d"}),
    "an int text": _opened({"text": 5}),
    "a bool index": [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": True, "delta": {"text": "x"}}},
    ],
    "tool input into a text block": _opened({"toolUse": {"input": "{}"}}),
    "text into a tool block": _opened({"text": "x"}, TOOL),
    "an extra nested member": [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}, "p": DEEP}},
    ],
    "a deep tool input": _opened({"toolUse": {"input": DEEP}}, TOOL),
    "two delta members": _opened({"text": "x", "citation": {}}),
    "tool input with more members": _opened({"toolUse": {"input": "{}", "x": DEEP}}, TOOL),
    "after messageStop": [
        *_opened({"text": "x"})[:2],
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "late"}}},
    ],
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_deltas_take_the_general_path_or_give_its_events(case: str) -> None:
    chunks = HOSTILE[case]
    assert _outcome(chunks, True) == _outcome(chunks, False)
