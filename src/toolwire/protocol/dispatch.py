"""Event handlers found once per class: ``EventType`` -> the class's ``_on_<type>`` method.

A handler looked up by building its name (``getattr(self, "_on_" + t.value.lower())``)
costs a string build, an enum lookup and a ``getattr`` on every event; the table makes it
one dict lookup. The methods are unbound: call ``handler(self, event)``. A translator asks for
``handlers_by_type(type(self))``, so a subclass's own handler is the one called.
"""

from __future__ import annotations

import weakref
from typing import Any

from ag_ui.core import EventType

#: the tables built so far (a class that goes away takes its table with it)
_TABLES: weakref.WeakKeyDictionary[type, dict[EventType, Any]] = weakref.WeakKeyDictionary()


def handlers_by_type(cls: type) -> dict[EventType, Any]:
    """Each ``EventType`` whose ``cls._on_<type in lower case>`` exists, to that function
    (``cls``'s own, or the one it inherits), built once per class. The table is shared:
    never change it."""
    table = _TABLES.get(cls)
    if table is None:
        table = {}
        for t in EventType:
            handler = getattr(cls, "_on_" + t.value.lower(), None)
            if handler is not None:
                table[t] = handler
        _TABLES[cls] = table
    return table


__all__ = ["handlers_by_type"]
