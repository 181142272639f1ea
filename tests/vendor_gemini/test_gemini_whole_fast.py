"""The short ways of Gemini's whole-body reading and whole calls give what the long ways give.

* A whole SSE body is split into lines again (as text) only when a line may be text a server
  wrote outside the SSE fields: the quick test must never miss such a line.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters import gemini
from toolwire.adapters.gemini import wire
from toolwire.adapters.gemini.wire import _only_fields
from toolwire.errors import ToolwireError

_FIELDS = ("data:", ":", "event:", "id:", "retry:")


def _raw_lines(body: bytes) -> list[str]:
    """The lines outside the SSE fields, as the whole body's reading names them (the rule)."""
    text = body.decode("utf-8-sig")
    return [
        line
        for line in re.split(r"\r\n|\r|\n", text)
        if line.strip() and not line.startswith(_FIELDS)
    ]


_CHUNK = json.dumps(
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "index": 0}]}
)
#: the lines a body may hold: fields, blank ones, spaces, text outside the fields, and
#: characters other splits break lines at (U+2028, U+0085, form feed, vertical tab)
_line = st.sampled_from(
    [
        f"data: {_CHUNK}",
        "data:" + _CHUNK,
        ": keep-alive",
        "event: message",
        "id: 7",
        "retry: 10",
        "",
        " ",
        "\t",
        "\u2028",
        "\x85",
        "\x0c",
        '{"error": {"code": 500, "message": "boom", "status": "INTERNAL"}}',
        "oops",
        "dat",
        "data",
        "\ufeffdata: {}",
        "  data: x",
        "é",
    ]
)
_bodies = st.tuples(
    st.lists(st.tuples(_line, st.sampled_from(["\n", "\r\n", "\r"])), max_size=10),
    st.booleans(),
    st.booleans(),
).map(
    lambda t: (
        (("\ufeff" if t[1] else "") + "".join(a + b for a, b in t[0])).encode("utf-8")
        + (b"tail" if t[2] else b"")
    )
)


@settings(max_examples=400)
@given(_bodies)
def test_a_body_cleared_as_fields_only_has_no_line_outside_them(body: bytes) -> None:
    if _only_fields(body):
        assert _raw_lines(body) == []


def test_the_quick_test_clears_a_plain_stream_and_not_an_error_line() -> None:
    plain = f"data: {_CHUNK}\r\n\r\n: ping\r\n\r\ndata: {_CHUNK}\r\n\r\n".encode()
    assert _only_fields(plain)
    assert not _only_fields(plain + b'{"error": {"code": 500}}\r\n')
    assert not _only_fields(b"\xef\xbb\xbf" + plain)  # (the long way reads a BOM)


def _outcome(chunks: Any) -> list[Any] | str:
    try:
        return list(chunks)
    except ToolwireError as exc:
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=300)
@given(_bodies)
def test_a_whole_body_reads_as_the_long_way_reads_it(body: bytes) -> None:
    # the quick test, and the long way alone (every body split again as text)
    quick = _outcome(gemini.sse_chunks(body))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wire, "_only_fields", lambda body: False)
        assert quick == _outcome(gemini.sse_chunks(body))
