"""The fused reading in push form (``protocol.pushed``): a body's pieces, cut anywhere, read
with the decoder's delta form give the same events, chunk by chunk, the same error and the
same losses as the general way (the push reader's dicts, each fed to ``feed``), for every
vendor with a form; and the deltas do go the fused way."""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fastpath import (  # the forged streams of the pull form's tests
    _ANTHROPIC_DELTA,
    _GEMINI_CHUNK,
    _OLLAMA_ITEM,
    _RESPONSES_DELTA,
    _anthropic_body,
    _chat_body,
    _chat_chunk,
    _gemini_body,
    _ollama_body,
    _pieces,
    _responses_body,
)

from toolwire import adapters
from toolwire.errors import ToolwireError
from toolwire.protocol._fastpath import FormProbe, Later
from toolwire.protocol.framing import SSEReader, json_chunk
from toolwire.protocol.pushed import Piece, PieceReader, PushReading, form_of, pieces

FORMED = ["anthropic", "openai_chat", "openai_responses", "gemini", "mistral", "cohere", "ollama"]
#: decoders with a form whose push reader is no SSE or NDJSON reader (Bedrock's event
#: stream, ``eventstream.FramePushReader``): its frames' payloads are matched by the form's
#: expression of the data alone (``tests/vendor_bedrock/test_bedrock_pushed.py``: hostile)
FORMED_BY_BODY = ["bedrock"]


def _plain_reader(vendor: str) -> Any:
    """The vendor's push reader (Gemini's holds the plain SSE reader for an SSE body, with
    its SDK's rule for a last event its blank line never ended: that one is read here)."""
    if vendor == "gemini":
        return SSEReader(json_chunk("gemini"), flush_incomplete=True)
    return adapters.get(vendor).FRAMING.reader()


def _dump(events: list[Any]) -> list[Any]:
    return [ev.model_dump(mode="json", by_alias=True) for ev in events]


def _general(vendor: str, body: list[Any]) -> tuple[Any, ...]:
    """Each chunk dict the push reader's general feed gives (one it leaves to be made when
    it is reached made then, in its turn), fed to ``feed``: the events a chunk at a time
    (the non-empty lists), then the close's; the error, the losses, the warnings."""
    decoder = adapters.get(vendor).Decoder()
    reader = _plain_reader(vendor)
    steps: list[Any] = []
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for piece in body:
                for chunk in reader.feed_later(piece):
                    if type(chunk) is Later:
                        chunk = chunk.made()
                    steps.append(_dump(decoder.feed(chunk)))
                if reader.done:
                    break
            else:
                for chunk in reader.close():
                    steps.append(_dump(decoder.feed(chunk)))
            steps.append(_dump(decoder.close()))
        except ToolwireError as exc:
            error = (type(exc).__name__, str(exc))
    return (
        [s for s in steps if s],
        error,
        [str(x) for x in decoder.losses],
        [str(w.message) for w in caught],
        decoder.chunk_index,
    )


def _fused(
    vendor: str, body: list[Any], one: bool = False, from_start: bool = True
) -> tuple[Any, ...]:
    """The same body through :class:`PieceReader` and :class:`PushReading`, the events a
    step at a time (``one``: a chunk a step, as the driver reads with a deadline), the
    reader fused from its first piece (``from_start``) or once the decoder read one."""
    decoder = adapters.get(vendor).Decoder()
    reader = PieceReader(_plain_reader(vendor), form_of(decoder) if from_start else None)
    reading = PushReading(decoder)
    assert reading.form is not None
    steps: list[Any] = []

    def read(p: Piece) -> None:
        assert type(p) is Piece and p.left
        while p.left:
            steps.append(_dump(reading.events(p, one)))

    error, caught = _read_all(decoder, reader, body, read, steps)
    return ([s for s in steps if s], error, *caught)


def _read_all(
    decoder: Any, reader: PieceReader, body: list[Any], read: Any, steps: list[Any]
) -> tuple[Any, tuple[Any, ...]]:
    """``body`` fed to ``reader``, each piece it gives handed to ``read``, the decoder's
    close appended to ``steps``: the error, and (losses, warnings, chunk count)."""
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for piece in body:
                for p in reader.feed(piece):
                    read(p)
                if reader.done:
                    break
            else:
                for p in reader.close():
                    read(p)
            steps.append(_dump(decoder.close()))
        except ToolwireError as exc:
            error = (type(exc).__name__, str(exc))
    told = ([str(x) for x in decoder.losses], [str(w.message) for w in caught])
    return error, (*told, decoder.chunk_index)


def _check(vendor: str, body: str, cuts: list[int], as_bytes: bool, one: bool) -> None:
    if as_bytes and any(0xD800 <= ord(c) <= 0xDFFF for c in body):
        as_bytes = False  # (no UTF-8 for a lone surrogate: handed in as text)
    split = _pieces(body, cuts, as_bytes)
    general = _general(vendor, split)
    assert _fused(vendor, split, one) == general
    assert _fused(vendor, split, one, from_start=False) == general


_CUTS = st.lists(st.integers(min_value=0), max_size=8)


@settings(max_examples=120, deadline=None)
@given(st.lists(_ANTHROPIC_DELTA, max_size=8), st.booleans(), _CUTS, st.booleans(), st.booleans())
def test_anthropic_pushed_fused_is_the_general_way(
    deltas: list[Any], end: bool, cuts: list[int], as_bytes: bool, one: bool
) -> None:
    _check("anthropic", _anthropic_body(deltas, end), cuts, as_bytes, one)


@settings(max_examples=120, deadline=None)
@given(st.lists(_chat_chunk(), max_size=8), st.booleans(), _CUTS, st.booleans(), st.booleans())
def test_openai_chat_pushed_fused_is_the_general_way(
    chunks: list[Any], end: bool, cuts: list[int], as_bytes: bool, one: bool
) -> None:
    _check("openai_chat", _chat_body(chunks, end), cuts, as_bytes, one)


@settings(max_examples=120, deadline=None)
@given(st.lists(_RESPONSES_DELTA, max_size=8), st.booleans(), _CUTS, st.booleans(), st.booleans())
def test_openai_responses_pushed_fused_is_the_general_way(
    deltas: list[Any], end: bool, cuts: list[int], as_bytes: bool, one: bool
) -> None:
    _check("openai_responses", _responses_body(deltas, end), cuts, as_bytes, one)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(_GEMINI_CHUNK, max_size=6),
    st.sampled_from(["compact", "gemini", "default", "reversed"]),
    st.booleans(),
    _CUTS,
    st.booleans(),
)
def test_gemini_pushed_fused_is_the_general_way(
    chunks: list[Any], style: str, end: bool, cuts: list[int], one: bool
) -> None:
    body = _gemini_body(chunks, style, True, end)
    _check("gemini", body, cuts, True, one)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_OLLAMA_ITEM, max_size=8),
    st.booleans(),
    st.sampled_from(["newline", "newline", "bare", "cut", "none"]),
    _CUTS,
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_ollama_pushed_fused_is_the_general_way(
    items: list[Any], first: bool, end: str, cuts: list[int], as_bytes: bool, one: bool, crlf: bool
) -> None:
    """NDJSON lines (the forged Ollama streams: hostile lines, a ``done`` line in the
    middle, a last line without its ``\n`` or cut) read by the driver's push form."""
    _check("ollama", _ollama_body(items, first, end, crlf), cuts, as_bytes, one)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("vendor", FORMED + FORMED_BY_BODY)
def test_a_benchmark_stream_cut_anywhere_and_short_reads_the_same(
    vendor: str, data: st.DataObject
) -> None:
    """Long delta streams, cut anywhere, and cut short (a truncated stream: the same
    error), or with a byte that is no UTF-8 (the same error, at the same chunk)."""
    from benchmarks.suite import VENDORS

    body = VENDORS[vendor].build(data.draw(st.sampled_from(["tool", "text", "parallel"])), 60)
    how = data.draw(st.sampled_from(["whole", "short", "bad byte"]))
    if how == "short":
        body = body[: data.draw(st.integers(0, len(body)))]
    elif how == "bad byte":
        at = data.draw(st.integers(0, len(body) - 1))
        body = body[:at] + b"\xff" + body[at + 1 :]
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(body)), max_size=12))))
    split = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    fused = _fused(vendor, split, data.draw(st.booleans()), data.draw(st.booleans()))
    assert fused == _general(vendor, split)
    if how == "whole":
        assert fused[1] is None and fused[0]


@pytest.mark.parametrize("first", [True, False])
@pytest.mark.parametrize("vendor", FORMED)
def test_the_deltas_are_read_as_matches(vendor: str, first: bool) -> None:
    """Every delta of the benchmark's streams the form's expression takes in the body reaches
    the rule as a match, from the first piece on when the reader is made with the form
    (``pieces(reader, form)``: what a client does), else once the decoder read a piece:
    else the push form would silently be the general way."""
    from benchmarks.suite import VENDORS

    body = VENDORS[vendor].build("tool", 200)
    decoder = adapters.get(vendor).Decoder()
    form = form_of(decoder)
    assert form is not None
    reader = pieces(_plain_reader(vendor), form if first else None)
    reading = PushReading(decoder)
    matched = 0
    for at in range(0, len(body), 1024):
        for p in reader.feed(body[at : at + 1024]):
            matched += sum(type(x) is re.Match for x in p.items)
            while p.left:
                reading.events(p)
    # the events the form's expression takes in the text (of the pieces a decoder fused)
    text = body[0 if first else 1024 :].decode("utf-8").replace("\r\n", "\n")
    # (where an event or a line begins: after a blank line, or a line's end for NDJSON)
    ends, back = (("\n", ""), 1) if form.lines else (("\n\n", ""), 2)
    later = sum(
        1 for m in form.pattern.finditer(text) if text[max(m.start() - back, 0) : m.start()] in ends
    )
    assert later >= 100
    # (an event a piece's end cuts is read the general way, by the SSE parser's line loop)
    assert matched >= later - len(body) // 1024 - 1


def test_every_model_adapter_s_probe_finds_its_form_or_none() -> None:
    """A probe finds each decoder's own form, and none for a vendor without one (today
    every model adapter has one: a decoder without is read by ``_plain`` below)."""
    without = [n for n in adapters.model_names() if n not in FORMED + FORMED_BY_BODY]
    for name in without:
        probe = FormProbe()
        adapters.get(name).Decoder().events(probe)
        assert probe.form is None, name
    for name in FORMED + FORMED_BY_BODY:
        probe = FormProbe()
        adapters.get(name).Decoder().events(probe)
        assert probe.form is adapters.get(name).wire.DELTA_FORM, name


@pytest.mark.parametrize("vendor", FORMED_BY_BODY)
@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
def test_a_form_over_a_push_reader_of_another_framing_reads_it_fused(
    vendor: str, shape: str
) -> None:
    """A decoder with a form over a push reader of frames: its pieces hold the payloads the
    form's payloads reader takes as matches (or tuples), read as ``feed`` reads the
    reader's dicts."""
    from benchmarks.suite import VENDORS

    body = VENDORS[vendor].build(shape, 200)
    split = [body[at : at + 997] for at in range(0, len(body), 997)]
    reader = pieces(_plain_reader(vendor), form_of(adapters.get(vendor).Decoder()))
    items = [x for piece in split for p in reader.feed(piece) for x in p.items]
    # (a match, or a tuple its payloads reader made of a delta read from its prefix)
    assert len(items) > 150 and sum(type(x) in (re.Match, tuple) for x in items) > 120
    general = _general(vendor, split)
    assert general[1] is None and general[0]
    for one in (False, True):
        assert _fused(vendor, split, one) == general
        assert _fused(vendor, split, one, from_start=False) == general


def test_pieces_keeps_the_readers_end_and_ticks() -> None:
    """A piece that completes no chunk gives nothing (the driver's keep-alive tick), and
    the reader's end marker ends it as before."""
    reader = pieces(adapters.get("openai_chat").FRAMING.reader())
    assert reader.feed(b": keep-alive\n\n") == []
    assert reader.feed(b"data: {") == []
    got = reader.feed(b'"a": 1}\n\ndata: [DONE]\n\ndata: {"b": 2}\n\n')
    assert [list(p) for p in got] == [[{"a": 1}]]
    assert reader.done


def test_a_piece_fused_with_a_form_its_decoder_does_not_read_is_read_the_general_way() -> None:
    """A reader made with a form, read by a decoder that reads none (its ``events`` the
    plain loop): the matches become the chunks they are, and the reader reads the next
    pieces with no form."""
    from benchmarks.suite import VENDORS

    from toolwire.protocol.decoding import BaseDecoder

    plain_decoder = type(
        "Plain", (adapters.get("anthropic").Decoder,), {"events": BaseDecoder.events}
    )
    body = VENDORS["anthropic"].build("tool", 80)
    split = [body[i : i + 700] for i in range(0, len(body), 700)]
    form = form_of(adapters.get("anthropic").Decoder())
    reader = pieces(_plain_reader("anthropic"), form)
    decoder = plain_decoder()
    reading = PushReading(decoder)
    assert reading.form is None
    got: list[Any] = []
    kinds = []
    for piece in split:
        for p in reader.feed(piece):
            kinds.append(any(type(x) is re.Match for x in p.items))
            while p.left:
                got += _dump(reading.events(p))
    got += _dump(decoder.close())
    assert kinds[0] and not any(kinds[1:])  # matches only before the decoder read one
    steps, error, *_ = _general("anthropic", split)
    assert error is None
    assert got == [ev for step in steps for ev in step]


# -- a piece gathered in one loop (the driver's step for ``batches``): the general way


def _plain(vendor: str) -> Any:
    """``vendor``'s decoder reading no form (the plain ``BaseDecoder.events``)."""
    from toolwire.protocol.decoding import BaseDecoder

    class Plain(adapters.get(vendor).Decoder):  # type: ignore[misc, name-defined]
        def events(self, chunks: Any) -> Any:
            return BaseDecoder.events(self, chunks)

    return Plain()


def _gathered(vendor: str, body: list[Any], most: int, plain: bool) -> tuple[Any, ...]:
    """The body's pieces read with ``PushReading.gather`` (each chunk's events handed to a
    sink that keeps them, ``most`` at a time), a deferred failure raised after what came
    before it: the events in order, the error, the losses, the warnings, the chunk count."""
    decoder = _plain(vendor) if plain else adapters.get(vendor).Decoder()
    reader = PieceReader(_plain_reader(vendor), form_of(decoder))
    reading = PushReading(decoder)
    assert (reading.form is None) is plain
    steps: list[Any] = []
    sunk: list[int] = []

    def sink(given: list[Any]) -> list[Any]:
        sunk.append(len(given))
        return given

    def read(p: Piece) -> None:
        while p.left:
            failed: list[Exception] = []
            steps.append(_dump(reading.gather(p, sink, most, failed)))
            if failed:
                raise failed[0]

    error, caught = _read_all(decoder, reader, body, read, steps)
    assert all(sunk)  # the sink is handed a chunk's events, never an empty list
    return ([e for step in steps for e in step], error, *caught)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("vendor", FORMED)
def test_a_piece_gathered_in_one_loop_is_the_general_way(vendor: str, data: Any) -> None:
    """Bodies cut anywhere (cut short too), read a piece at a time with ``gather`` up to
    any number of events, with the decoder's form or with none: the same events in the
    same order, the same error after them, the same losses and warnings."""
    from benchmarks.suite import VENDORS

    body = VENDORS[vendor].build(data.draw(st.sampled_from(["tool", "text", "parallel"])), 30)
    if data.draw(st.booleans()):
        body = body[: data.draw(st.integers(1, len(body) - 1))]
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=6))
    split = _pieces(body.decode("utf-8", "replace"), cuts, data.draw(st.booleans()))
    general = _general(vendor, split)
    flat = [e for step in general[0] for e in step]
    most = data.draw(st.integers(1, 40))
    for plain in (False, True):
        got = _gathered(vendor, split, most, plain)
        assert (got[0], *got[1:]) == (flat, *general[1:])
