"""Does a live HTTP request match a recorded one? And if not, where does it first differ?

Replaying a recorded conversation (the cassette kit, the server's replay provider) must pick
the recorded turn the caller is really on, so requests are matched on method, path and a JSON
body compared as data (key order and white space do not matter: re-ordering keyword arguments
in an agent must not break a replay). The API-version prefix of the path is made uniform
(google-genai 3.x calls ``/v1/`` where older recordings hold ``/v1beta/``) and credentials in
the query string are ignored. The answer is a one-line reason naming the first field that
differs, so a failed replay says what changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from toolwire.protocol.redact import is_credential_name

_VERSION = re.compile(r"^/(v1beta1|v1beta|v1alpha|v1)/")

#: Query parameters that carry credentials: never part of a match, never quoted (these and
#: any other whose name says credential: ``protocol.redact.is_credential_name``).
SECRET_QUERY_KEYS = frozenset({"key", "api-key", "api_key", "access_token", "token"})

_SHOWN = 60  # characters of a differing value quoted in a reason


def normalized_path(path: str) -> str:
    """The request path with its API version prefix made uniform."""
    return _VERSION.sub("/vX/", path)


def _query(query: str) -> list[tuple[str, str]]:
    pairs = parse_qsl(query, keep_blank_values=True)
    return sorted((k, v) for k, v in pairs if not is_credential_name(k))


def _json_or_text(body: bytes | str | None) -> tuple[bool, Any]:
    if body is None:
        return True, None
    raw = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if not raw.strip():
        return True, None
    try:
        return True, json.loads(raw)
    except (ValueError, RecursionError):
        return False, raw


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


class _Missing:
    """The value on the side of a difference where a key is absent."""

    def __repr__(self) -> str:
        return "MISSING"


#: Stands for the absent side in :func:`difference_at` (a key only one value has).
MISSING: Any = _Missing()


def difference_at(recorded: Any, live: Any, where: str = "body") -> tuple[str, Any, Any] | None:
    """``(path, recorded part, live part)`` at the first difference of two JSON values, or ``None``.

    Objects compare by key regardless of order; lists element by element (lists of different
    lengths differ at the list, with both lists given). An absent key is :data:`MISSING`.
    Iterative, so a deeply nested value cannot exhaust the stack; linear in the two values.
    """
    stack: list[tuple[str, Any, Any]] = [(where, recorded, live)]
    while stack:
        at, a, b = stack.pop()
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            only_a = [k for k in a if k not in b]
            if only_a:
                return f"{at}.{only_a[0]}", a[only_a[0]], MISSING
            only_b = [k for k in b if k not in a]
            if only_b:
                return f"{at}.{only_b[0]}", MISSING, b[only_b[0]]
            stack.extend((f"{at}.{k}", a[k], b[k]) for k in reversed(list(a)))
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return at, a, b
            pairs = [(f"{at}[{i}]", x, y) for i, (x, y) in enumerate(zip(a, b, strict=True))]
            stack.extend(reversed(pairs))
        elif (type(a) is not type(b) and not (_is_number(a) and _is_number(b))) or a != b:
            return at, a, b
    return None


def first_difference(recorded: Any, live: Any, where: str = "body") -> str | None:
    """Where two JSON values first differ (``body.messages[1].content``), or ``None``."""
    found = difference_at(recorded, live, where)
    if found is None:
        return None
    at, a, b = found
    if b is MISSING:
        return f"{at}: recorded {_show(a)}, missing now"
    if a is MISSING:
        return f"{at}: not recorded, now {_show(b)}"
    if isinstance(a, list) and isinstance(b, list):
        return f"{at}: recorded {len(a)} items, now {len(b)}"
    return f"{at}: recorded {_show(a)}, now {_show(b)}"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def request_difference(
    recorded_method: str,
    recorded_uri: str,
    recorded_body: bytes | str | None,
    method: str,
    uri: str,
    body: bytes | str | None,
    *,
    ignore_body_keys: Iterable[str] = (),
) -> str | None:
    """Why a live request is not the recorded one (first difference), or ``None`` if it is.

    ``ignore_body_keys`` names top-level body keys left out of the comparison (e.g. a
    ``stream`` flag a replay does not care about).
    """
    if recorded_method.upper() != method.upper():
        return f"method: recorded {recorded_method.upper()}, now {method.upper()}"
    ru, lu = urlsplit(recorded_uri), urlsplit(uri)
    if normalized_path(ru.path) != normalized_path(lu.path):
        return f"path: recorded {ru.path}, now {lu.path}"
    rq, lq = _query(ru.query), _query(lu.query)
    if rq != lq:
        return f"query: recorded {_show(dict(rq))}, now {_show(dict(lq))}"
    r_ok, r_val = _json_or_text(recorded_body)
    l_ok, l_val = _json_or_text(body)
    if not (r_ok and l_ok):
        return None if r_val == l_val else "body: the bodies differ (not JSON)"
    skip = set(ignore_body_keys)
    if skip and isinstance(r_val, dict) and isinstance(l_val, dict):
        r_val = {k: v for k, v in r_val.items() if k not in skip}
        l_val = {k: v for k, v in l_val.items() if k not in skip}
    return first_difference(r_val, l_val)


__all__ = [
    "MISSING",
    "SECRET_QUERY_KEYS",
    "difference_at",
    "first_difference",
    "normalized_path",
    "request_difference",
]
