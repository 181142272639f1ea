"""What the "every field gives an event or a loss" tests watch: the ``ContentLossWarning``s
a translation announced (every warning shown, none filtered as already seen); and where
fuzz tests take a loss as a normal outcome."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from toolwire.losses import ContentLossWarning, ToolwireWarning


@contextmanager
def content_losses() -> Iterator[list[warnings.WarningMessage]]:
    """The content-loss warnings raised inside the block: the list is filled when it ends."""
    lost: list[warnings.WarningMessage] = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield lost
    lost.extend(w for w in seen if issubclass(w.category, ContentLossWarning))


@contextmanager
def losses_are_an_outcome() -> Iterator[None]:
    """For fuzz tests: generated input may well hold parts toolwire drops, and announcing them
    (a ``ToolwireWarning``) is a normal outcome there, like a ``ToolwireError``. Any other
    warning still fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolwireWarning)
        yield


__all__ = ["content_losses", "losses_are_an_outcome"]
