"""Token counts from vendors, checked before they reach ``TokenUsage``.

``TokenUsage`` holds JSON-safe integers (0 to 2**53 - 1) and raises a pydantic
error past that; a vendor's bad count must instead be a ``VendorDataError``
naming the field, and a count the vendor did not send stays absent.
"""

from __future__ import annotations

from typing import Any

from toolwire.errors import VendorDataError

#: The largest count ``TokenUsage`` holds.
MAX_TOKEN_COUNT = 2**53 - 1


def token_count(value: Any, vendor: str, where: str) -> int | None:
    """``value`` as a token count; ``None`` stays ``None`` (never a made-up zero)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKEN_COUNT:
        raise VendorDataError(
            vendor, where, f"expected a token count (0 to 2**53 - 1), got {value!r}"
        )
    return value


def summed_count(total: int, vendor: str, where: str, what: str) -> int:
    """A count derived by adding vendor counts, checked against what ``TokenUsage`` holds."""
    if total > MAX_TOKEN_COUNT:
        raise VendorDataError(vendor, where, f"{what} ({total}) is past any real token count")
    return total


__all__ = ["MAX_TOKEN_COUNT", "summed_count", "token_count"]
