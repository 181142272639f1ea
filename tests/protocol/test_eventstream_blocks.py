"""The frame reader tells each frame's header block apart (``FrameReader._scan`` takes the
meaning of the frame before when the block is the same bytes, compared in place): blocks
of the same length that differ, blocks that differ in length, a block that is a prefix of
another, read in one piece and cut anywhere, each frame gets its own headers' meaning, and
only the frames of ``kind`` go to ``read``."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolwire.protocol.eventstream import FrameReader, read_frames, write_frame

#: event types: two of one length, one longer that begins as another, none
_TYPES = ["abcd", "wxyz", "abcde", None]


def _frame(name: str | None, n: int) -> bytes:
    headers: dict[str, Any] = {":message-type": "event"}
    if name is not None:
        headers[":event-type"] = name
    return write_frame(headers, b'{"n":%d}' % n)


def _meaning(headers: dict[str, Any]) -> Any:
    return headers.get(":event-type")


@given(
    st.lists(st.sampled_from(_TYPES), min_size=1, max_size=14),
    st.lists(st.integers(min_value=0), max_size=5),
    st.sampled_from(_TYPES),
)
def test_each_frame_gets_its_own_block_s_meaning(
    names: list[str | None], cuts: list[int], kind: str | None
) -> None:
    body = b"".join(_frame(name, n) for n, name in enumerate(names))
    points = sorted({c % (len(body) + 1) for c in cuts} | {0, len(body)})
    reader: FrameReader[Any] = FrameReader("test", _meaning)
    got: list[Any] = []
    for a, b in pairwise(points):
        got += reader.feed_items(
            body[a:b],
            lambda meaning, payload, n: ("chunk", meaning, payload.decode(), n),
            kind,
            lambda text: ("read", text),
        )
    reader.close()
    want = [
        ("read", f'{{"n":{n}}}')
        if name == kind and kind is not None
        else ("chunk", name, f'{{"n":{n}}}', n)
        for n, name in enumerate(names)
    ]
    assert got == want
    # the frames themselves, each with its own headers
    frames = list(read_frames([body[a:b] for a, b in pairwise(points)]))
    assert [f.headers.get(":event-type") for f in frames] == names
