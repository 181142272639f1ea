"""The peers (Pydantic AI's AG-UI adapter, LiteLLM) in a benchmark-only virtualenv.

They are never dependencies of toolwire: ``ensure_venv`` creates ``benchmarks/peers/.venv``
from the pinned ``requirements.txt`` (once; again when the file changes), and :class:`Peers`
runs ``runner.py`` in it as a subprocess that times one peer run per request and answers in
JSON, so the suite interleaves the peers' repetitions with its own.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import venv
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv"
REQUIREMENTS = HERE / "requirements.txt"
RUNNER = HERE / "runner.py"


def _python() -> Path:
    return VENV / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def ensure_venv() -> Path:
    """The peers' interpreter, installing the pinned requirements when they changed."""
    want = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    stamp = VENV / ".requirements-sha256"
    if not _python().exists():
        print(f"creating {VENV} (the peers' benchmark-only environment)", file=sys.stderr)
        venv.create(VENV, with_pip=True)
    if not stamp.exists() or stamp.read_text().strip() != want:
        print(f"installing {REQUIREMENTS.name} into {VENV}", file=sys.stderr)
        subprocess.run(
            [str(_python()), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "-r", str(REQUIREMENTS)],
            check=True,
        )  # fmt: skip
        stamp.write_text(want)
    return _python()


class PeerError(RuntimeError):
    """A peer run failed (its message is shown in the table)."""


class Peers:
    """The runner subprocess: ``time(peer, vendor, path)`` -> seconds of one run."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [str(ensure_venv()), str(RUNNER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._warm: set[tuple[str, str]] = set()

    def time(
        self, peer: str, vendor: str, path: Path, media_type: str = "text/event-stream"
    ) -> float:
        """Seconds of one run; the first run of each peer and vendor (imports, client set-up)
        is run once more untimed before it. ``media_type``: what the loopback server says
        the body is (the vendor's ``FRAMING.media_type``)."""
        if (peer, vendor) not in self._warm:
            self._warm.add((peer, vendor))
            self._once(peer, vendor, path, media_type)
        return self._once(peer, vendor, path, media_type)

    def _once(self, peer: str, vendor: str, path: Path, media_type: str) -> float:
        stdin, stdout = self._pipes()
        request = {"peer": peer, "vendor": vendor, "file": str(path), "media_type": media_type}
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise PeerError("the peer runner ended")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise PeerError(answer["error"])
        return float(answer["seconds"])

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def close(self) -> None:
        stdin, _ = self._pipes()
        stdin.close()
        self._proc.wait(timeout=60)

    def __enter__(self) -> Peers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
