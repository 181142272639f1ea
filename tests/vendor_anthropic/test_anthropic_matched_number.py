"""A content delta the fused reading took as a match, made into its chunk again alone (a
rule passes it back), names its SSE event by its number in the stream, as the general
reading names it; not event 0 (docs/performance.md, Next 31)."""

from __future__ import annotations

import pytest

from toolwire.adapters.anthropic.wire import DELTA_FORM, iter_sse_chunks
from toolwire.errors import VendorDataError
from toolwire.protocol.limits import configure, limits

PING = 'event: ping\ndata: {"type":"ping"}\n\n'
DELTA = (
    "event: content_block_delta\n"
    'data: {"type":"content_block_delta","index":0,'
    '"delta":{"type":"text_delta","text":"hi"}}\n\n'
)


@pytest.mark.parametrize("pings", [0, 3, 7])
def test_a_matched_delta_read_again_names_its_event(pings: int) -> None:
    body = (PING * pings + DELTA * 2).encode()
    reader = iter_sse_chunks([body])
    items = reader.fused(DELTA_FORM)
    read = [next(items) for _ in range(pings + 1)]  # (as a loop reads: up to the match)
    assert [isinstance(x, dict) for x in read] == [True] * pings + [False]
    previous = limits().max_json_depth
    configure(max_json_depth=1)  # (lowered after the piece was read: the deltas are deeper)
    try:
        with pytest.raises(VendorDataError) as fused:
            reader.chunk(read[pings])
        with pytest.raises(VendorDataError) as plain:
            list(iter_sse_chunks([body]))
    finally:
        configure(max_json_depth=previous)
    assert f"SSE event {pings}" in str(fused.value)
    assert str(fused.value) == str(plain.value)
