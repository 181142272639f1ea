"""Deterministic ids for things a vendor leaves unnamed.

A replayed cassette must give byte-identical events, so ids are derived from
stable inputs (response id, ordinal, ...) with SHA-256, never ``uuid4()`` or
the per-process salted ``hash()``.
"""

from __future__ import annotations

import hashlib


def mint_id(prefix: str, *parts: object, length: int = 24) -> str:
    """Return ``prefix_<hex>`` derived only from ``parts`` (same inputs, same id)."""
    joined = "\x1f".join(str(p) for p in parts)
    # surrogatepass: a lone surrogate in a vendor id still hashes (to a stable id)
    digest = hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:length]
    return f"{prefix}_{digest}"


def result_message_id(tool_call_id: str) -> str:
    """The id of the tool message answering ``tool_call_id`` when the vendor names none.

    One recipe for every adapter, from the call id alone, so a result decoded from a
    stream and the same result decoded from the next request's history get one id.
    """
    return mint_id("result", tool_call_id)


__all__ = ["mint_id", "result_message_id"]
