"""Shared test settings and the place of the read-only conformance corpus."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "cassettes"

# Hypothesis budgets come from one named profile, chosen by HYPOTHESIS_PROFILE (default "ci" under
# CI=true, "dev" otherwise). A test that needs a deeper search than the rest states its budget as a
# multiple of the profile's (`max_examples=4 * settings.default.max_examples`), so "thorough"
# deepens every test alike. "ci" keeps the budgets the suite has always run with (100, the
# Hypothesis default); "dev" is a quicker local loop; "thorough" is for on-demand deep runs.
# Timing is measured in benchmarks/, not asserted: no per-example deadline on a loaded machine.
settings.register_profile("ci", deadline=None, max_examples=100, print_blob=True)
settings.register_profile("dev", deadline=None, max_examples=25)
settings.register_profile("thorough", deadline=None, max_examples=1000)
_default_profile = "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default_profile))

# The cassette kit's plugin tests run pytest inside pytest.
pytest_plugins = ["pytester"]
