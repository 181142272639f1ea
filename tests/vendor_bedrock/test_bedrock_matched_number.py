"""A matched delta frame made again alone (its chunk made after the decoder's rule passed
it) names its frame's number in an error, as the general reading names every frame: on
the whole-body reading and on the driver's push reader. (A matched text is clean JSON, so
only caps lowered between its reading and its chunk reach such an error.)"""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import Any

import pytest
from tests.vendor_bedrock.test_bedrock_fused import _event

from toolwire.adapters import bedrock
from toolwire.adapters.bedrock import wire
from toolwire.errors import ToolwireError
from toolwire.protocol.limits import configure, limits

_START = b'{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tu_1","name":"f"}}}'
#: frame 3 opens block 0 (the rule passes it: no block is open), frame 2 is matched too
_FRAMES = [
    _event("messageStart", b'{"role":"assistant"}'),
    _event("contentBlockStart", _START),
    _event("contentBlockDelta", b'{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{}"}}}'),
    _event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"hi"}}'),
]


def test_the_whole_body_reading_names_the_frame_made_again() -> None:
    """The piece holding frames 1 to 3 is read fused; the cap is lowered once frame 1's
    event is out, so frame 3's chunk, made when the rule passes it, is refused."""
    events = bedrock.decode_stream(wire.sse_chunks([_FRAMES[0], b"".join(_FRAMES[1:])]))
    previous = limits()
    try:
        with pytest.raises(ToolwireError) as caught:
            for event in events:
                if event.type == "TOOL_CALL_START":
                    configure(max_json_depth=1)
    finally:
        configure(**asdict(previous))
    assert "event-stream frame 3 (contentBlockDelta)" in str(caught.value)


def test_the_push_reader_names_the_frame_made_again() -> None:
    reader = wire.ChunkReader()
    fast = wire.DELTA_FORM.payload
    assert len(reader.feed_fused(_FRAMES[0], fast)) == 1
    items: list[Any] = reader.feed_fused(b"".join(_FRAMES[1:]), fast)
    matches = [item for item in items if type(item) is re.Match]
    assert len(matches) == 2
    previous = limits()
    try:
        configure(max_json_depth=1)
        for frame, match in zip((2, 3), matches, strict=True):
            with pytest.raises(ToolwireError, match=f"event-stream frame {frame} "):
                reader.matched_chunk(match)
    finally:
        configure(**asdict(previous))
    assert reader.matched_chunk(matches[1]) == {"contentBlockDelta": {
        "contentBlockIndex": 0, "delta": {"text": "hi"}}}  # fmt: skip
