"""protocol.ndjson: NDJSON read push-style (split anywhere, ``\\n`` only, bounded, truncation
told) and written so a Python-style line splitter reads it back whole."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import LimitExceeded, TruncatedStream, VendorDataError
from toolwire.protocol.limits import configure
from toolwire.protocol.ndjson import NDJSONReader, frame_ndjson, ndjson_framing, ndjson_objects

OBJECTS = [
    {"n": 1, "text": "plain"},
    {"n": 2, "text": "line\u2028separator, paragraph\u2029separator, next line\x85here"},
    {"n": 3, "text": "é ✓ 🦜", "nested": {"a": [1, 2, {"b": None}]}},
    {"n": 4, "done": True},
]
BODY = b"".join(
    json.dumps(o, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for o in OBJECTS
)


def _done(obj: dict[str, object]) -> bool:
    return obj.get("done") is True


def test_a_whole_body_reads_as_its_lines() -> None:
    assert list(ndjson_objects(BODY, "v")) == OBJECTS


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(BODY)), max_size=12))
def test_any_split_of_the_bytes_gives_the_same_objects(cuts: list[int]) -> None:
    at = sorted(set(cuts))
    pieces = [BODY[a:b] for a, b in zip([0, *at], [*at, len(BODY)], strict=True)]
    assert list(ndjson_objects(pieces, "v")) == OBJECTS


def test_unicode_line_breaks_inside_strings_never_end_a_line() -> None:
    # what str.splitlines (and httpx's iter_lines) would split at
    text = BODY.decode()
    assert len(text.splitlines()) > len(OBJECTS)
    assert [o["text"] for o in ndjson_objects(text, "v") if "text" in o] == [
        o["text"] for o in OBJECTS if "text" in o
    ]


def test_crlf_blank_lines_and_a_last_line_without_its_newline() -> None:
    body = b'{"a":1}\r\n\r\n  \n{"b":2}'
    assert list(ndjson_objects(body, "v")) == [{"a": 1}, {"b": 2}]


def test_the_terminal_object_sets_done_and_later_lines_still_come() -> None:
    reader = NDJSONReader("v", _done)
    assert reader.feed(BODY[:-1]) == OBJECTS[:-1] and not reader.done  # its \n not yet come
    assert reader.feed(b'\n{"late":true}\n') == [OBJECTS[-1], {"late": True}]
    assert reader.done
    assert reader.close() == []


def test_a_body_cut_inside_a_line_is_truncated() -> None:
    reader = NDJSONReader("v", _done)
    reader.feed(b'{"a":1}\n{"b":')
    assert reader.pending
    with pytest.raises(TruncatedStream, match="inside line 2"):
        reader.close()


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"a":1}\n[1,2]\n', "line 2: expected a JSON object, got list"),
        (b'{"a":1}\nnot json\n', "line 2: not JSON"),
        (b'{"a":"\xff"}\n', "line 1"),
    ],
)
def test_a_bad_line_is_named(body: bytes, words: str) -> None:
    with pytest.raises(VendorDataError, match=words):
        list(ndjson_objects(body, "v"))


def test_a_line_past_the_cap_is_refused_before_it_ends() -> None:
    previous = configure(max_event_chars=1000)
    try:
        reader = NDJSONReader("v")
        with pytest.raises(LimitExceeded, match="max_event_chars"):
            for _ in range(100):
                reader.feed(b"x" * 50)  # never a newline: held, and counted
    finally:
        configure(max_event_chars=previous.max_event_chars)


def test_one_long_line_in_one_byte_pieces_is_read_in_linear_time() -> None:
    def fed(n: int) -> float:
        body = json.dumps({"t": "x" * n}).encode() + b"\n"
        reader = NDJSONReader("v")
        start = time.perf_counter()
        for i in range(len(body)):
            reader.feed(body[i : i + 1])
        assert reader.close() == [] and not reader.pending
        return time.perf_counter() - start

    small, large = fed(20_000), fed(160_000)
    assert large < small * 8 * 4  # 8x the bytes: far from the 64x a quadratic join costs


def test_written_lines_survive_a_splitlines_reader() -> None:
    written = frame_ndjson(OBJECTS, "v")
    assert written.endswith(b"\n") and written.count(b"\n") == len(OBJECTS)
    # httpx's own line decoder, the one the vendor SDKs read NDJSON with
    decoder = httpx._decoders.LineDecoder()
    lines = decoder.decode(written.decode()) + decoder.flush()
    assert [json.loads(line) for line in lines] == OBJECTS
    assert list(ndjson_objects(written, "v")) == OBJECTS


@pytest.mark.parametrize(
    ("chunk", "words"),
    [
        ({"a": object()}, "payload 0: cannot be written as JSON"),
        (["not", "an", "object"], "payload 0: expected a JSON object"),
    ],
)
def test_what_json_cannot_hold_is_named(chunk: object, words: str) -> None:
    with pytest.raises(VendorDataError, match=words):
        frame_ndjson([chunk], "v")


def test_the_framing_object_reads_and_writes() -> None:
    framing = ndjson_framing("v", terminal=_done)
    assert framing.name == "ndjson" and "ndjson" in framing.media_type
    reader = framing.reader()
    got = reader.feed(framing.write(OBJECTS))
    assert got == OBJECTS and reader.done
    assert list(framing.read([framing.write(OBJECTS[:2]), framing.write(OBJECTS[2:])])) == OBJECTS
