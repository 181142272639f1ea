"""Secrets out of every message: one helper for URIs, headers and key-shaped tokens.

A recording's URI may hold ``?key=`` (Gemini) or ``api-key=`` (Azure); a header dump may
hold ``Authorization``. Whatever reaches an exception, a warning, a loss or a log passes
through :func:`redact` first, with ``[REDACTED]`` (``MASK``), the one mask toolwire uses;
the run driver and the server pass the key values they hold as ``known``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar, overload

T = TypeVar("T")

#: headers that carry credentials (lower case); vcrpy recording filters them too
SECRET_HEADERS = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "cookie",
    "set-cookie",
)

MASK = "[REDACTED]"

#: a known value shorter than this is not masked: local OpenAI-compatible servers are given
#: keys like ``e`` or ``x``, which protect nothing and would be "found" inside every word
MIN_SECRET_CHARS = 8

_PARAM = re.compile(
    r"(?i)(?<![A-Za-z0-9_-])"
    r"(key|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|id[-_]?token|token|"
    r"client[-_]?secret|secret|password|passwd|sig|signature|x-goog-api-key)"
    r"(=)([^&\s#'\"<>]+)"
)
_HEADER = re.compile(
    r"(?i)([\"']?)(" + "|".join(re.escape(h) for h in SECRET_HEADERS) + r")\1"
    r"(\s*:\s*\[?\s*[\"']?)([^\"'\]\r\n,}]+)"
)
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}")
_TOKENS = re.compile(r"\b(sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z._-]{16,})")


@overload
def redact(value: str, known: Iterable[str] = (), *, shapes: bool = True) -> str: ...


@overload
def redact(value: T, known: Iterable[str] = (), *, shapes: bool = True) -> T: ...


def redact(value: Any, known: Iterable[str] = (), *, shapes: bool = True) -> Any:
    """``value`` (text, or JSON-like data whose strings are masked) with credentials masked.

    ``known`` are values the caller knows to be secret (a client's API key, a server's key
    from the environment): each is masked wherever it stands, unless it is shorter than
    :data:`MIN_SECRET_CHARS` (too short to be a secret; masking it would mangle the text).
    ``shapes`` also masks what looks like a credential (query parameters, headers, bearer
    tokens, OpenAI/Google key shapes); a server masking its own keys in model output turns it
    off, so a model's text about tokens is left alone. Everything else is kept so the
    message still says where.
    """
    return _masked(value, secret_values(known), shapes)


def secret_values(known: Iterable[str]) -> list[str]:
    """The values of ``known`` worth masking (at least :data:`MIN_SECRET_CHARS` long),
    longest first so a key that contains another is masked whole."""
    kept = {k for k in known if isinstance(k, str) and len(k) >= MIN_SECRET_CHARS}
    return sorted(kept, key=len, reverse=True)


def _masked(value: Any, secrets: list[str], shapes: bool) -> Any:
    if isinstance(value, str):
        return _masked_text(value, secrets, shapes)
    if isinstance(value, dict):
        return {k: _masked(v, secrets, shapes) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, secrets, shapes) for v in value]
    return value


def _masked_text(text: str, secrets: list[str], shapes: bool) -> str:
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    if not shapes or not text:
        return text
    text = _HEADER.sub(lambda m: m.group(1) + m.group(2) + m.group(1) + m.group(3) + MASK, text)
    text = _PARAM.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    text = _BEARER.sub(lambda m: m.group(1) + " " + MASK, text)
    return _TOKENS.sub(MASK, text)


def redact_headers(headers: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``headers`` with every credential header's value masked."""
    return {k: (MASK if str(k).lower() in SECRET_HEADERS else v) for k, v in headers.items()}


__all__ = [
    "MASK",
    "MIN_SECRET_CHARS",
    "SECRET_HEADERS",
    "redact",
    "redact_headers",
    "secret_values",
]
