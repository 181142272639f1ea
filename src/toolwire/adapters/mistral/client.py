"""The ``mistralai`` SDK for the drivers: its client, one streamed turn, secrets, a client.

One ``Mistral`` object serves both worlds (``chat.stream`` and ``chat.stream_async``), so
it is claimed as a sync client; ``astream`` uses its async side. A turn goes through the
SDK's own call with ``retries`` set to strategy ``"none"`` (the driver's policy is the only
one): its HTTP request (auth, server URL, headers, timeout) and its HTTP errors (a 4xx/5xx,
or a 200 that is not ``text/event-stream``, raised before the stream is handed over), but
not its parse: the response's bytes (the ``EventStream``'s public ``response``) are read
by the adapter's ``FRAMING.reader()`` and the chunk dicts yielded, an in-stream
``{"object": "error"}`` event among them for the decoder to raise. The SDK is imported
only when a call is made or a client built (the ``mistral`` extra).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from typing import Any

from toolwire import clients
from toolwire.redaction import credential_values

from .wire import FRAMING, RETRYABLE_ERRORS

_SDK = "mistralai"


def _no_retries() -> Any:
    from mistralai.client.utils import BackoffStrategy, RetryConfig

    return RetryConfig("none", BackoffStrategy(1, 1, 1.0, 1), False)


def _call_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    """The SDK call's keywords: the body less ``stream`` (the method says it), the held
    headers as the SDK's ``http_headers``."""
    rest, headers = clients.split_headers(body)
    kw = {k: v for k, v in rest.items() if k != "stream"}
    if headers:
        kw["http_headers"] = headers
    return kw


class MistralClient:
    """The ``VendorClient`` of the ``mistral`` adapter (``CLIENT``)."""

    extras = ("mistral",)
    key_env = ("MISTRAL_API_KEY",)
    default_model = "mistral-medium-latest"
    conversation_keys = ("messages", "tools")
    retryable_errors = RETRYABLE_ERRORS
    secret_headers = frozenset({"authorization"})
    secret_query_keys: frozenset[str] = frozenset()
    api: str | None = None
    provider_aliases: tuple[str, ...] = ("mistralai",)
    #: the SDK's ``server_url`` is the origin; ``/v1/chat/completions`` is its own
    endpoint_suffix = "/v1/chat/completions"
    account_headers: frozenset[str] = frozenset()
    #: Mistral's API keys are 32 letters and digits: too plain a shape to tell from other
    #: text, so none is declared (the header itself is filtered)
    key_shapes: tuple[tuple[str, str], ...] = ()
    #: HTTP statuses worth another attempt (what the SDK itself would retry)
    retryable_statuses = frozenset({429, 500, 502, 503, 504})

    def claims(self, client: Any, api: str | None) -> bool:
        return clients.from_package(client, _SDK) and "Mistral" in clients.class_names(client)

    def is_async(self, client: Any) -> bool:
        return False  # one object, both sides: ``toolwire.run`` and ``arun`` both take it

    def drives_async(self, client: Any) -> bool:
        return True

    def encode_options(self, client: Any) -> dict[str, Any]:
        return {}

    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None:
        body.update(params)

    def telemetry_provider(self, client: Any) -> str:
        return "mistral_ai"

    def base_url(self, client: Any) -> str | None:
        config = getattr(client, "sdk_configuration", None)
        details = getattr(config, "get_server_details", None)
        url = details()[0] if callable(details) else None
        return str(url) if url else None

    def add_headers(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        clients.hold_headers(body, headers)

    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]:
        with client.chat.stream(**_call_kwargs(body), retries=_no_retries()) as events:
            # the SDK's events are never read (its generator is lazy): the bytes are
            yield from clients.read_body(
                events.response.iter_bytes(), clients.push_reader(self, FRAMING)
            )

    async def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        events = await client.chat.stream_async(**_call_kwargs(body), retries=_no_retries())
        async with events:
            read = clients.aread_body(
                events.response.aiter_bytes(), clients.push_reader(self, FRAMING)
            )
            async with aclosing(read) as chunks:
                async for chunk in chunks:
                    yield chunk

    def complete(self, client: Any, body: dict[str, Any]) -> Any:
        """One non-streamed turn: the SDK's ``ChatCompletionResponse``."""
        return client.chat.complete(**_call_kwargs(body), retries=_no_retries())

    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any:
        from mistralai.client import Mistral

        kw: dict[str, Any] = {"api_key": api_key}
        if base_url:
            kw["server_url"] = base_url
        if http_client is not None:
            kw["async_client"] = http_client
        return Mistral(**kw)

    async def aclose(self, client: Any) -> None:
        http = getattr(getattr(client, "sdk_configuration", None), "async_client", None)
        closer = getattr(http, "aclose", None)
        if closer is not None:
            await closer()

    def secrets(self, client: Any) -> list[str]:
        config = getattr(client, "sdk_configuration", None)
        security = getattr(config, "security", None)
        if callable(security):
            security = security()
        return credential_values(security)


CLIENT = MistralClient()

__all__ = ["CLIENT", "MistralClient"]
