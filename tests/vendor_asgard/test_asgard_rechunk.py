"""Any split of an Asgard SSE body into pieces decodes to the same events."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ALL, replay_cassette
from toolwire.adapters import asgard
from toolwire.errors import ToolwireError
from toolwire.losses import held
from toolwire.protocol import parse_sse

BODIES = [ex.body for name in ALL for ex in replay_cassette(name)]


def decode_pieces(pieces: list[bytes]) -> list[Any]:
    """The pieces through the adapter's own incremental ``sse_chunks`` into one decoder: its
    events, then the losses it announced (the recordings hold lossy material on purpose, so
    a split must lose exactly what the whole loses)."""
    out: list[Any] = []
    with held() as lost:
        try:
            out.extend(asgard.decode_stream(asgard.sse_chunks(iter(pieces))))
        except ToolwireError as exc:  # truncated / in-stream error: the same error either way
            out.append((type(exc).__name__, str(exc)))
    return [e if isinstance(e, tuple) else e.model_dump() for e in out] + [str(x) for x in lost]


def test_the_parts_decode_like_a_plain_parse_of_the_whole() -> None:
    """The reference: frames parsed by the shared whole-body parser and json, not the adapter."""
    for body in BODIES:
        want: list[Any] = []
        with held() as lost:
            try:
                for ev in asgard.decode_stream([json.loads(e.data) for e in parse_sse(body)]):
                    want.append(ev.model_dump())
            except ToolwireError as exc:
                want.append((type(exc).__name__, str(exc)))
        assert decode_pieces([body]) == want + [str(x) for x in lost]


@st.composite
def split(draw: st.DrawFn) -> tuple[int, list[bytes]]:
    which = draw(st.integers(0, len(BODIES) - 1))
    body = BODIES[which]
    cuts = sorted(draw(st.lists(st.integers(0, len(body)), max_size=40)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    return which, pieces


WHOLE = [decode_pieces([b]) for b in BODIES]


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(split())
def test_any_split_gives_identical_events(case: tuple[int, list[bytes]]) -> None:
    which, pieces = case
    assert b"".join(pieces) == BODIES[which]
    assert decode_pieces(pieces) == WHOLE[which]


def test_byte_at_a_time_including_multibyte_characters() -> None:
    body = next(b for b in BODIES if "Ü".encode() in b)
    assert decode_pieces([body[i : i + 1] for i in range(len(body))]) == decode_pieces([body])


def test_crlf_line_ends_decode_the_same() -> None:
    body = BODIES[0]
    assert decode_pieces([body.replace(b"\n", b"\r\n")]) == WHOLE[0]
