"""What the "every field gives an event or a loss" tests watch: the ``ContentLossWarning``s
a translation announced (every warning shown, none filtered as already seen)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from toolwire.losses import ContentLossWarning


@contextmanager
def content_losses() -> Iterator[list[warnings.WarningMessage]]:
    """The content-loss warnings raised inside the block: the list is filled when it ends."""
    lost: list[warnings.WarningMessage] = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield lost
    lost.extend(w for w in seen if issubclass(w.category, ContentLossWarning))


__all__ = ["content_losses"]
