"""The warnings of every SSE and NDJSON vendor stream come in stream order: an event's warning
(a lone surrogate replaced, said when its chunk is made) is given when its chunk is handed
on, after the events of the events before it, and never after an earlier event's error
(its JSON's, its rule's or its decoder's). Every reading of a body, whole or cut anywhere
(the fused and the general whole-body readings, the driver's push reading a chunk, a unit,
a gather or a lazily checked gather at a time, fused from the first piece or not, under a
depth cap that leaves the fused reading off), gives the one ordered record (warnings,
events and the error interleaved) the plain reading gives: one event a piece through the
push reader, each chunk through the decoder's general handler, so nothing of a later event
is read before an earlier one is handed on. (Bedrock's event stream has its own test:
``tests/vendor_bedrock/test_bedrock_warning_order.py``.)"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict
from functools import cache
from itertools import pairwise
from typing import Any

import pytest
from _ordered_record import Record, push_step, recorded
from benchmarks.suite import VENDORS
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.errors import ToolwireError
from toolwire.protocol.framing import SSEReader, json_chunk
from toolwire.protocol.limits import configure
from toolwire.protocol.pushed import PieceReader, PushReading, form_of

#: every vendor whose stream is SSE or NDJSON
VENDORS_READ = [
    "anthropic",
    "openai_chat",
    "openai_responses",
    "mistral",
    "cohere",
    "gemini",
    "ollama",
    "asgard",
    "dialogflow",
]


def _reader(vendor: str, *, plain: bool = False) -> Any:
    """The vendor's push reader (``plain``: Gemini's SSE one alone, the plain SSE reader its
    framing's reader holds for an SSE body, without the wrapper that picks the framing)."""
    if vendor == "gemini" and plain:
        return SSEReader(json_chunk("gemini"), flush_incomplete=True, vendor="gemini")
    return adapters.get(vendor).FRAMING.reader()


@cache
def _bodies(vendor: str) -> list[list[str]]:
    """Streams of the vendor, as their events (an SSE event with its blank line, or an
    NDJSON line with its end): the same AG-UI runs (a text, a call) written by its encoder."""
    source = adapters.get("anthropic")
    out = []
    for shape, n in (("text", 3), ("tool", 2)):
        events = list(source.decode_stream(source.sse_chunks(VENDORS["anthropic"].build(shape, n))))
        adapter = adapters.get(vendor)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (what a vendor has no frame for: dropped)
            text = adapter.FRAMING.write(adapter.encode_stream(events)).decode("utf-8")
        if vendor == "dialogflow":  # (its frames are calls: the one call made three)
            text = "".join(text.replace("toolu_0", f"toolu_{i}") for i in range(3))
        if text.count("\n") >= 4:  # (a run it writes as no more than its end: not kept)
            out.append(
                re.findall(r".*?(?:\r\n\r\n|\n\n)" if "data:" in text else r".*?\n", text, re.S)
            )
    return out


#: what an event becomes: its data's JSON object changed (``{...}`` -> ``{...}``)
def _surrogate_key(data: str) -> str:
    return '{"zz":"\\ud800"}' if data == "{}" else '{"zz":"a\\udfff",' + data[1:]


def _surrogate_value(data: str) -> str:
    at = data.rfind('":"')  # (the last string value: a delta's text, mostly)
    return _surrogate_key(data) if at < 0 else data[: at + 3] + "\\ud83d" + data[at + 3 :]


def _deep(data: str) -> str:
    return '{"zz":' + "[" * 240 + "]" * 240 + ("}" if data == "{}" else "," + data[1:])


_CHANGES: dict[str, Callable[[str], str]] = {
    "surrogate-key": _surrogate_key,  # (a warning)
    "surrogate-text": _surrogate_value,
    "bad-json": lambda data: data[:-1],
    "not-object": lambda data: "[1]",
    "empty": lambda data: "{}",  # (mostly refused by the decoder)
    "string-to-number": lambda data: re.sub(r'":"[^"\\]*"', '":5', data, count=1),
    "deep": _deep,
    "deep-surrogate": lambda data: _deep(_surrogate_key(data)),
    # (a byte that is not UTF-8: U+DCFF is written as the byte 0xFF, "surrogateescape")
    "not-utf8": lambda data: '{"zz":"\udcff"}' if data == "{}" else '{"zz":"\udcff",' + data[1:],
}

_DATA = re.compile(r"(?m)(^data: ?)(\{.*?\})(\r?$)|^(\{.*\})(\r?)$")


def _changed(event: str, how: str) -> str:
    """``event`` with its JSON object changed ``how`` (an event with none: as it is)."""

    def change(m: re.Match[str]) -> str:
        if m.group(4) is not None:
            return _CHANGES[how](m.group(4)) + m.group(5)
        return m.group(1) + _CHANGES[how](m.group(2)) + m.group(3)

    return _DATA.sub(change, event, count=1)


def _ends(event: str) -> bool:
    """The stream's end marker (``[DONE]``, Ollama's ``"done":true``): nothing goes after."""
    return "data: [DONE]" in event or '"done":true' in event


#: a stream: its vendor, which body, how many of its events (a prefix), the changed
#: events put into it (which event, changed how, where), the cuts, a depth cap
CASE = (
    st.sampled_from(VENDORS_READ),
    st.integers(0, 1),
    st.integers(0, 60),
    st.lists(
        st.tuples(st.integers(0, 60), st.sampled_from(sorted(_CHANGES)), st.integers(0, 60)),
        max_size=3,
    ),
    st.lists(st.integers(min_value=0), max_size=6),
    st.sampled_from([None, None, 4]),  # max_json_depth (4: no fused reading)
)


def _stream(vendor: str, which: int, keep: int, put: list[tuple[int, str, int]]) -> list[bytes]:
    """The events of the stream: a prefix of one of the vendor's bodies (its end marker kept
    last if it is kept), each changed event put among them before the end marker."""
    bodies = _bodies(vendor)
    body = bodies[which % len(bodies)]
    events = body[: max(1, min(keep, len(body)))]
    end = [events.pop()] if _ends(events[-1]) else []
    for source, how, place in put:
        if _ends(body[source % len(body)]):
            continue
        changed = _changed(body[source % len(body)], how)
        events.insert(place % (len(events) + 1), changed)
    return [e.encode("utf-8", "surrogateescape") for e in [*events, *end]]


def _pieces(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
    return [body[a:b] for a, b in pairwise(points)]


def _plain(vendor: str, events: list[bytes]) -> list[Any]:
    """The plain reading: one event a piece through the push reader (its ``feed``), each
    chunk through the decoder's general handler; the reading stops at the reader's end
    marker, as a client's does, else the reader's close; then the decoder's."""

    def read(record: Record) -> None:
        decoder = adapters.get(vendor).Decoder()
        reader = _reader(vendor)
        for event in events:
            for chunk in reader.feed(event):
                record.events(decoder.feed(chunk))
            if reader.done:
                break
        else:
            for chunk in reader.close():
                record.events(decoder.feed(chunk))
        record.events(decoder.close())

    return recorded(read)


def _whole_body(vendor: str, pieces: list[bytes], fused: bool) -> list[Any]:
    """``decode_stream`` of ``sse_chunks``: fused (its ``SSEChunks``), or the general way
    (its chunks as a plain iterator, each fed to the decoder)."""
    adapter = adapters.get(vendor)

    def read(record: Record) -> None:
        chunks: Any = adapter.sse_chunks(pieces)
        for event in adapter.decode_stream(chunks if fused else iter(chunks)):
            record.events([event])

    return recorded(read)


def _push(vendor: str, pieces: list[bytes], how: str, from_start: bool) -> list[Any]:
    """The driver's push reading: the push reader's pieces read by :class:`PushReading`,
    ``one`` chunk, a ``unit`` (up to the first chunk giving events), a ``gather`` (each
    chunk's events handed to the sink) or a ``checked`` gather (the events pulled by a lazy
    check) a step; stopped at the reader's end marker once its piece is read."""

    def read(record: Record) -> None:
        decoder = adapters.get(vendor).Decoder()
        reader = PieceReader(_reader(vendor), form_of(decoder) if from_start else None)
        reading = PushReading(decoder)

        step = push_step(reading, how, record)

        for piece in pieces:
            for p in reader.feed(piece):
                step(p)
            if reader.done:
                break
        else:
            for p in reader.close():
                step(p)
        record.events(decoder.close())

    return recorded(read)


def _iterated(vendor: str, pieces: list[bytes]) -> list[Any]:
    """A piece read as dicts (``Piece.__iter__``, what a client other than the driver
    reads), each fed to the decoder's general handler."""

    def read(record: Record) -> None:
        decoder = adapters.get(vendor).Decoder()
        reader = PieceReader(_reader(vendor), form_of(decoder))
        for piece in pieces:
            for p in reader.feed(piece):
                for chunk in p:
                    record.events(decoder.feed(chunk))
            if reader.done:
                break
        else:
            for p in reader.close():
                for chunk in p:
                    record.events(decoder.feed(chunk))
        record.events(decoder.close())

    return recorded(read)


def _all_readings(
    vendor: str, events: list[bytes], cuts: list[int]
) -> Iterator[tuple[str, list[Any]]]:
    body = b"".join(events)
    for name, pieces in (("whole", [body]), ("cut", _pieces(body, cuts))):
        yield f"{name} fused", _whole_body(vendor, pieces, True)
        yield f"{name} general", _whole_body(vendor, pieces, False)
        yield f"{name} iterated", _iterated(vendor, pieces)
        for how in ("one", "unit", "gather", "checked"):
            for first in (True, False):
                yield f"{name} push {how} {first}", _push(vendor, pieces, how, first)


def _compared(vendor: str, events: list[bytes], cuts: list[int], depth: int | None) -> list[Any]:
    previous = configure(**({} if depth is None else {"max_json_depth": depth}))
    try:
        expected = _plain(vendor, events)
        for name, got in _all_readings(vendor, events, cuts):
            assert got == expected, name
    finally:
        configure(**asdict(previous))
    return expected


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(*CASE)
@example(
    "anthropic", 0, 60, [(4, "empty", 3), (5, "surrogate-key", 4), (5, "bad-json", 5)], [], None
)
@example("ollama", 0, 60, [(1, "surrogate-key", 2), (1, "bad-json", 3)], [], None)
@example("openai_chat", 1, 60, [(2, "string-to-number", 2), (3, "deep", 3)], [5], None)
@example("anthropic", 0, 60, [(2, "not-utf8", 3)], [], None)  # (the events before it first)
def test_warnings_events_and_errors_come_in_stream_order_in_every_reading(
    vendor: str,
    which: int,
    keep: int,
    put: list[tuple[int, str, int]],
    cuts: list[int],
    depth: int | None,
) -> None:
    _compared(vendor, _stream(vendor, which, keep, put), cuts, depth)


@pytest.mark.parametrize("vendor", VENDORS_READ)
def test_a_later_event_s_warning_comes_after_an_earlier_event_s_error(vendor: str) -> None:
    """The record itself, for each vendor: a refused event, then one whose chunk warns,
    then one whose JSON is bad, all in one piece: the events before the refused one, then
    its error; neither later event's warning nor its error is ever given."""
    body = max(_bodies(vendor), key=len)
    events = body[:2]
    events += [_changed(body[0], "not-object"), _changed(body[1], "surrogate-key")]
    events += [_changed(body[1], "bad-json")]
    record = _compared(vendor, [e.encode() for e in events], [], None)
    assert record[-1][0] == "error"
    assert "expected a JSON object" in record[-1][2] or "not an object" in record[-1][2]
    assert not any(entry[0] == "warning" for entry in record)


@pytest.mark.parametrize("vendor", VENDORS_READ)
def test_an_event_the_decoder_may_refuse_then_one_that_warns(vendor: str) -> None:
    """An event the reader takes and the decoder may refuse, then one whose chunk warns, in
    one piece: every reading gives what one event a piece gives (a reader that made the
    piece's chunks at once gave the warning before the decoder's refusal: Gemini's
    framing-picking wrapper did)."""
    body = max(_bodies(vendor), key=len)
    events = [*body[:2], _changed(body[1], "string-to-number"), _changed(body[1], "surrogate-key")]
    record = _compared(vendor, [e.encode() for e in events], [], None)
    assert any(entry[0] == "error" for entry in record)


def test_the_plain_reading_s_warnings_are_those_of_the_events_read() -> None:
    """The reference is what it says: a warning is of the event it names, given after the
    events before it, and an event after the error is never read."""
    body = _bodies("openai_chat")[0]
    events = [body[0], body[1], _changed(body[2], "surrogate-key"), "data: {bad\n\n"]
    events.append(_changed(body[2], "surrogate-key"))
    record = _plain("openai_chat", [e.encode() for e in events])
    kinds = [entry[0] for entry in record]
    assert kinds[-3:] == ["warning", "event", "error"] or kinds[-2:] == ["warning", "error"]
    said = [entry[2] for entry in record if entry[0] == "warning"]
    assert len(said) == 1 and "SSE event 2" in said[0]
    assert "SSE event 3" in record[-1][2]


def test_a_wrapping_reader_s_feed_later_is_the_general_feed() -> None:
    """A push reader outside the fused ones (an adapter's wrapper) that has a ``feed_later``
    is read with it: its event left to be made is made in its turn by the piece's reader."""

    class Wrapper:
        def __init__(self) -> None:
            self.inner = SSEReader(json_chunk("v"))
            self.done = False

        def feed(self, piece: bytes) -> list[Any]:
            raise AssertionError("the general feed is feed_later")

        def feed_later(self, piece: bytes) -> list[Any]:
            items: list[Any] = self.inner.feed_later(piece)
            return items

        def close(self) -> list[Any]:
            return []

    reader = PieceReader(Wrapper())
    (piece,) = reader.feed(b'data: {"a":1}\n\ndata: {"b":"\\ud800"}\n\ndata: [1]\n\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chunks = iter(piece)
        assert next(chunks) == {"a": 1} and caught == []
        assert next(chunks) == {"b": "\ufffd"} and len(caught) == 1
        with pytest.raises(ToolwireError, match="SSE event 2"):
            next(chunks)
