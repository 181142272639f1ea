"""Secrets out of every message (the public name of :mod:`toolwire.redaction`).

The masking lives below ``toolwire.errors`` (every exception message is redacted, and
``errors`` imports nothing above it); this module is where the docs and users find it.
"""

from __future__ import annotations

from toolwire.redaction import (
    CREDENTIAL_NAME,
    MASK,
    MIN_SECRET_CHARS,
    SECRET_HEADERS,
    credential_values,
    is_credential_name,
    redact,
    redact_headers,
    secret_values,
    without_userinfo,
)

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
