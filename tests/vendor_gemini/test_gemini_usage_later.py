"""A usage record that provably has a count (``wire.counted``) is kept as its text and read
once, at the end: the turn's usage is the one the general path finds, whatever records
come, in whatever order, read fused or the general way between them."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.vendor_gemini.test_gemini_whole_fast import _events

from toolwire.adapters.gemini.wire import counted

_KEYS = st.sampled_from(
    [
        "promptTokenCount",
        "candidatesTokenCount",
        "totalTokenCount",
        "thoughtsTokenCount",
        "trafficType",
        "prompt_token_count",
    ]
)
_VALUES = st.one_of(
    st.integers(-5, 10**6),
    st.sampled_from([1.5, 2.0, -0.0, "3", None, True, [1], {"promptTokenCount": 1}]),
)


@st.composite
def _record(draw: Any) -> str:
    """A usage record's JSON text, as Gemini or a hostile server may write it: members in
    any order, a key repeated, an escape spelling a key, spaces or none."""
    members = draw(st.lists(st.tuples(_KEYS, _VALUES), max_size=4))
    spaced = draw(st.booleans())
    sep, colon = (", ", ": ") if spaced else (",", ":")
    texts = [f"{json.dumps(k)}{colon}{json.dumps(v, separators=(sep, colon))}" for k, v in members]
    if draw(st.booleans()) and texts:  # the first key spelled with an escape
        texts[0] = texts[0].replace("promptTokenCount", "promptTokenCoun\\u0074", 1)
    return "{" + sep.join(texts) + "}"


@settings(max_examples=400)
@given(_record())
def test_a_record_said_counted_is_read_as_the_general_reading_reads_it(text: str) -> None:
    """``counted`` says yes only to a record the fused reading may keep as text: a chunk
    carrying it gives the events and the usage the general reading (a dict fed) gives."""
    if counted(text):
        body = f"data: {_chunk(0, text, False)}\n\n"
        assert _events(body, True) == _events(body, False)


def test_counted_tells_the_plain_record_apart() -> None:
    assert counted('{"promptTokenCount":100,"candidatesTokenCount":1,"totalTokenCount":101}')
    assert counted('{"promptTokenCount": 3, "totalTokenCount": 4}')
    assert not counted('{"promptTokenCount": 3, "promptTokenCount": "x"}')
    assert not counted('{"promptTokenCoun\\u0074": 3}')
    assert not counted('{"promptTokenCount": 2.5}')
    assert not counted('{"totalTokenCount": 4, "promptTokenCount": 3}')


def _chunk(n: int, usage: str, general: bool) -> str:
    """A whole call with ``usage`` (read fused), or a signed text part (read the general
    way) with it."""
    part = (
        '{"text": "x", "thoughtSignature": "c2ln"}'
        if general
        else f'{{"functionCall": {{"id": "fc-{n}", "name": "f", "args": {{"a": {n}}}}}}}'
    )
    return (
        f'{{"candidates": [{{"content": {{"role": "model", "parts": [{part}]}}, "index": 0}}], '
        f'"usageMetadata": {usage}, "modelVersion": "gemini-x", "responseId": "r-1"}}'
    )


_COMMON = st.sampled_from(
    [
        '{"promptTokenCount":100,"candidatesTokenCount":1,"totalTokenCount":101}',
        '{"promptTokenCount": 7, "totalTokenCount": 9}',
        '{"promptTokenCount":100,"candidatesTokenCount":2,"totalTokenCount":102}',
        '{"trafficType": "ON_DEMAND"}',
        '{"totalTokenCount": 4}',
        "{}",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(_COMMON, _record()), st.booleans()),
        min_size=1,
        max_size=6,
    ),
    st.one_of(st.none(), _COMMON),
)
def test_the_turns_usage_is_the_general_paths(
    chunks: list[tuple[str, bool]], last: str | None
) -> None:
    texts = [_chunk(n, usage, general) for n, (usage, general) in enumerate(chunks)]
    finish = '"finishReason": "STOP", "index": 0}]'
    texts.append(
        '{"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, '
        + finish
        + ("}" if last is None else f', "usageMetadata": {last}}}')
    )
    body = "".join(f"data: {t}\r\n\r\n" for t in texts)
    fused = _events(body, fused=True)
    assert fused == _events(body, fused=False)


def test_the_last_counted_record_wins_over_a_later_one_without_counts() -> None:
    body = "".join(
        f"data: {t}\r\n\r\n"
        for t in [
            _chunk(0, '{"promptTokenCount":1,"totalTokenCount":1}', general=True),
            _chunk(1, '{"promptTokenCount":5,"totalTokenCount":8}', general=False),
            _chunk(2, '{"trafficType": "ON_DEMAND"}', general=False),
            '{"candidates": [{"finishReason": "STOP", "index": 0}]}',
        ]
    )
    fused = _events(body, fused=True)
    assert fused == _events(body, fused=False)
    assert not isinstance(fused, str)
    assert '"input_tokens":5' in fused[1][0] and '"total_tokens":8' in fused[1][0]
