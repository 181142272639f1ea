"""Reading JSON from the outside world: one loader every decoder, recording reader and the CLI use.

Bytes must be UTF-8 (a cut inside a character or a stray byte is a ``VendorDataError``
naming the offset, never a bare ``UnicodeDecodeError``); nesting is bounded
(``limits().max_json_depth``, so no ``RecursionError`` later); a lone UTF-16 surrogate
(``"\\ud83d"``, valid JSON a JavaScript producer emits after slicing an emoji) cannot be
written as UTF-8 again, so it is replaced with U+FFFD and a warning says where.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

from toolwire.errors import VendorDataError
from toolwire.losses import ContentLossWarning
from toolwire.protocol.limits import limits

_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONTextError(VendorDataError, ValueError):
    """Text that is not (acceptable) JSON. Also a ``ValueError``, so a reader that tries
    JSON and falls back to another format on ``ValueError`` keeps working."""


def decode_utf8(data: bytes, vendor: str = "input", where: str = "text") -> str:
    """``data`` as text (a leading BOM dropped), or a ``VendorDataError`` naming the byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        what = "ends inside a UTF-8 character" if exc.end == len(data) else "is not UTF-8"
        raise JSONTextError(vendor, where, f"{what} (byte {exc.start})") from None


def load_json(data: bytes | str, vendor: str = "input", where: str = "JSON text") -> Any:
    """Parse JSON text or bytes under the rules above."""
    text = decode_utf8(data, vendor, where) if isinstance(data, bytes) else data
    try:
        value = json.loads(text)
    except RecursionError:
        cap = limits().max_json_depth
        raise JSONTextError(vendor, where, f"JSON nested deeper than {cap} levels") from None
    except ValueError as exc:
        raise JSONTextError(vendor, where, f"not JSON: {exc}") from None
    return checked(value, vendor, where)


def scrub(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (no warning: see :func:`checked`)."""
    return _SURROGATE.sub("\ufffd", text)


def checked(value: Any, vendor: str, where: str) -> Any:
    """``value`` (parsed JSON or a caller's dict) after the depth and surrogate rules.

    One iterative walk, linear in the value. The value is returned unchanged (the same
    object) unless a string held a lone surrogate; then a repaired copy is returned.
    """
    cap = limits().max_json_depth
    found = False
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            found = found or _SURROGATE.search(node) is not None
            continue
        if isinstance(node, dict):
            children: Any = node.items()
        elif isinstance(node, (list, tuple)):
            children = ((None, v) for v in node)
        else:
            continue
        if depth >= cap:
            raise JSONTextError(vendor, where, f"JSON nested deeper than {cap} levels")
        for key, child in children:
            if isinstance(key, str) and not found and _SURROGATE.search(key):
                found = True
            if isinstance(child, (dict, list, tuple, str)):
                stack.append((child, depth + 1))
    if not found:
        return value
    warnings.warn(
        f"toolwire: {vendor}: {where}: replaced lone UTF-16 surrogate(s) with U+FFFD "
        "(they cannot be written as UTF-8)",
        ContentLossWarning,
        stacklevel=3,
    )
    return _repair(value)


def _repair(value: Any) -> Any:
    """A copy of ``value`` with surrogates scrubbed (depth is bounded: recursion is safe)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {(scrub(k) if isinstance(k, str) else k): _repair(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_repair(v) for v in value]
    return value


def dumps_safe(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` with ``ensure_ascii=False`` whose text can always be encoded as UTF-8:
    a lone surrogate (in a model built by the caller) is written as its ``\\uXXXX`` escape,
    which any JSON reader turns back into the same string."""
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    if _SURROGATE.search(text) is None:
        return text
    return json.dumps(value, ensure_ascii=True, **kwargs)


__all__ = [
    "JSONTextError",
    "checked",
    "decode_utf8",
    "dumps_safe",
    "load_json",
    "scrub",
]
