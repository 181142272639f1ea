"""What a decoding gave, as one comparable value: read back in tests of any vendor."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

from toolwire.errors import ToolwireError


def outcome(run: Callable[[], Iterator[Any]]) -> tuple[Any, ...]:
    """What a decoding gives: its events (as dumps) and warnings, or its error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            events = [ev.model_dump(mode="json", by_alias=True) for ev in run()]
        except ToolwireError as exc:
            return ("error", type(exc).__name__, str(exc), [str(w.message) for w in caught])
    return ("ok", events, [str(w.message) for w in caught])
