"""What went wrong in a vendor call, as the facts a ``RUN_ERROR`` and a retry policy need.

SDK and transport exceptions are recognised by duck typing (status code, body, the
class names of the httpx family), so this module imports no SDK and works whichever
HTTP library the installed SDK uses. ``frame_run`` uses it for a failure of the stream
it reads, the run driver for every attempt.
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolwire.errors import ToolwireError, TruncatedStream, VendorStreamError, error_name

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
        # aiohttp's body cut short (a reset mid-stream; google-genai's async transport when
        # aiohttp is installed): named, not imported
        "ClientPayloadError",
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
    """The response headers of an SDK's HTTP error: on its ``response`` (the Stainless
    SDKs, httpx), else on the error itself (Mistral's and Cohere's SDKs keep them so)."""
    response = getattr(exc, "response", None)
    for headers in (getattr(response, "headers", None), getattr(exc, "headers", None)):
        if headers is not None and hasattr(headers, "get"):
            return headers
    return {}


def _body(exc: BaseException) -> Any:
    """An SDK error's body: an object, or JSON text read into one (Mistral's SDK keeps
    the body as text); ``None`` when it has none."""
    body = getattr(exc, "body", None)
    if isinstance(body, (str, bytes)) and body[:1] in ("{", "[", b"{", b"["):
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return None
    return body


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds a response asks to wait: ``retry-after-ms``, else ``retry-after`` (seconds
    or an HTTP date); ``None`` when absent or unreadable."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000.0
        except (TypeError, ValueError):
            value = -1.0
        if math.isfinite(value) and value >= 0:
            return value
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except (TypeError, ValueError):
        try:
            when = email.utils.parsedate_to_datetime(str(raw))
        except (TypeError, ValueError, OverflowError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):  # "nan", "inf": not a wait anyone can honour
        return None
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


#: Statuses below 500 worth another attempt: timeout, conflict, rate limit.
RETRY_STATUSES = frozenset({408, 409, 429})


def default_retryable_status(status: int) -> bool:
    """``RETRY_STATUSES`` and every 5xx (Anthropic's 529 "overloaded" included)."""
    return status >= 500 or status in RETRY_STATUSES


def _status_failure(
    exc: BaseException, status: int, retryable_status: Callable[[int], bool]
) -> Failure:
    body = _body(exc)
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
    retryable = retryable_status(status)
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


def retryable_error_types() -> frozenset[str]:
    """The vendors' in-stream error types worth another attempt, as each model adapter's
    ``CLIENT.retryable_errors`` names them (asked per failure, never per chunk)."""
    from toolwire import adapters

    found: frozenset[str] = frozenset()
    for name in adapters.model_names():
        found |= adapters.client(name).retryable_errors
    return found


def error_in_body(vendor: str, body: bytes | str) -> VendorStreamError | None:
    """The vendor's error when a success response's whole body is a JSON error object
    (``{"error": {"type": ..., "message": ...}}``) instead of a stream; else ``None``."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, dict) or not isinstance(value.get("error"), dict):
        return None
    err = value["error"]
    kind = err.get("type") or err.get("status") or err.get("code")
    kind = kind if isinstance(kind, str) and kind else "error"
    message = err.get("message")
    message = message if isinstance(message, str) and message else kind
    return VendorStreamError(vendor, kind, message, retryable=kind in retryable_error_types())


def _body_failure(exc: BaseException, body: Any) -> Failure | None:
    """An SDK exception for an error the vendor sent inside a 200 stream (it carries the
    error object as ``body``), or ``None``."""
    event = body.get("data") if isinstance(body, dict) else None
    if isinstance(event, dict) and "error" not in body:
        body = event  # an SSE event the SDK could not read, kept as ``{"data": event}``
    err = _error_object(body)
    kind = err.get("type") or err.get("code")
    if not isinstance(kind, str) or not kind:
        return None
    message = err.get("message")
    if not isinstance(message, str) or not message:
        message = str(getattr(exc, "message", "") or kind)
    return Failure(kind, message, kind in retryable_error_types())


def _stream_error(exc: BaseException) -> dict[str, Any] | None:
    """The error object of an exception in botocore's ``ClientError`` shape (``response``
    holding ``Error.Code`` and ``Error.Message``) raised for an exception message inside a
    stream (no HTTP error status), as ``{"error": {"type", "message"}}``; else ``None``."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict) or not isinstance(response.get("Error"), dict):
        return None
    meta = response.get("ResponseMetadata")
    status = meta.get("HTTPStatusCode") if isinstance(meta, dict) else None
    if isinstance(status, int) and status >= 400:
        return None
    error = response["Error"]
    return {"error": {"type": error.get("Code"), "message": error.get("Message")}}


def _untyped_stream_error(exc: BaseException) -> Failure | None:
    """An SDK exception for an untyped error a vendor wrote into its stream (a line
    ``{"error": "text"}``): no HTTP status (none, or the SDK's own negative marker) and the
    vendor's text as ``error``. Its type is ``error``, as the adapter's decoder names it; it
    is worth another attempt when the text names a retryable error (the adapters' words)."""
    status = getattr(exc, "status_code", None)
    text = getattr(exc, "error", None)
    if isinstance(status, int) and status >= 0:
        return None
    if not isinstance(text, str) or not text.strip():
        return None
    lowered = text.lower()
    retryable = any(word in lowered for word in retryable_error_types())
    return Failure("error", text, retryable)


def classify(
    exc: BaseException, retryable_status: Callable[[int], bool] = default_retryable_status
) -> Failure:
    """The facts of one failure (see the module doc)."""
    if isinstance(exc, VendorStreamError):
        return Failure(exc.error_type, exc.message, exc.retryable)
    if isinstance(exc, TruncatedStream):
        # cut before the terminal event: like a dropped connection, worth another try
        # while nothing of the turn was sent
        return Failure("truncated", str(exc), True)
    if isinstance(exc, ToolwireError):
        return Failure(error_name(exc), str(exc), False)
    names = _names(exc)
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int) and "APIError" in names:
        status = getattr(exc, "code", None)  # google-genai
    if isinstance(status, int) and not isinstance(status, bool) and status >= 400:
        return _status_failure(exc, status, retryable_status)
    body = _body(exc)
    if body is None:
        body = _stream_error(exc)
    if isinstance(body, dict):
        found = _body_failure(exc, body)
        if found is not None:
            return found
    untyped = _untyped_stream_error(exc)
    if untyped is not None:
        return untyped
    cause = _toolwire_cause(exc)
    if cause is not None:
        # a toolwire error raised under the SDK (a cassette miss, a refused write) is ours,
        # not the network's: another attempt would meet it again
        return classify(cause, retryable_status)
    if names & _TIMEOUTS:
        return Failure("timeout", f"the vendor did not answer in time ({type(exc).__name__})", True)
    if names & _CONNECTION:
        detail = str(exc) or type(exc).__name__
        return Failure("connection_error", f"connection to the vendor failed: {detail}", True)
    return Failure(type(exc).__name__, str(exc) or type(exc).__name__, False)


def _toolwire_cause(exc: BaseException) -> ToolwireError | None:
    """The toolwire error an SDK wrapped (``raise ... from``), if any; cycle-safe."""
    seen: set[int] = set()
    at = exc.__cause__ or exc.__context__
    while at is not None and id(at) not in seen:
        if isinstance(at, ToolwireError):
            return at
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return None


def metadata_of(failure: Failure) -> dict[str, Any]:
    """``RUN_ERROR.metadata`` for a failure: its facts and whether a retry could help."""
    return {**failure.metadata, "toolwire.retryable": failure.retryable}


__all__ = [
    "RETRY_STATUSES",
    "Failure",
    "classify",
    "default_retryable_status",
    "error_in_body",
    "metadata_of",
    "retry_after",
]
