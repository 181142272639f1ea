"""The decoders' fast paths read what the general walk reads: the same events, losses and
errors, on every recording, on the benchmark's streams, and on mutated chunks.

Anthropic reads most deltas straight to events (``Decoder._fast_delta``, from an SDK object
or a chunk its own reader checked); OpenAI Chat reads a chunk of one plain delta without
walking it (``Decoder._one_delta``). Each is compared with the same decoder whose fast path
always declines.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _mutate import structural
from _samples import samples
from benchmarks.suite import VENDORS as BENCHES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.errors import ToolwireError
from toolwire.protocol.jsontext import CheckedObject, checked
from toolwire.protocol.runs import frame_run

FAST = {"anthropic": "_fast_delta", "openai_chat": "_one_delta"}


def _outcome(vendor: str, chunks: list[Any], fast: bool, hits: list[int]) -> tuple[Any, ...]:
    """Every event (as JSON), every warning's text, or the error's type and text; ``hits``
    gets the number of chunks the fast path read."""
    decoder = adapters.get(vendor).Decoder()
    own = getattr(decoder, FAST[vendor])
    taken = [0]

    def counted(*args: Any) -> Any:
        out = own(*args)
        taken[0] += out is not None
        return out

    # declining always is the general walk
    setattr(decoder, FAST[vendor], counted if fast else (lambda *_: None))
    try:
        return _decoded(decoder, chunks)
    finally:
        hits.append(taken[0])


def _decoded(decoder: Any, chunks: list[Any]) -> tuple[Any, ...]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            run = [
                e.model_dump_json() for e in frame_run(decoder, chunks, thread_id="t", run_id="r")
            ]
        except ToolwireError as exc:
            return ("error", type(exc).__name__, str(exc))
    return ("run", run, [str(w.message) for w in seen])


def _both(vendor: str, chunks: list[Any]) -> int:
    """Asserts the two readings agree; how many chunks the fast path read."""
    hits: list[int] = []
    general = _outcome(vendor, chunks, False, hits)
    assert _outcome(vendor, chunks, True, hits) == general
    return hits[-1]


@pytest.mark.parametrize("vendor", FAST)
def test_every_recording_reads_the_same(vendor: str) -> None:
    lists = samples(vendor).chunk_lists
    assert lists, f"{vendor}: no streamed recording"
    adapter = adapters.get(vendor)
    read = [_both(vendor, list(adapter.sse_chunks(adapter.to_sse(c)))) for c in lists]
    assert sum(read) > 0  # (as its reader yields them: the fast path took some)


@pytest.mark.parametrize("vendor", FAST)
@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
def test_the_benchmark_streams_read_the_same(vendor: str, shape: str) -> None:
    bench = BENCHES[vendor]
    body = bench.build(shape, 300)
    assert _both(vendor, list(adapters.get(vendor).sse_chunks(body))) > 100
    assert _both(vendor, bench.sdk_objects(body)) > 100  # and as the SDK's own objects


def _as_read(chunk: Any) -> Any:
    """A mutated chunk as toolwire's reader would hand it over: checked, then trusted."""
    if not isinstance(chunk, dict):
        return chunk
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return CheckedObject.made(checked(chunk, "test", "chunk"))
    except ToolwireError:
        return chunk


@pytest.mark.parametrize("vendor", FAST)
@settings(
    max_examples=max(10, settings().max_examples // 2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), trusted=st.booleans())
def test_mutated_chunks_read_the_same(vendor: str, data: st.DataObject, trusted: bool) -> None:
    chunks = data.draw(structural(samples(vendor).chunk_lists))
    items = chunks if isinstance(chunks, list) else [chunks]
    _both(vendor, [_as_read(c) for c in items] if trusted else items)
