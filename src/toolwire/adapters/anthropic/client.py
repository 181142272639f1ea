"""Anthropic's SDK, as the drivers, the server and the replay need it (``CLIENT``).

A run reads the raw SSE bytes through the SDK's streaming-response API (its auth, base
URL, headers, timeouts), with the SDK's retries off for the call (``with_options``
returns a copy, so the caller's client is never changed). The Bedrock-hosted client
(``AnthropicBedrock``) streams AWS event-stream frames, not SSE: for it the SDK's own
event objects are read (the decoder takes them as well). The SDK is imported only when
a client is built.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from toolwire import clients
from toolwire.redaction import credential_values

from .wire import FRAMING, RETRYABLE_ERRORS

_BEDROCK = frozenset({"AnthropicBedrock", "AsyncAnthropicBedrock"})
_VERTEX = frozenset({"AnthropicVertex", "AsyncAnthropicVertex"})
_AWS_SECRETS = ("aws_secret_key", "aws_session_token", "aws_access_key")


def _is_bedrock(client: Any) -> bool:
    return bool(clients.class_names(client) & _BEDROCK)


def _objects_sync(client: Any, body: dict[str, Any]) -> Iterator[Any]:
    with client.with_options(max_retries=0).messages.create(**body, stream=True) as stream:
        yield from stream


async def _objects_async(client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
    stream = await client.with_options(max_retries=0).messages.create(**body, stream=True)
    async with stream:
        async for event in stream:
            yield event


class AnthropicClient(clients.StainlessClient):
    """The :class:`~toolwire.adapters.contract.VendorClient` of the Messages API
    (``clients.StainlessClient`` fed with this adapter's data; Bedrock's stream and
    secrets are its own)."""

    extras = ("anthropic",)
    key_env = ("ANTHROPIC_API_KEY",)
    default_model = "claude-sonnet-4-5"
    conversation_keys = ("system", "messages")
    retryable_errors = RETRYABLE_ERRORS
    secret_headers = frozenset({"x-api-key", "authorization"})
    endpoint_suffix = "/v1/messages"
    account_headers = frozenset({"anthropic-organization-id"})
    #: (what it is, its regular expression): key shapes a cassette must never hold
    key_shapes = (("an OpenAI/Anthropic-style secret key (sk-…)", r"sk-[A-Za-z0-9_\-]{20,200}"),)

    sdk = "anthropic"
    resource = "messages"
    framing = FRAMING
    provider_name = "anthropic"
    hosted = ((_BEDROCK, "aws.bedrock"), (_VERTEX, "gcp.vertex_ai"))

    def sdk_client_class(self) -> Any:
        import anthropic

        return anthropic.AsyncAnthropic

    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]:
        if _is_bedrock(client):
            return _objects_sync(client, body)
        return super().stream(client, body)

    def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        if _is_bedrock(client):
            return _objects_async(client, body)
        return super().astream(client, body)

    def secrets(self, client: Any) -> list[str]:
        found = credential_values(client)
        if _is_bedrock(client):  # AWS credentials, not an API key
            for name in _AWS_SECRETS:
                value = getattr(client, name, None)
                if isinstance(value, str) and len(value) >= 6 and value not in found:
                    found.append(value)
        return sorted(found, key=len, reverse=True)


CLIENT = AnthropicClient()

__all__ = ["CLIENT", "AnthropicClient"]
