"""Deterministic ids for things a vendor leaves unnamed.

A replayed cassette must give byte-identical events, so ids are derived from
stable inputs (response id, ordinal, ...) with SHA-256, never ``uuid4()`` or
the per-process salted ``hash()``.
"""

from __future__ import annotations

import hashlib

_sha256 = hashlib.sha256


def digest(*parts: object, length: int = 24) -> str:
    """The first ``length`` hex digits of the SHA-256 of ``parts`` (each as ``str``, joined
    by ``\x1f``): what :func:`mint_id` puts after its prefix."""
    joined = "\x1f".join(map(str, parts))
    # surrogatepass: a lone surrogate in a vendor id still hashes (to a stable id)
    return _sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def mint_id(prefix: str, *parts: object, length: int = 24) -> str:
    """Return ``prefix_<hex>`` derived only from ``parts`` (same inputs, same id)."""
    return f"{prefix}_{digest(*parts, length=length)}"


def result_message_id(tool_call_id: str) -> str:
    """The id of the tool message answering ``tool_call_id`` when the vendor names none.

    One recipe for every adapter, from the call id alone, so a result decoded from a
    stream and the same result decoded from the next request's history get one id.
    """
    return mint_id("result", tool_call_id)


__all__ = ["digest", "mint_id", "result_message_id"]
