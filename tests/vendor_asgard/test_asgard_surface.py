"""The adapter's public surface (DESIGN.md names and the CLI conventions)."""

from __future__ import annotations

from toolwire import adapters
from toolwire.adapters import asgard


def test_the_design_surface_and_the_cli_conventions_are_there() -> None:
    assert adapters.get("asgard") is asgard
    for name in (*adapters.SURFACE, "sse_chunks", "load_recording"):
        assert callable(getattr(asgard, name)), name
    assert asgard.Decoder.vendor == "asgard"
