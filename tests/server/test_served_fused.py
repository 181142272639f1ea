"""``toolwire serve``'s streaming path reads the vendor's body fused (``protocol.pushed``):
the vendor provider's SDK client on an in-memory transport sending the body in pieces cut
anywhere, the response's frames are byte for byte those of the general way (the push
reader's dicts fed chunk by chunk), a body cut short ending in the same ``RUN_ERROR``; and
the deltas reach the decoder's rule as matches."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from benchmarks.served import KEY, frames_sent, in_memory_provider, run_input
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import adapters, clients
from toolwire.protocol import pushed

VENDORS = ["anthropic", "openai_chat", "openai_responses"]


def _provider(vendor: str, split: list[bytes]) -> Any:
    return in_memory_provider(vendor, split, adapters.get(vendor).FRAMING.media_type)


async def _frames(vendor: str, split: list[bytes]) -> list[bytes]:
    return await frames_sent(_provider(vendor, split), run_input(), [KEY])


def _served(vendor: str, split: list[bytes], fused: bool) -> tuple[list[bytes], int]:
    """The frames sent, and how many deltas reached a decoder's rule as matches."""
    seen = [0]
    reading = pushed.PushReading
    gather, gather_checked = reading.gather, reading.gather_checked
    reader = clients.StainlessClient.reader

    def counting(step: Any) -> Any:
        def counted(self: Any, piece: Any, *args: Any) -> Any:
            if piece.at == 0:
                seen[0] += sum(type(x) is re.Match for x in piece.items)
            return step(self, piece, *args)

        return counted

    def general(self: Any) -> Any:
        return self.framing.reader()

    reading.gather = counting(gather)  # type: ignore[method-assign]
    reading.gather_checked = counting(gather_checked)  # type: ignore[method-assign]
    if not fused:
        clients.StainlessClient.reader = general  # type: ignore[method-assign]
    try:
        return asyncio.run(_frames(vendor, split)), seen[0]
    finally:
        reading.gather, reading.gather_checked = gather, gather_checked  # type: ignore[method-assign]
        clients.StainlessClient.reader = reader  # type: ignore[method-assign]


@pytest.mark.parametrize("vendor", VENDORS)
def test_the_served_path_reads_the_deltas_fused(vendor: str) -> None:
    from benchmarks.suite import VENDORS as BENCH

    body = BENCH[vendor].build("tool", 300)
    split = [body[i : i + 8192] for i in range(0, len(body), 8192)]
    fused, matched = _served(vendor, split, fused=True)
    general, none = _served(vendor, split, fused=False)
    assert none == 0
    assert matched >= 200
    assert b'"RUN_FINISHED"' in fused[-1]
    assert fused == general


@settings(max_examples=8, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("vendor", VENDORS)
def test_the_served_frames_are_the_general_ways_for_any_cut(
    vendor: str, data: st.DataObject
) -> None:
    from benchmarks.suite import VENDORS as BENCH

    body = BENCH[vendor].build(data.draw(st.sampled_from(["tool", "text", "parallel"])), 40)
    if data.draw(st.booleans()):  # cut short: a truncated stream is a RUN_ERROR either way
        body = body[: data.draw(st.integers(0, len(body)))]
    cuts = sorted(set(data.draw(st.lists(st.integers(1, max(len(body) - 1, 1)), max_size=10))))
    split = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    split = [p for p in split if p]
    fused, _ = _served(vendor, split, fused=True)
    general, _ = _served(vendor, split, fused=False)
    assert fused == general
