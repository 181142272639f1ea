"""A recording file parsed once per test session. Most of the suite's time went to PyYAML
reading the same cassettes again in module after module; every caller still gets its own deep
copy, so a test that edits an exchange cannot change what the next one reads."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

from toolwire.recordings import Exchange, load_recording


@functools.cache
def _parsed(path: str, mtime_ns: int, size: int) -> tuple[Exchange, ...]:
    # the file's stat is part of the key: a file rewritten by a test is read again
    p = Path(path)
    return tuple(load_recording(p.read_bytes(), p.name))


def recording(path: Path | str) -> list[Exchange]:
    """``load_recording(path.read_bytes(), path.name)``, parsed once per file version."""
    p = Path(path).resolve()
    st = p.stat()
    return copy.deepcopy(list(_parsed(str(p), st.st_mtime_ns, st.st_size)))


__all__ = ["recording"]
