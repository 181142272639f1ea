"""Reading JSON from the outside world: one loader every decoder, recording reader and the CLI use.

Bytes must be UTF-8 (a cut inside a character or a stray byte is a ``VendorDataError``
naming the offset, never a bare ``UnicodeDecodeError``); nesting is bounded
(``limits().max_json_depth``, so no ``RecursionError`` later); a lone UTF-16 surrogate
(``"\\ud83d"``, valid JSON a JavaScript producer emits after slicing an emoji) cannot be
written as UTF-8 again, so it is replaced with U+FFFD and a warning says where.
"""

from __future__ import annotations

import copy
import json
import re
import secrets
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from toolwire.errors import VendorDataError
from toolwire.losses import ContentLossWarning
from toolwire.protocol.limits import limits

_SURROGATE = re.compile("[\ud800-\udfff]")
#: a ``\\u`` escape of a surrogate (D800-DFFF) in JSON text
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


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


_BYTES = (bytes, bytearray, memoryview)


#: the whitespace JSON allows around a value (the pattern ``json.decoder`` skips)
_SPACE = re.compile(r"[ \t\n\r]*")
_SPACE_CHARS = frozenset(" \t\n\r")
Scanner = Callable[[str, int], tuple[Any, int]]
#: the scanner of ``json.loads``' own decoder (C): ``(text, index)`` -> ``(value, end)``;
#: for a value the caller knows the bounds of (a fused rule's ``Whole`` field), unchecked
scan_value: Scanner = json.decoder.JSONDecoder().scan_once  # type: ignore[attr-defined]
_SCAN = scan_value


def _after_space(text: str, at: int) -> int:
    found = _SPACE.match(text, at)
    return found.end() if found is not None else at


def whole_value(text: str, scan: Scanner = _SCAN) -> Any:
    """``json.loads(text)`` for a ``str``, the same value and the same ``JSONDecodeError``s,
    without the two Python frames of ``decode`` and ``raw_decode`` around the scanner (on a
    stream of small chunks, a tenth of the parse). ``scan``: another decoder's scanner.
    Bytes are decoded as ``json.loads`` decodes them (any other type: its ``TypeError``)."""
    if not isinstance(text, str):
        if not isinstance(text, (bytes, bytearray)):
            kind = type(text).__name__
            raise TypeError(f"the JSON object must be str, bytes or bytearray, not {kind}")
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        value, end = scan(text, 0 if text[:1] not in _SPACE_CHARS else _after_space(text, 0))
    except StopIteration as exc:
        raise json.JSONDecodeError("Expecting value", text, exc.value) from None
    if end != len(text):
        end = _after_space(text, end)
        if end != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
    return value


def clean_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` holds, when the text alone shows it breaks no rule (what
    :func:`load_json` returns unchanged and without a warning); else ``None``, and the
    caller reads it with ``load_json``, which names the place of what is wrong. For readers
    of many small payloads: no place is spelled out for the ones that are fine."""
    try:
        value = whole_value(text)
    except (ValueError, RecursionError):
        return None
    return value if type(value) is dict and text_is_clean(text) else None


#: The string put between the payloads of a batch (:func:`clean_objects`). The batch's
#: parse proves each payload one whole value only if this string sits at every seam, so it
#: is random per process: a sender cannot write it into a payload.
_SEAM_VALUE = secrets.token_hex(8)
_SEAM = ',"' + _SEAM_VALUE + '",'


def clean_objects(texts: list[str]) -> list[CheckedObject | None]:
    """:func:`clean_object` of each text (as a :class:`CheckedObject`), from one parse of
    up to :data:`_BATCH` texts at a time: json's parser is entered once and shares the keys
    the payloads repeat, which makes a stream of small chunks parse about a quarter faster.
    ``None`` where a text must be read alone (with ``load_json``, which names what is
    wrong): one the rules refuse, or any text of a batch that does not parse as one value
    per text."""
    out: list[CheckedObject | None] = []
    for start in range(0, len(texts), _BATCH):
        out.extend(_clean_batch(texts[start : start + _BATCH]))
    return out


#: Texts parsed together: enough to share the keys, few enough that the values made stay
#: in the cache (and the collector's youngest generation) until they are handed on.
_BATCH = 128


def _clean_batch(texts: list[str]) -> list[CheckedObject | None]:
    """The texts are parsed as ``[t0, SEAM, t1, SEAM, ...]``: ``SEAM`` at every odd place
    proves that each text is exactly one JSON value (a text opening a container another
    closes, or holding two values, moves or hides a seam), so each value is the one
    ``json.loads`` gives for its text alone."""
    joined = "[" + _SEAM.join(texts) + "]"
    n = len(texts)
    try:
        values, end = _SCAN(joined, 0)
    except (ValueError, RecursionError, StopIteration):
        return [None] * n
    if end != len(joined) or len(values) != 2 * n - 1:
        return [None] * n
    if n > 1 and values[1::2].count(_SEAM_VALUE) != n - 1:
        return [None] * n
    cap = limits().max_json_depth
    # the surrogate rule, told once for the whole batch when it holds for all of it
    plain = joined.isascii() and "\\u" not in joined
    out: list[CheckedObject | None] = []
    add = out.append
    for text, value in zip(texts, values[::2], strict=True):
        if type(value) is not dict:
            add(None)
        elif (len(text) < cap or text.count("{") + text.count("[") < cap) and (
            plain or text_is_clean(text)
        ):
            made = CheckedObject(value)
            made._cap = cap
            add(made)
        else:
            add(None)
    return out


def load_json(data: bytes | str, vendor: str = "input", where: str = "JSON text") -> Any:
    """Parse JSON text or bytes under the rules above."""
    text = decode_utf8(bytes(data), vendor, where) if isinstance(data, _BYTES) else data
    if not isinstance(text, str):
        raise JSONTextError(vendor, where, f"not JSON text: a {type(text).__name__}")
    try:
        value = whole_value(text)
    except RecursionError:
        cap = limits().max_json_depth
        raise JSONTextError(vendor, where, f"JSON nested deeper than {cap} levels") from None
    except ValueError as exc:
        raise JSONTextError(vendor, where, f"not JSON: {exc}") from None
    if text_is_clean(text):
        return value
    return checked(value, vendor, where)


def jsonl_lines(text: str) -> list[str]:
    """The lines of JSON Lines text, split at LF only (a CR before it is JSON white space).

    Never ``str.splitlines``: it also splits at U+2028, U+2029, U+0085 and other characters
    a JSON string may hold raw, cutting a line that is one JSON value in two.
    """
    return text.split("\n")


def text_is_clean(text: str) -> bool:
    """True when no value parsed from ``text`` can break a rule, told from the text at C
    speed (else the value is walked): a value nests at most as many containers as the text
    has opening brackets, and a string of it holds a lone surrogate only where the text has
    one, escaped (``\\ud83d``) or as itself (in text handed in as ``str``; never in ASCII)."""
    cap = limits().max_json_depth
    # (a text shorter than the cap cannot hold that many brackets: most payloads)
    if len(text) >= cap and text.count("{") + text.count("[") >= cap:
        return False
    if not text.isascii() and _SURROGATE.search(text) is not None:
        return False  # (has_lone_surrogate, written out: this runs per payload)
    return "\\u" not in text or _ESCAPED_SURROGATE.search(text) is None


class CheckedObject(dict[str, Any]):
    """A JSON object toolwire parsed and checked: ``as_dict`` hands it to a decoder as it is,
    without walking it a second time.

    Only toolwire makes one (:meth:`made`): its readers, from text they parsed, and a decoder
    from values it checked (Anthropic's, of an SDK delta). It records the depth cap it was
    checked under, and is walked again when fed under a lower one. A dict from anywhere else
    is checked when it is fed, and so is any copy of one (``copy``, ``deepcopy``, ``dict()``,
    ``.copy()``, ``fromkeys`` and pickling give plain dicts) or one built by calling the class
    (it records no cap). Only an edit in place of the very object escapes the check: a caller
    changing what it feeds is trusted as its own code. It is a ``dict`` to everything else,
    but ``type(x) is dict`` is false and ``yaml.safe_dump`` refuses it: ``dict(x)`` first.
    """

    __slots__ = ("_cap",)
    _cap: int

    @classmethod
    def made(cls, value: dict[str, Any]) -> CheckedObject:
        """``value`` (checked under the current limits) as a ``CheckedObject``."""
        out = cls(value)
        out._cap = limits().max_json_depth
        return out

    def trusted(self) -> bool:
        """True when this object's check holds under the limits in force now."""
        cap = getattr(self, "_cap", None)
        return cap is not None and cap <= limits().max_json_depth

    @classmethod
    def fromkeys(cls, keys: Iterable[Any], value: Any = None) -> dict[Any, Any]:
        return dict.fromkeys(keys, value)

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        memo[id(self)] = out
        for key, value in self.items():
            out[copy.deepcopy(key, memo)] = copy.deepcopy(value, memo)
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


def scrub(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (no warning: see :func:`checked`)."""
    return _SURROGATE.sub("\ufffd", text)


def checked(value: Any, vendor: str, where: str) -> Any:
    """``value`` (parsed JSON or a caller's dict) after the depth and surrogate rules.

    One walk, linear in the value. The value is returned unchanged (the same object) unless
    a string held a lone surrogate; then a repaired copy is returned.
    """
    cap = limits().max_json_depth
    try:
        found = _surrogate_in(value, 0, cap)
    except _TooDeep:
        raise JSONTextError(vendor, where, f"JSON nested deeper than {cap} levels") from None
    if not found:
        return value
    warnings.warn(
        f"toolwire: {vendor}: {where}: replaced lone UTF-16 surrogate(s) with U+FFFD "
        "(they cannot be written as UTF-8)",
        ContentLossWarning,
        stacklevel=3,
    )
    return _repair(value)


def check_depth(value: Any, vendor: str, where: str) -> None:
    """A ``JSONTextError`` when ``value`` nests containers ``limits().max_json_depth`` deep
    (a value toolwire writes must be one its readers take)."""
    cap = limits().max_json_depth
    try:
        _surrogate_in(value, 0, cap)
    except _TooDeep:
        raise JSONTextError(vendor, where, f"JSON nested deeper than {cap} levels") from None


def escape_surrogates(text: str) -> str:
    """JSON ``text`` with each lone surrogate (which only a string can hold) written as its
    ``\\uXXXX`` escape: text that is UTF-8 again, and reads back as the same value."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def has_lone_surrogate(text: str) -> bool:
    """True when ``text`` holds a lone UTF-16 surrogate (never an ASCII one)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def is_clean(value: Any, depth: int = 0) -> bool:
    """True when ``checked`` would let ``value`` (found at ``depth`` inside a larger value)
    through unchanged and without a warning: no lone surrogate, no container at the cap."""
    try:
        return not _surrogate_in(value, depth, limits().max_json_depth)
    except _TooDeep:
        return False


class _TooDeep(Exception):
    """A container at the depth cap (turned into a ``JSONTextError`` naming the place)."""


#: nesting walked by recursion (a Python call per container, the fast way on the small
#: values chunks are); anything deeper goes on an explicit stack, so any cap is safe
_RECURSE = 48


def _surrogate_in(value: Any, depth: int, cap: int) -> bool:
    """True when a string or key in ``value`` holds a lone surrogate; ``_TooDeep`` when a
    container sits at depth ``cap``."""
    if isinstance(value, str):
        return has_lone_surrogate(value)
    if isinstance(value, dict):
        return _in_dict(value, depth, cap)
    if isinstance(value, (list, tuple)):
        return _in_list(value, depth, cap)
    return False


# The walkers below are the hot part of every chunk's check: the exact JSON types are told
# apart by ``type`` (anything else goes through :func:`_surrogate_in`), and an ASCII string
# (``str.isascii`` is O(1)) is never searched.


def _in_dict(node: dict[Any, Any], depth: int, cap: int) -> bool:
    if depth >= cap:
        raise _TooDeep
    if depth >= _RECURSE:
        return _surrogate_in_deep(node, depth, cap)
    found = False
    for key in node:
        if type(key) is str:
            if not key.isascii() and _SURROGATE.search(key):
                found = True
        elif _surrogate_in(key, depth + 1, cap):
            found = True
    return _in_children(node.values(), depth + 1, cap) or found


def _in_list(node: list[Any] | tuple[Any, ...], depth: int, cap: int) -> bool:
    if depth >= cap:
        raise _TooDeep
    if depth >= _RECURSE:
        return _surrogate_in_deep(node, depth, cap)
    return _in_children(node, depth + 1, cap)


def _in_children(children: Iterable[Any], down: int, cap: int) -> bool:
    """The values of one container (at depth ``down``): every one is walked, even after a
    surrogate is found, so a container too deep is refused wherever it is."""
    found = False
    search = _SURROGATE.search
    for child in children:
        kind = type(child)
        if kind is str:
            if not child.isascii() and search(child):
                found = True
        elif kind is dict:
            if _in_dict(child, down, cap):
                found = True
        elif kind is list:
            if _in_list(child, down, cap):
                found = True
        elif child is not None and kind is not int and kind is not bool and kind is not float:
            if _surrogate_in(child, down, cap):
                found = True
    return found


def _surrogate_in_deep(value: Any, depth: int, cap: int) -> bool:
    """:func:`_surrogate_in` for a deeply nested part: the same rules on an explicit stack."""
    found = False
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, str):
            found = found or (not node.isascii() and _SURROGATE.search(node) is not None)
            continue
        if isinstance(node, dict):
            for key in node:
                if isinstance(key, str) and not key.isascii() and _SURROGATE.search(key):
                    found = True
            children: Any = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if at >= cap:
            raise _TooDeep
        stack.extend((child, at + 1) for child in children)
    return found


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
    "Scanner",
    "check_depth",
    "checked",
    "clean_object",
    "decode_utf8",
    "dumps_safe",
    "escape_surrogates",
    "is_clean",
    "jsonl_lines",
    "load_json",
    "scan_value",
    "scrub",
    "text_is_clean",
    "whole_value",
]
