"""Event handlers found once per class: ``EventType`` -> the class's ``_on_<type>`` method.

A handler looked up by building its name (``getattr(self, "_on_" + t.value.lower())``)
costs a string build, an enum lookup and a ``getattr`` on every event; the table makes it
one dict lookup. The methods are unbound: call ``handler(self, event)``.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import EventType


def handlers_by_type(cls: type) -> dict[EventType, Any]:
    """Each ``EventType`` whose ``cls._on_<type in lower case>`` exists, to that function."""
    found: dict[EventType, Any] = {}
    for t in EventType:
        handler = getattr(cls, "_on_" + t.value.lower(), None)
        if handler is not None:
            found[t] = handler
    return found


__all__ = ["handlers_by_type"]
