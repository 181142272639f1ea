"""The text a streamed SSE body holds outside its fields is kept whole, cut anywhere.

``_RawLines`` keeps that text in one buffer (a blank CRLF line is a bare ``\\r``: raw text
too, and a list once held two entries for it every event). What it gives must be, byte for
byte, the lines split at ``\\n`` that do not start as an SSE field does, each with its line
end, however the body is cut; and the push reader must read a body cut anywhere as the
whole-body reader reads it (events, errors and their messages, which name positions in
that text).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.vendor_gemini.test_gemini_whole_fast import _bodies, _outcome

from toolwire.adapters import gemini
from toolwire.adapters.gemini.wire import _RawLines

_FIELDS = (b"data:", b":", b"event:", b"id:", b"retry:")


def _expected(body: bytes) -> str:
    """The rule, written plainly over the whole body."""
    lines = body.split(b"\n")
    kept = b""
    for n, line in enumerate(lines):
        if not line.startswith(_FIELDS):
            kept += line + (b"\n" if n < len(lines) - 1 else b"")
    return kept.decode("utf-8", errors="replace")


def _cut(body: bytes, cuts: list[int]) -> list[bytes]:
    at = sorted({min(c, len(body)) for c in cuts})
    return [body[a:b] for a, b in zip([0, *at], [*at, len(body)], strict=True)]


def _kept(pieces: list[bytes]) -> str:
    raw = _RawLines()
    for piece in pieces:
        assert raw.see(piece) is piece
    return raw.text()


def _pushed(pieces: list[bytes]) -> list[Any] | str:
    def chunks() -> Any:
        reader = gemini.FRAMING.reader()
        for piece in pieces:
            yield from reader.feed(piece)
        yield from reader.close()

    return _outcome(chunks())


_cuts = st.lists(st.integers(min_value=0, max_value=400), max_size=8)


@settings(max_examples=400)
@given(_bodies, _cuts)
def test_the_raw_text_is_the_lines_outside_the_fields_cut_anywhere(
    body: bytes, cuts: list[int]
) -> None:
    assert _kept(_cut(body, cuts)) == _expected(body)


def test_the_raw_text_of_every_byte_cut_and_of_single_bytes() -> None:
    body = (
        b"\xef\xbb\xbfdata: {}\r\n\r\n \r\n: ping\r\r\n\t\n"
        b'{"error": {"code": 500,\r\n\r\n "status": "INTERNAL"}}\r\nda'
    )
    expected = _expected(body)
    assert expected.startswith("\ufeffdata: {}\r\n\r\n \r\n")  # (the BOM hides a field)
    assert '{"error": {"code": 500,\r\n\r\n "status"' in expected
    assert expected.endswith("}}\r\nda")
    for cut in range(len(body) + 1):
        assert _kept([body[:cut], body[cut:]]) == expected, cut
    assert _kept([body[i : i + 1] for i in range(len(body))]) == expected


@settings(max_examples=300)
@given(_bodies, _cuts)
def test_a_body_pushed_in_any_pieces_reads_as_the_whole_body(body: bytes, cuts: list[int]) -> None:
    whole = _outcome(gemini.iter_chunks([body]))
    assert _pushed(_cut(body, cuts)) == whole
    assert _outcome(gemini.iter_chunks(_cut(body, cuts))) == whole


def test_an_error_body_after_blank_lines_is_named_where_it_breaks() -> None:
    good = b'data: {"candidates": []}\r\n\r\n'
    body = good * 3 + b"\r\n \r\n" + b'{"error": oops}\r\n'
    whole = _outcome(gemini.iter_chunks([body]))
    assert isinstance(whole, str)
    # the blank CRLF lines before the text count in the position the error names
    assert "line 6 column 11 (char 21)" in whole, whole
    for cut in range(len(body) + 1):
        assert _pushed([body[:cut], body[cut:]]) == whole, cut
