"""An error in a piece of Bedrock's event stream comes after the frames before it: the body
read whole, cut anywhere, or cut exactly between its frames (each frame a piece of its own,
so nothing of a later frame is read before an earlier one is handed on) gives the same
events and losses before the same error, in every reading (the fused one, the general
one, the driver's push reading, the bare frame reader)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.vendor_bedrock.test_bedrock_fused import _DELTA, _event, _frames, _pieces
from tests.vendor_bedrock.test_bedrock_pushed import _flat, _pushed
from tests.vendor_bedrock.test_bedrock_pushed import _general as _push_general

from toolwire.adapters import bedrock
from toolwire.adapters.bedrock import decoder as decoder_module
from toolwire.adapters.bedrock import wire
from toolwire.adapters.bedrock.wire import sse_chunks
from toolwire.errors import ToolwireError
from toolwire.protocol.eventstream import FramePushReader, FrameReader, write_frame

#: a frame that fails where it stands: each is one the reader or the chunk maker refuses
_BAD = {
    "delta-not-utf8": _event(
        "contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"\xff"}}'
    ),
    "delta-not-json": _event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"x"}'),
    "stop-not-utf8": _event("contentBlockStop", b'{"contentBlockIndex":1,"x":"\xc3"}'),
    "stop-not-object": _event("contentBlockStop", b"[1]"),
    "unknown-type": write_frame({":message-type": "gossip"}, b"{}"),
    "no-event-type": write_frame({":message-type": "event"}, b"{}"),
}


def _broken(frame: bytes, how: str) -> bytes:
    """``frame`` with its message CRC (``crc``) or its prelude CRC (``prelude``) wrong."""
    data = bytearray(frame)
    data[-1 if how == "crc" else 9] ^= 0x5A
    return bytes(data)


def _body(frames: list[bytes], bad: str, at: int) -> list[bytes]:
    """The frames with the bad one at ``at`` (or frame ``at`` broken): a piece each."""
    at = min(at, len(frames) - 1)
    if bad in ("crc", "prelude"):
        return [*frames[:at], _broken(frames[at], bad), *frames[at + 1 :]]
    return [*frames[:at], _BAD[bad], *frames[at:]]


_CASE = (
    st.lists(_DELTA, max_size=6),
    st.integers(min_value=0, max_value=3),
    st.sampled_from([*_BAD, "crc", "prelude"]),
    st.integers(min_value=0, max_value=14),
    st.lists(st.integers(min_value=0), max_size=5),
)


def _read(pieces: list[bytes], general: bool) -> tuple[list[Any], Any]:
    """The events a reading hands on and the error after them: fused, or the general way
    (each frame's JSON parsed alone, every chunk through the decoder's general handler).
    Warnings are left out: a reader gives one as it reads a frame, and a piece is read
    ahead of the decoder (so a later frame's may come before an earlier frame's error)."""
    with pytest.MonkeyPatch.context() as patch:
        chunks: Any = sse_chunks(pieces)
        if general:
            patch.setattr(decoder_module, "_delta_fields", lambda chunk: None)
            patch.setattr(wire, "kind_chunks", None)
            chunks = iter(sse_chunks(pieces))
        events: list[Any] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                for event in bedrock.decode_stream(chunks):
                    events.append(event.model_dump(mode="json", by_alias=True))
            except ToolwireError as exc:
                return events, (type(exc).__name__, str(exc))
    return events, None


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(*_CASE)
def test_a_bad_frame_comes_after_the_frames_before_it_however_the_body_is_cut(
    deltas: list[Any], calls: int, bad: str, at: int, cuts: list[int]
) -> None:
    frames = _body(_frames(deltas, True, False, calls), bad, at)
    body = b"".join(frames)
    expected = _read(frames, general=True)  # (each frame a piece: nothing read ahead)
    assert expected[1] is not None
    for pieces in ([body], _pieces(body, cuts), frames):
        assert _read(pieces, general=False) == expected
        assert _read(pieces, general=True) == expected


def _told(outcome: tuple[Any, ...]) -> tuple[Any, ...]:
    """A push reading's events, error, losses and chunk count (its warnings left out, as
    :func:`_read` leaves them out)."""
    flat = _flat(outcome)
    return (*flat[:3], *flat[4:])


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(*_CASE, st.sampled_from(["one", "unit", "gather"]), st.booleans())
def test_the_push_reading_hands_on_the_frames_before_a_bad_one_whole_or_cut(
    deltas: list[Any], calls: int, bad: str, at: int, cuts: list[int], how: str, first: bool
) -> None:
    frames = _body(_frames(deltas, True, False, calls), bad, at)
    body = b"".join(frames)
    expected = _told(_push_general(frames))
    assert expected[1] is not None  # (the error)
    for pieces in ([body], _pieces(body, cuts)):
        assert _told(_push_general(pieces)) == expected
        assert _told(_pushed(pieces, how, first)) == expected


def _frames_read(pieces: list[bytes]) -> tuple[list[Any], str]:
    reader: FrameReader[Any] = FrameReader("bedrock")
    got: list[Any] = []
    try:
        for piece in pieces:
            got += [(f.headers, f.payload) for f in reader.feed(piece)]
        reader.close()
    except ToolwireError as exc:
        return got, str(exc)
    return got, ""


@settings(max_examples=settings.default.max_examples)
@given(
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=0, max_value=7),
    st.sampled_from(["crc", "prelude"]),
    st.lists(st.integers(min_value=0), max_size=5),
)
def test_the_frame_reader_hands_on_the_frames_before_a_broken_one(
    count: int, at: int, how: str, cuts: list[int]
) -> None:
    frames = [_event("contentBlockStop", b'{"contentBlockIndex":%d}' % i) for i in range(count)]
    at = min(at, count - 1)
    frames[at] = _broken(frames[at], how)
    body = b"".join(frames)
    got, error = _frames_read([body])
    assert len(got) == at  # the frames before the broken one, then its error
    assert f"event-stream frame {at}" in error
    assert _frames_read(_pieces(body, cuts)) == (got, error)
    assert _frames_read(frames) == (got, error)


def test_the_error_is_raised_by_the_next_call_and_again_after() -> None:
    """A piece's frames before a bad one are returned; the error is the next call's (a
    ``feed`` or ``close``), and every later one's: nothing after it is read."""
    good = _event("contentBlockStop", b'{"contentBlockIndex":1}')
    bad = _broken(good, "crc")
    for call in ("feed", "close"):
        reader = FramePushReader("bedrock", lambda h: h, lambda m, p, n: (p, n), None, dict)
        payload = b'{"contentBlockIndex":1}'
        assert reader.feed(good + good + bad + good) == [(payload, 0), (payload, 1)]
        with pytest.raises(ToolwireError, match=r"frame 2.*CRC32") as first:
            reader.feed(good) if call == "feed" else reader.close()
        with pytest.raises(ToolwireError) as again:
            reader.close()
        assert again.value is first.value


def test_a_piece_whose_first_frame_is_bad_raises_at_once() -> None:
    bad = _broken(_event("contentBlockStop", b"{}"), "crc")
    reader: FrameReader[Any] = FrameReader("bedrock")
    with pytest.raises(ToolwireError, match="frame 0"):
        reader.feed(bad)


def test_a_batch_that_fails_hands_on_what_came_before_its_first_error() -> None:
    """The frames a piece makes together (``together``) that raise: those before the
    first that fails (the items it appended) are handed on, that one's error is next;
    none is made twice (a chunk's warning is given once)."""
    stops = [_event("contentBlockStop", b'{"contentBlockIndex":%d}' % i) for i in range(3)]
    bad = _event("contentBlockStop", b"[1]")
    made: list[Any] = []

    def chunk(meaning: Any, payload: bytes, n: int) -> Any:
        if payload == b"[1]":
            raise ToolwireError(f"frame {n} is no object")
        return n

    def together(frames: list[tuple[Any, bytes, int]], out: list[Any]) -> None:
        made.append(len(frames))
        for frame in frames:
            out.append(chunk(*frame))

    reader = FramePushReader("bedrock", lambda h: h, chunk, None, dict, together)
    assert reader.feed(b"".join([*stops, bad, stops[0]])) == [0, 1, 2]
    assert made == [5]
    with pytest.raises(ToolwireError, match="frame 3 is no object"):
        reader.close()
