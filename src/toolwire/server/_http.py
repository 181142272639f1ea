"""uvicorn's h11 connection with a deadline on the request headers.

uvicorn waits for a request's headers for as long as the client likes: a few hundred
connections that send half a request line hold the server's sockets and memory forever. This
protocol gives every request ``header_timeout`` seconds from its first byte (or from the
connection, or from the previous response) to finish its headers, then answers ``408`` and
closes. The body's own deadline is the app's (``_app._read_body``), where the request is known.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


def _timeout_response(seconds: float) -> bytes:
    body = json.dumps(
        {"error": "timeout", "reason": f"the request headers did not arrive within {seconds:g} s"}
    ).encode("ascii")
    head = (
        "HTTP/1.1 408 Request Timeout\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class HeaderTimeoutProtocol(H11Protocol):
    """An h11 connection whose request headers must arrive within ``header_timeout`` s."""

    header_timeout: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            if self._header_timer is None and not self.transport.is_closing():
                self._arm()  # the next request of a kept-alive connection has begun
        else:
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # a kept-alive connection is idle now: uvicorn's keep-alive timer takes over until
        # data comes, which arms ours again
        self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.conn.our_state is h11.IDLE:  # nothing of a response written yet
            self.transport.write(_timeout_response(self.header_timeout))
        self.logger.info("closed a connection whose request headers did not arrive in time")
        self.transport.close()


def protocol_with(header_timeout: float) -> type[HeaderTimeoutProtocol]:
    """The protocol class for one server (uvicorn builds one instance per connection)."""
    return type(
        "HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout": header_timeout}
    )


__all__ = ["HeaderTimeoutProtocol", "protocol_with"]
