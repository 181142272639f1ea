"""The CLI reads its input in bounded pieces and stops at the cap (issue 35, item 12).

Endless input (a pipe that never ends, ``/dev/zero``) ended in a ``MemoryError`` traceback
after reading everything; now reading stops one piece past ``max_recording_bytes`` with one
clear line and exit status 1.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

import pytest

from toolwire import cli
from toolwire.protocol.limits import configure

CAP = 3 << 20


@contextmanager
def _cap(size: int) -> Iterator[None]:
    previous = configure(max_recording_bytes=size)
    try:
        yield
    finally:
        configure(**asdict(previous))


class _Endless(io.RawIOBase):
    """stdin that never ends; counts what was asked of it."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            raise AssertionError("the CLI asked for all of an endless input at once")
        self.given += size
        return b" " * size


class _Stdin:
    def __init__(self, raw: _Endless) -> None:
        self.buffer = raw


def _main(argv: list[str], stdin: object | None = None) -> tuple[int, str, str]:
    out, err = io.TextIOWrapper(io.BytesIO()), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    if stdin is not None:
        sys.stdin = stdin  # type: ignore[assignment]
    try:
        code = cli.main(argv)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    out.flush()
    return code, out.buffer.getvalue().decode(), err.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "-"],
        ["decode", "--from", "anthropic", "-"],
        ["encode", "--to", "openai_chat", "-"],
        ["encode-request", "--to", "gemini", "--model", "m", "-"],
        ["decode-request", "--from", "gemini", "-"],
        ["mcp-result", "--tool-call-id", "c1", "-"],
    ],
)
def test_endless_stdin_stops_at_the_cap_with_one_line(argv: list[str]) -> None:
    endless = _Endless()
    with _cap(CAP):
        code, out, err = _main(argv, _Stdin(endless))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "larger than" in err and "max_recording_bytes" in err and "stdin" in err
    assert CAP < endless.given <= CAP + (1 << 20)  # one piece past the cap, never all of it


def test_an_endless_file_stops_at_the_cap() -> None:
    zero = Path("/dev/zero")
    assert zero.exists()
    with _cap(CAP):
        code, out, err = _main(["validate", str(zero)])
    assert code == 1 and out == ""
    assert "/dev/zero" in err and "max_recording_bytes" in err


def test_input_at_the_cap_is_read_whole(tmp_path: Path) -> None:
    events = tmp_path / "e.jsonl"
    events.write_text(
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n'
        '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n',
        "utf-8",
    )
    with _cap(events.stat().st_size):
        code, _, err = _main(["validate", str(events)])
    assert code == 0, err
