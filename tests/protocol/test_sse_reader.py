"""The SSE reader against bodies generated from known events: every line end (LF, CRLF, CR),
comments, ``retry``/unknown fields, ``id`` persistence, multi-line data, a BOM, and any
split of the bytes or text. The expected events come from what the generator wrote."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import LimitExceeded, TruncatedStream, VendorDataError
from toolwire.protocol.limits import configure, limits
from toolwire.protocol.sse import SSEEvent, SSEParser

# a value: any text without line ends (":" and leading spaces included)
_VALUE = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12
)
_NAME = st.text(alphabet="abcdefgh_", min_size=1, max_size=8)
_END = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def _event(draw: Any) -> tuple[list[tuple[str, str]], list[str], str | None, str | None]:
    """(lines as (kind, text), data values, event name, id) of one event."""
    lines: list[tuple[str, str]] = []
    values: list[str] = []
    name: str | None = None
    ident: str | None = None
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["data", "data", "event", "id", "comment", "retry", "other"]))
        value = draw(_VALUE)
        space = draw(st.booleans())
        written = (" " if space else "") + value
        read = written[1:] if written.startswith(" ") else written  # one leading space goes
        if kind == "data":
            if draw(st.booleans()) or written:
                lines.append((kind, f"data:{written}"))
            else:
                lines.append((kind, "data"))  # a field name alone: an empty value
            values.append(read)
        elif kind == "event":
            lines.append((kind, f"event:{written}"))
            name = read
        elif kind == "id":
            lines.append((kind, f"id:{written}"))
            if "\x00" not in read:  # an id holding NUL is ignored (the SSE standard)
                ident = read
        elif kind == "comment":
            lines.append((kind, f":{value}"))
        elif kind == "retry":
            lines.append((kind, f"retry:{draw(st.integers(0, 9999))}"))
        else:
            lines.append((kind, f"{draw(_NAME)}x:{written}"))
    return lines, values, name, ident


@st.composite
def _body(draw: Any) -> tuple[str, list[SSEEvent], str | None]:
    """(the text, its events, the last id it set)."""
    events = draw(st.lists(_event(), max_size=6))
    text: list[str] = ["\ufeff"] if draw(st.booleans()) else []
    expected: list[SSEEvent] = []
    last_id: str | None = None
    previous = ""
    for lines, values, name, ident in events:
        for _, line in lines:
            end = draw(_END)
            text.append(line + end)
            previous = end
        # a blank line ends the event; after a CR, a blank line's LF would join it as a CRLF
        end = draw(st.sampled_from(["\r\n", "\r"] if previous == "\r" else ["\n", "\r\n", "\r"]))
        text.append(end)
        previous = end
        if ident is not None:
            last_id = ident
        if values:
            expected.append(SSEEvent("\n".join(values), name or None, last_id))
    return "".join(text), expected, last_id


def _pieces(data: Any, cuts: list[int]) -> list[Any]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@settings(max_examples=300)
@given(_body(), st.lists(st.integers(min_value=0), max_size=10), st.booleans())
def test_generated_bodies_give_their_events_in_any_split(
    body: tuple[str, list[SSEEvent], str | None], cuts: list[int], as_bytes: bool
) -> None:
    text, expected, _ = body
    data: Any = text.encode("utf-8") if as_bytes else text
    parser = SSEParser()
    got = [e for piece in _pieces(data, cuts) for e in parser.feed(piece)]
    got += parser.close()
    assert got == expected
    assert not parser.pending


@given(_body())
def test_an_unended_last_event_is_flushed_only_when_asked(
    body: tuple[str, list[SSEEvent], str | None],
) -> None:
    text, expected, last_id = body
    cut = text + "data: tail"
    parser = SSEParser()
    assert parser.feed(cut) + parser.close() == expected
    parser = SSEParser()
    flushed = parser.feed(cut) + parser.close(flush_incomplete=True)
    assert flushed == [*expected, SSEEvent("tail", None, last_id)]


def test_a_crlf_split_across_pieces_is_one_line_end() -> None:
    parser = SSEParser()
    got = parser.feed(b"data: a\r") + parser.feed(b"\n\r") + parser.feed(b"\n") + parser.close()
    assert got == [SSEEvent("a")]
    parser = SSEParser()  # a lone CR at the end of a piece, then a plain line
    got = parser.feed("data: a\r") + parser.feed("data: b\r\r") + parser.close()
    assert got == [SSEEvent("a\nb")]


def test_a_body_cut_inside_a_character_or_not_utf8_is_a_named_error() -> None:
    parser = SSEParser("v")
    parser.feed("data: é".encode()[:-1])
    with pytest.raises(TruncatedStream, match="inside a UTF-8 character"):
        parser.close()
    with pytest.raises(VendorDataError, match=r"SSE body byte 6: not UTF-8"):
        SSEParser("v").feed(b"data: \xff\n\n")


def test_the_event_cap_holds_for_one_piece_of_many_lines() -> None:
    previous = limits()
    configure(max_event_chars=1000)
    try:
        with pytest.raises(LimitExceeded, match="max_event_chars"):
            SSEParser("v").feed("data: xxxxxxxxx\n" * 200)  # one event, no blank line
        parser = SSEParser("v")  # many small events under the cap each: fine
        assert len(parser.feed("data: xxxxxxxxx\n\n" * 200)) == 200
    finally:
        configure(max_event_chars=previous.max_event_chars)
