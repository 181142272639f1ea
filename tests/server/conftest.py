"""Fixtures of the server tests: the official TypeScript client, headless Chromium.

A part these tests need that is missing fails them with the reason (never a skip): `.ci/run`
installs Node's packages and Debian's chromium; locally the first use runs `npm ci`.
"""

from __future__ import annotations

import fcntl
import json
import select
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

JS = Path(__file__).resolve().parent / "js"
CHROMIUM = Path("/usr/bin/chromium")


def _npm_ready() -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("the TypeScript client tests need node and npm on PATH (Debian: nodejs, npm)")
    installed = JS / "node_modules" / ".package-lock.json"
    lock = JS / "package-lock.json"
    # each pytest-xdist worker asks: one at a time (the lock file, which npm ci only reads, is
    # the lock), so two never run npm ci in one folder
    with lock.open("rb") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"], cwd=JS, capture_output=True, text=True
            )
            if done.returncode != 0:
                pytest.fail(f"npm ci in {JS} failed: {done.stderr[-2000:]}")


@pytest.fixture(scope="session")
def ag_ui_client() -> Iterator[Callable[[dict[str, Any], Path], dict[str, Any]]]:
    """``js/run_agent.mjs`` (@ag-ui/client's HttpAgent) on a script: its JSON output.

    One Node process serves the session's scripts (``--lines``: a path in, a JSON line out),
    instead of a Node start (~0.4 s) for each; every script gets its own ``HttpAgent``."""
    _npm_ready()
    node = subprocess.Popen(
        ["node", str(JS / "run_agent.mjs"), "--lines"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert node.stdin is not None and node.stdout is not None

    def run(script: dict[str, Any], folder: Path) -> dict[str, Any]:
        path = folder / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        assert node.stdin is not None and node.stdout is not None
        node.stdin.write(f"{path}\n")
        node.stdin.flush()
        ready, _, _ = select.select([node.stdout], [], [], 120)
        line = node.stdout.readline() if ready else ""
        try:
            out: dict[str, Any] = json.loads(line)
        except ValueError:
            node.kill()
            _, err = node.communicate()
            pytest.fail(f"the client printed no JSON (exit {node.returncode}): {err[-2000:]}")
        return out

    yield run
    node.stdin.close()
    try:
        node.wait(timeout=10)
    except subprocess.TimeoutExpired:
        node.kill()
        node.wait()
    node.stdout.close()
    node.stderr.close()  # type: ignore[union-attr]


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's chromium (Playwright cannot download a browser here)."""
    if not CHROMIUM.exists():
        pytest.fail(f"the browser tests need {CHROMIUM} (apt-get install chromium)")
    return CHROMIUM
