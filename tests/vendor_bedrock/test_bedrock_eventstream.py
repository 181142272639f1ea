"""The shared AWS event-stream frame reader and writer (``toolwire.protocol.eventstream``),
checked against botocore's own frame parser and against frames built by hand."""

from __future__ import annotations

import itertools
import struct
import uuid
import zlib
from dataclasses import asdict

import pytest
from botocore.eventstream import EventStreamBuffer
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import LimitExceeded, TruncatedStream, VendorDataError
from toolwire.protocol.eventstream import FrameReader, read_frames, write_frame
from toolwire.protocol.limits import configure


def hand_frame(headers: bytes, payload: bytes) -> bytes:
    """A frame built from the documented layout, with headers already encoded."""
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + headers + payload
    return body + struct.pack(">I", zlib.crc32(body))


def string_header(name: str, value: str) -> bytes:
    raw = value.encode()
    return bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(raw)) + raw


def botocore_frames(data: bytes) -> list[tuple[dict[str, object], bytes]]:
    buf = EventStreamBuffer()
    buf.add_data(data)
    return [(dict(m.headers), m.payload) for m in buf]


def test_a_hand_built_frame_reads_to_its_headers_and_payload() -> None:
    data = hand_frame(string_header(":event-type", "messageStart"), b'{"role":"assistant"}')
    (frame,) = list(read_frames([data]))
    assert frame.headers == {":event-type": "messageStart"}
    assert frame.payload == b'{"role":"assistant"}'


def test_every_header_type_written_reads_back_in_botocore_and_here() -> None:
    ident = uuid.UUID("12345678-1234-5678-1234-567812345678")
    headers = {
        "t": True,
        "f": False,
        "i": 7,
        "big": 1 << 40,
        "neg": -5,
        "b": b"\x00\x01\xff",
        "s": "héllo",
        "u": ident,
    }
    data = write_frame(headers, b"payload")
    ((theirs, payload),) = botocore_frames(data)
    assert payload == b"payload"
    assert theirs == {**headers, "u": ident.bytes}  # botocore keeps a UUID as its 16 bytes
    (frame,) = list(read_frames([data]))
    assert frame.headers == headers and frame.payload == b"payload"


def test_botocore_frames_read_here_split_anywhere() -> None:
    frames = [
        write_frame({":event-type": f"e{i}", ":message-type": "event"}, bytes([i]) * i)
        for i in range(20)
    ]
    data = b"".join(frames)
    expected = botocore_frames(data)
    for size in (1, 3, 16, 1000):
        reader = FrameReader()
        got = []
        for i in range(0, len(data), size):
            got += reader.feed(data[i : i + size])
        got += reader.close()
        assert [(f.headers, f.payload) for f in got] == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_any_split_gives_the_same_frames(cuts: list[int]) -> None:
    data = b"".join(write_frame({":event-type": "x"}, b"y" * n) for n in (0, 5, 300))
    points = sorted({min(c, len(data)) for c in cuts})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    assert [f.payload for f in read_frames(pieces)] == [b"", b"y" * 5, b"y" * 300]


def test_a_bad_prelude_crc_is_an_error_naming_the_frame() -> None:
    good = write_frame({":event-type": "a"}, b"{}")
    bad = bytearray(good * 2)
    bad[len(good) + 9] ^= 0x01  # the second frame's prelude CRC
    with pytest.raises(VendorDataError, match="frame 1: prelude CRC32"):
        list(read_frames([bytes(bad)], "bedrock"))


def test_a_bad_message_crc_is_an_error() -> None:
    bad = bytearray(write_frame({":event-type": "a"}, b'{"x":1}'))
    bad[-6] ^= 0x20  # a payload byte: the message CRC no longer holds
    with pytest.raises(VendorDataError, match="message CRC32 does not match"):
        list(read_frames([bytes(bad)]))


@pytest.mark.parametrize("cut", [1, 11, 12, 20, -1])
def test_a_stream_that_ends_inside_a_frame_is_truncated_never_success(cut: int) -> None:
    data = write_frame({":event-type": "a"}, b"0123456789")
    with pytest.raises(TruncatedStream, match="inside event-stream frame 1"):
        list(read_frames([write_frame({":event-type": "a"}, b""), data[:cut]]))


def test_impossible_lengths_are_refused_before_any_wait() -> None:
    prelude = struct.pack(">II", 10, 0)
    data = prelude + struct.pack(">I", zlib.crc32(prelude))
    with pytest.raises(VendorDataError, match="impossible lengths"):
        FrameReader().feed(data)
    prelude = struct.pack(">II", 100, 90)
    with pytest.raises(VendorDataError, match="impossible lengths"):
        FrameReader().feed(prelude + struct.pack(">I", zlib.crc32(prelude)))


def test_a_frame_over_the_cap_is_refused_from_its_prelude() -> None:
    previous = configure(max_event_chars=1000)
    try:
        prelude = struct.pack(">II", 5000, 0)
        with pytest.raises(LimitExceeded, match="max_event_chars"):
            FrameReader().feed(prelude + struct.pack(">I", zlib.crc32(prelude)))
    finally:
        configure(**asdict(previous))


def test_headers_running_past_their_length_are_an_error() -> None:
    header = string_header(":event-type", "messageStart")
    broken = header[:-3]  # the value's length says more than the headers hold
    with pytest.raises(VendorDataError, match="past the headers"):
        list(read_frames([hand_frame(broken, b"{}")]))


def test_an_unknown_header_type_is_an_error() -> None:
    header = b"\x01a\x0c"
    with pytest.raises(VendorDataError, match="unknown value type 12"):
        list(read_frames([hand_frame(header, b"")]))


def test_text_and_bytes_after_close_are_refused() -> None:
    reader = FrameReader()
    reader.close()
    with pytest.raises(VendorDataError, match="after the stream was closed"):
        reader.feed(b"x")
    with pytest.raises(VendorDataError, match="expected bytes"):
        FrameReader().feed("text")  # type: ignore[arg-type]


def test_reading_is_linear_a_long_stream_in_tiny_pieces() -> None:
    frame = write_frame({":event-type": "contentBlockDelta"}, b'{"delta":{"text":"x"}}')
    data = frame * 4000
    reader = FrameReader()
    count = 0
    for i in range(0, len(data), 7):
        count += len(reader.feed(data[i : i + 7]))
    reader.close()
    assert count == 4000
    assert not reader.pending


def test_header_sets_written_again_keep_each_values_type() -> None:
    """Header blocks are remembered per set: a bool and an int of equal value (True == 1) are
    still written as their own types, every time."""
    for _ in range(2):
        as_bool = botocore_frames(write_frame({"flag": True}, b"{}"))
        as_int = botocore_frames(write_frame({"flag": 1}, b"{}"))
        assert as_bool == [({"flag": True}, b"{}")]
        assert as_int == [({"flag": 1}, b"{}")]
        assert type(as_bool[0][0]["flag"]) is bool and type(as_int[0][0]["flag"]) is int


def test_many_header_sets_stay_correct_past_the_remembered_ones() -> None:
    frames = [write_frame({":event-type": f"e{i}", "n": i}, b"") for i in range(600)]
    read = botocore_frames(b"".join(frames))
    assert [h for h, _ in read] == [{":event-type": f"e{i}", "n": i} for i in range(600)]


def test_a_payload_with_blobs_is_written_as_base64_text() -> None:
    """boto3's blobs (bytes) in a chunk are written as base64 text, as JSON holds them."""
    import json

    from toolwire.adapters.bedrock.wire import to_sse

    chunk = {"contentBlockDelta": {"delta": {"image": {"bytes": b"\x00\xffPNG"}}, "n": (1, 2)}}
    ((headers, payload),) = botocore_frames(to_sse([chunk]))
    assert headers[":event-type"] == "contentBlockDelta"
    assert json.loads(payload) == {"delta": {"image": {"bytes": "AP9QTkc="}}, "n": [1, 2]}


def test_a_payload_json_cannot_hold_is_a_vendor_data_error() -> None:
    from toolwire.adapters.bedrock.wire import to_sse

    with pytest.raises(VendorDataError, match=r"payload 0.*not JSON serializable"):
        to_sse([{"contentBlockDelta": {"delta": {"text": object()}}}])


def _stream() -> bytes:
    return b"".join(
        write_frame({":event-type": name, ":message-type": "event"}, payload)
        for name, payload in [
            ("messageStart", b'{"role":"assistant"}'),
            ("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"h\xc3\xa9"}}'),
            ("contentBlockDelta", b""),
            ("contentBlockStop", b'{"contentBlockIndex":0}'),
        ]
    )


def _read(pieces: list[bytes]) -> tuple[object, ...]:
    """The frames of ``pieces`` or the error the reader raised (its type and text)."""
    try:
        return ("ok", [(f.headers, f.payload) for f in read_frames(pieces, "bedrock")])
    except (VendorDataError, TruncatedStream) as exc:
        return ("error", type(exc).__name__, str(exc))


def _cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@settings(max_examples=3 * settings.default.max_examples)
@given(
    st.integers(min_value=0),
    st.integers(min_value=1, max_value=255),
    st.lists(st.integers(min_value=0), max_size=8),
)
def test_any_byte_changed_is_an_error_the_same_however_the_stream_is_cut(
    at: int, bits: int, cuts: list[int]
) -> None:
    """Every byte of a frame is under one of its CRCs: a change anywhere is a
    ``toolwire.errors`` exception, never other frames, and the same one for any cuts."""
    data = bytearray(_stream())
    data[at % len(data)] ^= bits
    whole = _read([bytes(data)])
    assert whole[0] == "error"
    assert _read(_cut(bytes(data), cuts)) == whole


@settings(max_examples=2 * settings.default.max_examples)
@given(st.integers(min_value=0), st.lists(st.integers(min_value=0), max_size=8))
def test_a_stream_cut_short_anywhere_reads_its_whole_frames_then_is_truncated(
    end: int, cuts: list[int]
) -> None:
    data = _stream()
    short = data[: end % (len(data) + 1)]
    expected = botocore_frames(short)  # (botocore's reader: the frames held whole)
    reader = FrameReader("bedrock")
    got = []
    for piece in _cut(short, cuts):
        got += [(f.headers, f.payload) for f in reader.feed(piece)]
    assert got == expected
    boundaries = {0}
    for frame, _ in enumerate(expected):
        boundaries.add(sum(len(write_frame(h, p)) for h, p in expected[: frame + 1]))
    if len(short) in boundaries:
        assert reader.close() == []
    else:
        with pytest.raises(TruncatedStream, match=f"inside event-stream frame {len(expected)}"):
            reader.close()


@settings(max_examples=settings.default.max_examples)
@given(st.lists(st.integers(min_value=0), max_size=8), st.booleans())
def test_feed_items_reads_as_feed_does(cuts: list[int], take: bool) -> None:
    """``feed_items``: the frames of the kind asked for that ``read`` takes are its values,
    every other frame ``chunk``'s of its meaning, payload and number, in the stream's order;
    a payload that is no UTF-8 is ``chunk``'s too."""
    data = _stream() + write_frame({":event-type": "contentBlockDelta"}, b"\xff\xfe")
    frames = [(f.headers, f.payload) for f in read_frames([data])]

    def meaning(headers: dict[str, object]) -> object:
        return headers[":event-type"]

    reader = FrameReader("bedrock", meaning)
    items: list[object] = []
    kind = "contentBlockDelta" if take else None
    for piece in _cut(data, cuts):
        items += reader.feed_items(
            piece,
            lambda m, p, n: ("chunk", m, p, n),
            kind,
            lambda text: ("read", text) if text else None,
        )
    reader.close()
    expected: list[object] = []
    for n, (headers, payload) in enumerate(frames):
        name = headers[":event-type"]
        if take and name == "contentBlockDelta" and payload and payload != b"\xff\xfe":
            expected.append(("read", payload.decode()))
        else:
            expected.append(("chunk", name, payload, n))
    assert items == expected
