"""``toolwire.testing.contract``: the check a plugin author runs holds for every built-in
adapter, and finds each kind of break it claims to (a fake adapter broken one way each)."""

from __future__ import annotations

import dataclasses
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from toolwire import adapters
from toolwire.testing.contract import assert_adapter, check_adapter


@pytest.mark.parametrize("name", adapters.names(kinds=("model", "stream", "result")))
def test_every_registered_adapter_keeps_the_contract(name: str) -> None:
    assert check_adapter(name) == []
    assert_adapter(name)


def _copy(name: str, **changes: Any) -> ModuleType:
    """The built-in adapter's members on a new module (named as the original), changed."""
    original = adapters.get(name)
    module = ModuleType(f"fake.{name}")
    for member in (
        *adapters.SURFACE,
        *adapters.CONSTANTS,
        *adapters.HOOKS,
        *adapters.MODEL_SURFACE,
    ):
        if hasattr(original, member):
            setattr(module, member, getattr(original, member))
    for key, value in changes.items():
        setattr(module, key, value)
    return module


def test_the_copy_itself_passes() -> None:
    assert check_adapter(_copy("openai_chat")) == []


def test_a_missing_member_is_named() -> None:
    module = _copy("gemini")
    del module.FRAMING
    assert check_adapter(module) == ["gemini lacks FRAMING"]


def test_a_signature_the_contract_cannot_call_is_named() -> None:
    def decode_request(body: Any, thread: str) -> Any:
        raise AssertionError("never called")

    problems = check_adapter(_copy("anthropic", decode_request=decode_request))
    assert "anthropic.decode_request: takes no keyword 'thread_id'" in problems
    assert (
        "anthropic.decode_request: requires 'thread', which the contract never passes" in problems
    )


def test_an_accepted_unknown_option_is_named() -> None:
    real = adapters.get("asgard").Encoder

    def lenient(**options: Any) -> Any:
        return real()

    lenient.vendor = "asgard"  # type: ignore[attr-defined]
    problems = check_adapter(_copy("asgard", Encoder=lenient))
    assert problems == ["asgard.Encoder: an unknown option was accepted"]


def test_a_framing_that_loses_a_chunk_is_named() -> None:
    framing = adapters.get("openai_responses").FRAMING
    lossy = dataclasses.replace(
        framing,
        read_body=lambda body: iter(list(framing.read(body))[:-1]),  # type: ignore[arg-type]
    )
    problems = check_adapter(_copy("openai_responses", FRAMING=lossy))
    assert any(p.startswith("FRAMING") for p in problems), problems


def test_a_client_without_a_member_is_named() -> None:
    real = adapters.client("anthropic")
    partial = SimpleNamespace(**{n: getattr(real, n) for n in adapters.CLIENT_SURFACE})
    del partial.drives_async
    assert check_adapter(_copy("anthropic", CLIENT=partial)) == [
        "anthropic lacks CLIENT.drives_async"
    ]
