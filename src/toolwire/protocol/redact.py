"""Secrets out of every message: one helper for URIs, headers and key-shaped tokens.

A recording's URI may hold ``?key=`` (Gemini) or ``api-key=`` (Azure); a header dump may
hold ``Authorization``. Whatever reaches an exception, a warning, a loss or a log passes
through :func:`redact` first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

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


def redact(text: str) -> str:
    """``text`` with credential values masked (query parameters, headers, bearer tokens,
    OpenAI/Google key shapes); everything else is kept so the message still says where."""
    if not text:
        return text
    text = _HEADER.sub(lambda m: m.group(1) + m.group(2) + m.group(1) + m.group(3) + MASK, text)
    text = _PARAM.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    text = _BEARER.sub(lambda m: m.group(1) + " " + MASK, text)
    return _TOKENS.sub(MASK, text)


def redact_headers(headers: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``headers`` with every credential header's value masked."""
    return {k: (MASK if str(k).lower() in SECRET_HEADERS else v) for k, v in headers.items()}


__all__ = ["MASK", "SECRET_HEADERS", "redact", "redact_headers"]
