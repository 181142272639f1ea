"""Bedrock's event stream read fused (its content deltas matched by ``wire.DELTA_FORM`` in
the frame reader, taken by ``Decoder._delta``) against the general reading (every frame's
JSON parsed, every chunk through the decoder's general handler), on streams written every
way JSON allows, cut anywhere, with hostile frames (bad CRCs, cut frames, payloads that are
no UTF-8 or no JSON, exception frames, unknown message types) and low caps."""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from outcomes import outcome as _outcome
from tests.vendor_bedrock._bedrock_sdk import sdk_events

from toolwire.adapters import bedrock
from toolwire.adapters.bedrock import decoder as decoder_module
from toolwire.adapters.bedrock import wire
from toolwire.adapters.bedrock.wire import DELTA_FORM, sse_chunks
from toolwire.errors import ToolwireError
from toolwire.protocol._fastpath import Later, SSEChunks
from toolwire.protocol.eventstream import write_frame
from toolwire.protocol.limits import configure

_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=10)


def _event(name: str, payload: bytes) -> bytes:
    headers = {":message-type": "event", ":event-type": name, ":content-type": "application/json"}
    return write_frame(headers, payload)


def _written(value: dict[str, Any], style: str) -> bytes:
    """A payload written one of the ways a JSON writer may (the fused reading takes only
    Bedrock's own, compact with its keys in order; the others must read the same)."""
    if style == "spaced":
        text = json.dumps(value)
    elif style == "ascii":
        text = json.dumps(value, separators=(",", ":"))
    elif style == "reordered":
        text = json.dumps(dict(reversed(value.items())), separators=(",", ":"))
    elif style == "padded":  # the padding member real Bedrock frames carry
        text = json.dumps({**value, "p": "abcdefghijklmnopq"}, separators=(",", ":"))
    else:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")  # (a raw lone surrogate: no UTF-8)


_DELTAS = {
    "text": lambda t: {"text": t},
    "toolUse": lambda t: {"toolUse": {"input": t}},
    "reasoning": lambda t: {"reasoningContent": {"text": t}},
    "signature": lambda t: {"reasoningContent": {"signature": t}},
    "citation": lambda t: {"citation": {"title": t}},
    "both": lambda t: {"text": t, "toolUse": {"input": t}},
}

_DELTA = st.tuples(
    st.sampled_from(["compact", "compact", "ascii", "spaced", "reordered", "padded"]),
    st.sampled_from([0, 0, 1, 1, 2, 7]),  # (0: text, 1: a call, 2: reasoning, 7: none yet)
    st.sampled_from(["text", "toolUse", "toolUse", "reasoning", "signature", "citation", "both"]),
    _TEXT,
)

#: start and stop frames a batch of a piece's other frames cannot vouch for (each read
#: alone then: the same chunk, warning or error as when every frame is read alone)
_OTHERS = {
    "stop-not-json": ("contentBlockStop", b'{"contentBlockIndex":1'),
    "stop-two-values": ("contentBlockStop", b'{"contentBlockIndex":1} {}'),
    "stop-not-object": ("contentBlockStop", b"[1]"),
    "stop-empty": ("contentBlockStop", b""),
    "stop-bom": ("contentBlockStop", b'\xef\xbb\xbf{"contentBlockIndex":1}'),
    "stop-surrogate": ("contentBlockStop", b'{"contentBlockIndex":1,"x":"\\ud800"}'),
    "stop-raw-surrogate": ("contentBlockStop", b'{"contentBlockIndex":1,"x":"\xed\xa0\x80"}'),
    "stop-deep": ("contentBlockStop", b'{"contentBlockIndex":1,"x":[[[{"y":[1]}]]]}'),
    "stop-seam": ("contentBlockStop", b'{"contentBlockIndex":1}, "s", {"contentBlockIndex":2}'),
    "start-spaced": (
        "contentBlockStart",
        b'{ "contentBlockIndex" : 3, "start" : {"toolUse": {"toolUseId": "tu_3", "name": "g"}}}',
    ),
    "start-not-utf8": ("contentBlockStart", b'{"contentBlockIndex":4,"start":{"x":"\xff"}}'),
}

#: what may go wrong with the stream: (what, where in the stream's bytes or frames)
_HOSTILE = st.one_of(
    st.just(("none", 0)),
    st.tuples(st.sampled_from(["flip", "cut"]), st.integers(min_value=0)),
    st.tuples(
        st.sampled_from(
            ["exception", "unknown-type", "not-json", "not-utf8", "no-event-type", *_OTHERS]
        ),
        st.integers(min_value=0, max_value=16),
    ),
)


#: a stream's deltas, its cases and hostile frame, its cuts and caps: what the fused and the
#: general reading are compared on (here and in the push reading's test)
CASE = (
    st.lists(_DELTA, max_size=8),
    st.booleans(),
    st.booleans(),
    st.integers(min_value=0, max_value=3),
    _HOSTILE,
    st.lists(st.integers(min_value=0), max_size=6),
    st.sampled_from([None, 3, 4, 12]),  # max_argument_chars
    st.sampled_from([None, 2, 3, 4]),  # max_json_depth (at 3 and below: no fused reading)
)


def _frames(deltas: list[Any], end: bool, after: bool, calls: int = 0) -> list[bytes]:
    """The frames of a stream: a call's block (1) and ``deltas``, then ``calls`` short
    calls each in a block of its own (start, a tool-input delta, stop: the ``parallel``
    shape), then, with ``end``, the stops of blocks 0, 1, 2 and 7 and the message's end."""
    frames = [_event("messageStart", b'{"role":"assistant"}')]
    start = {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tu_1", "name": "f"}}}
    frames.append(_event("contentBlockStart", _written(start, "compact")))
    for style, index, kind, text in deltas:
        value = {"contentBlockIndex": index, "delta": _DELTAS[kind](text)}
        frames.append(_event("contentBlockDelta", _written(value, style)))
    for i in range(10, 10 + calls):
        use = {"contentBlockIndex": i, "start": {"toolUse": {"toolUseId": f"tu_{i}", "name": "g"}}}
        fragment = {"contentBlockIndex": i, "delta": {"toolUse": {"input": "{}"}}}
        frames.append(_event("contentBlockStart", _written(use, "compact")))
        frames.append(_event("contentBlockDelta", _written(fragment, "compact")))
        frames.append(_event("contentBlockStop", b'{"contentBlockIndex":%d}' % i))
    if end:
        for index in (0, 1, 2, 7):
            frames.append(_event("contentBlockStop", b'{"contentBlockIndex":%d}' % index))
        frames.append(_event("messageStop", b'{"stopReason":"tool_use"}'))
        if after:  # a delta after the end: dropped, a loss
            frames.append(
                _event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"x"}}')
            )
        frames.append(_event("metadata", b'{"usage":{"inputTokens":1,"outputTokens":2}}'))
    return frames


def _hostile(frames: list[bytes], what: str, at: int) -> bytes:
    if what in ("none", "flip", "cut"):
        body = bytearray(b"".join(frames))
        if what == "flip":
            body[at % len(body)] ^= 0x41
        elif what == "cut":
            del body[at % len(body) :]
        return bytes(body)
    if what == "exception":
        bad = write_frame(
            {":message-type": "exception", ":exception-type": "throttlingException"},
            b'{"message":"slow down"}',
        )
    elif what == "unknown-type":
        bad = write_frame({":message-type": "gossip", ":event-type": "contentBlockDelta"}, b"{}")
    elif what == "not-json":
        bad = _event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"x"}')
    elif what == "not-utf8":
        bad = _event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"\xff"}}')
    elif what in _OTHERS:
        bad = _event(*_OTHERS[what])
    else:
        bad = write_frame({":message-type": "event"}, b"{}")
    place = min(at, len(frames))
    return b"".join([*frames[:place], bad, *frames[place:]])


def _pieces(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts} | {0, len(body)})
    return [body[a:b] for a, b in pairwise(points)]


def each_alone(frames: list[tuple[Any, bytes, int]], made: list[Any]) -> None:
    """A piece's frames made each alone (no batch of a piece's frames), each when it is
    reached (``Later``: its warning or error after the frames before it, as when the body
    is cut before it)."""
    made += [Later(wire.kind_chunk, *frame) for frame in frames]


def _general(pieces: list[bytes], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """The general reading: the chunk dicts (no SSEChunks: nothing matched), each frame's
    made alone when it is reached (:func:`each_alone`), every one through the decoder's
    general handler (its dict path's rule switched off)."""
    with monkeypatch.context() as patch:
        patch.setattr(decoder_module, "_delta_fields", lambda chunk: None)
        patch.setattr(wire, "kind_chunks", each_alone)
        chunks = iter(sse_chunks(pieces))
        assert type(chunks) is not SSEChunks
        return _outcome(lambda: bedrock.decode_stream(chunks))


def _fused(pieces: list[bytes]) -> tuple[Any, ...]:
    chunks = sse_chunks(pieces)
    assert type(chunks) is SSEChunks
    return _outcome(lambda: bedrock.decode_stream(chunks))


@settings(max_examples=3 * settings.default.max_examples)
@given(*CASE)
def test_fused_gives_what_the_general_path_gives(
    deltas: list[Any],
    end: bool,
    after: bool,
    calls: int,
    hostile: tuple[str, int],
    cuts: list[int],
    arg_cap: int | None,
    depth_cap: int | None,
) -> None:
    body = _hostile(_frames(deltas, end, after, calls), *hostile)
    pieces = _pieces(body, cuts)
    caps = {
        k: v
        for k, v in (("max_argument_chars", arg_cap), ("max_json_depth", depth_cap))
        if v is not None
    }
    previous = configure(**caps)
    try:
        with pytest.MonkeyPatch.context() as patch:
            assert _fused(pieces) == _general(pieces, patch)
    finally:
        configure(**asdict(previous))


@settings(max_examples=settings.default.max_examples)
@given(st.lists(_DELTA, max_size=8), st.lists(st.integers(min_value=0), max_size=6))
def test_a_whole_stream_reads_the_same_cut_anywhere_and_as_botocore_reads_it(
    deltas: list[Any], cuts: list[int]
) -> None:
    """No hostile frame: one piece, many pieces and botocore's own parse of the bytes (the
    dicts boto3 yields, read by the decoder) give the same outcome. (A lone surrogate makes
    a hostile frame: raw, its payload is no UTF-8; escaped, the warning names a frame here
    and a chunk there. Hostile frames are the test above's.)"""
    assume(not any(0xD800 <= ord(c) <= 0xDFFF for _, _, _, text in deltas for c in text))
    body = b"".join(_frames(deltas, end=True, after=False))
    whole = _fused([body])
    assert _fused(_pieces(body, cuts)) == whole
    try:
        theirs = sdk_events(body, size=13)
    except Exception:
        # delta of two members: its union holds one)
        assert any(kind == "both" for _, _, kind, _ in deltas)
        return
    assert _outcome(lambda: bedrock.decode_stream(theirs)) == whole


def test_bedrock_s_own_deltas_go_the_fused_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark's streams (Bedrock's writing: compact, keys in order) are matched: no
    delta frame's JSON is parsed but that of the delta that opens a text or reasoning block
    (the rule passes it: the general path starts the block) and a reasoning signature (no
    fragment: not in the form), alone or with its piece's other frames, so the fused reading
    is not silently the general one."""
    from benchmarks import bench_bedrock

    parsed: list[str] = []
    real = wire.load_json

    def counted(data: Any, *rest: Any) -> Any:
        parsed.append(data if isinstance(data, str) else data.decode())
        return real(data, *rest)

    real_batch = wire.clean_objects

    def counted_batch(texts: list[str]) -> Any:
        parsed.extend(texts)
        return real_batch(texts)

    monkeypatch.setattr(wire, "load_json", counted)
    monkeypatch.setattr(wire, "clean_objects", counted_batch)
    for shape, opened in (("tool", 2), ("text", 1), ("parallel", 0)):
        parsed.clear()
        body = bench_bedrock.build(shape, 300)
        events = list(bedrock.decode_stream(sse_chunks([body[:700], body[700:]])))
        assert len(events) > 250
        deltas = [p for p in parsed if '"delta":' in p]
        assert len(deltas) == opened, deltas


@pytest.mark.parametrize(
    ("payload", "fields"),
    [
        (b'{"contentBlockIndex":0,"delta":{"text":"hi"}}', (0, "hi", None, None)),
        (
            b'{"contentBlockIndex":3,"delta":{"toolUse":{"input":"{\\"a\\""}}}',
            (3, None, '{"a"', None),
        ),
        (
            b'{"contentBlockIndex":1,"delta":{"reasoningContent":{"text":"x"}},"p":"ab"}',
            (1, None, None, "x"),
        ),
    ],
)
def test_the_form_reads_each_delta_s_fields(payload: bytes, fields: tuple[Any, ...]) -> None:

    match = wire.DELTA_FORM.payload.fullmatch(payload.decode())
    assert match is not None
    assert DELTA_FORM.read(match) == fields
    assert json.loads(match.group("data")) == json.loads(payload)


@pytest.mark.parametrize(
    "payload",
    [
        b'{"delta":{"text":"hi"},"contentBlockIndex":0}',  # keys reordered
        b'{"contentBlockIndex":0,"delta":{"text":"hi"},"delta":{"text":"ho"}}',  # twice
        b'{"contentBlockIndex":0,"delta":{"text":"\\ud800"}}',  # a lone surrogate
        b'{"contentBlockIndex":0,"delta":{"text":"hi","x":1}}',  # more in the delta
        b'{"contentBlockIndex":0,"delta":{"text":"hi"},"p":{"a":1}}',  # an object beside
        b'{"contentBlockIndex":-1,"delta":{"text":"hi"}}',
        b' {"contentBlockIndex":0,"delta":{"text":"hi"}}',
    ],
)
def test_a_payload_the_form_does_not_take_goes_the_general_way(payload: bytes) -> None:

    assert wire.DELTA_FORM.payload.fullmatch(payload.decode()) is None


@pytest.mark.parametrize("cap", [5, 9, 10, 11, 40])
def test_the_argument_cap_is_named_at_the_same_chunk_fused_or_not(
    cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tool-input fragments of 4, 5 and 2 characters (11 in all) under caps around them:
    the fused rule passes the fragment that goes over, and the general path names it."""
    deltas = [("compact", 1, "toolUse", t) for t in ("abcd", "efghi", "jk")]
    pieces = [b"".join(_frames(deltas, end=True, after=False))]
    previous = configure(max_argument_chars=cap)
    try:
        fused, general = _fused(pieces), _general(pieces, monkeypatch)
    finally:
        configure(**asdict(previous))
    assert fused == general
    assert fused[0] == ("ok" if cap >= 11 else "error")
    if cap < 11:
        assert fused[1] == "LimitExceeded" and "max_argument_chars" in fused[2]


def _read_pushed(pieces: list[bytes]) -> tuple[Any, ...]:
    """The push reader's chunks (as dicts of their types), warnings, or error."""
    reader = wire.ChunkReader()
    chunks: list[Any] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for piece in pieces:
                chunks += reader.feed(piece)
            reader.close()
        except ToolwireError as exc:
            error: Any = (type(exc).__name__, str(exc))
        else:
            error = None
    typed = [(type(c).__name__, {k: (type(v).__name__, v) for k, v in c.items()}) for c in chunks]
    return typed, [str(w.message) for w in caught], error


@settings(max_examples=2 * settings.default.max_examples)
@given(
    st.lists(_DELTA, max_size=6),
    st.integers(min_value=0, max_value=3),
    _HOSTILE,
    st.lists(st.integers(min_value=0), max_size=6),
    st.sampled_from([None, 2, 3]),  # max_json_depth
)
def test_a_piece_s_frames_made_together_are_each_frame_s_made_alone(
    deltas: list[Any],
    calls: int,
    hostile: tuple[str, int],
    cuts: list[int],
    depth_cap: int | None,
) -> None:
    """The push reader (``ChunkReader``: what a driver feeds) makes a piece's frames
    together (their payloads parsed in batches: ``wire.kind_chunks``): the same chunks, of
    the same types, the same warnings and the same first error as each frame made alone,
    on hostile streams cut anywhere."""
    body = _hostile(_frames(deltas, True, False, calls), *hostile)
    pieces = _pieces(body, cuts)
    previous = configure(**({} if depth_cap is None else {"max_json_depth": depth_cap}))
    try:
        together = _read_pushed(pieces)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(wire, "kind_chunks", None)
            alone = _read_pushed(pieces)
    finally:
        configure(**asdict(previous))
    assert together == alone


def test_a_batch_that_cannot_vouch_for_a_payload_reads_it_alone() -> None:
    """Each frame of ``_OTHERS`` between good ones, in one piece: what it becomes is what
    it becomes alone, and the good frames around it are still made from the batch."""
    for name in _OTHERS:
        frames = _frames([("compact", 1, "toolUse", "ab")], True, False, calls=2)
        body = _hostile(frames, name, 3)
        together = _read_pushed([body])
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(wire, "kind_chunks", None)
            assert together == _read_pushed([body]), name
        assert together[2] is not None or len(together[0]) == len(frames) + 1, name


def test_a_chunk_read_under_a_higher_cap_is_checked_again_when_fed() -> None:
    """The reader's chunks (a block's start among them: no delta) fed after the depth cap
    was lowered are checked again, as plain dicts are: the same error at the same chunk."""
    body = b"".join(_frames([("compact", 1, "toolUse", "ab")], True, False, calls=1))
    chunks = list(sse_chunks([body]))
    plain = json.loads(json.dumps(chunks))
    assert any("contentBlockStart" in c for c in chunks)
    previous = configure(max_json_depth=3)
    try:
        mine = _outcome(lambda: bedrock.decode_stream(iter(chunks)))
        theirs = _outcome(lambda: bedrock.decode_stream(iter(plain)))
    finally:
        configure(**asdict(previous))
    assert mine == theirs
    assert mine[0] == "error" and "nested deeper than 3" in mine[2], mine
