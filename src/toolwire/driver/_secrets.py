"""The credentials a client holds, so a run keeps them out of every text it sends.

The masking itself is :func:`toolwire.protocol.redact.redact` (one mask, ``[REDACTED]``);
this module only finds the values to mask.
"""

from __future__ import annotations

from typing import Any


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


__all__ = ["client_secrets"]
