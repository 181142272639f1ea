"""The example suite a user copies (examples/cassette_kit) passes offline, with no key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cassette_kit"
SNAPSHOT = EXAMPLE / "cassettes" / "test_weather_agent" / "weather.agui.jsonl"


def test_the_cassette_kit_example_passes_offline_without_a_key() -> None:
    before = SNAPSHOT.read_bytes()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("ANTHROPIC_BASE_URL", None)
    # were anything to reach for the network, it would find nothing there
    env |= {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(EXAMPLE),
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "-n",  # two tests: one process, not this project's default of a worker per core
            "0",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "2 passed" in run.stdout
    assert SNAPSHOT.read_bytes() == before
