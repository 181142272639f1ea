"""What went wrong in a vendor call, as the facts a ``RUN_ERROR`` and the retry policy need.

SDK and transport exceptions are recognised by duck typing (status code, body, the
class names of the httpx family), so this module imports no SDK and works whichever
HTTP library the installed SDK uses. Every text that leaves here has the client's
credentials removed.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolwire.driver.policy import RetryPolicy
from toolwire.errors import ToolwireError, TruncatedStream, VendorStreamError

REDACTED = "[redacted]"

_TIMEOUTS = frozenset(
    {
        "APITimeoutError",
        "TimeoutException",
        "ReadTimeout",
        "ConnectTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "TimeoutError",
        "ServerTimeoutError",
    }
)
_CONNECTION = frozenset(
    {
        "APIConnectionError",
        "TransportError",
        "NetworkError",
        "ProtocolError",
        "RemoteProtocolError",
        "LocalProtocolError",
        "ConnectError",
        "ReadError",
        "WriteError",
        "CloseError",
        "StreamError",
        "ClientConnectionError",
        "ServerDisconnectedError",
        "ConnectionError",
    }
)


@dataclass
class Failure:
    """One failed attempt: ``code``/``message`` for ``RUN_ERROR``, and whether to retry."""

    code: str
    message: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def _names(exc: BaseException) -> set[str]:
    return {k.__name__ for k in type(exc).__mro__}


def _headers(exc: BaseException) -> Any:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers if headers is not None and hasattr(headers, "get") else {}


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds a response asks to wait: ``retry-after-ms``, else ``retry-after`` (seconds
    or an HTTP date); ``None`` when absent or unreadable."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000.0
        except ValueError:
            value = -1.0
        if value >= 0:
            return value
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(str(raw))
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(seconds, 0.0)


def _error_object(body: Any) -> dict[str, Any]:
    """The ``error`` object of a vendor error body (all four vendors nest it so)."""
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict):
            return inner
        return body
    if isinstance(body, list) and body and isinstance(body[0], dict):
        return _error_object(body[0])  # Gemini sometimes wraps the body in a list
    return {}


def _status_failure(exc: BaseException, status: int, policy: RetryPolicy) -> Failure:
    body = getattr(exc, "body", None)
    if body is None:
        body = getattr(exc, "details", None)  # google-genai's APIError
    err = _error_object(body)
    kind = err.get("type") or err.get("status") or getattr(exc, "status", None)
    if not isinstance(kind, str) or not kind:
        kind = f"http_{status}"
    message = err.get("message")
    if not isinstance(message, str) or not message:
        message = str(getattr(exc, "message", "") or f"HTTP {status}")
    headers = _headers(exc)
    retryable = policy.retryable_status(status)
    should = str(headers.get("x-should-retry") or "").lower()
    if should in ("true", "false"):
        retryable = should == "true"
    meta: dict[str, Any] = {"toolwire.httpStatus": status}
    request_id = headers.get("request-id") or headers.get("x-request-id")
    if request_id:
        meta["toolwire.requestId"] = str(request_id)
    return Failure(
        kind, message, retryable, status=status, retry_after=retry_after(headers), metadata=meta
    )


def classify(exc: BaseException, policy: RetryPolicy) -> Failure:
    """The facts of one failure (see the module doc)."""
    if isinstance(exc, VendorStreamError):
        return Failure(exc.error_type, exc.message, exc.retryable)
    if isinstance(exc, TruncatedStream):
        # cut before the terminal event: like a dropped connection, worth another try
        # while nothing of the turn was sent
        return Failure("truncated", str(exc), True)
    if isinstance(exc, ToolwireError):
        return Failure(type(exc).__name__, str(exc), False)
    names = _names(exc)
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int) and "APIError" in names:
        status = getattr(exc, "code", None)  # google-genai
    if isinstance(status, int) and not isinstance(status, bool) and status >= 400:
        return _status_failure(exc, status, policy)
    if names & _TIMEOUTS:
        return Failure("timeout", f"the vendor did not answer in time ({type(exc).__name__})", True)
    if names & _CONNECTION:
        detail = str(exc) or type(exc).__name__
        return Failure("connection_error", f"connection to the vendor failed: {detail}", True)
    return Failure(type(exc).__name__, str(exc) or type(exc).__name__, False)


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


def redact(value: Any, secrets: Iterable[str]) -> Any:
    """``value`` (text, or JSON-like data) with every secret replaced by ``[redacted]``."""
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {k: redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    return value


__all__ = ["REDACTED", "Failure", "classify", "client_secrets", "redact", "retry_after"]
