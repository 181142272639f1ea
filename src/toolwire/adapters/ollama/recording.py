"""Which recorded Ollama responses are streams: NDJSON is neither SSE nor one JSON body.

A ``/api/chat`` request streams unless it says ``"stream": false`` (Ollama's default is
to stream), and a streamed body is ``application/x-ndjson``. A whole response read as
NDJSON is one line with ``done: true``, so reading every body this way is also right
for a recording that lost its headers.
"""

from __future__ import annotations

from typing import Any


def is_streamed(exchange: Any) -> bool:
    """Whether a recorded exchange's body is read line by line (the adapter's framing)."""
    ctype = str(getattr(exchange, "content_type", "") or "")
    if "ndjson" in ctype:
        return True
    request = getattr(exchange, "request_body", None)
    if isinstance(request, dict) and request.get("stream") is False:
        return False
    return "json" not in ctype


__all__ = ["is_streamed"]
