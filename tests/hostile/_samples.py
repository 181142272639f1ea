"""Recorded material of every adapter, for the hostile-input tests to mutate.

Everything comes from the repository's own cassettes (``cassettes/<vendor>/``), read the way
the CLI reads them: response bodies, the chunk dicts they frame, the recorded request
bodies, the AG-UI runs they decode to, and the ``RunAgentInput`` each request decodes to.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from toolwire import adapters
from toolwire.cli import decode_runs
from toolwire.errors import ToolwireError
from toolwire.recordings import Exchange, frame_exchange, jsonl_chunks, model_exchanges

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes"
VENDORS = adapters.names()


@dataclass
class Samples:
    vendor: str
    files: list[Path] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    chunk_lists: list[list[dict[str, Any]]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    runs: list[list[dict[str, Any]]] = field(default_factory=list)
    inputs: list[dict[str, Any]] = field(default_factory=list)


def recording_files(vendor: str) -> list[Path]:
    folder = CASSETTES / vendor
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".jsonl", ".json", ".sse"))


def chunks_of(adapter: ModuleType, ex: Exchange) -> list[Any] | None:
    """The decoder input of one exchange (``None`` for a whole, non-streamed response)."""
    if ex.content_type == "application/jsonl":
        return jsonl_chunks(ex.response_body)
    if ex.is_sse:
        return list(adapter.sse_chunks(ex.response_body))
    return None


def decode_exchange(adapter: ModuleType, ex: Exchange) -> list[Any]:
    """One exchange decoded as the CLI does it (a complete run, or RUN_ERROR)."""
    return list(frame_exchange(adapter, ex, thread_id="t", run_id="r"))


@cache
def samples(vendor: str) -> Samples:
    adapter = adapters.get(vendor)
    out = Samples(vendor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in recording_files(vendor):
            data = path.read_bytes()
            out.files.append(path)
            exchanges = model_exchanges(adapter, data, path.name)
            out.exchanges.extend(exchanges)
            for ex in exchanges:
                try:
                    chunks = chunks_of(adapter, ex)
                except ToolwireError:
                    chunks = None
                if chunks:
                    out.chunk_lists.append([c for c in chunks if isinstance(c, dict)])
                if isinstance(ex.request_body, dict):
                    out.requests.append(ex.request_body)
                    try:
                        ri = adapter.decode_request(ex.request_body)
                    except ToolwireError:
                        continue
                    out.inputs.append(ri.model_dump(mode="json", by_alias=True, exclude_none=True))
            if not exchanges:
                continue  # no model call in it (e.g. an Asgard rejoin GET): nothing to decode
            run = [
                e.model_dump(mode="json", by_alias=True, exclude_none=True)
                for e in decode_runs(adapter, data, path.name)
            ]
            if run:
                out.runs.append(run)
    for name, got in (("exchanges", out.exchanges), ("runs", out.runs)):
        assert got, f"{vendor}: the cassettes gave no {name}"
    return out


SHARED_CASSETTES = ROOT.parent / "shared" / "conformance" / "cassettes"


@cache
def conformance_exchanges(vendor: str) -> list[Exchange]:
    """The model exchanges of the real recordings in ``../shared/conformance`` (read in place,
    never copied), for the vendors that have some; ``[]`` for the others."""
    folder = SHARED_CASSETTES / vendor
    if not folder.is_dir():
        return []
    adapter = adapters.get(vendor)
    out: list[Exchange] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in sorted(folder.glob("*.yaml")):
            out.extend(model_exchanges(adapter, path.read_bytes(), path.name))
    assert out, f"{vendor}: {folder} holds no model exchange"
    return out
