"""The driver's per-vendor cases (a real SDK client each, its recordings and error bodies)
cover every model adapter in the registry: a new model adapter fails here until it brings
its case (``tests/driver/_driver_support.py``), rather than passing every shared driver
test by not being in any. Every shared driver test runs over ``CASES``."""

from __future__ import annotations

from _driver_support import CASE_IDS, CASES, close_client

from toolwire import adapters


def test_every_model_adapter_has_a_driver_case_in_the_registry_order() -> None:
    missing = [name for name in adapters.model_names() if name not in CASE_IDS]
    assert not missing, (
        f"model adapter(s) {', '.join(missing)} have no case in tests/driver/_driver_support.py "
        "(add a Case: a real SDK client, a clean and a broken recording, the error answer)"
    )
    assert CASE_IDS == list(adapters.model_names())  # one case each, in the registry's order


def test_each_case_drives_its_own_adapter() -> None:
    for case in CASES:
        client = case.client("http://127.0.0.1:9", False)
        try:
            assert adapters.client(case.vendor).claims(client, case.kwargs.get("api"))
        finally:
            close_client(client)
