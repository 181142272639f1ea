"""The same job has the same name in every adapter's ``wire.py``: the stop-reason map
(``map_stop_reason``: the vendor's reason -> the neutral one) and, where the adapter writes a
vendor reason, its inverse (``stop_reason_for``)."""

from __future__ import annotations

import importlib
import inspect

import pytest

from toolwire import adapters


def _wire(name: str) -> object:
    return importlib.import_module(f"{adapters.package_of(name)}.wire")


@pytest.mark.parametrize("name", adapters.names())
def test_every_wire_names_its_stop_reason_map_alike(name: str) -> None:
    wire = _wire(name)
    forward = wire.map_stop_reason  # type: ignore[attr-defined]
    assert callable(forward)
    if _takes_a_reason(forward):  # Dialogflow and Asgard send no reason: theirs read flags
        assert forward("no-such-reason-anywhere") == "other"


def _takes_a_reason(fn: object) -> bool:
    params = inspect.signature(fn).parameters.values()  # type: ignore[arg-type]
    return any(p.kind is not p.KEYWORD_ONLY for p in params)


@pytest.mark.parametrize("name", adapters.model_names())
def test_a_model_adapter_maps_the_reason_its_vendor_sends(name: str) -> None:
    assert _takes_a_reason(_wire(name).map_stop_reason)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "name", [n for n in adapters.names() if hasattr(_wire(n), "stop_reason_for")]
)
@pytest.mark.parametrize("neutral", ["length"])  # "stop": what the turn's calls imply
def test_the_inverse_map_goes_back_to_the_same_reason(name: str, neutral: str) -> None:
    wire = _wire(name)
    vendor_reason = wire.stop_reason_for(neutral)  # type: ignore[attr-defined]
    assert isinstance(vendor_reason, str) and vendor_reason
    assert wire.map_stop_reason(vendor_reason) == neutral  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", adapters.model_names())
def test_a_model_adapter_names_its_usage_both_ways_alike(name: str) -> None:
    """``token_usage``: the vendor's usage -> ``TokenUsage``; ``usage_fields``: the reverse."""
    wire = _wire(name)
    assert callable(getattr(wire, "token_usage", None))
    assert callable(getattr(wire, "usage_fields", None))


#: ``vendor.name`` strings that are no metadata key (Dialogflow's activity type)
_NOT_KEYS = frozenset({"TEXT_UPDATE_ACTIVITY"})


@pytest.mark.parametrize("name", adapters.names())
def test_metadata_keys_are_named_alike(name: str) -> None:
    """A metadata key of a ``wire.py`` (a ``vendor.field`` string it exports) is ``*_KEY``."""
    wire = _wire(name)
    prefixes = {str(getattr(wire, "VENDOR", name)).split("_")[0], "openai"}
    for attr in getattr(wire, "__all__", ()):
        value = getattr(wire, attr)
        if attr in _NOT_KEYS or not (attr.isupper() and isinstance(value, str) and "." in value):
            continue
        head = value.split(".")[0]
        if head in prefixes and value.count(".") == 1:
            assert attr.endswith("_KEY"), f"{name}.wire.{attr} = {value!r}"
