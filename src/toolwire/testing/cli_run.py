"""Run the ``toolwire`` CLI inside the test process: the same ``main(argv)`` a shell runs, with
stdin, stdout and stderr as bytes, and without a new interpreter per call (most of a CLI test's
time went to starting Python and importing the SDKs again). A test about the installed entry
point or the process exit status still starts a real subprocess."""

from __future__ import annotations

import io
import sys
import warnings
from dataclasses import dataclass


@dataclass(frozen=True)
class CliResult:
    """What a shell would see: the exit status and both output streams, undecoded."""

    returncode: int
    stdout: bytes
    stderr: bytes


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline="", write_through=True)


def run_cli(*argv: str, stdin: bytes | None = None) -> CliResult:
    """``toolwire ARGV...`` in-process. ``main`` sets process-wide warning filters and a
    warning printer; both are restored afterwards so one call cannot change the next test."""
    from toolwire.cli import main

    streams = (_stream(stdin or b""), _stream(), _stream())
    saved = (sys.stdin, sys.stdout, sys.stderr)
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        with warnings.catch_warnings():
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse's usage errors and --help
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        for s in streams[1:]:
            s.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    out, err = (s.buffer.getvalue() for s in streams[1:])  # type: ignore[attr-defined]
    return CliResult(code, out, err)


__all__ = ["CliResult", "run_cli"]
