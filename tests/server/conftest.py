"""Fixtures of the server tests: the official TypeScript client, headless Chromium.

A part these tests need that is missing fails them with the reason (never a skip): `./dev test`
installs Debian's chromium and Node's packages first (see `dev`); the first use here still runs
`npm ci` when the packages are missing, for a bare `pytest`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

JS = Path(__file__).resolve().parent / "js"
CHROMIUM = Path(os.environ.get("TOOLWIRE_CHROMIUM") or "/usr/bin/chromium")  # as `dev` reads it


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


class _NodeClient:
    """``node run_agent.mjs --lines``: a script path per line in, a JSON line per script out.

    Node's stderr goes to a file (a pipe nobody reads would fill and stall it); each answer
    is awaited with a deadline; a process that died or stalled is replaced for the next
    script, so one failure stays one test's."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._node: subprocess.Popen[bytes] | None = None
        self._buf = b""

    def _start(self) -> subprocess.Popen[bytes]:
        if self._node is None or self._node.poll() is not None:
            self.close()
            with open(self._folder / "node-stderr.txt", "wb") as err:  # the child keeps a copy
                self._node = subprocess.Popen(
                    ["node", str(JS / "run_agent.mjs"), "--lines"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=err,
                )
            self._buf = b""
        return self._node

    def _line(self, node: subprocess.Popen[bytes], timeout: float) -> bytes | None:
        assert node.stdout is not None
        fd = node.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            piece = os.read(fd, 1 << 16)
            if not piece:
                return None
            self._buf += piece
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def run(self, script: dict[str, Any], folder: Path) -> dict[str, Any]:
        path = folder / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        node = self._start()
        assert node.stdin is not None
        try:
            node.stdin.write(f"{path}\n".encode())
            node.stdin.flush()
        except OSError:
            line = None
        else:
            line = self._line(node, 120)
        if line is None:
            self.close()
            err = (self._folder / "node-stderr.txt").read_text(errors="replace")
            pytest.fail(f"the client gave no answer (exit {node.returncode}): {err[-2000:]}")
        out: dict[str, Any] = json.loads(line)
        return out

    def close(self) -> None:
        node, self._node = self._node, None
        if node is None:
            return
        if node.stdin is not None:
            with contextlib.suppress(OSError):
                node.stdin.close()
        try:
            node.wait(timeout=10)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait()
        if node.stdout is not None:
            node.stdout.close()


@pytest.fixture(scope="session")
def ag_ui_client(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[dict[str, Any], Path], dict[str, Any]]]:
    """``js/run_agent.mjs`` (@ag-ui/client's HttpAgent) on a script: its JSON output.

    One Node process serves the session's scripts instead of a Node start (~0.4 s) for
    each; every script gets its own ``HttpAgent``."""
    _npm_ready()
    client = _NodeClient(tmp_path_factory.mktemp("node"))
    yield client.run
    client.close()


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's chromium (Playwright cannot download a browser here)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"the browser tests need {CHROMIUM} (./dev test installs it as root; "
            "or apt-get install chromium)"
        )
    return CHROMIUM
