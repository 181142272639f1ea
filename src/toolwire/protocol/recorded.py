"""Recorded exchanges and where a vendor's model calls are among them: low, shared types.

Every adapter's ``wire.py`` names its :class:`ModelRoute`; the recordings reader, the
CLI, the replay and the adapters' recording hooks pass :class:`Exchange` values. They
live here, below the adapters and the recordings reader, so that no adapter imports
the reader for them and no import cycle runs through it. ``toolwire.recordings``
re-exports both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from toolwire.errors import ToolwireError, UnsupportedInput
from toolwire.protocol.jsontext import load_json


@dataclass
class Exchange:
    """One recorded request/response pair (or a bare response)."""

    response_body: bytes
    content_type: str = ""
    status: int = 200
    method: str = "POST"
    uri: str = ""
    request_body: Any = None  # parsed JSON when the request had one
    headers: dict[str, list[str]] = field(default_factory=dict)

    @property
    def is_sse(self) -> bool:
        if "event-stream" in self.content_type:
            return True
        head = self.response_body.lstrip()[:6]
        return head.startswith((b"data:", b"event:", b":"))

    def response_json(self) -> Any:
        try:
            return load_json(self.response_body, "recording", self.uri or "response")
        except ToolwireError as exc:
            raise UnsupportedInput(f"{self.uri or 'response'}: body: {exc}") from None


class Routed(Protocol):
    """What a route reads of a recorded exchange."""

    @property
    def method(self) -> str: ...

    @property
    def uri(self) -> str: ...


class Recorded(Routed, Protocol):
    """A recorded exchange with its response body (what ``is_streamed`` hooks read)."""

    @property
    def response_body(self) -> bytes: ...


@dataclass(frozen=True)
class ModelRoute:
    """Where a vendor's model turns are, by HTTP method and the end of the URL path.

    A recording of a whole agent run interleaves the model calls with other traffic
    (telemetry uploads, an MCP server, token fetches, search APIs); a route picks the
    model calls out under any host and any path prefix (Azure deployments,
    OpenAI-compatible servers, proxies). ``suffixes`` match the path's end
    (``/chat/completions``); ``verbs`` match a Google-style ``:verb`` closing the
    last path segment (``models/x:streamGenerateContent``).
    """

    vendor: str
    suffixes: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    method: str = "POST"

    def why_not(self, exchange: Routed) -> str | None:
        """None for a model exchange; otherwise what it is instead (for the skip report)."""
        if not exchange.uri:
            return None  # an .sse capture or JSONL chunks: nothing but the model turn
        method = exchange.method.upper()
        try:
            path = urlsplit(exchange.uri).path.rstrip("/")
        except ValueError as exc:  # e.g. a broken IPv6 host: say so, never a bare ValueError
            raise UnsupportedInput(f"recorded uri {exchange.uri!r} is not a URL: {exc}") from None
        if method != self.method:
            return f"{method} {path or '/'}"
        last = path.rsplit("/", 1)[-1]
        verb = last.rsplit(":", 1)[1] if ":" in last else None
        if any(path.endswith(s) for s in self.suffixes) or verb in self.verbs:
            return None
        return f"{method} {path or '/'}"

    def admits(self, exchange: Routed) -> bool:
        return self.why_not(exchange) is None


__all__ = ["Exchange", "ModelRoute", "Recorded", "Routed"]
