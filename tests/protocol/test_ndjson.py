"""protocol.ndjson: NDJSON read push-style (split anywhere, ``\\n`` only, bounded, truncation
told) and written so a Python-style line splitter reads it back whole."""

from __future__ import annotations

import json
import re
import warnings
from itertools import pairwise

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolwire.errors import LimitExceeded, ToolwireError, TruncatedStream, VendorDataError
from toolwire.protocol._fastpath import ABSENT, OTHERS, SCALAR, DeltaForm, Later, Text
from toolwire.protocol.limits import configure, limits
from toolwire.protocol.ndjson import NDJSONReader, frame_ndjson, ndjson_framing, ndjson_objects

OBJECTS = [
    {"n": 1, "text": "plain"},
    {"n": 2, "text": "line\u2028separator, paragraph\u2029separator, next line\x85here"},
    {"n": 3, "text": "é ✓ 🦜", "nested": {"a": [1, 2, {"b": None}]}},
    {"n": 4, "done": True},
]
BODY = b"".join(
    json.dumps(o, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for o in OBJECTS
)


def _done(obj: dict[str, object]) -> bool:
    return obj.get("done") is True


def test_a_whole_body_reads_as_its_lines() -> None:
    assert list(ndjson_objects(BODY, "v")) == OBJECTS


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(BODY)), max_size=12))
def test_any_split_of_the_bytes_gives_the_same_objects(cuts: list[int]) -> None:
    at = sorted(set(cuts))
    pieces = [BODY[a:b] for a, b in zip([0, *at], [*at, len(BODY)], strict=True)]
    assert list(ndjson_objects(pieces, "v")) == OBJECTS


def test_unicode_line_breaks_inside_strings_never_end_a_line() -> None:
    # what str.splitlines (and httpx's iter_lines) would split at
    text = BODY.decode()
    assert len(text.splitlines()) > len(OBJECTS)
    assert [o["text"] for o in ndjson_objects(text, "v") if "text" in o] == [
        o["text"] for o in OBJECTS if "text" in o
    ]


def test_crlf_blank_lines_and_a_last_line_without_its_newline() -> None:
    body = b'{"a":1}\r\n\r\n  \n{"b":2}'
    assert list(ndjson_objects(body, "v")) == [{"a": 1}, {"b": 2}]


def test_the_terminal_object_sets_done_and_later_lines_still_come() -> None:
    reader = NDJSONReader("v", _done)
    assert reader.feed(BODY[:-1]) == OBJECTS[:-1] and not reader.done  # its \n not yet come
    assert reader.feed(b'\n{"late":true}\n') == [OBJECTS[-1], {"late": True}]
    assert reader.done
    assert reader.close() == []


def test_a_body_cut_inside_a_line_is_truncated() -> None:
    reader = NDJSONReader("v", _done)
    reader.feed(b'{"a":1}\n{"b":')
    assert reader.pending
    with pytest.raises(TruncatedStream, match="inside line 2"):
        reader.close()


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"a":1}\n[1,2]\n', "line 2: expected a JSON object, got list"),
        (b'{"a":1}\nnot json\n', "line 2: not JSON"),
        (b'{"a":"\xff"}\n', "line 1"),
    ],
)
def test_a_bad_line_is_named(body: bytes, words: str) -> None:
    with pytest.raises(VendorDataError, match=words):
        list(ndjson_objects(body, "v"))


def test_a_line_past_the_cap_is_refused_before_it_ends() -> None:
    previous = configure(max_event_chars=1000)
    try:
        reader = NDJSONReader("v")
        with pytest.raises(LimitExceeded, match="max_event_chars"):
            for _ in range(100):
                reader.feed(b"x" * 50)  # never a newline: held, and counted
    finally:
        configure(max_event_chars=previous.max_event_chars)


def test_written_lines_survive_a_splitlines_reader() -> None:
    written = frame_ndjson(OBJECTS, "v")
    assert written.endswith(b"\n") and written.count(b"\n") == len(OBJECTS)
    # httpx's own line decoder, the one the vendor SDKs read NDJSON with
    decoder = httpx._decoders.LineDecoder()
    lines = decoder.decode(written.decode()) + decoder.flush()
    assert [json.loads(line) for line in lines] == OBJECTS
    assert list(ndjson_objects(written, "v")) == OBJECTS


@pytest.mark.parametrize(
    ("chunk", "words"),
    [
        ({"a": object()}, "payload 0: cannot be written as JSON"),
        (["not", "an", "object"], "payload 0: expected a JSON object"),
    ],
)
def test_what_json_cannot_hold_is_named(chunk: object, words: str) -> None:
    with pytest.raises(VendorDataError, match=words):
        frame_ndjson([chunk], "v")


def test_the_framing_object_reads_and_writes() -> None:
    framing = ndjson_framing("v", terminal=_done)
    assert framing.name == "ndjson" and "ndjson" in framing.media_type
    reader = framing.reader()
    got = reader.feed(framing.write(OBJECTS))
    assert got == OBJECTS and reader.done
    assert list(framing.read([framing.write(OBJECTS[:2]), framing.write(OBJECTS[2:])])) == OBJECTS


# -- read fused (``feed_items``): the lines a line form matches handed on as matches

#: a line form of any vendor's shape: an object whose ``t`` is a string, other scalars beside,
#: never the terminal object (a form must not match it: ``DeltaForm``'s ``lines``)
_LINE_FORM = DeltaForm({OTHERS: SCALAR, "t": Text("t"), "done": ABSENT}, lines=True)
_LINE = st.one_of(
    st.builds(
        lambda t, n, ascii_only: json.dumps(
            {"n": n, "t": t}, separators=(",", ":"), ensure_ascii=ascii_only
        ),
        st.text(st.characters(min_codepoint=1, max_codepoint=0x10FFFF), max_size=30),
        st.integers(),
        st.booleans(),
    ),
    st.sampled_from(
        [
            "",
            " ",
            "\r",
            '{"t":"x"}\r',  # a CR before the line end: JSON whitespace
            '{"t":"x"',  # not JSON
            '{"t":"x"} {}',
            "[1]",
            '\ufeff{"t":"x"}',
            '{"t":"\\ud800"}',
            '{"t":"x","done":true}',  # the terminal object (no match: it has another key)
            '{"done":true,"t":"x"}',
            '{"n":' + "9" * 5000 + ',"t":"x"}',
            '{"t":"' + "é" * 40 + '"}',  # long in UTF-8: past a small cap in bytes only
        ]
    ),
)


def _read(pieces: list[bytes], fused: bool) -> tuple[object, ...]:
    """Each piece's objects (a match made its object), the error, ``done`` at the end, the
    warnings; and how many lines came as matches."""
    reader = NDJSONReader("v", _done)
    got: list[object] = []
    matched = 0
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for piece in pieces:
                items = reader.feed_items(piece, _LINE_FORM.pattern if fused else None)
                matched += sum(type(x) is re.Match for x in items)
                made: list[object] = []  # (each in its turn: a line left Later made here)
                got.append(made)
                for x in items:
                    if type(x) is re.Match:
                        made.append(reader.matched_chunk(x))
                    else:
                        made.append(x.made() if type(x) is Later else x)
            got.append(reader.close())
        except ToolwireError as exc:
            error = (type(exc).__name__, str(exc))
    return got, error, reader.done, [str(w.message) for w in caught], matched


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_LINE, max_size=10),
    st.booleans(),
    st.lists(st.integers(min_value=0), max_size=8),
    st.sampled_from([None, 60, 1000]),
)
@example(['{"t":"' + "é" * 40 + '"}', '{"t":"x"}'], True, [], 60)  # (past the cap in bytes)
@example(['{"t":"x"}', '{"t":"y"}', "[1]"], True, [], None)  # (the bad line's number)
def test_a_fused_reading_gives_what_feed_gives(
    lines: list[str], ended: bool, cuts: list[int], cap: int | None
) -> None:
    """Lines cut anywhere (hostile ones among them: not JSON, not objects, blank, a lone
    surrogate, a number Python will not read, a last line without its ``\\n``, a small
    cap passed in bytes only): the objects piece by piece, the error (its line number),
    and ``done`` are those of ``feed``; and a line the form takes does come as a match."""
    text = "\n".join(lines) + ("\n" if ended else "")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return  # (no UTF-8 for it: the lone surrogate's escape is among the lines)
    body = text.encode("utf-8")
    points = sorted({c % (len(body) + 1) for c in cuts} | {0, len(body)})
    pieces = [body[a:b] for a, b in pairwise(points)]
    previous = limits().max_event_chars
    if cap is not None:
        configure(max_event_chars=cap)
    try:
        fused = _read(pieces, True)
        plain = _read(pieces, False)
    finally:
        configure(max_event_chars=previous)
    assert fused[:4] == plain[:4]
    assert plain[4] == 0
    if (
        plain[1] is None
        and len(pieces) == 1
        and any(_LINE_FORM.pattern.fullmatch(line + "\n") for line in lines[:-1])
    ):
        assert fused[4] > 0


@pytest.mark.parametrize(
    "texts",
    [
        ["plain"],
        ["a\u2028b", "plain", "c\u2029d\x85e"],
        ["é ☃ only", "\u2028"],
        ["\ud800 lone", "ascii after"],
    ],
)
def test_each_line_is_its_object_written_alone(texts: list[str]) -> None:
    """The lines joined and escaped in one pass are each object's own line: compact JSON,
    the three line breakers escaped, a lone surrogate as its escape."""
    chunks = [{"n": i, "t": t} for i, t in enumerate(texts)]
    expected = b"".join(
        json.dumps(c, separators=(",", ":"), ensure_ascii=False)
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
        .replace("\x85", "\\u0085")
        .replace("\ud800", "\\ud800")
        .encode()
        + b"\n"
        for c in chunks
    )
    assert frame_ndjson(chunks, "v") == expected
    if not any("\ud800" in t for t in texts):  # (a lone surrogate reads back as U+FFFD)
        assert list(ndjson_objects(expected, "v")) == chunks


def test_a_failing_chunk_is_named_by_its_place() -> None:
    chunks = [{"a": 1}, {"b": 2}, {"c": object()}]
    with pytest.raises(VendorDataError, match="payload 2: cannot be written as JSON"):
        frame_ndjson(chunks, "v")
    with pytest.raises(VendorDataError, match="payload 1: expected a JSON object"):
        frame_ndjson([{"a": 1}, "text"], "v")
