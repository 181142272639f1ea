"""The warnings of Bedrock's event stream come in stream order (Next 39): a frame's warning (a
lone surrogate replaced, said by the JSON check when its chunk is made) is given when its
chunk is handed on, after the events of the frames before it, and never after an earlier
frame's error. Every reading of a body, whole or cut anywhere (the fused and the general
whole-body readings, the driver's push reading a chunk, a unit, a gather or a lazily
checked gather at a time, fused from the first piece or not, under a depth cap that
leaves the fused reading off), gives the one ordered record (warnings, events and the
error interleaved) the plain reading gives: one frame a piece, each chunk through the
decoder's general handler, so nothing of a later frame is read before an earlier one is
handed on."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

import pytest
from _ordered_record import Record, push_step, recorded
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tests.vendor_bedrock.test_bedrock_fused import _DELTA, _event, _frames, _pieces

from toolwire.adapters import bedrock
from toolwire.adapters.bedrock import decoder as decoder_module
from toolwire.adapters.bedrock import wire
from toolwire.errors import ToolwireError
from toolwire.protocol.eventstream import write_frame
from toolwire.protocol.limits import configure
from toolwire.protocol.pushed import PieceReader, PushReading, form_of

#: frames whose chunk is made with a warning (a lone surrogate, escaped, replaced)
_WARNS = {
    "delta-text": _event(
        "contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"\\ud800"}}'
    ),
    "delta-input": _event(
        "contentBlockDelta", b'{"contentBlockIndex":1,"delta":{"toolUse":{"input":"a\\udc00"}}}'
    ),
    "delta-padded": _event(
        "contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"x"},"p":"\\ud83d"}'
    ),
    "stop": _event("contentBlockStop", b'{"contentBlockIndex":9,"x":"\\udfff"}'),
    "exception": write_frame(
        {":message-type": "exception", ":exception-type": "throttlingException"},
        b'{"message":"slow \\ud800 down"}',
    ),
}

#: frames that fail where they stand: the decoder refuses them, or their JSON, or their
#: framing is wrong (``crc``, ``prelude``: the next frame broken; ``cut``: the body ends
#: inside the frame before it)
_BAD = {
    "start-again": _event(
        "contentBlockStart",
        b'{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tu_1","name":"f"}}}',
    ),
    "start-no-id": _event(
        "contentBlockStart", b'{"contentBlockIndex":5,"start":{"toolUse":{"name":"f"}}}'
    ),
    "delta-no-index": _event("contentBlockDelta", b'{"delta":{"text":"x"}}'),
    "delta-text-int": _event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":5}}'),
    "not-json": _event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"x"}'),
    "not-utf8": _event("contentBlockStop", b'{"contentBlockIndex":1,"x":"\xc3"}'),
    "not-object": _event("contentBlockStop", b"[1]"),
    "deep-surrogate": _event("contentBlockStop", b'{"contentBlockIndex":1,"x":[[[["\\ud800"]]]]}'),
    "unknown-type": write_frame({":message-type": "gossip"}, b"{}"),
    "no-event-type": write_frame({":message-type": "event"}, b"{}"),
}

_FRAME = st.one_of(
    _DELTA.map(lambda delta: ("delta", delta)),
    st.sampled_from(sorted(_WARNS)).map(lambda name: ("warn", name)),
)

#: a stream's frames (deltas of every writing, frames that warn), the bad frames put
#: among them (their kind, their place), the cuts, whether its end is written, a depth cap
CASE = (
    st.lists(_FRAME, max_size=10),
    st.lists(
        st.tuples(st.sampled_from([*sorted(_BAD), "crc", "prelude", "cut"]), st.integers(0, 30)),
        max_size=2,
    ),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
    st.sampled_from([None, None, 3]),  # max_json_depth (3: no fused reading)
)


def _broken(frame: bytes, how: str) -> bytes:
    data = bytearray(frame)
    data[-1 if how == "crc" else 9] ^= 0x5A
    return bytes(data)


def _stream(drawn: list[Any], bad: list[tuple[str, int]], end: bool) -> list[bytes]:
    """The frames of the stream: a message and a call's block opened, the drawn frames,
    with ``end`` the blocks' stops and the message's end; then each bad frame put at its
    place (a broken one breaks the frame there; a cut keeps the body up to inside it)."""
    deltas = [x for kind, x in drawn if kind == "delta"]
    frames = _frames(deltas, end, False) if end else _frames(deltas, False, False)
    # the drawn frames in their order (the deltas where _frames wrote them)
    head, rest = frames[:2], frames[2 + len(deltas) :]
    made = iter(frames[2 : 2 + len(deltas)])
    body = [*head, *(next(made) if kind == "delta" else _WARNS[x] for kind, x in drawn), *rest]
    cut = None
    for kind, at in bad:
        place = at % (len(body) + 1)
        if kind in ("crc", "prelude"):
            place = min(place, len(body) - 1)
            body[place] = _broken(body[place], kind)
        elif kind == "cut":
            cut = min(place, len(body) - 1)
        else:
            body.insert(place, _BAD[kind])
    if cut is not None:
        body = [*body[:cut], body[cut][: len(body[cut]) // 2]]
    return body


def _plain(frames: list[bytes]) -> list[Any]:
    """The plain reading: one frame a piece through the push reader (each frame made alone),
    each chunk through the decoder's general handler, then the close."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decoder_module, "_delta_fields", lambda chunk: None)
        patch.setattr(wire, "kind_chunks", None)

        def read(record: Record) -> None:
            decoder = bedrock.Decoder()
            reader = wire.ChunkReader()
            for frame in frames:
                for chunk in reader.feed(frame):
                    record.events(decoder.feed(chunk))
            reader.close()
            record.events(decoder.close())

        return recorded(read)


def _whole_body(pieces: list[bytes], fused: bool) -> list[Any]:
    """``decode_stream`` of ``sse_chunks``: fused (its ``SSEChunks``), or the general way
    (its chunks as a plain iterator, each fed to the decoder)."""

    def read(record: Record) -> None:
        chunks: Any = wire.sse_chunks(pieces)
        for event in bedrock.decode_stream(chunks if fused else iter(chunks)):
            record.events([event])

    return recorded(read)


def _push(pieces: list[bytes], how: str, from_start: bool) -> list[Any]:
    """The driver's push reading: the push reader's pieces read by :class:`PushReading`,
    ``one`` chunk, a ``unit`` (up to the first chunk giving events), a ``gather`` (each
    chunk's events handed to the sink) or a ``checked`` gather (the events pulled by a lazy
    check) a step."""

    def read(record: Record) -> None:
        decoder = bedrock.Decoder()
        reader = PieceReader(wire.ChunkReader(), form_of(decoder) if from_start else None)
        reading = PushReading(decoder)

        step = push_step(reading, how, record)

        for piece in pieces:
            for p in reader.feed(piece):
                step(p)
        for p in reader.close():
            step(p)
        record.events(decoder.close())

    return recorded(read)


def _all_readings(frames: list[bytes], cuts: list[int]) -> Iterator[tuple[str, list[Any]]]:
    body = b"".join(frames)
    for name, pieces in (("whole", [body]), ("cut", _pieces(body, cuts))):
        yield f"{name} fused", _whole_body(pieces, True)
        yield f"{name} general", _whole_body(pieces, False)
        for how in ("one", "unit", "gather", "checked"):
            for first in (True, False):
                yield f"{name} push {how} {first}", _push(pieces, how, first)


def _compared(frames: list[bytes], cuts: list[int], depth: int | None) -> list[Any]:
    previous = configure(**({} if depth is None else {"max_json_depth": depth}))
    try:
        expected = _plain(frames)
        for name, got in _all_readings(frames, cuts):
            assert got == expected, name
    finally:
        configure(**asdict(previous))
    return expected


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(*CASE)
@example([("warn", "delta-text"), ("warn", "stop")], [("start-again", 2)], [], True, None).via(
    "a later frame's warning before an earlier frame's decoder error"
)
@example([("warn", "exception")], [("not-json", 4)], [], True, None).via(
    "no warning of a frame after an error, the frames before it handed on"
)
def test_warnings_events_and_errors_come_in_stream_order_in_every_reading(
    drawn: list[Any], bad: list[tuple[str, int]], cuts: list[int], end: bool, depth: int | None
) -> None:
    _compared(_stream(drawn, bad, end), cuts, depth)


def test_a_later_frame_s_warning_comes_after_an_earlier_frame_s_events() -> None:
    """The record itself, spelled out: a text delta, then a frame whose chunk warns, then a
    frame the decoder refuses, then another warning frame; one piece or cut anywhere."""
    frames = _stream(
        [("delta", ("compact", 0, "text", "hi")), ("warn", "delta-text"), ("warn", "stop")],
        [("start-again", 4)],
        True,
    )
    record = _compared(frames, [7, 300], None)
    kinds = [entry[0] for entry in record]
    # the call's start, the text's start and delta, the second delta's warning and delta,
    # then the error (the stop frame after it, which would warn, is never read)
    assert kinds == ["event", "event", "event", "warning", "event", "error"]
    assert record[2][1]["delta"] == "hi"
    assert "event-stream frame 3 (contentBlockDelta)" in record[3][2]
    assert record[4][1]["delta"] == "\ufffd"
    assert "block 1 is already open" in record[5][2]


def test_the_plain_reading_s_warnings_are_those_of_the_frames_read() -> None:
    """The reference is what it says: each warning names the frame it is of, and none is of
    a frame after the error's."""
    frames = _stream([("warn", "stop"), ("warn", "exception")], [("not-object", 3)], True)
    record = _plain(frames)
    said = [entry[2] for entry in record if entry[0] == "warning"]
    assert len(said) == 1 and "event-stream frame 2" in said[0]
    assert record[-1][0] == "error" and "event-stream frame 3" in record[-1][2]
    assert json.loads(b'{"a":"\\ud800"}')["a"] == "\ud800"  # (the escape is a lone one)


def test_a_piece_iterated_makes_a_frame_s_chunk_in_its_turn() -> None:
    """A driver's piece read as dicts (``Piece.__iter__``, what a reader other than the
    driver reads): a frame whose chunk warns is made once the chunks before it are taken,
    and one that fails raises there, never before."""
    frames = _stream([("warn", "stop")], [("not-object", 3)], True)
    reader = PieceReader(wire.ChunkReader(), wire.DELTA_FORM)
    (piece,) = reader.feed(b"".join(frames))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chunks = iter(piece)
        first, second = next(chunks), next(chunks)
        assert first == {"messageStart": {"role": "assistant"}}
        assert second["contentBlockStart"]["contentBlockIndex"] == 1
        assert caught == []
        assert next(chunks) == {"contentBlockStop": {"contentBlockIndex": 9, "x": "\ufffd"}}
        assert len(caught) == 1 and "event-stream frame 2" in str(caught[0].message)
        with pytest.raises(ToolwireError, match="event-stream frame 3"):
            next(chunks)
        assert len(caught) == 1


def test_the_reader_s_feed_makes_every_chunk_an_error_after_those_before_it() -> None:
    """The push reader's own ``feed`` (the contract's: dicts only) makes each frame left to
    be made in order: one that fails ends the piece, the chunks before it returned and its
    error raised by the next call, before a broken frame after it in the same piece."""
    frames = _stream([("warn", "stop")], [("not-object", 3), ("crc", 5)], True)
    reader = wire.ChunkReader()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = reader.feed(b"".join(frames))
        assert len(got) == 3 and got[2] == {
            "contentBlockStop": {"contentBlockIndex": 9, "x": "\ufffd"}
        }
        assert len(caught) == 1
    with pytest.raises(
        ToolwireError, match=r"event-stream frame 3 \(contentBlockStop\): payload is a list"
    ):
        reader.close()
