"""Caps on what toolwire buffers or expands for one input, so hostile input cannot exhaust memory.

Every cap is generous for real traffic (a 50 MB argument delta passes) and finite, so
input built to grow without end fails with :class:`~toolwire.errors.LimitExceeded`
naming the cap. :func:`configure` changes the process-wide defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

from toolwire.errors import LimitExceeded

_MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """The caps; see :func:`configure`."""

    #: nesting of one JSON value (chunk, event, request body, argument object)
    max_json_depth: int = 200
    #: characters of argument text buffered for one tool call
    max_argument_chars: int = 256 * _MiB
    #: characters of one SSE event's data (or one unterminated line)
    max_event_chars: int = 256 * _MiB
    #: bytes a recording may expand to (decompressed bodies, the YAML text)
    max_recording_bytes: int = 1024 * _MiB
    #: nodes of a YAML recording once its aliases are expanded
    max_yaml_nodes: int = 5_000_000


_current = Limits()


def limits() -> Limits:
    """The caps in force now."""
    return _current


def configure(**changes: int) -> Limits:
    """Change caps process-wide (e.g. ``configure(max_argument_chars=1 << 20)``); returns the
    previous caps so a caller can restore them with ``configure(**asdict(previous))``."""
    global _current
    known = {f.name for f in fields(Limits)}
    for name, value in changes.items():
        if name not in known:
            raise TypeError(f"unknown limit {name!r}; known: {', '.join(sorted(known))}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"limit {name} must be a positive int, got {value!r}")
    previous = _current
    _current = replace(_current, **changes)
    return previous


def check(name: str, size: int, where: str | Callable[[], str]) -> None:
    """Raise ``LimitExceeded`` when ``size`` passes the cap ``name``.

    ``where`` may be a function: the per-chunk and per-delta callers pass one, so the place's
    text is only built when the cap is passed.
    """
    cap: int = getattr(_current, name)
    if size > cap:
        raise LimitExceeded(name, cap, where() if callable(where) else where)


__all__ = ["Limits", "check", "configure", "limits"]
