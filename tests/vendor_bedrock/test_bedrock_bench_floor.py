"""The encode row's floor for Bedrock (``benchmarks/bench_bedrock.floor_frames``): it writes
the event stream any writer must, the same bytes toolwire writes, which botocore reads."""

from __future__ import annotations

import pytest
from benchmarks import bench_bedrock, paths
from tests.vendor_bedrock._bedrock_sdk import sdk_events

from toolwire import adapters
from toolwire.protocol._compact_json import compact


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
