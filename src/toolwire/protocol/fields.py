"""One typed reader for vendor JSON: every wrong shape a ``VendorDataError`` naming the place.

Each adapter binds one :class:`Fields` to its vendor name (in its ``wire.py``) and reads
every field through it, so "absent", "null" and "the wrong type" mean the same in all six
adapters and every message has the same form (``expected an object, got str``). Two
ways in: a value already read (``obj``, ``lst``, ``text``, ...; ``where`` names it) and a
key of an object (``at``, ``list_at``; ``where`` names the object, the key is added).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolwire.errors import VendorDataError

#: what each type is called in a message
_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer"}


def _name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_NAMES.get(k, k.__name__) for k in kinds)


class Fields:
    """Typed field reads for one vendor (``null`` counts as absent everywhere)."""

    __slots__ = ("vendor",)

    def __init__(self, vendor: str) -> None:
        self.vendor = vendor

    def wrong(self, value: Any, kind: type | tuple[type, ...], where: str) -> VendorDataError:
        """The error for ``value`` at ``where`` not being ``kind``."""
        return VendorDataError(
            self.vendor, where, f"expected {_name(kind)}, got {type(value).__name__}"
        )

    def missing(self, where: str) -> VendorDataError:
        return VendorDataError(self.vendor, where, "missing")

    # a value already read -------------------------------------------------------------

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        """A JSON object that must be there."""
        if isinstance(value, dict):
            return value
        raise self.missing(where) if value is None else self.wrong(value, dict, where)

    def opt_obj(self, value: Any, where: str) -> dict[str, Any] | None:
        """A JSON object, ``None`` when absent."""
        return None if value is None else self.obj(value, where)

    def lst(self, value: Any, where: str) -> list[Any]:
        """A repeated field: ``[]`` when absent (never iterates a string or a number)."""
        if value is None:
            return []
        if isinstance(value, list):
            return value
        raise self.wrong(value, list, where)

    # the looser shapes a vendor takes in a request (its encoder writes the canonical one)

    def several(
        self, value: Any, where: str, *, text: Callable[[str], Any] | None = None
    ) -> list[Any]:
        """A repeated field as the vendor reads it: a list as it is, one object standing for
        a list of it (Gemini's ``systemInstruction.parts`` as one part), ``[]`` when absent;
        with ``text``, a string too, as the one element ``text(value)`` makes of it (a text
        part where a part list is expected)."""
        if isinstance(value, list):
            return value
        if value is None:
            return []
        if isinstance(value, dict):
            return [value]
        if text is not None and isinstance(value, str):
            return [text(value)]
        raise self.wrong(value, (list, dict) if text is None else (str, list, dict), where)

    def text_or_several(self, value: Any, where: str) -> str | list[Any]:
        """A field that is a string or a repeated field (a ``content`` that is text or
        parts): the string as it is, else as :meth:`several` reads it."""
        if isinstance(value, str):
            return value
        if value is None or isinstance(value, (list, dict)):
            return self.several(value, where)
        raise self.wrong(value, (str, list, dict), where)

    def text(self, value: Any, where: str) -> str:
        """A string that must be there."""
        if isinstance(value, str):
            return value
        raise self.missing(where) if value is None else self.wrong(value, str, where)

    def opt_text(self, value: Any, where: str) -> str | None:
        """A string, ``None`` when absent."""
        return None if value is None else self.text(value, where)

    def opt_bool(self, value: Any, where: str) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        raise self.wrong(value, bool, where)

    def opt_int(self, value: Any, where: str) -> int | None:
        """A whole number (``true`` is not one), ``None`` when absent."""
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        raise self.wrong(value, int, where)

    # a key of an object -------------------------------------------------------------

    def at(self, value: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
        """``value[key]``, which must be there and of ``kind``."""
        container = self.obj(value, where)
        if key not in container:
            raise self.missing(f"{where}.{key}")
        got = container[key]
        if not isinstance(got, kind):
            raise self.wrong(got, kind, f"{where}.{key}")
        return got

    def list_at(self, value: Mapping[str, Any], key: str, where: str) -> list[Any]:
        """``value[key]`` as a repeated field (``[]`` when absent or null)."""
        return self.lst(value.get(key), f"{where}.{key}")


__all__ = ["Fields"]
