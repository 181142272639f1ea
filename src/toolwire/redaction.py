"""Secrets out of every message: one helper for URIs, headers and key-shaped tokens.

A recording's URI may hold ``?key=`` (Gemini) or ``api-key=`` (Azure); a header dump may
hold ``Authorization``. Whatever reaches an exception, a warning, a loss or a log passes
through :func:`redact` first, with ``[REDACTED]`` (``MASK``), the one mask toolwire uses;
the run driver and the server pass the key values they hold as ``known``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
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
    from the environment): each is masked wherever it stands. ``shapes`` also masks what
    looks like a credential (query parameters, headers, bearer tokens, OpenAI/Google key
    shapes); a server masking its own keys in model output turns it off, so a model's text
    about tokens is left alone. Everything else is kept so the message still says where.
    """
    secrets = sorted({k for k in known if k}, key=len, reverse=True)
    return _masked(value, secrets, shapes)


def masker(known: Iterable[str] = (), *, shapes: bool = True) -> Callable[[str], str]:
    """``redact`` of text with ``known`` and ``shapes`` fixed: the secrets sorted once, for
    a caller that masks every frame it sends (the server)."""
    secrets = sorted({k for k in known if k}, key=len, reverse=True)

    def mask(text: str) -> str:
        return _masked_text(text, secrets, shapes)

    return mask


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


def credential_values(*holders: Any) -> list[str]:
    """Credentials SDK client objects hold (API keys, tokens, auth header values), longest
    first, each also without a ``Bearer`` prefix: what a run keeps out of every text.

    Duck-typed (``api_key``, ``auth_token``, ``_api_key``, ``auth_headers``): an adapter's
    ``client.py`` passes the objects of its SDK's client that hold them.
    """
    found: list[str] = []
    for holder in holders:
        if holder is None:
            continue
        for name in ("api_key", "auth_token", "_api_key"):
            value = getattr(holder, name, None)
            if isinstance(value, str):
                found.append(value)
        try:
            headers = getattr(holder, "auth_headers", None)
        except Exception:  # a property that needs credentials the client lacks
            headers = None
        if isinstance(headers, dict):
            found.extend(v for v in headers.values() if isinstance(v, str))
    out: list[str] = []
    for value in found:
        for piece in (value, value.removeprefix("Bearer ").strip()):
            if len(piece) >= 6 and piece not in out:
                out.append(piece)
    return sorted(out, key=len, reverse=True)


__all__ = ["MASK", "SECRET_HEADERS", "credential_values", "redact", "redact_headers"]
