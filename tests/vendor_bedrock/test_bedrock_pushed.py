"""Bedrock's event stream read by the driver's push form (``protocol.pushed``: the push
reader's pieces, ``FramePushReader.feed_fused`` leaving the delta frames ``DELTA_FORM``
matches as matches, read by ``PushReading``) against the general way (the push reader's
chunk dicts, each frame made alone, each chunk through the decoder's general handler): the
same events chunk by chunk, the same error after them, the same losses, warnings and chunk
count, on hostile streams (bad CRCs, cut frames, payloads that are no UTF-8 or no JSON,
exception frames, unknown message types) cut anywhere, under low caps."""

from __future__ import annotations

import re
import warnings
from dataclasses import asdict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.vendor_bedrock.test_bedrock_fused import (
    _DELTA,
    _HOSTILE,
    CASE,
    _frames,
    _hostile,
    _pieces,
    each_alone,
)

from toolwire import clients
from toolwire.adapters import bedrock
from toolwire.adapters.bedrock import decoder as decoder_module
from toolwire.adapters.bedrock import wire
from toolwire.errors import ToolwireError
from toolwire.protocol._fastpath import Later
from toolwire.protocol.eventstream import FramePushReader
from toolwire.protocol.limits import configure
from toolwire.protocol.pushed import Piece, PieceReader, PushReading, form_of, pieces


def _dump(events: list[Any]) -> list[Any]:
    return [ev.model_dump(mode="json", by_alias=True) for ev in events]


def _general(body: list[bytes]) -> tuple[Any, ...]:
    """The push reader's chunk dicts (each frame made alone, when it is reached), each fed
    to ``feed`` with the decoder's dict rule switched off: the events a chunk at a time,
    the error, the losses, the warnings, the chunk count."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decoder_module, "_delta_fields", lambda chunk: None)
        patch.setattr(wire, "kind_chunks", each_alone)
        decoder = bedrock.Decoder()
        reader = wire.ChunkReader()
        steps: list[Any] = []
        error = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                for piece in body:
                    for item in reader.feed_later(piece):
                        assert type(item) is Later  # (each frame made alone, when reached)
                        steps.append(_dump(decoder.feed(item.made())))
                reader.close()
                steps.append(_dump(decoder.close()))
            except ToolwireError as exc:
                error = (type(exc).__name__, str(exc))
    told = ([str(x) for x in decoder.losses], [str(w.message) for w in caught])
    return ([s for s in steps if s], error, *told, decoder.chunk_index)


def _pushed(body: list[bytes], how: str, from_start: bool, most: int = 1) -> tuple[Any, ...]:
    """The same body through the push reader's pieces read by :class:`PushReading`:
    ``one`` a chunk a step (the driver under a deadline), ``unit`` up to the first chunk
    giving events a step, ``gather`` up to ``most`` events a step (a failure after others
    raised once they are handed on); fused from the first piece (``from_start``: what the
    client does) or once the decoder read one."""
    decoder = bedrock.Decoder()
    reader = PieceReader(wire.ChunkReader(), form_of(decoder) if from_start else None)
    reading = PushReading(decoder)
    assert reading.form is wire.DELTA_FORM
    steps: list[Any] = []

    def read(p: Piece) -> None:
        assert type(p) is Piece and p.left
        while p.left:
            if how == "gather":
                failed: list[Exception] = []
                steps.append(_dump(reading.gather(p, lambda e: e, most, failed)))
                if failed:
                    raise failed[0]
            else:
                steps.append(_dump(reading.events(p, how == "one")))

    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for piece in body:
                for p in reader.feed(piece):
                    read(p)
            for p in reader.close():
                read(p)
            steps.append(_dump(decoder.close()))
        except ToolwireError as exc:
            error = (type(exc).__name__, str(exc))
    told = ([str(x) for x in decoder.losses], [str(w.message) for w in caught])
    return ([s for s in steps if s], error, *told, decoder.chunk_index)


def _flat(outcome: tuple[Any, ...]) -> tuple[Any, ...]:
    return ([e for step in outcome[0] for e in step], *outcome[1:])


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(
    *CASE,
    st.sampled_from(["one", "unit", "gather"]),
    st.booleans(),
    st.integers(min_value=1, max_value=6),
)
def test_the_push_form_gives_what_the_general_way_gives(
    deltas: list[Any],
    end: bool,
    after: bool,
    calls: int,
    hostile: tuple[str, int],
    cuts: list[int],
    arg_cap: int | None,
    depth_cap: int | None,
    how: str,
    from_start: bool,
    most: int,
) -> None:
    body = _pieces(_hostile(_frames(deltas, end, after, calls), *hostile), cuts)
    caps = {
        k: v
        for k, v in (("max_argument_chars", arg_cap), ("max_json_depth", depth_cap))
        if v is not None
    }
    previous = configure(**caps)
    try:
        general = _general(body)
        pushed = _pushed(body, how, from_start, most)
    finally:
        configure(**asdict(previous))
    if how == "gather":  # (a step per list of events, not per chunk)
        assert _flat(pushed) == _flat(general)
    else:
        assert pushed == general


@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
@pytest.mark.parametrize("size", [997, 65536])
def test_the_benchmark_s_deltas_reach_the_rule_as_matches(shape: str, size: int) -> None:
    """The benchmark's streams in socket-sized pieces (and odd ones): every delta frame but
    the reasoning signature (not in the form) is a match, from the first piece on when the
    reader is made with the form (what the client does), and the events are the general
    way's: else the push form would silently be the general one."""
    from benchmarks import bench_bedrock

    body = bench_bedrock.build(shape, 400)
    split = [body[at : at + size] for at in range(0, len(body), size)]
    reader = pieces(wire.ChunkReader(), wire.DELTA_FORM)
    items = [x for piece in split for p in reader.feed(piece) for x in p.items]
    deltas = [p.decode() for p in _payloads(body) if b'"delta":' in p]
    # (a match, or its payloads reader's tuple: a delta of a run read from its prefix)
    matched = sum(type(x) is re.Match or type(x) is tuple for x in items)
    assert sum(type(x) is tuple for x in items) > matched // 2
    # every delta frame the form's expression takes whole, those a piece's end cuts too
    # (completed by the next piece): a reasoning signature is the one it does not take
    assert matched == sum(wire.DELTA_FORM.payload.fullmatch(d) is not None for d in deltas)
    assert matched >= len(deltas) - (1 if shape == "tool" else 0)
    assert matched > 250
    assert _pushed(split, "unit", True) == _general(split)


def _payloads(body: bytes) -> list[bytes]:
    from benchmarks.bench_bedrock import frame_payloads

    return frame_payloads(body)


def test_a_push_reader_of_frames_is_fused_only_as_itself() -> None:
    """The event-stream push reader takes the form's expression of a payload alone (a
    frame carries nothing else), and a subclass of it (which may read otherwise) is not
    fused: its pieces hold its own dicts."""

    class Other(FramePushReader[Any]):
        pass

    made = wire.ChunkReader()
    assert type(made) is FramePushReader
    body = b"".join(_frames([("compact", 1, "toolUse", "ab")], True, False))
    fused = pieces(made, wire.DELTA_FORM).feed(body)
    assert [type(x) is re.Match for x in fused[0].items].count(True) == 1
    other = Other(
        wire.VENDOR, wire.frame_kind, wire.kind_chunk, ("event", "contentBlockDelta"),
        wire._matched, wire.kind_chunks,
    )  # fmt: skip
    (plain,) = pieces(other, wire.DELTA_FORM).feed(body)
    assert not any(type(x) is re.Match for x in plain.items)
    assert list(plain) == list(fused[0])


def test_the_client_hands_the_driver_pieces_fused_from_the_first() -> None:
    """``CLIENT``'s push reader is the event-stream one fused with Bedrock's form from the
    first piece (``clients.push_reader``)."""
    reader = clients.push_reader(bedrock.CLIENT, bedrock.FRAMING)
    assert type(reader) is PieceReader and reader.form is wire.DELTA_FORM
    body = b"".join(_frames([("compact", 1, "toolUse", "ab")], True, False))
    (piece,) = reader.feed(body)
    assert any(type(x) is re.Match for x in piece.items)


def _read(body: list[bytes], fused: bool) -> tuple[Any, ...]:
    """The push reader's chunks of ``body`` (a match made the chunk it stands for, its
    type kept), or the first error, how many were matches, and the warnings said (a lone
    surrogate replaced: the losses of the frames read)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chunks, error, matched = _read_all(body, fused)
    return chunks, error, matched, [(w.category.__name__, str(w.message)) for w in caught]


def _read_all(body: list[bytes], fused: bool) -> tuple[Any, ...]:
    reader = wire.ChunkReader()
    chunks: list[Any] = []
    matched = 0
    try:
        for piece in body:
            got = reader.feed_fused(piece, wire.DELTA_FORM.payload) if fused else reader.feed(piece)
            for x in got:
                if type(x) is Later:  # (made in its turn)
                    x = x.made()
                elif type(x) is re.Match:
                    matched += 1
                    x = reader.matched_chunk(x)
                chunks.append((type(x).__name__, x))
        reader.close()
    except ToolwireError as exc:
        return chunks, (type(exc).__name__, str(exc)), matched
    return chunks, None, matched


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(
    st.lists(_DELTA, max_size=8),
    st.integers(min_value=0, max_value=3),
    _HOSTILE,
    st.lists(st.integers(min_value=0), max_size=6),
)
def test_the_fused_feed_s_matches_are_the_chunks_feed_makes(
    deltas: list[Any], calls: int, hostile: tuple[str, int], cuts: list[int]
) -> None:
    """The reader alone: ``feed_fused`` leaves some frames as matches, and each match's
    chunk is the one ``feed`` makes of that frame (same type, same value), the first error
    the same, on hostile streams cut anywhere."""
    body = _pieces(_hostile(_frames(deltas, True, False, calls), *hostile), cuts)
    fused, plain = _read(body, True), _read(body, False)
    assert fused[:2] == plain[:2]
    assert fused[3] == plain[3]  # the same losses said
    assert plain[2] == 0
    # Bedrock's own writing: compact, its keys in order, no surrogate (the padded and the
    # ASCII styles escape a non-ASCII text, a pair of escapes for one beyond the BMP)
    compact_fragments = sum(
        kind in ("text", "toolUse", "reasoning")
        and (style == "compact" or (style in ("padded", "ascii") and text.isascii()))
        and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)
        for style, _, kind, text in deltas
    )
    if hostile[0] == "none":  # (each of Bedrock's own writing is a match, at least)
        assert compact_fragments + calls <= fused[2] <= len(deltas) + calls
