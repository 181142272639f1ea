"""OpenAI's SDK for the Responses API, as the drivers, the server and the replay need it.

One SDK serves two adapters: ``api="responses"`` picks this one; with no ``api=``, an Azure
client or one pointed at api.openai.com means the Responses API, any other base URL (an
OpenAI-compatible server) Chat Completions. A run reads the raw SSE bytes through the
SDK's streaming-response API, its retries off for the call (``clients.StainlessClient``,
fed with this adapter's data). The SDK is imported only when a client is built.
"""

from __future__ import annotations

from typing import Any

from toolwire import clients

from .wire import FRAMING, RETRYABLE_ERRORS

_AZURE = frozenset({"AzureOpenAI", "AsyncAzureOpenAI"})
#: the request body keys that hold the conversation
CONVERSATION_KEYS = ("instructions", "input")
#: with no ``api=``: the Responses API for Azure and api.openai.com, else Chat Completions
API_CHOICE = clients.ApiChoice(_AZURE, frozenset({"api.openai.com"}), "responses", "chat")


def default_api(client: Any) -> str:
    """The API an OpenAI client means when the caller names none."""
    return API_CHOICE.of(client)


class OpenAIResponsesClient(clients.StainlessClient):
    """The :class:`~toolwire.adapters.contract.VendorClient` of the Responses API."""

    extras = ("openai",)
    key_env = ("OPENAI_API_KEY",)
    default_model = "gpt-4.1-mini"
    conversation_keys: tuple[str, ...] = CONVERSATION_KEYS
    retryable_errors = RETRYABLE_ERRORS
    secret_headers = frozenset({"authorization", "api-key"})
    secret_query_keys = frozenset({"api-key"})
    api: str | None = "responses"
    provider_aliases: tuple[str, ...] = ("openai",)
    endpoint_suffix = "/responses"
    account_headers = frozenset({"openai-organization", "openai-project"})
    #: (what it is, its regular expression): key shapes a cassette must never hold
    key_shapes = (("an OpenAI/Anthropic-style secret key (sk-…)", r"sk-[A-Za-z0-9_\-]{20,200}"),)

    sdk = "openai"
    resource = "responses"
    framing = FRAMING
    api_choice = API_CHOICE
    provider_name = "openai"
    hosted = ((_AZURE, "azure.ai.openai"),)

    def sdk_client_class(self) -> Any:
        import openai

        return openai.AsyncOpenAI


CLIENT = OpenAIResponsesClient()

__all__ = ["CLIENT", "OpenAIResponsesClient", "default_api"]
