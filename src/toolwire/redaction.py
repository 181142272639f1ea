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

#: a known value shorter than this is not masked: local OpenAI-compatible servers are given
#: keys like ``e`` or ``x``, which protect nothing and would be "found" inside every word
MIN_SECRET_CHARS = 8

#: a header, query parameter or field name that says it holds a credential: one of these
#: words as a whole segment of the name (``X-Upstream-Credential``, ``X-Auth``,
#: ``X-Goog-Signature``, ``X-Amz-Security-Token``, ``client_secret``, ``sig``)
CREDENTIAL_NAME = re.compile(
    r"(?i)(?:^|[-_.])(?:auth|authorization|api[-_]?key|apikey|key|token|secret|password|"
    r"passwd|pwd|credential|credentials|cookie|session|signature|sig|private[-_]?key)"
    r"(?:[-_.]|$)"
)
#: names that match the words above and carry no credential
NOT_CREDENTIAL_NAMES = frozenset({"idempotency-key", "sec-websocket-key", "www-authenticate"})


def is_credential_name(name: str) -> bool:
    """Whether a header, query parameter or field called ``name`` holds a credential."""
    low = name.strip().lower()
    return low in SECRET_HEADERS or (
        low not in NOT_CREDENTIAL_NAMES and CREDENTIAL_NAME.search(low) is not None
    )


_PARAM = re.compile(r"(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9_.-]{0,63})(=)([^&\s#'\"<>]+)")
_HEADER = re.compile(
    r"(?i)([\"']?)("
    + "|".join(re.escape(h) for h in SECRET_HEADERS)
    + r"|[a-z0-9]+(?:-[a-z0-9]+)+)\1"
    r"(\s*:\s*\[?\s*[\"']?)([^\"'\]\r\n,}]+)"
)
#: ``scheme://user:password@host``: the password is masked, the user kept
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/\s:@?#\[\]]*):([^/\s@?#]+)@")
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
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:{MASK}@", text)
    text = _HEADER.sub(_header_masked, text)
    text = _PARAM.sub(
        lambda m: m.group(1) + m.group(2) + MASK if is_credential_name(m.group(1)) else m.group(0),
        text,
    )
    text = _BEARER.sub(lambda m: m.group(1) + " " + MASK, text)
    return _TOKENS.sub(MASK, text)


def _header_masked(m: re.Match[str]) -> str:
    if not is_credential_name(m.group(2)):
        return m.group(0)
    return m.group(1) + m.group(2) + m.group(1) + m.group(3) + MASK


def redact_headers(headers: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``headers`` with every credential header's value masked (by name: the
    usual ones and any whose name says credential, token, secret, signature, auth...)."""
    return {k: (MASK if is_credential_name(str(k)) else v) for k, v in headers.items()}


def without_userinfo(url: str) -> str:
    """``url`` with any ``user:password@`` masked (what may be printed of a URL)."""
    return _USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:{MASK}@", url)


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


__all__ = [
    "CREDENTIAL_NAME",
    "MASK",
    "MIN_SECRET_CHARS",
    "SECRET_HEADERS",
    "credential_values",
    "is_credential_name",
    "redact",
    "redact_headers",
    "secret_values",
    "without_userinfo",
]
