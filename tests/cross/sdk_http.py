"""In-memory HTTP for a vendor's real SDK client (its ``http_client=``): what the tests put
between the SDK and the network, so the SDK's own parser and serializer do the work."""

from __future__ import annotations

from typing import Any

import httpx2

SSE = "text/event-stream; charset=utf-8"


def answering(body: bytes, content_type: str = SSE) -> httpx2.Client:
    """Every request answered with ``body`` (SSE unless ``content_type`` says otherwise)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": content_type}, content=body)

    return httpx2.Client(transport=httpx2.MockTransport(handler))


def recording(seen: list[bytes], status: int, answer: Any) -> httpx2.Client:
    """Each request's body appended to ``seen``, answered with ``answer`` as JSON."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.read())
        return httpx2.Response(status, json=answer)

    return httpx2.Client(transport=httpx2.MockTransport(handler))


__all__ = ["SSE", "answering", "recording"]
