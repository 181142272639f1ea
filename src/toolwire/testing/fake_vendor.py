"""A fake vendor HTTP server on 127.0.0.1 that plays a script of replies, for tests.

Real vendor SDK clients (sync and async) talk to it over a real socket, so their own
transport, streaming and error parsing run unchanged. It is the stdlib's
``ThreadingHTTPServer`` speaking HTTP/1.1 in a background thread: a reply without a
``content-length`` header is sent with chunked transfer encoding, one HTTP chunk per
``Reply.chunks`` item, so the client sees each piece as it is written.

It is bounded three ways: it binds 127.0.0.1 only (ephemeral port), it answers one
request per scripted reply and stops once the script is used up, and it stops after
``timeout`` seconds whatever happens. A request that arrives when no reply is left is
recorded and its connection dropped (the client sees a connection error).

Faults: ``status``/``headers`` for error replies (429 with ``retry-after``, 529, a 400
with the vendor's error body), ``delay`` before every chunk (a slow trickle; the first
``eager`` chunks at once) and ``reset_after=N`` to reset the connection (TCP RST) after
N chunks, mid-body.

``tls=`` (a server-side ``ssl.SSLContext``) serves HTTPS instead, for a client that refuses
plain HTTP (botocore sends a Bedrock API key over HTTPS only); the test makes the certificate
and points the client at it.
"""

from __future__ import annotations

import contextlib
import http.server
import re
import select
import selectors
import socket
import ssl
import struct
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any

from toolwire.errors import UnsupportedInput

HOST = "127.0.0.1"

# Headers of a recorded response that describe the recorded transfer, not the body we send.
_TRANSFER_HEADERS = frozenset(
    {"content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"}
)
_REASONS = {529: "Overloaded"}
_EOL = rb"(?:\r\n|\n|\r(?!\n))"
_EVENT_END = re.compile(_EOL + _EOL)


@dataclass(frozen=True)
class Reply:
    """One scripted response.

    ``delay`` seconds pass before each chunk is written, except the first ``eager`` ones
    (a head sent at once, then a slow trickle); ``reset_after=N`` resets the connection
    after N chunks (0: before any body byte). Without a ``content-type``
    header, chunks that start like SSE are sent as ``text/event-stream``, others as
    ``application/json``.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    delay: float = 0.0
    eager: int = 0
    reset_after: int | None = None


@dataclass
class SeenRequest:
    """One request the server received, and how its reply went."""

    method: str
    path: str  # with the query string
    headers: dict[str, str]  # lower-case names
    body: bytes
    #: "complete", "reset" (reset_after fired), "client_gone" (the client closed the
    #: connection before the reply was written), "unscripted" (no reply was left)
    outcome: str = "pending"
    chunks_sent: int = 0


class FakeVendor:
    """Serve ``replies`` in order to whatever connects, then stop (see the module doc)."""

    def __init__(
        self, replies: list[Reply], *, timeout: float = 30.0, tls: ssl.SSLContext | None = None
    ) -> None:
        self._replies = list(replies)
        self._tls = tls
        self._timeout = timeout
        self._lock = threading.Lock()
        self._next = 0
        self._done = threading.Event()
        self._closed = threading.Event()  # the listening socket is closed: connects are refused
        self._conns: set[socket.socket] = set()
        self._handlers: list[threading.Thread] = []
        self.requests: list[SeenRequest] = []
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._wake_r: socket.socket | None = None  # the accept loop's wake-up pair
        self._wake_w: socket.socket | None = None
        self.base_url = ""

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> FakeVendor:
        handler = _handler_for(self)
        server = _Server((HOST, 0), handler)
        server.socket.setblocking(False)  # a connection gone before accept() never blocks it
        self._server = server
        port = server.server_address[1]
        scheme = "http" if self._tls is None else "https"
        self.base_url = f"{scheme}://{HOST}:{port}"
        self._wake_r, self._wake_w = socket.socketpair()
        self._thread = threading.Thread(target=self._accept, args=(server,), daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self._timeout, self._stop_serving)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving, drop open connections and wait for the handler threads."""
        self._stop_serving()
        if self._timer is not None:
            self._timer.cancel()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._server is not None:
            self._server.server_close()
        # socketserver does not join daemon handler threads: join them here, so that every
        # request's outcome is final once stop() returns
        with self._lock:
            handlers = list(self._handlers)
        for thread in handlers:
            thread.join(timeout=5)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until every scripted reply has been served (or the timeout fired) and the
        port refuses new connections (True), or ``timeout`` passes (False)."""
        return self._done.wait(timeout) and self._closed.wait(timeout)

    def __enter__(self) -> FakeVendor:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def remaining(self) -> int:
        """Scripted replies not served yet."""
        with self._lock:
            return len(self._replies) - self._next

    # -- used by the handler ---------------------------------------------------------------

    def _take(self, seen: SeenRequest) -> Reply | None:
        with self._lock:
            self.requests.append(seen)
            if self._next >= len(self._replies) or self._done.is_set():
                return None
            reply = self._replies[self._next]
            self._next += 1
            return reply

    def _is_last_taken(self) -> bool:
        with self._lock:
            return self._next >= len(self._replies)

    def _served(self) -> None:
        if self._is_last_taken():
            self._stop_serving()

    def _stop_serving(self) -> None:
        with self._lock:
            if self._done.is_set():
                return
            self._done.set()
            wake = self._wake_w
            if wake is not None:  # the accept loop returns at once, not at a poll tick
                with contextlib.suppress(OSError):
                    wake.send(b"x")
        if self._server is None:
            self._closed.set()

    def _accept(self, server: http.server.ThreadingHTTPServer) -> None:
        """Accept until told to stop, then close the listening socket: a late client is
        refused at once (instead of waiting, accepted by the kernel, for a reply that never
        comes)."""
        wake_r = self._wake_r
        assert wake_r is not None
        try:
            with selectors.DefaultSelector() as sel:
                sel.register(server.socket, selectors.EVENT_READ)
                sel.register(wake_r, selectors.EVENT_READ)
                while not self._done.is_set():
                    ready = {key.fileobj for key, _ in sel.select()}
                    if wake_r in ready or self._done.is_set():
                        break
                    # readable, and non-blocking (its 0 timeout is handle_request's too):
                    # a connection gone by now costs one failed accept(), never a wait
                    server.handle_request()
        finally:
            with contextlib.suppress(OSError):
                server.socket.close()
            with self._lock:  # under the lock _stop_serving sends with: never a closed socket
                for end in (wake_r, self._wake_w):
                    if end is not None:
                        end.close()
                self._wake_r = self._wake_w = None
            self._closed.set()

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._conns.add(conn)
                self._handlers.append(threading.current_thread())
            else:
                self._conns.discard(conn)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = True
    allow_reuse_address = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-reply is expected here; stay quiet."""


def _handler_for(fake: FakeVendor) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(_Handler):
        vendor = fake
        timeout = min(fake._timeout, 10.0)

    return Handler


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    vendor: FakeVendor

    def setup(self) -> None:
        tls = self.vendor._tls
        if tls is not None:  # the handshake in this handler's thread, bounded by its timeout
            self.request.settimeout(self.timeout)
            self.request = tls.wrap_socket(self.request, server_side=True)
        super().setup()
        # every chunk goes out when written (no Nagle delay waiting for the client's ACK)
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.vendor._track(self.connection, True)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.vendor._track(self.connection, False)
        if self.vendor._tls is not None:  # the server closes the plain socket it accepted only
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_WR)
            self.connection.close()

    def log_message(self, format: str, *args: Any) -> None:
        """No access log on stderr."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def _read_body(self) -> bytes:
        length = self.headers.get("content-length")
        if length is not None:
            return self.rfile.read(int(length))
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        return b""

    def _serve(self) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        seen = SeenRequest(self.command, self.path, headers, self._read_body())
        reply = self.vendor._take(seen)
        if reply is None:
            seen.outcome = "unscripted"
            self.close_connection = True
            _reset(self.connection)
            return
        last = self.vendor._is_last_taken()
        try:
            seen.outcome = self._write(reply, seen, last)
        except OSError:
            seen.outcome = "client_gone"
            self.close_connection = True
        finally:
            if seen.outcome != "complete":
                self.close_connection = True
            self.vendor._served()

    def _write(self, reply: Reply, seen: SeenRequest, last: bool) -> str:
        names = {k.lower() for k in reply.headers}
        reason = _REASONS.get(reply.status)
        if reason is None:
            try:
                reason = HTTPStatus(reply.status).phrase
            except ValueError:
                reason = ""
        self.send_response_only(reply.status, reason)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if "content-type" not in names:
            self.send_header("content-type", _content_type(reply.chunks))
        chunked = "content-length" not in names
        if chunked:
            self.send_header("transfer-encoding", "chunked")
        if last:
            self.send_header("connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.flush()
        resets = reply.reset_after is not None and reply.reset_after <= len(reply.chunks)
        # the end of a chunked body goes out with the last chunk, in one write: a client that
        # stops reading at its last event (the OpenAI SDK at [DONE]) and closes could otherwise
        # do so before a separate terminator is written, and a complete reply would read as gone
        ended = not chunked or resets
        for n, chunk in enumerate(reply.chunks):
            if reply.reset_after is not None and n >= reply.reset_after:
                _reset(self.connection)
                return "reset"
            if reply.delay > 0 and n >= reply.eager and _client_gone(self.connection, reply.delay):
                return "client_gone"
            if chunked:
                data = b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunk else b""
                if not ended and n == len(reply.chunks) - 1:
                    data += b"0\r\n\r\n"
                    ended = True
                self.wfile.write(data)
            else:
                self.wfile.write(chunk)
            self.wfile.flush()
            seen.chunks_sent = n + 1
        if resets:
            _reset(self.connection)
            return "reset"
        if not ended:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        return "complete"


def _content_type(chunks: list[bytes]) -> str:
    head = chunks[0].lstrip()[:6] if chunks else b""
    if head.startswith((b"data:", b"event:", b":")):
        return "text/event-stream"
    return "application/json"


def _client_gone(conn: socket.socket, wait: float) -> bool:
    """Sleep ``wait`` seconds, watching the socket: True when the client closed it."""
    readable, _, _ = select.select([conn], [], [], wait)
    if not readable:
        return False
    try:
        return conn.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _reset(conn: socket.socket) -> None:
    """Close with a TCP RST (SO_LINGER 0), as a dropped vendor connection looks."""
    with contextlib.suppress(OSError):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        conn.close()


def split_events(body: bytes) -> list[bytes]:
    """An SSE body cut after each event's blank line; the pieces join back to ``body``."""
    out: list[bytes] = []
    start = 0
    for m in _EVENT_END.finditer(body):
        out.append(body[start : m.end()])
        start = m.end()
    if start < len(body):
        out.append(body[start:])
    return out


def replies_from_cassette(path: str | Path) -> list[Reply]:
    """One ``Reply`` per recorded interaction of a project cassette, in file order.

    The status and headers are the recording's (less those of the recorded transfer:
    length, encoding, connection); an SSE body is sent one event per chunk, any other
    body as one chunk.
    """
    from toolwire.recordings import load_recording

    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UnsupportedInput(f"{p}: cannot read the cassette: {exc.strerror}") from None
    replies: list[Reply] = []
    for ex in load_recording(data, p.name):
        headers = {
            k.lower(): v[0]
            for k, v in ex.headers.items()
            if v and k.lower() not in _TRANSFER_HEADERS
        }
        if ex.content_type and "content-type" not in headers:
            headers["content-type"] = ex.content_type
        body = ex.response_body
        chunks = split_events(body) if ex.is_sse else ([body] if body else [])
        replies.append(Reply(status=ex.status, headers=headers, chunks=chunks))
    return replies


def reply_of_turn(vendor: str, events: Any) -> Reply:
    """A streamed reply that says ``events`` (one AG-UI turn: messages, tool calls, a run
    end) in ``vendor``'s own words: the adapter's ``Encoder`` and wire framing (an SSE body
    sent one event per chunk). For a scripted conversation no recording holds."""
    from toolwire import adapters

    adapter = adapters.get(vendor)
    framing = adapter.FRAMING
    data = framing.write(list(adapter.encode_stream(events)))
    chunks = split_events(data) if framing.name == "sse" else [data]
    return Reply(headers={"content-type": framing.media_type}, chunks=chunks)


__all__ = [
    "HOST",
    "FakeVendor",
    "Reply",
    "SeenRequest",
    "replies_from_cassette",
    "reply_of_turn",
    "split_events",
]
