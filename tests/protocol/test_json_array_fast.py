"""The JSON-array reader's two ways (json's C parser over whole elements, the byte scanner
over an element a piece cuts) give the same elements and the same errors."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import ToolwireError
from toolwire.protocol.fields import Fields
from toolwire.protocol.json_array import JsonArrayReader
from toolwire.protocol.limits import limits

FIELDS = Fields("gemini")
_TEXT = st.text(alphabet=st.sampled_from('ab"\\/{}[],: \u00e9\u4e2d\U0001f600\n'), max_size=6)
_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_OBJECTS = st.lists(st.dictionaries(_TEXT, _VALUE, max_size=3), max_size=5)


def _read(body: bytes, pieces: list[bytes]) -> tuple[list[dict[str, Any]], str | None]:
    reader = JsonArrayReader(FIELDS)
    out: list[dict[str, Any]] = []
    try:
        for piece in pieces:
            out.extend(reader.feed(piece))
        reader.close()
    except (ToolwireError, RecursionError) as exc:
        return out, f"{type(exc).__name__}: {exc}"
    return out, None


def _bytewise(body: bytes) -> list[bytes]:
    """One byte a piece: every element goes the byte scanner's way."""
    return [body[i : i + 1] for i in range(len(body))]


@settings(max_examples=200)
@given(_OBJECTS, st.sampled_from([",\r\n", ",", " , "]), st.integers(min_value=1, max_value=40))
def test_whole_elements_read_as_the_byte_scanner_reads_them(
    objects: list[dict[str, Any]], sep: str, size: int
) -> None:
    body = ("[" + sep.join(json.dumps(o, ensure_ascii=False) for o in objects) + "]").encode()
    slow = _read(body, _bytewise(body))
    assert slow == (objects, None)
    assert _read(body, [body]) == slow
    assert _read(body, [body[i : i + size] for i in range(0, len(body), size)]) == slow


@settings(max_examples=200)
@given(_OBJECTS, st.integers(min_value=0), st.binary(min_size=1, max_size=3))
def test_a_broken_body_fails_the_same_way(
    objects: list[dict[str, Any]], at: int, junk: bytes
) -> None:
    body = ("[" + ",".join(json.dumps(o, ensure_ascii=False) for o in objects) + "]").encode()
    cut = at % (len(body) + 1)
    broken = body[:cut] + junk + body[cut:]
    whole, bytewise = _read(broken, [broken]), _read(broken, _bytewise(broken))
    # a piece that fails hands on none of its elements (as before), so the whole body's
    # elements are a prefix of those read byte by byte; and the same error
    assert whole[0] == bytewise[0][: len(whole[0])]
    assert (whole[1] is None) == (bytewise[1] is None)
    # the same error; its excerpt of the bytes after the place is cut by the piece's end
    assert _without_excerpt(whole[1]) == _without_excerpt(bytewise[1])


def _without_excerpt(error: str | None) -> str | None:
    """The error less the bytes it quotes (a bytes repr takes ' or " as its quote)."""
    if error is None:
        return None
    return re.split(r": b['\"]", error)[0].split(", got ")[0]


# -- an element handed on as checked is what the decoder's own check would let through

_SURROGATE_TEXTS = st.sampled_from(["plain", "\\ud800", "a\\udc00b", "\\ud83d\\ude00", "\u00e9"])


def _element(text: str, depth: int) -> str:
    """A Gemini chunk as JSON text: a text part (``text`` spelled as JSON, escapes and lone
    surrogates included), nested ``depth`` lists deep in a member the decoder ignores."""
    nested = "[" * depth + "1" + "]" * depth
    return (
        '{"candidates": [{"content": {"role": "model", "parts": [{"text": "'
        + text
        + '"}]}, "index": 0}], "responseId": "r", "extra": '
        + nested
        + "}"
    )


def _decoded(elements: list[Any]) -> Any:
    """The events and warnings (or the error) of a Gemini turn fed ``elements``."""
    import warnings

    from toolwire.adapters import gemini

    decoder = gemini.Decoder()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            events = [e for el in elements for e in decoder.feed(el)]
        except ToolwireError as exc:
            return f"{type(exc).__name__}: {exc}", [str(w.message) for w in seen]
    dumped = [e.model_dump_json(by_alias=True) for e in events]
    return dumped, [str(w.message) for w in seen], [loss.reason for loss in decoder.losses]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_SURROGATE_TEXTS, st.integers(0, 70)), min_size=1, max_size=4))
def test_elements_read_whole_decode_as_plain_dicts_do(items: list[tuple[str, int]]) -> None:
    # (a lone surrogate or nesting past the cap: never handed on as checked)
    body = ("[" + ",\r\n".join(_element(t, d) for t, d in items) + "]").encode()
    read, error = _read(body, [body])
    assert error is None
    plain = [json.loads(json.dumps(el)) for el in read]  # (plain dicts: checked when fed)
    assert _decoded(read) == _decoded(plain)
    cap = limits().max_json_depth
    escaped = {"\\ud800", "a\\udc00b", "\\ud83d\\ude00"}  # (surrogates, escaped: walked)
    assert [type(el) is dict for el in read] == [
        t in escaped or _element(t, d).count("[") + _element(t, d).count("{") >= cap
        for t, d in items
    ]
