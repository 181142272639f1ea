"""``toolwire serve``'s streaming path for the vendors whose calls come whole or stay open
until the turn's end (Mistral, Ollama): a piece's events checked in one lazy pass and each
list written first and asked once for the agent's key send byte for byte what the general
way sends (each chunk's events checked on their own, every event masked and written on its
own: ``StreamRedactor.feed``), for bodies holding the key (in a call's arguments, its name,
text, split over two deltas), cut anywhere, cut short."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from benchmarks.served import KEY, frames_sent, in_memory_provider, run_input
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.driver import _runner
from toolwire.protocol.pushed import PushReading
from toolwire.protocol.redact import MASK
from toolwire.protocol.sse import event_json
from toolwire.protocol.stream_redact import StreamRedactor

VENDORS = ["mistral", "ollama"]


async def _frames(vendor: str, split: list[bytes]) -> bytes:
    provider = in_memory_provider(vendor, split, adapters.get(vendor).FRAMING.media_type)
    return b"".join(await frames_sent(provider, run_input(), [KEY]))


def _chunk_by_chunk(self: Any, reading: Any, piece: Any, failed: list[Exception]) -> Any:
    """The driver's step as it was: each chunk's events checked on their own."""
    return reading.gather(piece, self.framer.feed_events, _runner.PIECE_EVENTS, failed)


def _event_by_event(self: StreamRedactor, events: list[Any]) -> list[str]:
    """The response's writing the general way: every event masked and written alone."""
    return [event_json(e) for event in events for e in self.feed(event)]


def _served(vendor: str, split: list[bytes], general: bool) -> tuple[bytes, int]:
    """The bytes sent, and how many steps took the one-pass check."""
    step, texts = _runner._Run._read_piece, StreamRedactor.texts_of
    one_pass = PushReading.gather_checked
    passes = [0]

    def counted(self: PushReading, *args: Any) -> Any:
        passes[0] += 1
        return one_pass(self, *args)

    if general:
        _runner._Run._read_piece = _chunk_by_chunk  # type: ignore[method-assign]
        StreamRedactor.texts_of = _event_by_event  # type: ignore[method-assign]
    PushReading.gather_checked = counted  # type: ignore[method-assign]
    try:
        sent = asyncio.run(_frames(vendor, split))
    finally:
        _runner._Run._read_piece = step  # type: ignore[method-assign]
        StreamRedactor.texts_of = texts  # type: ignore[method-assign]
        PushReading.gather_checked = one_pass  # type: ignore[method-assign]
    return sent, passes[0]


def _keyed(vendor: str, shape: str, calls: int) -> bytes:
    """The bench's body with the key in it: in a call's arguments, as a call's name, split
    over two text deltas (its beginning ends the first)."""
    from benchmarks.suite import VENDORS as BENCH

    body = BENCH[vendor].build(shape, calls)
    body = body.replace(b"City 1", KEY.encode(), 1).replace(b"get_time", KEY.encode(), 1)
    half = len(KEY) // 2
    body = body.replace(b"word1 ", f"w {KEY[:half]}".encode(), 1)
    return body.replace(b"word2 ", f"{KEY[half:]} x".encode(), 1)


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
def test_the_served_bytes_are_the_general_ways(vendor: str, shape: str) -> None:
    body = _keyed(vendor, shape, 300)
    split = [body[i : i + 8192] for i in range(0, len(body), 8192)]
    fast, passes = _served(vendor, split, general=False)
    assert (fast, 0) == _served(vendor, split, general=True)
    # the way compared is the one-pass check (a current client's run: no events reshaped)
    assert passes > 0
    assert b'"RUN_FINISHED"' in fast
    assert KEY.encode() not in fast and MASK.encode() in fast  # (masked, not dropped)
    if shape != "text":
        assert fast.count(b'"TOOL_CALL_START"') >= 20


@settings(max_examples=10, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("vendor", VENDORS)
def test_the_served_bytes_are_the_general_ways_for_any_cut(
    vendor: str, data: st.DataObject
) -> None:
    body = _keyed(vendor, data.draw(st.sampled_from(["tool", "text", "parallel"])), 40)
    if data.draw(st.booleans()):  # cut short: a truncated stream is a RUN_ERROR either way
        body = body[: data.draw(st.integers(0, len(body)))]
    cuts = sorted(set(data.draw(st.lists(st.integers(1, max(len(body) - 1, 1)), max_size=10))))
    split = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    split = [p for p in split if p]
    fast, _ = _served(vendor, split, general=False)
    assert (fast, 0) == _served(vendor, split, general=True)
    assert KEY.encode() not in fast
