"""The benchmark suite still runs (``--quick``: tiny streams, one repetition, no timing).

Peers are left out here (their environment is created by ``./dev bench``); CI's
``./dev bench --quick`` runs them too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_benchmark_runs_in_quick_mode() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--no-peers"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("quick: ") and " 0 failed" in last, last
    ran = int(last.split()[1])
    # 4 vendors x 3 shapes x 2 lengths x 9 paths, Gemini's two framings per group, and
    # 4 x 2 request cases
    assert ran == 4 * 3 * 2 * 9 + 3 * 2 * 2 + 4 * 2, last
