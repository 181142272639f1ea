"""Vertex ``partialArgs`` (JSONPath + typed value) -> JSON text deltas.

With ``streamFunctionCallArguments`` Vertex sends a call's arguments as a run of
``{jsonPath, stringValue|numberValue|boolValue|nullValue, willContinue}``
pieces. AG-UI wants argument *text*; :class:`ArgsWriter` turns each piece into
the next slice of one compact JSON document, so the deltas concatenate to
exactly ``dumps_compact(final_arguments)`` and nothing is ever re-sent or
reordered. It keeps only the open-container stack, never the value tree.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from toolwire.adapters.gemini.wire import FIELDS, VENDOR, get, has
from toolwire.errors import VendorDataError
from toolwire.protocol.arguments import whole_numbers

Segment = str | int


def parse_json_path(path: str, where: str) -> list[Segment]:
    """``$.a.b[0]['c d']`` -> ``["a", "b", 0, "c d"]`` (the RFC 9535 subset Vertex sends)."""
    if not isinstance(path, str) or not path.startswith("$"):
        raise VendorDataError(VENDOR, where, f"jsonPath {path!r} does not start with '$'")
    out: list[Segment] = []
    i, n = 1, len(path)
    while i < n:
        ch = path[i]
        if ch == ".":
            j = i + 1
            while j < n and path[j] not in ".[":
                j += 1
            if j == i + 1:
                raise VendorDataError(VENDOR, where, f"jsonPath {path!r}: empty member name")
            out.append(path[i + 1 : j])
            i = j
        elif ch == "[":
            if i + 1 < n and path[i + 1] in "'\"":
                quote = path[i + 1]
                j = i + 2
                name: list[str] = []
                while j < n and path[j] != quote:
                    if path[j] == "\\" and j + 1 < n:
                        j += 1
                    name.append(path[j])
                    j += 1
                if j + 1 >= n or path[j + 1] != "]":
                    raise VendorDataError(VENDOR, where, f"jsonPath {path!r}: unclosed name")
                out.append("".join(name))
                i = j + 2
            else:
                j = path.find("]", i)
                text = path[i + 1 : j] if j != -1 else ""
                if j == -1 or not text.isdigit():
                    raise VendorDataError(VENDOR, where, f"jsonPath {path!r}: bad index")
                out.append(int(text))
                i = j + 1
        else:
            raise VendorDataError(VENDOR, where, f"jsonPath {path!r}: unexpected {ch!r}")
    return out


def number_text(value: Any, where: str) -> str:
    """A JSON number; integral values keep their integer form (Vertex sends doubles)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise VendorDataError(VENDOR, where, f"numberValue must be a number, got {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise VendorDataError(VENDOR, where, f"numberValue {value!r} is not finite")
        return json.dumps(whole_numbers(value))
    return str(value)


def _escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


@dataclass
class _Level:
    array: bool
    count: int = 0
    keys: set[str] = field(default_factory=set)


class ArgsWriter:
    """One streamed call's arguments, written out as compact JSON one piece at a time."""

    def __init__(self) -> None:
        self._levels: list[_Level] = []
        self._path: list[Segment] = []
        self._open_string: list[Segment] | None = None
        self.text_len = 0

    def piece(self, arg: dict[str, Any], where: str) -> str:
        """The JSON text one ``PartialArg`` adds."""
        raw = FIELDS.text(get(arg, "jsonPath"), f"{where}.jsonPath")
        path = parse_json_path(raw, f"{where}.jsonPath")
        if not path:
            raise VendorDataError(VENDOR, f"{where}.jsonPath", "'$' alone names no argument")
        out: list[str] = []
        if not self._levels:
            out.append("{")
            self._levels.append(_Level(array=False))
        is_string = has(arg, "stringValue")
        cont = bool(get(arg, "willContinue", False))
        if self._open_string is not None:
            if is_string and path == self._open_string:
                out.append(_escaped(_string(arg, where)))
                if not cont:
                    out.append('"')
                    self._open_string = None
                return self._emit(out)
            out.append('"')
            self._open_string = None
        parent, leaf = path[:-1], path[-1]
        common = 0
        while (
            common < len(self._path)
            and common < len(parent)
            and self._path[common] == parent[common]
        ):
            common += 1
        while len(self._path) > common:
            out.append("]" if self._levels.pop().array else "}")
            self._path.pop()
        rest = [*parent[common:], leaf]
        for k, seg in enumerate(rest[:-1]):
            self._member(seg, out, where)
            opens_array = isinstance(rest[k + 1], int)
            out.append("[" if opens_array else "{")
            self._levels.append(_Level(array=opens_array))
            self._path.append(seg)
        self._member(leaf, out, where)
        if is_string:
            out.append('"' + _escaped(_string(arg, where)))
            if cont:
                self._open_string = path
            else:
                out.append('"')
        elif has(arg, "numberValue"):
            out.append(number_text(get(arg, "numberValue"), where))
        elif has(arg, "boolValue"):
            value = get(arg, "boolValue")
            if not isinstance(value, bool):
                raise FIELDS.wrong(value, bool, f"{where}.boolValue")
            out.append("true" if value else "false")
        elif has(arg, "nullValue"):
            out.append("null")
        else:
            raise VendorDataError(VENDOR, where, "partial argument carries no value")
        return self._emit(out)

    def finish(self) -> str:
        """The text that closes the document (``{}`` when no piece came)."""
        if not self._levels:
            return self._emit(["{}"])
        out: list[str] = []
        if self._open_string is not None:
            out.append('"')
            self._open_string = None
        while self._levels:
            out.append("]" if self._levels.pop().array else "}")
        self._path.clear()
        return self._emit(out)

    def _member(self, seg: Segment, out: list[str], where: str) -> None:
        level = self._levels[-1]
        if level.array:
            if not isinstance(seg, int) or seg != level.count:
                raise VendorDataError(
                    VENDOR, f"{where}.jsonPath", f"array index {seg!r} out of order"
                )
        else:
            if not isinstance(seg, str):
                raise VendorDataError(VENDOR, f"{where}.jsonPath", "index into an object")
            if seg in level.keys:
                raise VendorDataError(
                    VENDOR, f"{where}.jsonPath", f"member {seg!r} revisited after it was closed"
                )
            level.keys.add(seg)
        if level.count:
            out.append(",")
        level.count += 1
        if isinstance(seg, str):
            out.append(json.dumps(seg, ensure_ascii=False) + ":")

    def _emit(self, out: list[str]) -> str:
        text = "".join(out)
        self.text_len += len(text)
        return text


def _string(arg: dict[str, Any], where: str) -> str:
    return FIELDS.text(get(arg, "stringValue"), f"{where}.stringValue")


__all__ = ["ArgsWriter", "number_text", "parse_json_path"]
