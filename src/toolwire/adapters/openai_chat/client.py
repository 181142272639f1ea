"""OpenAI's SDK for the Chat Completions, as the drivers, the server and the replay need it.

One SDK serves two adapters: ``api="chat"`` picks this one; with no ``api=``, an Azure
client or one pointed at api.openai.com means the Responses API, any other base URL (an
OpenAI-compatible server) Chat Completions. A run reads the raw SSE bytes through the
SDK's streaming-response API, its retries off for the call. The SDK is imported only
when a client is built.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit

from toolwire import clients
from toolwire.redaction import credential_values

from .wire import FRAMING, RETRYABLE_ERRORS

_SDK = "openai"
_AZURE = frozenset({"AzureOpenAI", "AsyncAzureOpenAI"})
#: the request body keys that hold the conversation
CONVERSATION_KEYS = ("messages",)


def default_api(client: Any) -> str:
    """The API an OpenAI client means when the caller names none."""
    if clients.class_names(client) & _AZURE:
        return "responses"
    host = urlsplit(str(getattr(client, "base_url", ""))).hostname or ""
    return "responses" if host == "api.openai.com" else "chat"


def _completions(client: Any) -> Any:
    return client.chat.completions


def _stream_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    kw = {**body, "stream": True}
    if "stream_options" not in kw:
        kw["stream_options"] = {"include_usage": True}  # usage for RUN_FINISHED
    return kw


class OpenAIChatClient:
    """The :class:`~toolwire.adapters.contract.VendorClient` of the Chat Completions."""

    extras = ("openai",)
    key_env = ("OPENAI_API_KEY",)
    default_model = "gpt-4.1-mini"
    conversation_keys: tuple[str, ...] = CONVERSATION_KEYS
    retryable_errors = RETRYABLE_ERRORS
    secret_headers = frozenset({"authorization", "api-key"})
    secret_query_keys = frozenset({"api-key"})
    api: str | None = "chat"
    provider_aliases: tuple[str, ...] = ()
    endpoint_suffix = "/chat/completions"
    account_headers = frozenset({"openai-organization", "openai-project"})
    #: (what it is, its regular expression): key shapes a cassette must never hold
    key_shapes = (("an OpenAI/Anthropic-style secret key (sk-…)", r"sk-[A-Za-z0-9_\-]{20,200}"),)

    def claims(self, client: Any, api: str | None) -> bool:
        return clients.from_package(client, _SDK) and (api or default_api(client)) == self.api

    def is_async(self, client: Any) -> bool:
        return clients.async_by_name(client)

    def drives_async(self, client: Any) -> bool:
        return self.is_async(client)

    def encode_options(self, client: Any) -> dict[str, Any]:
        return {}

    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None:
        body.update(params)

    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]:
        return clients.read_raw(client, _completions, _stream_kwargs(body), FRAMING.reader())

    def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        return clients.aread_raw(client, _completions, _stream_kwargs(body), FRAMING.reader())

    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any:
        import openai

        return openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, http_client=http_client, max_retries=0
        )

    async def aclose(self, client: Any) -> None:
        await clients.aclose(client)

    def secrets(self, client: Any) -> list[str]:
        return credential_values(client)


CLIENT = OpenAIChatClient()

__all__ = ["CLIENT", "OpenAIChatClient", "default_api"]
