"""botocore's own parts, for the Bedrock tests: its event-stream parser, its parameter
validation, and a boto3 ``bedrock-runtime`` client pointed at a fake on 127.0.0.1.

Nothing here asks AWS: the client has fake credentials and an ``endpoint_url`` on the
loopback; the fake serves a fixed number of requests and stops by itself.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import boto3
import botocore.parsers
import botocore.session
from botocore.config import Config
from botocore.eventstream import EventStream
from botocore.validate import validate_parameters

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / "bedrock"
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"

_SERVICE = botocore.session.get_session().get_service_model("bedrock-runtime")
STREAM_SHAPE = _SERVICE.operation_model("ConverseStream").output_shape.members["stream"]


class _Raw:
    """What botocore's EventStream reads: ``stream()`` yields the body in pieces."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data = data
        self.size = size

    def stream(self) -> Iterator[bytes]:
        for i in range(0, len(self.data), self.size):
            yield self.data[i : i + self.size]

    def close(self) -> None:
        pass


def sdk_events(data: bytes, size: int = 1024) -> list[dict[str, Any]]:
    """botocore's parse of an event-stream body: the event dicts boto3 yields (an exception
    frame raises botocore's ``EventStreamError``; a bad CRC its ``ChecksumMismatch``)."""
    parser = botocore.parsers.EventStreamJSONParser()
    return list(EventStream(_Raw(data, size), STREAM_SHAPE, parser, "ConverseStream"))


def validate(operation: str, kwargs: dict[str, Any]) -> None:
    """botocore's parameter validation of ``client.<operation>(**kwargs)`` (raises
    ``ParamValidationError`` naming every problem)."""
    validate_parameters(kwargs, _SERVICE.operation_model(operation).input_shape)


@dataclass
class Served:
    """What the fake saw: (method, path, headers, body) per request."""

    requests: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)


@contextmanager
def fake_bedrock(
    responses: list[tuple[int, str, bytes]],
    *,
    timeout: float = 10.0,
    tls: ssl.SSLContext | None = None,
) -> Iterator[tuple[str, Served]]:
    """A fake Bedrock runtime on 127.0.0.1 answering ``responses`` in order (status, content
    type, body), one request each, then stopping; yields its URL and what it saw. ``tls``:
    served over HTTPS with that server context (a bearer token goes over HTTPS only)."""
    served = Served()
    queue = list(responses)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            served.requests.append(
                (self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            status, ctype, payload = queue.pop(0) if queue else (500, "application/json", b"{}")
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(payload)))
            if status != 200:
                name = json.loads(payload or b"{}").get("__type", "InternalServerException")
                self.send_header("x-amzn-errortype", name)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = timeout
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)

    def serve() -> None:
        for _ in range(len(responses)):
            server.handle_request()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        scheme = "http" if tls is None else "https"
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}", served
    finally:
        thread.join(timeout + 1)
        server.server_close()


FAKE_KEY_ID = "AKIAFAKEFAKEFAKEFAKE"
FAKE_SECRET = "fakeSecretKeyThatIsNotARealOneAtAll0000000"
FAKE_TOKEN = "FwoGZXIvYXdzEFAKESESSIONTOKEN000000000000000000"


def client(url: str) -> Any:
    """A real boto3 ``bedrock-runtime`` client at ``url`` with fake credentials."""
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id=FAKE_KEY_ID,
        aws_secret_access_key=FAKE_SECRET,
        aws_session_token=FAKE_TOKEN,
        config=Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=10),
    )
