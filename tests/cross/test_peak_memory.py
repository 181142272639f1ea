"""Peak memory of bytes -> AG-UI SSE grows by little more than the ids for vendors that
send whole calls, one a chunk (issue 38, Next 18 and 25): the rules keep one table entry a
call in the checker and one in the decoder, and no event is held for the end of the turn.

The bound is on the growth of the traced peak per call between two lengths of the bench's
``tool`` stream (tracemalloc counts allocations: no timing). Before this was done the
growth was 420-470 B a call (Gemini; 256 B before the raw text outside the SSE fields was
kept in one buffer, ~115 B after), 1.1-1.2 kB (Mistral: every end event of the turn
made at its finish, in one list) and 280-330 B (Ollama).
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from benchmarks import paths
from benchmarks.suite import VENDORS

from toolwire import adapters
from toolwire.protocol.sse import encode_agui_event

#: bytes a call the peak may grow by: the call's id (~60 B), a table entry in the decoder
#: and one in the checker (16-43 B each, by how full the table is), what the vendor's
#: decoder keeps of an open call (Mistral's stay open until the finish), with room
BOUND = {"gemini": 200, "mistral": 560, "ollama": 200}


def _peak(vendor: str, calls: int) -> int:
    adapter = adapters.get(vendor)
    body = VENDORS[vendor].build("tool", calls)
    gc.collect()
    tracemalloc.start()
    try:
        for ev in paths.run(adapter, paths.streamed_chunks(adapter, body)):
            encode_agui_event(ev)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("vendor", sorted(BOUND))
def test_peak_memory_grows_by_little_more_than_the_ids(vendor: str) -> None:
    low, high = 2_000, 8_000
    per_call = (_peak(vendor, high) - _peak(vendor, low)) / (high - low)
    assert per_call < BOUND[vendor], (vendor, per_call)
