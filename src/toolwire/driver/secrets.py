"""Keeping a client's credentials out of every text a run sends (``RUN_ERROR`` above all)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

REDACTED = "[redacted]"


def client_secrets(client: Any) -> list[str]:
    """Credentials a client holds (API keys, tokens, auth header values), to keep out of text."""
    found: list[str] = []
    for holder in (client, getattr(client, "_api_client", None)):
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


def redact(value: Any, secrets: Iterable[str]) -> Any:
    """``value`` (text, or JSON-like data) with every secret replaced by ``[redacted]``."""
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {k: redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    return value


__all__ = ["REDACTED", "client_secrets", "redact"]
