"""Shared test settings and the place of the read-only conformance corpus."""

from __future__ import annotations

from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "cassettes"

# Timing is measured in benchmarks/, not asserted: no per-example deadline on a loaded CI machine.
settings.register_profile("toolwire", deadline=None)
settings.load_profile("toolwire")

# The cassette kit's plugin tests run pytest inside pytest.
pytest_plugins = ["pytester"]
