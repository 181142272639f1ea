"""OpenAI's SDK for the Chat Completions, as the drivers, the server and the replay need it.

One SDK serves two adapters: ``api="chat"`` picks this one; with no ``api=``, an Azure
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
CONVERSATION_KEYS = ("messages",)
#: with no ``api=``: the Responses API for Azure and api.openai.com, else Chat Completions
API_CHOICE = clients.ApiChoice(_AZURE, frozenset({"api.openai.com"}), "responses", "chat")


def default_api(client: Any) -> str:
    """The API an OpenAI client means when the caller names none."""
    return API_CHOICE.of(client)


class OpenAIChatClient(clients.StainlessClient):
    """The :class:`~toolwire.adapters.contract.VendorClient` of the Chat Completions."""

    extras = ("openai",)
    key_env = ("OPENAI_API_KEY",)
    default_model = "gpt-4.1-mini"
    conversation_keys: tuple[str, ...] = CONVERSATION_KEYS
    retryable_errors = RETRYABLE_ERRORS
    secret_headers = frozenset({"authorization", "api-key"})
    secret_query_keys = frozenset({"api-key"})
    api: str | None = "chat"
    endpoint_suffix = "/chat/completions"
    account_headers = frozenset({"openai-organization", "openai-project"})
    #: (what it is, its regular expression): key shapes a cassette must never hold
    key_shapes = (("an OpenAI/Anthropic-style secret key (sk-…)", r"sk-[A-Za-z0-9_\-]{20,200}"),)

    sdk = "openai"
    resource = "chat.completions"
    framing = FRAMING
    api_choice = API_CHOICE
    provider_name = "openai"
    hosted = ((_AZURE, "azure.ai.openai"),)

    def sdk_client_class(self) -> Any:
        import openai

        return openai.AsyncOpenAI

    def stream_kwargs(self, body: dict[str, Any]) -> dict[str, Any]:
        kw = {**body, "stream": True}
        if "stream_options" not in kw:
            kw["stream_options"] = {"include_usage": True}  # usage for RUN_FINISHED
        return kw


CLIENT = OpenAIChatClient()

__all__ = ["CLIENT", "OpenAIChatClient", "default_api"]
