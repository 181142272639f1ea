"""The driver-piece benchmark (``benchmarks/bench_bedrock_pieces``) reads what it says:
the fused pieces give the events the chunk-by-chunk reading gives, checked by a run framer."""

from __future__ import annotations

import pytest
from benchmarks import bench_bedrock, bench_bedrock_pieces


@pytest.mark.parametrize("shape", bench_bedrock.SHAPES)
def test_both_readings_give_the_run_s_events(shape: str) -> None:
    body = bench_bedrock.build(shape, 600)
    n = bench_bedrock_pieces.dicts(body)
    # the run's events: RUN_STARTED is the framer's, sent before; the turn's events here
    assert n > 550
    assert bench_bedrock_pieces.pieces(body) == n
    for matched in (False, True):  # (a frame a match: the driver's reading before Next 40)
        assert bench_bedrock_pieces.pieces(body, matched, checked=True) == n
    assert bench_bedrock_pieces.pieces(body, matched=True) == n


def test_it_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_bedrock_pieces.main(["--events", "300", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    assert "pieces / dicts:" in out and "pieces / matched:" in out
