"""What the vendors' rules files (``tests/vendor_<name>/_rules.py``) share: a call id checked
against a documented rule, and ids unique in a request."""

from __future__ import annotations

import re
from typing import Any


def check_id(target: str, rule: tuple[int | None, str | None], call_id: Any) -> None:
    """``call_id`` keeps ``rule`` (its max length, its full-match pattern; None: no bound)."""
    longest, pattern = rule
    assert isinstance(call_id, str) and call_id, f"{target}: a call id must be a non-empty string"
    if longest is not None:
        assert len(call_id) <= longest, f"{target}: id {call_id!r} is over {longest} characters"
    if pattern is not None:
        assert re.fullmatch(pattern, call_id), f"{target}: id {call_id!r} breaks {pattern}"


def unique(target: str, ids: list[str]) -> None:
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    assert not repeated, f"{target}: the request gives two calls one id: {repeated}"
