"""The short ways of Gemini's whole-body reading and whole calls give what the long ways give.

* A whole SSE body is split into lines again (as text) only when a line may be text a server
  wrote outside the SSE fields: the quick test must never miss such a line.
* A whole call's arguments keep the text Gemini wrote when ``read_written`` proves it is what
  ``json_text`` writes: never when it is not (a space, an escape, a float, a negative zero,
  a repeated key), and the events are the general path's either way.
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
from toolwire.adapters.gemini.wire import (
    DELTA_FORM,
    _only_fields,
    json_text,
    read_written,
)
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


# -- a whole call's arguments, as written

_KEY = st.sampled_from(["a", "b", "city", "é", "k 1", "x, y", "p: q", "{", "-0", "1.5"])
_SCALAR = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(
        [
            "",
            "City 5",
            "a, b",
            'say "hi"',
            "2024-01-05",
            "-0",
            "v1.2e3",
            "\u2028",
            "\x7f",
            "tab\t",
            "{x}",
        ]
    )
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEY, inner, max_size=3),
    max_leaves=6,
)
_ARGS = st.dictionaries(_KEY, _VALUE, max_size=4)


def _written(args: dict[str, Any], style: str) -> str:
    """The arguments as a vendor may write them: compactly, with Gemini's or json's spacing,
    ASCII only, or with a member repeated (its first value kept in the text, the last read)."""
    if style == "repeated" and args:
        key, value = next(iter(args.items()))
        inner = json.dumps(args, separators=(",", ":"), ensure_ascii=False)[1:-1]
        again = json.dumps({key: value}, separators=(",", ":"), ensure_ascii=False)[1:-1]
        return "{" + (inner + "," if inner else "") + again + "}"
    seps = {
        "compact": (",", ":"),
        "gemini": (",", ": "),
        "default": (", ", ": "),
        "ascii": (",", ":"),
        "repeated": (",", ":"),
    }
    return json.dumps(args, separators=seps[style], ensure_ascii=style == "ascii")


_STYLES = st.sampled_from(["compact", "gemini", "default", "ascii", "repeated"])
_EXTRA = st.sampled_from(
    [
        "",
        '{"z":-0}',
        '{"z":1.0}',
        '{"z":1E2}',
        '{"z":[-0,0]}',
        '{"z":"\\/"}',
        '{"a":1,"a":1}',
        '{"z":[1,2.5e-3]}',
        '{"z":"1.5e3","y":-7}',
        '{"z":' + "9" * 5000 + "}",
        '{"z":1.' + "5" * 5000 + "}",
    ]
)


def _args_text(args: dict[str, Any], style: str, extra: str) -> str:
    """``_written``, or a hand-written text (a negative zero, a whole double, an exponent, an
    escape JSON need not write, a repeated key with the same value)."""
    return extra or _written(args, style)


def _chunk(
    n: int, args_text: str, usage: str = '{"promptTokenCount": 3}', kind: str = "call"
) -> str:
    """A chunk of one call (``kind``: its own id, an id used before, none), or text before
    it (in the chunk before, or in the same chunk's parts)."""
    call_id = {"call": f'"id": "fc-{n}", ', "repeat": '"id": "fc-0", ', "no id": ""}
    call = f'{{"functionCall": {{{call_id.get(kind, "")}"name": "f", "args": {args_text}}}}}'
    parts = {"text": '{"text": "hi"}', "text, call": f'{{"text": "hi"}}, {call}'}
    return (
        '{"candidates": [{"content": {"role": "model", "parts": ['
        f"{parts.get(kind, call)}]}}, "
        '"index": 0}], '
        f'"usageMetadata": {usage}, '
        '"modelVersion": "gemini-x", "responseId": "r-1"}'
    )


_KINDS = st.sampled_from(["call", "call", "repeat", "no id", "text", "text, call"])


#: usage records: counts, and records the rule must tell apart (no count, a count that is not
#: a number, the key repeated, numbers Python reads otherwise or not at all)
_USAGE = st.sampled_from(
    [
        '{"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4}',
        '{"promptTokenCount":7,"totalTokenCount":9,"thoughtsTokenCount":2}',
        '{"promptTokenCount": 3, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 3}]}',
        '{"totalTokenCount": 4}',
        '{"trafficType": "ON_DEMAND"}',
        '{"promptTokenCount": "3"}',
        '{"promptTokenCount": 3, "promptTokenCount": "x"}',
        '{"promptTokenCount": 3, "promptTokenCount": 4}',
        '{"promptTokenCount": -2, "totalTokenCount": 1}',
        '{"promptTokenCount": 2.5}',
        '{"promptTokenCount": 1e400}',
        '{"promptTokenCount": ' + "9" * 5000 + "}",
        '{"totalTokenCount": ' + "9" * 5000 + "}",
        "{}",
    ]
)


@settings(max_examples=300)
@given(_ARGS, _STYLES, _EXTRA)
def test_arguments_kept_as_written_are_what_json_text_writes(
    args: dict[str, Any], style: str, extra: str
) -> None:
    text = _args_text(args, style, extra)
    found = DELTA_FORM.pattern.fullmatch(f"data: {_chunk(0, text)}\n\n")
    if found is None:
        return  # (not matched: read the general way, nothing kept)
    assert found.group("args") == text
    value, kept = read_written(text)
    assert value == json.loads(text)
    assert [type(v) for v in _leaves(value)] == [type(v) for v in _leaves(json.loads(text))]
    if kept:
        assert json_text(value, "x") == text


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('{"city":"City 5","days":[1,2,3],"units":"celsius"}', True),
        ("{}", True),
        ('{"d":"2024-01-05","n":-10,"b":[true,false,null]}', True),
        ('{"city": "City 5"}', False),  # spaced
        ('{"a":1, "b":2}', False),
        ('{"a":"\\u00e9"}', False),  # an escape
        ('{"a":1.0}', False),  # a whole double, written 1
        ('{"a":1e2}', False),
        ('{"a":-0}', False),  # written 0
        ('{"a":1,"a":2}', False),  # repeated: the last is read
        ('{"a":{"b":1}}', False),  # (nested objects: written again)
        ('{"v":"v1.2e3","w":"1.5","n":[10,-3]}', True),  # (only numbers are read as numbers)
        ('{"a":[1,2.0]}', False),  # (written [1,2])
        ('{"a":-0.0}', False),
        ('{"a":1E+2}', False),
        ('{"a":NaN}', False),  # (json.loads reads it; json_text refuses it)
        ('{"a":-Infinity}', False),
    ],
)
def test_which_arguments_are_kept_as_written(text: str, kept: bool) -> None:
    value, found = read_written(text)
    assert found is kept
    assert repr(value) == repr(json.loads(text))  # (the same value, floats and NaN alike)
    if kept:
        assert json_text(value, "x") == text
    elif "NaN" in text or "Infinity" in text:
        with pytest.raises(ToolwireError):
            json_text(value, "x")
    else:
        assert json_text(value, "x") != text or text == '{"a":{"b":1}}'


def _events(body: str, fused: bool) -> Any:
    """The stream's events (dumped) or its error: read fused from the body, or the general
    way (each chunk parsed, then fed)."""
    decoder = gemini.Decoder()
    try:
        if fused:
            events = list(decoder.events(gemini.sse_chunks(body.encode("utf-8"))))
        else:
            events = []
            for chunk in gemini.sse_chunks(body.encode("utf-8")):
                events += decoder.feed(dict(chunk))
            events += decoder.close()
    except ToolwireError as exc:
        # (a matched event the rule passes is parsed alone: its error names it event 0, a
        # difference of the fused reading's that predates the short ways tested here)
        return f"{type(exc).__name__}: " + re.sub(r"SSE event [0-9]+", "SSE event n", str(exc))
    usage = [u.model_dump_json() for u in decoder.usage]
    return [e.model_dump_json(by_alias=True) for e in events], usage


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_ARGS, _STYLES, _EXTRA, _USAGE, _KINDS), min_size=1, max_size=5))
def test_a_stream_of_whole_calls_reads_as_the_general_path_reads_it(
    calls: list[tuple[dict[str, Any], str, str, str, str]],
) -> None:
    chunks = [_chunk(n, _args_text(*call[:3]), call[3], call[4]) for n, call in enumerate(calls)]
    if len(chunks) > 2:  # (a signed text part between them, read the general way)
        chunks.insert(
            2,
            '{"candidates": [{"content": {"role": "model", "parts": [{"text": "x", '
            '"thoughtSignature": "c2ln"}]}, "index": 0}], '
            f'"usageMetadata": {calls[-1][3]}, "responseId": "r-1"}}',
        )
    chunks.append(
        '{"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, '
        '"finishReason": "STOP", "index": 0}]}'
    )
    body = "".join(f"data: {c}\r\n\r\n" for c in chunks)
    assert _events(body, fused=True) == _events(body, fused=False)


@pytest.mark.parametrize("fused", [True, False])
def test_a_call_without_an_id_or_after_text_reads_in_order_with_no_vendor_id(fused: bool) -> None:
    body = "".join(
        f"data: {c}\r\n\r\n"
        for c in [
            _chunk(0, '{"a":1}', kind="text"),
            _chunk(1, '{"a":1}', kind="no id"),
            _chunk(0, '{"a":2}'),
            _chunk(3, '{"a":3}', kind="repeat"),
            '{"candidates": [{"finishReason": "STOP", "index": 0}]}',
        ]
    )
    result = _events(body, fused)
    assert not isinstance(result, str), result
    events = [json.loads(e) for e in result[0]]
    kinds = [e["type"] for e in events]
    assert kinds == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",  # (ended before the call starts)
        *["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"] * 3,
    ]
    starts = [e for e in events if e["type"] == "TOOL_CALL_START"]
    assert "metadata" not in starts[0]  # a minted id: no vendor id to keep
    assert starts[0]["toolCallId"] not in ("fc-0", "fc-1", "fc-3")
    assert starts[1]["toolCallId"] == "fc-0" and "metadata" not in starts[1]
    assert starts[2]["toolCallId"] != "fc-0"  # a repeated id gets its own, and keeps the vendor's
    assert "fc-0" in json.dumps(starts[2]["metadata"])
    assert [e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS"] == [
        '{"a":1}',
        '{"a":2}',
        '{"a":3}',
    ]


def test_a_usage_record_read_again_after_another_read_the_general_way_counts_again() -> None:
    # the rule skips a record it read last; one the general way read in between is newer
    first = '{"promptTokenCount": 3, "totalTokenCount": 4}'
    other = '{"promptTokenCount": 5, "totalTokenCount": 9}'
    signed = (  # (a signed text part: read the general way)
        '{"candidates": [{"content": {"role": "model", "parts": [{"text": "x", '
        '"thoughtSignature": "c2ln"}]}, "index": 0}], '
        f'"usageMetadata": {other}, "modelVersion": "gemini-x", "responseId": "r-1"}}'
    )
    chunks = [
        _chunk(9, "{}", other),  # (the first chunk: read the general way)
        _chunk(0, '{"a":1}', first),
        signed,
        _chunk(1, '{"a":1}', first),
        '{"candidates": [{"finishReason": "STOP", "index": 0}]}',
    ]
    body = "".join(f"data: {c}\r\n\r\n" for c in chunks)
    fused = _events(body, fused=True)
    assert fused == _events(body, fused=False)
    assert not isinstance(fused, str)
    assert '"input_tokens":3' in fused[1][0] and '"total_tokens":4' in fused[1][0]
