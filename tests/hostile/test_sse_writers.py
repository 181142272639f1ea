"""Every adapter's ``to_sse`` takes the caller's dicts: what JSON or SSE cannot hold is a
``VendorDataError`` naming the vendor and the payload, never a bare ``TypeError``,
``RecursionError`` or ``AttributeError``, and never a frame split by a line break."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import adapters
from toolwire.errors import VendorDataError
from toolwire.protocol.limits import limits

VENDORS = adapters.names()


def _nested(levels: int) -> dict[str, Any]:
    top: dict[str, Any] = {"type": "deep"}
    node = top
    for _ in range(levels):
        node["a"] = [{}]
        node = node["a"][0]
    return top


def _circular() -> dict[str, Any]:
    value: dict[str, Any] = {"type": "loop"}
    value["self"] = value
    return value


BAD: dict[str, tuple[Any, str]] = {
    "a value JSON has no form for": ({"type": "x", "when": object()}, "cannot be written as JSON"),
    "a key that is not a string": ({"type": "x", (1, 2): 1}, "cannot be written as JSON"),
    "nesting past the depth cap": (_nested(limits().max_json_depth), "nested deeper than"),
    "nesting past Python's recursion limit": (_nested(5000), "nested deeper than"),
    "a circular reference": (_circular(), "nested deeper than 200 levels, or circular"),
    "an int too long to write": ({"type": "x", "n": 10**5000}, "cannot be written as JSON: "),
    "a payload that is not an object": (["type", "x"], "expected a JSON object, got list"),
}


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("case", BAD)
def test_a_payload_json_cannot_hold_is_named(vendor: str, case: str) -> None:
    payload, reason = BAD[case]
    with pytest.raises(VendorDataError) as caught:
        adapters.get(vendor).to_sse([{"type": "fine"}, payload])
    assert caught.value.vendor == vendor
    assert caught.value.where == "payload 1"
    assert reason in str(caught.value)


@pytest.mark.parametrize("vendor", VENDORS)
def test_nesting_under_the_cap_is_written(vendor: str) -> None:
    levels = limits().max_json_depth // 2 - 1  # two containers a level, and the top one
    body = adapters.get(vendor).to_sse([_nested(levels)])
    assert body.count(b"[{") == levels


@pytest.mark.parametrize("vendor", VENDORS)
def test_many_shallow_containers_are_written(vendor: str) -> None:
    """More brackets than the cap, nested two deep: the walk that follows the count finds
    the payload within the rule."""
    many = limits().max_json_depth + 100
    body = adapters.get(vendor).to_sse([{"type": "wide", "items": [{} for _ in range(many)]}])
    assert body.count(b"{}") == many


class _Sneaky(str):
    """A str whose text, as an f-string writes it, is not the one it holds."""

    def __str__(self) -> str:
        return 'a\ndata: {"injected":1}'

    def __format__(self, spec: str) -> str:
        return str(self)


@pytest.mark.parametrize("vendor", ["anthropic", "openai_responses"])
@pytest.mark.parametrize("name", ["a\ndata: {}", "a\rb", 7, _Sneaky("fine"), "half \ud83d"])
def test_an_event_name_that_would_split_the_frame_is_refused(vendor: str, name: Any) -> None:
    with pytest.raises(VendorDataError, match="event name is not a one-line string"):
        adapters.get(vendor).to_sse([{"type": name}])
