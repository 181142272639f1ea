"""The ``cohere`` SDK for the drivers: ``ClientV2`` / ``AsyncClientV2``, one streamed turn,
secrets, a client.

A turn goes through the SDK's own raw ``chat_stream`` (``client.with_raw_response``) with
``request_options={"max_retries": 0}`` (the driver's policy is the only one): its HTTP
request (auth, base URL, headers, timeout) and its HTTP errors (``ApiError`` subclasses
with ``status_code`` and ``body``), but not its parse: the response's bytes (the raw
response's public ``response``, an ``httpx.Response``) are read by the adapter's
``FRAMING.reader()`` and the chunk dicts yielded. (The SDK's own reader skips an event it
cannot read with a warning and refuses a 200 that is one JSON error document; toolwire's
raises the first and reads the second as the vendor's error.) The SDK is imported only
when a client is built (the ``cohere`` extra).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from typing import Any

from toolwire import clients
from toolwire.errors import VendorStreamError
from toolwire.failures import error_in_body, retryable_error_types

from .wire import FRAMING, RETRYABLE_ERRORS, VENDOR

_SDK = "cohere"
_NO_RETRIES = {"max_retries": 0}


def _whole_error(body: bytes) -> VendorStreamError | None:
    """The error a 200 whose whole body is JSON (where a stream was asked for) holds:
    Cohere's error document, ``{"message": ...}`` as its HTTP errors carry it (no type:
    ``error``, worth another attempt when its words name a retryable error, toolwire's
    rule for an untyped error), or an ``{"error": {...}}`` object; ``None`` for any other
    document (read as the stream, which it is not: the run says so)."""
    found = error_in_body(VENDOR, body)
    if found is not None:
        return found
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    message = value.get("message") if isinstance(value, dict) else None
    if not isinstance(message, str) or not message.strip():
        return None
    lowered = message.lower()
    retryable = any(word in lowered for word in retryable_error_types())
    return VendorStreamError(VENDOR, "error", message, retryable=retryable)


def _call_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    """The SDK call's keywords: the body less ``stream``, the SDK's retries off, the held
    headers as its ``additional_headers``."""
    rest, headers = clients.split_headers(body)
    kw = {k: v for k, v in rest.items() if k != "stream"}
    options: dict[str, Any] = dict(_NO_RETRIES)
    if headers:
        options["additional_headers"] = headers
    kw["request_options"] = options
    return kw


class CohereClient:
    """The ``VendorClient`` of the ``cohere`` adapter (``CLIENT``)."""

    extras = ("cohere",)
    key_env = ("CO_API_KEY", "COHERE_API_KEY")
    default_model = "command-a-03-2025"
    conversation_keys = ("messages", "tools")
    retryable_errors = RETRYABLE_ERRORS
    secret_headers = frozenset({"authorization"})
    secret_query_keys: frozenset[str] = frozenset()
    api: str | None = None
    provider_aliases: tuple[str, ...] = ()
    #: the SDK's ``base_url`` is the origin; ``/v2/chat`` is its own
    endpoint_suffix = "/v2/chat"
    account_headers: frozenset[str] = frozenset()
    #: Cohere's API keys are 40 letters and digits: too plain a shape to tell from other
    #: text, so none is declared (the header itself is filtered)
    key_shapes: tuple[tuple[str, str], ...] = ()
    #: HTTP statuses worth another attempt
    retryable_statuses = frozenset({429, 500, 502, 503, 504})

    def claims(self, client: Any, api: str | None) -> bool:
        return clients.from_package(client, _SDK) and bool(
            clients.class_names(client) & {"ClientV2", "AsyncClientV2"}
        )

    def is_async(self, client: Any) -> bool:
        return clients.from_package(client, _SDK) and "AsyncClientV2" in clients.class_names(client)

    def drives_async(self, client: Any) -> bool:
        return self.is_async(client)

    def encode_options(self, client: Any) -> dict[str, Any]:
        return {}

    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None:
        body.update(params)

    def telemetry_provider(self, client: Any) -> str:
        return "cohere"

    def base_url(self, client: Any) -> str | None:
        wrapper = getattr(client, "_client_wrapper", None)
        getter = getattr(wrapper, "get_base_url", None)
        url = getter() if callable(getter) else None
        return str(url) if url else None

    def add_headers(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        clients.hold_headers(body, headers)

    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]:
        # an HTTP error status is raised by the SDK on entering; its events are never read
        # (the generator of ``.data`` is lazy): the bytes are
        with client.with_raw_response.chat_stream(**_call_kwargs(body)) as raw:
            response = raw.response
            yield from clients.read_body(
                response.iter_bytes(),
                clients.push_reader(self, FRAMING),
                content_type=response.headers.get("content-type", ""),
                error_of=_whole_error,
            )

    async def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        async with client.with_raw_response.chat_stream(**_call_kwargs(body)) as raw:
            response = raw.response
            read = clients.aread_body(
                response.aiter_bytes(),
                clients.push_reader(self, FRAMING),
                content_type=response.headers.get("content-type", ""),
                error_of=_whole_error,
            )
            async with aclosing(read) as chunks:
                async for chunk in chunks:
                    yield chunk

    def complete(self, client: Any, body: dict[str, Any]) -> Any:
        """One non-streamed turn: the SDK's ``V2ChatResponse``."""
        return client.chat(**_call_kwargs(body))

    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any:
        import cohere

        kw: dict[str, Any] = {"api_key": api_key or ""}
        if base_url:
            kw["base_url"] = base_url
        if http_client is not None:  # the replay's client: the SDK's httpx sends through it
            import httpx

            kw["httpx_client"] = httpx.AsyncClient(transport=clients.HttpxBridge(http_client))
        return cohere.AsyncClientV2(**kw)

    async def aclose(self, client: Any) -> None:
        wrapper = getattr(client, "_client_wrapper", None)
        http = getattr(getattr(wrapper, "httpx_client", None), "httpx_client", None)
        closer = getattr(http, "aclose", None)
        if closer is not None:
            await closer()

    def secrets(self, client: Any) -> list[str]:
        wrapper = getattr(client, "_client_wrapper", None)
        get = getattr(wrapper, "_get_token", None)
        token = get() if callable(get) else None
        return [token] if isinstance(token, str) and token else []


CLIENT = CohereClient()

__all__ = ["CLIENT", "CohereClient"]
