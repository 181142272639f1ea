"""A vendor's JSON text kept as it is when it provably is what toolwire would write of it.

A whole call's arguments come as a JSON object (Gemini's ``args``, Ollama's
``arguments``) that the AG-UI event carries as text: compact, non-ASCII as is
(``arguments.dumps_compact``). Parsing them is needed to check them; writing them
again is not when the vendor already wrote that very text, which :func:`read_written`
proves from the text and its reading (issue 38: a whole call a chunk).
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolwire.protocol.jsontext import scan_value

#: ``-0`` not followed by a digit: a negative zero (``0`` once read), or its start (a date's
#: ``-05`` is not one)
_NEGATIVE_ZERO = re.compile(r"-0(?![0-9])")


class _NotIntegral(Exception):
    """A number with a fraction or an exponent, or a NaN or an infinity: a number the
    writer may write another way (read again by the plain scanner)."""


def _not_integral(text: str) -> Any:
    raise _NotIntegral(text)


#: ``scan_value`` that stops at the first number not an integer (the C scanner calls
#: ``parse_float`` for those alone, so an integral text costs nothing more): what told
#: them apart in the text, an expression searched over every character, cost as much again
_scan_integral: Any = json.JSONDecoder(  # type: ignore[attr-defined]
    parse_float=_not_integral, parse_constant=_not_integral
).scan_once


def read_written(text: str) -> tuple[Any, bool]:
    """The value of ``text``, JSON a fused reading matched (``Whole``: strings as JSON
    spells them, no surrogate, no white space but one space after a ``:`` or ``,``), and
    whether ``text`` is what ``dumps_compact`` (and ``dumps_whole``) writes of it, an
    object, so need not be written again. Proved from the text and its reading, else
    ``False`` (then it is written): every number an integer (no double to make whole) and
    no negative zero, no backslash (every string then stands as the encoder writes it, and
    every ``"`` delimits one), no ``": "`` or ``", "`` (no space between members or items),
    and no repeated key: one object only (one ``{``), its members one per key (``":`` ends
    each key, and nothing else, in such a text). Raises as ``scan_value`` does
    (``ValueError``: a number Python will not read; ``StopIteration``: no JSON value)."""
    try:
        value = _scan_integral(text, 0)[0]
    except _NotIntegral:
        return scan_value(text, 0)[0], False
    return value, (
        type(value) is dict
        and "\\" not in text
        and '": ' not in text
        and ", " not in text
        and ("-0" not in text or _NEGATIVE_ZERO.search(text) is None)
        and text.count("{") == 1
        and text.count('":') == len(value)
    )


__all__ = ["read_written"]
