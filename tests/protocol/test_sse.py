"""The incremental SSE parser: any split of the bytes gives the same events."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.protocol.sse import SSEEvent, SSEParser, encode_agui_sse, parse_sse

STREAMS = Path(__file__).resolve().parents[3] / "shared" / "reference" / "streams"

SAMPLE = (
    b": a comment\r\n"
    b"event: message_start\r\n"
    b'data: {"a":1}\r\n'
    b"\r\n"
    b"data: line one\n"
    b"data: line two\n"
    b"id: 7\n"
    b"\n"
    b"data: caf\xc3\xa9\r"
    b"\r"
    b"retry: 10\n"
    b"data:no-space\n\n"
)
EXPECTED = [
    SSEEvent('{"a":1}', "message_start"),
    SSEEvent("line one\nline two", None, "7"),
    SSEEvent("café", None, "7"),  # the last event id persists (the SSE standard)
    SSEEvent("no-space", None, "7"),
]


def test_parses_lf_crlf_cr_comments_event_and_multiline_data() -> None:
    assert parse_sse(SAMPLE) == EXPECTED


def test_an_event_not_ended_by_a_blank_line_is_dropped_unless_flushed() -> None:
    assert parse_sse(b"data: 1\n\ndata: 2\n") == [SSEEvent("1")]
    assert parse_sse(b"data: 1\n\ndata: 2\n", flush_incomplete=True) == [
        SSEEvent("1"),
        SSEEvent("2"),
    ]


@settings(max_examples=2 * settings.default.max_examples)
@given(st.lists(st.integers(min_value=0, max_value=len(SAMPLE)), max_size=12))
def test_any_split_of_the_bytes_gives_the_same_events(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    pieces = [SAMPLE[a:b] for a, b in zip([0, *points], [*points, len(SAMPLE)], strict=True)]
    parser = SSEParser()
    got = [e for piece in pieces for e in parser.feed(piece)] + parser.close()
    assert got == EXPECTED


def test_agui_sse_framing_uses_lf_and_one_event_per_data_line() -> None:
    from ag_ui.core import ToolCallStartEvent

    body = encode_agui_sse([ToolCallStartEvent(tool_call_id="c1", tool_call_name="f")])
    assert body == b'data: {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}\n\n'
    assert b"\r" not in body


def test_sse_json_objects_stops_at_done_and_names_bad_events() -> None:
    import pytest

    from toolwire.errors import VendorDataError
    from toolwire.protocol.sse import sse_json_objects

    body = b'data: {"a":1}\n\nevent: x\ndata: {"b":2}\n\ndata: [DONE]\n\ndata: {"c":3}\n\n'
    from toolwire.losses import ContentLossWarning

    with pytest.warns(ContentLossWarning, match=r"1 SSE event\(s\) after \[DONE\]"):
        got = [(ev.event, obj) for ev, obj in sse_json_objects(body, "v", stop_at="[DONE]")]
    assert got == [(None, {"a": 1}), ("x", {"b": 2})]
    with pytest.raises(VendorDataError, match="SSE event 1: data"):
        list(sse_json_objects(b"data: {}\n\ndata: [1]\n\n", "v"))
    with pytest.raises(VendorDataError, match="not JSON"):
        list(sse_json_objects(b"data: {oops\n\n", "v"))
