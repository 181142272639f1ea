"""The SSE parser's fused reading (``SSEParser.feed_items``), which takes a run of events a
delta expression matches in one step, against its plain reading (``feed``): for any body
cut anywhere, the same events in the same order (a match standing for the event its text
is), the same error with the same message at the same piece, under any event cap."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolwire.errors import ToolwireError
from toolwire.protocol._fastpath import DeltaForm, Later, Text
from toolwire.protocol.framing import SSEReader
from toolwire.protocol.limits import configure, limits
from toolwire.protocol.sse import SSEEvent, SSEParser, event_places

#: a delta named by its event line, and one read whatever its event line (or none)
_NAMED = DeltaForm({"s": Text("s")}, "d")
_ANY = DeltaForm({"s": Text("s")}, any_event=True)

#: the lines an event may be made of (each without its line end)
_LINE = st.sampled_from(
    [
        'data: {"s":"ab"}',
        'data:{"s":"a\\"b"}',
        'data: {"s":"x"} ',
        "data: plain",
        "data:",
        "data",
        "event: d",
        "event:d",
        "event: e",
        "event:",
        "event",
        "id: 7",
        "id: 8\x00",
        "id",
        "retry: 10",
        ": a comment",
        "other: x",
        "",
    ]
)


@st.composite
def _body(draw: st.DrawFn) -> str:
    """Events mostly of the common shape (an event line or not, one data line, a blank
    line), with any other lines among them, each line ended by LF, CRLF or CR."""
    parts: list[str] = ["\ufeff"] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            name = draw(st.sampled_from(["event: d\n", "event:d\n", "event: e\n", ""]))
            text = draw(st.sampled_from(["ab", "é", 'a\\"b', "x" * 30]))
            parts.append(f'{name}data: {{"s":"{text}"}}\n\n')
        else:
            end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
            parts.append(draw(_LINE) + end)
    return "".join(parts)


def _pieces(body: str, cuts: list[int], as_bytes: bool) -> list[Any]:
    data: Any = body.encode("utf-8") if as_bytes else body
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in pairwise(points)]


def _as_event(item: Any) -> Any:
    """A match as the event its text is, read alone (its ``id`` is no part of it: a fused
    reader reads only the data); an event as its data and name."""
    if type(item) is re.Match:
        (event,) = SSEParser().feed(item.group(0))
        return ("match", event.data, event.event)
    assert type(item) is SSEEvent
    return ("event", item.data, item.event)


def _read(pieces: list[Any], step: Callable[[SSEParser, Any], list[Any]]) -> list[Any]:
    """What each piece gives, then the close, or the error (its type and message) where
    it is raised."""
    parser = SSEParser("v")
    out: list[Any] = []
    try:
        for piece in pieces:
            out.append([_as_event(item) for item in step(parser, piece)])
        out.append([_as_event(item) for item in parser.close()])
    except ToolwireError as exc:
        out.append(("error", type(exc).__name__, str(exc)))
    return out


def _plain_view(got: list[Any]) -> list[Any]:
    """A fused reading's outcome with each match shown as the plain event it stands for."""
    return [
        [("event", *item[1:]) for item in piece] if isinstance(piece, list) else piece
        for piece in got
    ]


def _check(pieces: list[Any], form: DeltaForm) -> list[Any]:
    plain = _read(pieces, SSEParser.feed)
    fused = _read(pieces, lambda parser, piece: parser.feed_items(piece, form.pattern))
    assert _plain_view(fused) == plain
    return fused


@settings(max_examples=300, deadline=None)
@given(
    _body(),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
    st.sampled_from([_NAMED, _ANY]),
    st.sampled_from([None, 12, 24, 40]),
)
@example('event: d\ndata: {"s":"ab"}\n\n' * 3, [], False, _NAMED, 12)
def test_fused_runs_read_as_the_plain_parser_reads(
    body: str, cuts: list[int], as_bytes: bool, form: DeltaForm, cap: int | None
) -> None:
    previous = limits()
    if cap is not None:
        configure(max_event_chars=cap)
    try:
        _check(_pieces(body, cuts, as_bytes), form)
    finally:
        configure(max_event_chars=previous.max_event_chars)


def test_a_run_of_matches_is_taken_whole_and_in_order() -> None:
    body = "".join(f'event: d\ndata: {{"s":"{i}"}}\n\n' for i in range(50))
    body += 'event: e\ndata: {"s":"other"}\n\n' + 'event: d\ndata: {"s":"last"}\n\n'
    items = SSEParser().feed_items(body, _NAMED.pattern)
    assert [type(item) is re.Match for item in items] == [True] * 50 + [False, True]
    assert [m.group("s") for m in items[:50]] == [str(i) for i in range(50)]
    assert items[50] == SSEEvent('{"s":"other"}', "e")
    assert items[51].group("s") == "last"
    assert event_places(items) == [50]


@pytest.mark.parametrize("cap", [40, 60])
def test_the_cap_names_the_one_event_past_it_in_a_run(cap: int) -> None:
    """A run longer than the cap whose events are each under it reads; one event past it
    is the error the plain parser names, the events before it read."""
    small = 'event: d\ndata: {"s":"ab"}\n\n'
    big = 'event: d\ndata: {"s":"' + "x" * 50 + '"}\n\n'
    previous = limits()
    configure(max_event_chars=cap)
    try:
        fused = _check([small * 10], _NAMED)
        assert len(fused[0]) == 10  # all matches, none past the cap
        fused = _check([small * 3 + big + small], _NAMED)
        if cap == 40:  # (the three before it read first, then the error)
            assert fused == [
                [("match", '{"s":"ab"}', "d")] * 3,
                ("error", "LimitExceeded", fused[-1][2]),
            ]
            assert "max_event_chars" in fused[-1][2]
        else:
            assert len(fused[0]) == 5
    finally:
        configure(max_event_chars=previous.max_event_chars)


def test_event_places_are_where_the_events_are() -> None:
    matches = list(re.finditer("a", "aaa"))
    items: list[Any] = [matches[0], SSEEvent("x"), matches[1], matches[2], SSEEvent("y")]
    assert event_places(items) == [1, 4]
    assert event_places([]) == []
    assert event_places(matches) == []


# -- the push reader's fused feed (``SSEReader.feed_fused``, what ``protocol.pushed`` reads)

#: Responses-like events: deltas its form takes, others it does not, a bad payload, the end
_PUSHED_EVENTS = st.sampled_from(
    [
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
        '"output_index":0,"delta":"hi"}\n\n',
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
        '"sequence_number":3,"output_index":1,"delta":"a\\"b"}\n\n',
        'event: response.created\ndata: {"type":"response.created","response":{}}\n\n',
        'data: {"type":"response.in_progress"}\r\n\r\n',
        ": keep-alive\n\n",
        "data: not json\n\n",
        "data: [1]\n\n",
        "data: [DONE]\n\n",
    ]
)


def _push_read(pieces: list[bytes], fused: bool) -> list[Any]:
    from toolwire.adapters.openai_responses.wire import DELTA_FORM, FRAMING

    reader = FRAMING.reader()
    assert type(reader) is SSEReader
    out: list[Any] = []
    try:
        for piece in pieces:
            if fused:  # (each made in its turn: one that fails ends the piece there, as
                # ``feed`` ends it, the chunks before it handed on and its error next)
                got = []
                for i in reader.feed_fused(piece, DELTA_FORM.pattern):
                    try:
                        if type(i) is re.Match:
                            i = reader.matched_chunk(i)
                        elif type(i) is Later:
                            i = i.made()
                    except ToolwireError:
                        if got:
                            out.append((got, False))
                        raise
                    got.append(i)
            else:
                got = reader.feed(piece)
            out.append((got, reader.done))
        out.append((reader.close(), reader.done))
    except ToolwireError as exc:
        out.append(("error", type(exc).__name__, str(exc)))
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(_PUSHED_EVENTS, max_size=14), st.lists(st.integers(min_value=0), max_size=6))
@example(["data: [1]\n\n"], [])
def test_the_push_reader_s_fused_feed_is_its_feed(events: list[str], cuts: list[int]) -> None:
    """The same chunks a piece at a time (a match made the chunk the reader makes of it),
    the end marker read at the same piece, the same error naming the same event number
    (every match counted as an event)."""
    pieces = _pieces("".join(events), cuts, True)
    assert _push_read(pieces, True) == _push_read(pieces, False)
