"""The ``ollama`` SDK for the drivers: its clients, one streamed turn, secrets, a client.

A turn is read as raw bytes through the SDK's own HTTP client (its host, headers and
timeouts) and framed by toolwire's NDJSON reader (its pieces read fused by the driver,
``clients.push_reader``): the SDK's ``ChatResponse`` model drops
the ``id`` and ``function.index`` newer servers put on tool calls, the bytes keep them.
The SDK has no retries of its own; the driver's policy is the only one. An HTTP error is
raised as the SDK's own ``ResponseError`` (with its status code), as ``Client.chat`` would.
Nothing here is imported by ``import toolwire``; the SDK is imported when a client is
made or an error raised (the ``ollama`` extra).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from typing import Any

from toolwire import clients

from .wire import FRAMING, RETRYABLE_ERRORS

_PATH = "/api/chat"
_SDK = "ollama"


def _http_error(status: int, text: str, headers: Any = None) -> Exception:
    """The SDK's own ``ResponseError`` (its ``error`` the server's words), also holding
    them as ``message`` and the response's ``headers`` (its ``Retry-After``), the
    attributes ``toolwire.failures`` reads of any SDK's error."""
    from ollama import ResponseError

    exc = ResponseError(text, status)
    exc.message = exc.error  # type: ignore[attr-defined]
    exc.headers = headers if headers is not None else {}  # type: ignore[attr-defined]
    return exc


class OllamaClient:
    """The ``VendorClient`` of the ``ollama`` adapter (``CLIENT``)."""

    extras = ("ollama",)
    key_env = ("OLLAMA_API_KEY",)
    default_model = "llama3.2"
    conversation_keys = ("messages", "tools")
    retryable_errors = RETRYABLE_ERRORS
    secret_headers = frozenset({"authorization"})
    secret_query_keys: frozenset[str] = frozenset()
    api: str | None = None
    provider_aliases: tuple[str, ...] = ()
    #: the SDK's host is the origin; ``/api/chat`` is its own
    endpoint_suffix = "/api/chat"
    account_headers: frozenset[str] = frozenset()
    #: a local server has no keys; ollama.com's API keys have no published shape
    key_shapes: tuple[tuple[str, str], ...] = ()
    #: HTTP statuses worth another attempt (a busy or loading server)
    retryable_statuses = frozenset({408, 429, 500, 502, 503, 504})

    def claims(self, client: Any, api: str | None) -> bool:
        return clients.from_package(client, _SDK) and bool(
            clients.class_names(client) & {"Client", "AsyncClient"}
        )

    def is_async(self, client: Any) -> bool:
        return clients.from_package(client, _SDK) and "AsyncClient" in clients.class_names(client)

    def drives_async(self, client: Any) -> bool:
        return self.is_async(client)

    def encode_options(self, client: Any) -> dict[str, Any]:
        return {}

    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None:
        """Generation options (``temperature`` ...) go under ``options``; the body's own keys
        (``format``, ``think``, ``keep_alive``) stay at the top."""
        top = {"format", "think", "keep_alive", "logprobs", "top_logprobs", "options"}
        for key, value in params.items():
            if key in top:
                body[key] = value
            else:
                body.setdefault("options", {})[key] = value

    def telemetry_provider(self, client: Any) -> str:
        return "ollama"

    def base_url(self, client: Any) -> str | None:
        http = getattr(client, "_client", None)
        value = getattr(http, "base_url", None)
        return str(value) if value else None

    def add_headers(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        clients.hold_headers(body, headers)

    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]:
        http = client._client  # the SDK's httpx client: its host, headers, timeout
        body, headers = clients.split_headers(body)
        with http.stream(
            "POST", _PATH, json={**body, "stream": True}, headers=headers or None
        ) as response:
            if response.status_code >= 400:
                response.read()
                raise _http_error(response.status_code, response.text, response.headers)
            # a piece that completes no line (a blank keep-alive line) is reported (TICK),
            # so a run's deadline sees the time pass
            yield from clients.read_body(response.iter_bytes(), clients.push_reader(self, FRAMING))

    async def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        http = client._client
        body, headers = clients.split_headers(body)
        async with http.stream(
            "POST", _PATH, json={**body, "stream": True}, headers=headers or None
        ) as response:
            if response.status_code >= 400:
                await response.aread()
                raise _http_error(response.status_code, response.text, response.headers)
            async with aclosing(
                clients.aread_body(response.aiter_bytes(), clients.push_reader(self, FRAMING))
            ) as read:
                async for chunk in read:
                    yield chunk

    def complete(self, client: Any, body: dict[str, Any]) -> dict[str, Any]:
        """One non-streamed turn (``stream: false``): the response body as a dict."""
        body, headers = clients.split_headers(body)
        response = client._client.post(
            _PATH, json={**body, "stream": False}, headers=headers or None
        )
        if response.status_code >= 400:
            raise _http_error(response.status_code, response.text, response.headers)
        result: dict[str, Any] = response.json()
        return result

    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any:
        from ollama import AsyncClient

        headers = {"authorization": f"Bearer {api_key}"} if api_key else None
        kw: dict[str, Any] = {}
        if http_client is not None:  # the replay's client: the SDK's httpx sends through it
            kw["transport"] = clients.HttpxBridge(http_client)
        return AsyncClient(host=base_url, headers=headers, **kw)

    async def aclose(self, client: Any) -> None:
        close = getattr(client._client, "aclose", None)
        if close is not None:
            await close()

    def secrets(self, client: Any) -> list[str]:
        http = getattr(client, "_client", None)
        headers = getattr(http, "headers", None)
        value = headers.get("authorization") if headers is not None else None
        if not isinstance(value, str) or not value:
            return []
        token = value.split(" ", 1)[1] if value.lower().startswith("bearer ") else value
        return [token] if token else []


CLIENT = OllamaClient()

__all__ = ["CLIENT", "OllamaClient"]
