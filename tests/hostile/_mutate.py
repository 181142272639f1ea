"""Mutations for the fuzz harness: structural (type confusion at any path) and byte-level."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

DEEP: Any = []
for _ in range(3000):
    DEEP = [DEEP]

#: values that break assumptions: wrong types, a lone surrogate, deep nesting, odd numbers
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["\ud83d", "a\udc00b", "", " ", "\x00", "[DONE]", "{", "null"]),
    st.just(DEEP),
    st.lists(st.integers() | st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=5), max_size=3),
)


def paths(value: Any) -> list[tuple[Any, ...]]:
    """Every path into ``value`` (dict keys and list indexes), the root included."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    return out


def replaced(value: Any, path: tuple[Any, ...], new: Any, *, delete: bool = False) -> Any:
    """A deep copy of ``value`` with the node at ``path`` replaced (or deleted)."""
    if not path:
        return new
    root = copy.deepcopy(value)
    node = root
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = new
    return root


@st.composite
def structural(draw: st.DrawFn, items: list[Any]) -> Any:
    """One of ``items`` with one place (drawn from all of its places) replaced or deleted."""
    base = draw(st.sampled_from(items))
    where = paths(base)
    path = where[draw(st.integers(0, len(where) - 1))]
    if path and draw(st.booleans()) and draw(st.booleans()):
        return replaced(base, path, None, delete=True)
    return replaced(base, path, draw(HOSTILE))


@st.composite
def byte_level(draw: st.DrawFn, bodies: list[bytes]) -> bytes:
    """One of ``bodies`` cut, with a byte flipped, bytes inserted, deleted or repeated."""
    body = draw(st.sampled_from(bodies))
    n = len(body)
    at = draw(st.integers(0, max(n - 1, 0)))
    op = draw(st.sampled_from(["cut", "flip", "insert", "delete", "repeat"]))
    if op == "cut":
        return body[:at]
    if op == "flip":
        return (
            body[:at] + bytes([body[at] ^ draw(st.integers(1, 255))]) + body[at + 1 :] if n else b""
        )
    if op == "insert":
        junk = draw(
            st.binary(max_size=8)
            | st.sampled_from([b"\xff", b"\xc3", b"\r", b"\n\n", b"data: ", b"\xef\xbb\xbf"])
        )
        return body[:at] + junk + body[at:]
    end = min(n, at + draw(st.integers(1, 64)))
    if op == "delete":
        return body[:at] + body[end:]
    return body[:end] + body[at:]
