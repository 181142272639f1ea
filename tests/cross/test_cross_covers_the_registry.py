"""The cross-vendor rules (a model and the documented call id rule per target) cover every
model adapter in the registry: a new target is checked by the cross-vendor tests or fails
here, never skipped by a list that does not name it."""

from __future__ import annotations

from vendor_rules import ID_RULES, MODELS

from toolwire import adapters


def test_every_model_adapter_has_cross_vendor_rules() -> None:
    assert sorted(MODELS) == sorted(adapters.model_names())
    assert sorted(ID_RULES) == sorted(adapters.model_names())
