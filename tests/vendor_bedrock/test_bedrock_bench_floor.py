"""Bedrock's floors of a framing with work of its own: the encode row's
(``benchmarks/bench_bedrock.floor_frames``) writes the event stream any writer must, the
same bytes toolwire writes, which botocore reads; the read floor
(``floor_read_frames``) cuts and checks its frames as any reader must, and parses the
payloads toolwire's reader reads."""

from __future__ import annotations

import json

import pytest
from benchmarks import bench_bedrock, paths, suite
from tests.vendor_bedrock._bedrock_sdk import sdk_events

from toolwire import adapters
from toolwire.errors import VendorDataError
from toolwire.protocol._compact_json import compact
from toolwire.protocol.eventstream import read_frames


@pytest.mark.parametrize("shape", bench_bedrock.SHAPES)
def test_the_floor_writes_the_bytes_toolwire_writes(shape: str) -> None:
    adapter = adapters.get("bedrock")
    body = bench_bedrock.build(shape, 200)
    run = list(paths.run(adapter, paths.read(adapter, body)))
    chunks = paths.encoded_payloads(adapter, run)
    written = paths.encode(adapter, run)
    assert bench_bedrock.floor_frames(chunks, compact) == written
    assert bench_bedrock.floor_frames(chunks, paths.dumps_one) == written
    assert [dict(e) for e in sdk_events(bench_bedrock.floor_frames(chunks, compact))] == [
        dict(e) for e in sdk_events(written)
    ]
    assert len(chunks) > 150


@pytest.mark.parametrize("shape", bench_bedrock.SHAPES)
def test_the_read_floor_reads_the_payloads_toolwire_reads(shape: str) -> None:
    body = bench_bedrock.build(shape, 300)
    theirs = [frame.payload for frame in read_frames([body], "bedrock")]
    assert bench_bedrock.frame_payloads(body) == theirs
    assert len(theirs) > 250
    # the floor parses each of them: one value per frame, the payloads toolwire's reader
    # parses (its chunks are {event type: payload})
    assert bench_bedrock.floor_read_frames(body) == len(theirs)
    chunks = list(paths.read(adapters.get("bedrock"), body))
    assert [json.loads(p) for p in theirs] == [next(iter(c.values())) for c in chunks]
    # and tells them apart: each frame's event type, which only its headers name
    names, _ = bench_bedrock.frames(body)
    assert names == [next(iter(c)) for c in chunks]
    assert len(set(names)) >= 4


def test_the_read_floor_tells_apart_frames_whose_blocks_differ_but_not_in_length() -> None:
    """Two header blocks of the same length (event types of one length) in turn: each
    frame's type is its own, not the frame before's."""
    from toolwire.protocol.eventstream import write_frame

    def frame(name: str) -> bytes:
        return write_frame({":message-type": "event", ":event-type": name}, b"{}")

    body = b"".join(frame(n) for n in ["abcd", "abcd", "wxyz", "abcd", "wxyz", "wxyz"])
    assert bench_bedrock.frames(body)[0] == ["abcd", "abcd", "wxyz", "abcd", "wxyz", "wxyz"]


@pytest.mark.parametrize("at", [3, 9, 20, -3])
def test_the_read_floor_checks_both_crcs(at: int) -> None:
    body = bytearray(bench_bedrock.build("parallel", 50))
    assert bench_bedrock.floor_read_frames(bytes(body)) > 40
    body[at] ^= 0x01  # a length, the prelude's CRC, a header, the last frame's CRC
    with pytest.raises(ValueError, match="CRC32"):
        bench_bedrock.floor_read_frames(bytes(body))
    with pytest.raises(VendorDataError):
        list(read_frames([bytes(body)], "bedrock"))


def test_only_a_framing_with_work_of_its_own_brings_a_read_floor() -> None:
    assert callable(suite.VENDORS["bedrock"].floor_read_frames)
    others = [m for name, m in suite.VENDORS.items() if name != "bedrock"]
    assert others
    assert not any(hasattr(m, "floor_read_frames") for m in others)
