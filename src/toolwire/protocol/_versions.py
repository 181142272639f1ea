"""Protocol version declarations: compared numerically, absence means a legacy peer."""

from __future__ import annotations

import warnings

from ag_ui.core import PROTOCOL_VERSION

from toolwire.losses import VersionWarning


def parse_version(value: str) -> tuple[int, int] | None:
    """``"1.10"`` -> ``(1, 10)``; ``None`` for a declaration that cannot be read."""
    major, sep, minor = value.strip().partition(".")
    if not sep or not major.isdigit() or not minor.isdigit():
        return None
    return int(major), int(minor)


def is_legacy_peer(declared: str | None) -> bool:
    """A peer that declares no version predates content parts (and the version field)."""
    return declared is None


def check_declared(declared: str | None, *, who: str = "the peer") -> None:
    """Warn when a declaration is newer than ours or unreadable (proceed either way)."""
    if declared is None:
        return
    ours = parse_version(PROTOCOL_VERSION)
    theirs = parse_version(declared)
    if theirs is None:
        warnings.warn(
            f"toolwire: {who} declares protocol version {declared!r}, which cannot be read; "
            f"proceeding as {PROTOCOL_VERSION}",
            VersionWarning,
            stacklevel=3,
        )
    elif ours is not None and theirs > ours:
        warnings.warn(
            f"toolwire: {who} speaks AG-UI {declared}, newer than {PROTOCOL_VERSION}; "
            "proceeding, material this version does not know is stripped",
            VersionWarning,
            stacklevel=3,
        )


__all__ = ["check_declared", "is_legacy_peer", "parse_version"]
