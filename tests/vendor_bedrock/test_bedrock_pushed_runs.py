"""The driver's push reading of Bedrock's event stream with its payloads reader (Next 40):
runs of one block's deltas read from the last match's prefix come as tuples of the fields'
values (``FramePushReader.feed_all``), which the push reading's loops hand to the rule as a
match's. Against the general reading (each frame's chunk made alone, through the decoder's
general handler) and against the push reading that takes a frame a match (the driver's
reading before), on runs whose fragments hold escapes good and bad, raw quotes and
controls, surrogates and padding members, with hostile frames, cut anywhere: the same
events, error, losses, warnings and chunk count, and the same ordered record (warnings
interleaved with the events, the error last) as one frame a piece."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.protocol.test_fastpath_payload_reader import _FRAGMENTS
from tests.vendor_bedrock.test_bedrock_fused import _HOSTILE, _event, _hostile, _pieces
from tests.vendor_bedrock.test_bedrock_payload_reader import _RUN, _START, _delta
from tests.vendor_bedrock.test_bedrock_pushed import _flat, _general, _pushed
from tests.vendor_bedrock.test_bedrock_warning_order import _compared

from toolwire.adapters.bedrock import wire
from toolwire.protocol import pushed
from toolwire.protocol.eventstream import FramePushReader
from toolwire.protocol.pushed import PieceReader

#: a run mostly of one call's fragments written as Bedrock writes them (each after the first
#: a tuple when it holds no escape of a surrogate), among the payload reader tests' deltas
_CALL_RUN = st.lists(
    st.one_of(
        st.tuples(st.just(1), st.just("toolUse"), _FRAGMENTS, st.just("}"), st.just(False)),
        st.tuples(st.just(1), st.just("toolUse"), _FRAGMENTS, st.just("}"), st.just(False)),
        _RUN.map(lambda run: run[0] if run else (1, "toolUse", "", "}", False)),
    ),
    max_size=12,
)


def _frames(run: list[Any]) -> list[bytes]:
    frames = [_event("messageStart", b'{"role":"assistant"}'), _event("contentBlockStart", _START)]
    frames += [_delta(*step) for step in run]
    for index in (0, 1, 2):
        frames.append(_event("contentBlockStop", b'{"contentBlockIndex":%d}' % index))
    frames.append(_event("messageStop", b'{"stopReason":"tool_use"}'))
    return frames


def _matched(inner: Any, form: Any) -> Any:
    """The push reading's fused feed before Next 40: each delta frame's payload matched
    whole by the form's expression (a frame a match, no tuple)."""
    fast = form.payload
    return lambda piece: inner.feed_fused(piece, fast)


def _a_frame_a_match(body: list[bytes], how: str, first: bool, most: int) -> tuple[Any, ...]:
    saved = pushed._FUSING[FramePushReader]
    pushed._FUSING[FramePushReader] = (_matched, saved[1])
    try:
        return _pushed(body, how, first, most)
    finally:
        pushed._FUSING[FramePushReader] = saved


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(
    _CALL_RUN,
    _HOSTILE,
    st.lists(st.integers(min_value=0), max_size=5),
    st.sampled_from(["one", "unit", "gather"]),
    st.booleans(),
    st.integers(min_value=1, max_value=5),
)
def test_runs_read_by_the_push_reading_give_what_the_other_readings_give(
    run: list[Any], hostile: tuple[str, int], cuts: list[int], how: str, first: bool, most: int
) -> None:
    body = _hostile(_frames(run), *hostile)
    for pieces in ([body], _pieces(body, cuts)):
        general = _general(pieces)
        got = _pushed(pieces, how, first, most)
        before = _a_frame_a_match(pieces, how, first, most)
        if how == "gather":  # (a step per list of events, not per chunk)
            assert _flat(got) == _flat(general) == _flat(before)
        else:
            assert got == general == before


@settings(max_examples=settings.default.max_examples, deadline=None)
@given(_CALL_RUN, st.lists(st.integers(min_value=0), max_size=5), st.sampled_from([None, 3]))
def test_runs_give_the_one_frame_a_piece_record_in_stream_order(
    run: list[Any], cuts: list[int], depth: int | None
) -> None:
    """Fragments whose chunk warns (a lone surrogate replaced) or fails among the tuples:
    the record of every reading is the one of one frame a piece."""
    _compared(_frames(run), cuts, depth)


def test_a_run_s_deltas_after_its_first_come_to_the_rule_as_tuples() -> None:
    """So the tests above read that way: a call's fragments after its first are tuples in
    the driver's pieces, and read as the general way reads them."""
    fragments = ['{"a": ', '"b\\"c"', ", ", '"d"}']
    frames = _frames([(1, "toolUse", f, "}", False) for f in fragments])
    body = b"".join(frames)
    reader = PieceReader(wire.ChunkReader(), wire.DELTA_FORM)
    (piece,) = reader.feed(body)
    kinds = [type(x).__name__ for x in piece.items]
    assert kinds[2:6] == ["Match", "tuple", "tuple", "tuple"]
    assert all(type(x) is not re.Match for x in piece.items[6:])
    general = _general([body])
    assert general[1] is None
    args = [e["delta"] for step in general[0] for e in step if e["type"] == "TOOL_CALL_ARGS"]
    assert args == fragments
    for how in ("one", "unit", "gather"):
        assert _flat(_pushed([body], how, True)) == _flat(general)
