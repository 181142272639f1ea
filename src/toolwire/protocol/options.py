"""Keyword options checked against what a function or class takes, before the call.

An unknown keyword is an ``UnsupportedInput`` naming it and the known ones, never
Python's bare ``TypeError``: the surface functions check before they construct, and
:func:`checked_init` gives a ``Decoder``/``Encoder`` class the same check when it is
constructed directly.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any

from toolwire.errors import UnsupportedInput


@functools.cache
def _keywords(fn: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword names ``fn`` takes (None: it takes any keyword)."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return frozenset(p.name for p in params if p.kind in kinds and p.name != "self")


def check_options(fn: Callable[..., Any], options: Iterable[str], where: str) -> None:
    """Raise ``UnsupportedInput`` naming every option ``fn`` does not take."""
    known = _keywords(fn)
    if known is None:
        return
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        allowed = ", ".join(sorted(known)) or "none"
        raise UnsupportedInput(f"{where}: unknown option {names} (known: {allowed})")


def checked_init(cls: type) -> None:
    """Wrap ``cls.__init__`` (when the class defines one) with :func:`check_options`; the
    wrapper keeps the signature (``inspect.signature`` follows ``__wrapped__``)."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "__wrapped__", None) is not None:
        return
    where = f"{getattr(cls, 'vendor', cls.__module__)}.{cls.__name__}"

    @functools.wraps(init)
    def checked(self: Any, *args: Any, **options: Any) -> None:
        check_options(init, options, where)
        init(self, *args, **options)

    cls.__init__ = checked  # type: ignore[misc]


__all__ = ["check_options", "checked_init"]
