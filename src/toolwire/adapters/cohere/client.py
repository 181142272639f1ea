"""The ``cohere`` SDK for the drivers: ``ClientV2`` / ``AsyncClientV2``, one streamed turn,
secrets, a client.

A turn goes through the SDK's own ``chat_stream`` with ``request_options={"max_retries":
0}`` (the driver's policy is the only one) and yields the SDK's typed stream events, which
the decoder reads like the dicts of the bytes. HTTP errors are the SDK's own (``ApiError``
subclasses with ``status_code`` and ``body``). The SDK is imported only when a client is
built (the ``cohere`` extra).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from toolwire import clients

from .wire import RETRYABLE_ERRORS

_SDK = "cohere"
_NO_RETRIES = {"max_retries": 0}


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
        yield from client.chat_stream(**_call_kwargs(body))

    async def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        async for event in client.chat_stream(**_call_kwargs(body)):
            yield event

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
