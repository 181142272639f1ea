"""The driver's per-vendor cases (a real SDK client each, its recordings and error bodies)
cover every model adapter in the registry: a new model adapter fails here until it brings
its case, rather than passing every driver test by not being in any.

Four adapters are not yet in the shared cases: the shared fault, cancel, deadline and
telemetry tests still assume things of an SSE vendor with an OpenAI- or Anthropic-shaped
error body (tests/driver/_driver_support.py ``NEW_CASES`` holds their cases, ready). Until
they join, each runs ``toolwire.run`` / ``arun`` over its real SDK client in its own driver
tests, named here; the exclusion is asserted, never silent.
"""

from __future__ import annotations

from pathlib import Path

from _driver_support import CASE_IDS, NEW_CASES

from toolwire import adapters

TESTS = Path(__file__).resolve().parents[1]

#: model adapter -> the module that drives it over its real SDK client instead, for now
OWN_DRIVER_TESTS = {
    "bedrock": "vendor_bedrock/test_bedrock_driver.py",
    "mistral": "vendor_mistral/test_mistral_driver.py",
    "ollama": "vendor_ollama/test_ollama_driver.py",
    "cohere": "vendor_cohere/test_cohere_client.py",
}


def test_every_model_adapter_has_a_driver_case() -> None:
    covered = set(CASE_IDS) | set(OWN_DRIVER_TESTS)
    assert sorted(covered) == sorted(adapters.model_names())
    assert not set(CASE_IDS) & set(OWN_DRIVER_TESTS)  # one place each


def test_each_excluded_adapter_is_driven_in_its_own_tests_and_has_its_case_ready() -> None:
    for module in OWN_DRIVER_TESTS.values():
        text = (TESTS / module).read_text(encoding="utf-8")
        assert "toolwire.run(" in text and "toolwire.arun(" in text, module
    assert sorted(c.vendor for c in NEW_CASES) == sorted(OWN_DRIVER_TESTS)
