"""google-genai, as the drivers, the server and the replay need it (``CLIENT``).

google-genai has no public raw-response API, so a run reads the SDK's own response
objects (the decoder takes them as well), one attempt per call (its per-request
``retry_options``: toolwire's policy is the only one). A ``genai.Client`` serves both
``toolwire.run`` and ``toolwire.arun`` (its ``.aio`` side). The caller's params that
``encode_request`` does not name go into ``config``, where google-genai takes
generation options; a Vertex client's requests are encoded for Vertex. The SDK is
imported only when a client is built.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from typing import Any

from toolwire import clients
from toolwire.redaction import credential_values

_SDK = "google.genai"


def _kwargs(body: dict[str, Any]) -> dict[str, Any]:
    config = dict(body.get("config") or {})
    http = config.get("http_options") or {}
    if not isinstance(http, dict):
        http = http.model_dump(exclude_none=True)
    # one attempt per call: toolwire's policy retries (a new dict: the caller's stays as is)
    config["http_options"] = {**http, "retry_options": {"attempts": 1}}
    return {**body, "config": config}


def _stream(client: Any, body: dict[str, Any]) -> Iterator[Any]:
    stream = client.models.generate_content_stream(**_kwargs(body))
    try:
        yield from stream
    finally:
        stream.close()


async def _astream(client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
    aio = getattr(client, "aio", client)
    stream = await aio.models.generate_content_stream(**_kwargs(body))
    done = False
    try:
        async for chunk in stream:
            yield chunk
        done = True
    finally:
        # google-genai's async stream does not close its HTTP response when the stream is
        # closed early (its inner generators are left to the garbage collector, and the
        # response sits in a reference cycle): find the response and close it ourselves.
        responses = [] if done else _open_responses(stream)
        await stream.aclose()
        for response in responses:
            await _close_response(response)


async def _close_response(response: Any) -> None:
    """Close an HTTP response of either transport google-genai uses: httpx's (``aclose``) or,
    with aiohttp installed, aiohttp's (``close``: no coroutine, it drops the connection)."""
    closer = getattr(response, "aclose", None) or getattr(response, "close", None)
    if callable(closer):
        result = closer()
        if inspect.isawaitable(result):
            await result


def _open_responses(agen: Any, depth: int = 0) -> list[Any]:
    """HTTP responses held by a chain of suspended async generators (a few levels deep)."""
    frame = getattr(agen, "ag_frame", None)
    if frame is None or depth > 8:
        return []
    out: list[Any] = []
    for value in frame.f_locals.values():
        inner = getattr(value, "response_stream", None)
        closes = callable(getattr(inner, "aclose", None) or getattr(inner, "close", None))
        if inner is not None and closes:
            out.append(inner)
        elif getattr(value, "ag_frame", None) is not None:
            out.extend(_open_responses(value, depth + 1))
    return out


def _is_vertex(client: Any) -> bool:
    for holder in (client, getattr(client, "_api_client", None)):
        value = getattr(holder, "vertexai", None) if holder is not None else None
        if isinstance(value, bool):
            return value
    return False


class GeminiClient:
    """The :class:`~toolwire.adapters.contract.VendorClient` of google-genai."""

    extras = ("gemini",)
    key_env = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    default_model = "gemini-2.5-flash"
    conversation_keys = ("contents",)
    retryable_errors: frozenset[str] = frozenset()
    secret_headers = frozenset({"x-goog-api-key", "authorization"})
    secret_query_keys = frozenset({"key", "access_token"})
    api: str | None = None
    provider_aliases: tuple[str, ...] = ()
    endpoint_suffix = ""  # the SDK takes the origin; the version and path are its own
    account_headers = frozenset({"x-goog-user-project"})
    #: (what it is, its regular expression): key shapes a cassette must never hold
    key_shapes = (
        ("a Google API key (AIza…)", r"AIza[0-9A-Za-z_\-]{35}"),
        ("a Google OAuth access token (ya29.…)", r"ya29\.[0-9A-Za-z_\-.]{20,4000}"),
        ("a Google OAuth refresh token (1//…)", r"1//[0-9A-Za-z_\-]{30,500}"),
    )

    def claims(self, client: Any, api: str | None) -> bool:
        return clients.from_package(client, _SDK)

    def is_async(self, client: Any) -> bool:
        return "AsyncClient" in clients.class_names(client)  # a ``Client(...).aio``

    def drives_async(self, client: Any) -> bool:
        return True  # an AsyncClient, or a Client through its ``.aio``

    def encode_options(self, client: Any) -> dict[str, Any]:
        return {"backend": "vertex"} if _is_vertex(client) else {}

    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None:
        body["config"] = {**(body.get("config") or {}), **params}

    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]:
        return _stream(client, body)

    def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        return _astream(client, body)

    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any:
        from google import genai
        from google.genai import types

        options: Any = None
        if base_url or http_client is not None:
            options = types.HttpOptions(base_url=base_url, httpx_async_client=http_client)
        return genai.Client(api_key=api_key, http_options=options)

    async def aclose(self, client: Any) -> None:
        aio = getattr(client, "aio", None)  # the async side closes apart
        closer = getattr(aio, "aclose", None) if aio is not None else None
        if closer is not None:
            await closer()
        else:
            await clients.aclose(client)

    def telemetry_provider(self, client: Any) -> str:
        return "gcp.vertex_ai" if _is_vertex(client) else "gcp.gemini"

    def base_url(self, client: Any) -> str | None:
        api = getattr(client, "_api_client", None)
        options = getattr(api, "_http_options", None)
        value = getattr(options, "base_url", None)
        return str(value) if value else None

    def add_headers(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        config = dict(body.get("config") or {})
        http = config.get("http_options") or {}
        if not isinstance(http, dict):
            http = http.model_dump(exclude_none=True)
        config["http_options"] = {**http, "headers": {**(http.get("headers") or {}), **headers}}
        body["config"] = config

    def secrets(self, client: Any) -> list[str]:
        return credential_values(client, getattr(client, "_api_client", None))


CLIENT = GeminiClient()

__all__ = ["CLIENT", "GeminiClient"]
