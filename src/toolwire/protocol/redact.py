"""Secrets out of every message (the public name of :mod:`toolwire.redaction`).

The masking lives below ``toolwire.errors`` (every exception message is redacted, and
``errors`` imports nothing above it); this module is where the docs and users find it.
"""

from __future__ import annotations

from toolwire.redaction import MASK, SECRET_HEADERS, credential_values, redact, redact_headers

__all__ = ["MASK", "SECRET_HEADERS", "credential_values", "redact", "redact_headers"]
