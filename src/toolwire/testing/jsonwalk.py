"""Every place in a JSON value, visited without recursion (deep values cannot exhaust the stack)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def slots(value: Any) -> Iterator[tuple[Any, Any]]:
    """``(container, key)`` for every dict member and list item at any depth, parents first.

    ``container[key]`` may be replaced while walking; the walk then enters the new value. The
    root itself is not a slot (wrap it in a list to replace it).
    """
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        keys: Any
        if isinstance(node, dict):
            keys = list(node)
        elif isinstance(node, list):
            keys = range(len(node))
        else:
            continue
        for key in keys:
            yield node, key
            stack.append(node[key])


__all__ = ["slots"]
