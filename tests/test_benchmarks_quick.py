"""The benchmark suite still runs (``--quick``: tiny streams, one repetition, no timing).

Peers are left out here (their environment is created by ``./dev bench``); CI's
``./dev bench --quick`` runs them too. It runs in the test's own process: the vendor SDKs it
needs are imported there already, and a fresh interpreter importing them again was most of
its time.
"""

from __future__ import annotations

import pytest
from benchmarks.served import Served, in_memory_reason
from benchmarks.suite import EXTRAS, VENDORS, main

from toolwire import adapters


def _reads_sdk_objects(vendor: str) -> bool:
    body = VENDORS[vendor].build("text", 20)
    served = Served(vendor, body, adapters.get(vendor).FRAMING.media_type)
    try:
        return served.reads_sdk_objects()
    finally:
        served.close()


def test_every_benchmark_runs_in_quick_mode(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--quick", "--no-peers"])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    last = out.strip().splitlines()[-1]
    assert last.startswith("quick: ") and " 0 failed" in last, last
    ran = int(last.split()[1])
    # each benched vendor x 3 shapes x 2 lengths x 16 paths (9, the served path, and the 6
    # floors beside the targets), Gemini's two framings per group, the argument-parse floor
    # per group of each vendor taking arguments as objects (Gemini, Ollama), and each
    # vendor x 2 histories x 3 request cases
    n = len(VENDORS)
    assert {"gemini", "mistral", "cohere", "ollama"} <= set(VENDORS) and n >= 7
    as_objects = sum(bool(getattr(m, "ARGUMENTS_AS_OBJECTS", False)) for m in VENDORS.values())
    assert as_objects >= 2
    # a vendor whose SDK takes no in-memory transport has no served case (the page says why)
    unserved = sum(in_memory_reason(v) is not None for v in VENDORS)
    assert unserved <= 1, "only botocore refuses another library's HTTP client"
    served_cases = (n - unserved) * 3 * 2
    # where the driver reads the SDK's parsed objects, its read through CLIENT is timed too
    # (the served path's floor pays it)
    readers = {v for v in VENDORS if in_memory_reason(v) is None and _reads_sdk_objects(v)}
    # google-genai has no public raw response; every other served SDK hands over its bytes
    assert readers == {"gemini"}, readers
    sdk_readers = len(readers)
    expected = (
        n * 3 * 2 * 15
        + served_cases
        + sdk_readers * 3 * 2
        + 3 * 2 * 2
        + as_objects * 3 * 2
        + n * 2 * 3
    )
    assert ran == expected, last
    # the extras ran too (the loopback run, Bedrock's own, the gateway side by side)
    assert f"; {len(EXTRAS)} extra" in last and "FAILED" not in out, out[-3000:]
