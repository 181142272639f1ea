"""The driver's per-vendor cases (a real SDK client each, its recordings and error bodies)
cover every model adapter in the registry: a new model adapter fails here until it brings
its case, rather than passing every driver test by not being in any."""

from __future__ import annotations

from _driver_support import CASE_IDS

from toolwire import adapters


def test_every_model_adapter_has_a_driver_case() -> None:
    assert sorted(CASE_IDS) == sorted(adapters.model_names())
