"""Shared test settings and the place of the read-only conformance corpus."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "cassettes"

# Timing is measured in benchmarks/, not asserted: no per-example deadline on a loaded CI machine.
settings.register_profile("toolwire", deadline=None)
# HYPOTHESIS_PROFILE picks one: ci (the default, as before), dev, thorough (run on demand;
# the fuzz harness in tests/hostile scales its example count from the profile's).
settings.register_profile("ci", deadline=None)
settings.register_profile("dev", deadline=None, max_examples=300)
settings.register_profile("thorough", deadline=None, max_examples=3000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "toolwire"))

# The cassette kit's plugin tests run pytest inside pytest.
pytest_plugins = ["pytester"]
