"""Compact JSON text (``json.dumps(separators=(",", ":"))``), the encoder built once.

``json.dumps`` with any argument set builds a ``JSONEncoder`` and then a C encoder on every
call; for the small payloads of a stream that setup is near half the cost. The C encoder is
built here once, with the arguments ``JSONEncoder.iterencode`` passes it, so the text is the
same. Circular references are not tracked: one recurses until Python's recursion limit, so
a caller treats ``RecursionError`` as "nested too deep" (``frame_sse`` does). Without the C
accelerator (another Python), the stdlib's encoder is used as it is.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from json import encoder as _stdlib
from typing import Any


def _default(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _build(ensure_ascii: bool, allow_nan: bool = True) -> Callable[[Any], str]:
    make = getattr(_stdlib, "c_make_encoder", None)
    # the string quoting JSONEncoder picks (the C one, where there is the C encoder)
    quote = _stdlib.encode_basestring_ascii if ensure_ascii else _stdlib.encode_basestring
    if make is None:
        return json.JSONEncoder(
            separators=(",", ":"), ensure_ascii=ensure_ascii, allow_nan=allow_nan
        ).encode
    # (markers, default, encoder, indent, key_separator, item_separator, sort_keys,
    #  skipkeys, allow_nan): what JSONEncoder.iterencode passes for these settings
    run = make(None, _default, quote, None, ":", ",", False, False, allow_nan)

    def dumps(value: Any) -> str:
        return "".join(run(value, 0))

    return dumps


#: ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``
compact = _build(ensure_ascii=False)
#: ``json.dumps(value, separators=(",", ":"), ensure_ascii=True)``
compact_ascii = _build(ensure_ascii=True)
#: ``json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)``: NaN and
#: the infinities are a ``ValueError``
compact_finite = _build(ensure_ascii=False, allow_nan=False)


def _check_finite() -> Callable[[Any], object]:
    """What :data:`compact_finite` raises for a value, without writing its text: the C
    encoder run with every string quoted as ``""``. A request body's long strings (base64
    media) are then neither scanned for escapes nor copied, most of a ``json.dumps``'s work;
    a NaN or an infinity is still a ``ValueError``, anything else JSON has no form for a
    ``TypeError``, and a value too deep a ``RecursionError``, as there."""
    make = getattr(_stdlib, "c_make_encoder", None)
    if make is None:
        return compact_finite
    # (strings are quoted by a C callable: any str, even a long one, gives "" at once)
    empty = operator.itemgetter(slice(0, 0))
    run = make(None, _default, empty, None, ":", ",", False, False, False)

    def check(value: Any) -> object:
        return run(value, 0)

    return check


#: raises as :data:`compact_finite` would for the same value (its return says nothing)
check_finite = _check_finite()

#: a str's JSON text as :data:`compact` writes it (the quoting its encoder was built with)
quote: Callable[[str], str] = _stdlib.encode_basestring

__all__ = ["check_finite", "compact", "compact_ascii", "compact_finite", "quote"]
