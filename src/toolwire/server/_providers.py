"""Providers: what answers an agent's runs. ``replay`` from recordings, the rest a vendor's SDK.

A real provider builds the vendor's own async client (its key from the environment, read when
a run starts; ``base_url`` from the config) and runs the conversation through
``toolwire.arun``. Its key is never stored on the provider, printed or put in an error: the
server redacts every key value from what it sends and logs.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any, Protocol
from urllib.parse import urlsplit

from ag_ui.core import BaseEvent, RunAgentInput

from toolwire.errors import UnsupportedInput
from toolwire.server._config import DEFAULT_MODELS, PROVIDERS, AgentConfig, ConfigError
from toolwire.server._offload import OFFLOAD


class Provider(Protocol):
    """What the app needs of an agent's provider."""

    config: AgentConfig

    @property
    def model(self) -> str | None: ...

    def unavailable(self) -> str | None:
        """Why a run cannot start now (a missing key), or None."""

    def events(self, run_input: RunAgentInput) -> AsyncIterator[BaseEvent]: ...


def secrets(config: AgentConfig) -> list[str]:
    """The key values this agent may use (to redact them wherever text leaves the server):
    its key variables' values, and the password of a ``user:password@`` in its ``base_url``
    (an SDK error may quote the URL)."""
    values = [v for name in config.key_names if (v := os.environ.get(name))]
    if config.base_url:
        try:
            password = urlsplit(config.base_url).password
        except ValueError:
            password = None
        if password:
            values.append(password)
    return values


def _client(provider: str, key: str, base_url: str | None) -> Any:
    """The vendor SDK's async client (imported only when a real provider runs)."""
    if provider == "anthropic":
        import anthropic

        return anthropic.AsyncAnthropic(api_key=key, base_url=base_url, max_retries=0)
    if provider in ("openai", "openai_chat"):
        import openai

        return openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0)
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=base_url) if base_url else None
    return genai.Client(api_key=key, http_options=options)


async def aclose_client(client: Any) -> None:
    """Close an SDK client made for one run (its connections with it)."""
    aio = getattr(client, "aio", None)  # google-genai: the async side closes apart
    closer = getattr(aio, "aclose", None) if aio is not None else getattr(client, "close", None)
    if closer is not None:
        await closer()


class VendorProvider:
    """A vendor behind ``toolwire.arun``: model and params from the config."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config
        self.adapter = PROVIDERS[config.provider][0]

    @property
    def model(self) -> str:
        return self.config.model or DEFAULT_MODELS[self.config.provider]

    def _key(self) -> str | None:
        values = secrets(self.config)
        return values[0] if values else None

    def unavailable(self) -> str | None:
        if self._key() is None:
            return f"{' or '.join(self.config.key_names)} is not set in the server's environment"
        return None

    async def events(self, run_input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        from toolwire.driver import arun

        key = self._key()
        if key is None:  # checked before the stream; the environment may have changed since
            raise UnsupportedInput(f"agent {self.config.name!r}: {self.unavailable()}")
        client = _client(self.config.provider, key, self.config.base_url)
        model = self.model
        params = dict(self.config.params)
        try:
            # the request conversion happens as the run is made: in a worker thread
            run = await OFFLOAD.run(
                arun,
                client,
                run_input,
                model=model,
                vendor=self.adapter,
                forward_losses=True,
                **params,
            )
            async with run:
                async for event in run:
                    yield event
        finally:
            await aclose_client(client)


def build_provider(config: AgentConfig) -> Provider:
    """The provider object for one configured agent."""
    if config.provider == "replay":
        try:
            from toolwire.server._replay import ReplayProvider
        except ImportError as exc:  # it plays each recording through its vendor's SDK
            need = "the replay provider needs the vendor SDKs: pip install 'toolwire[server,all]'"
            raise ConfigError(f"config: agent {config.name!r}: {need} ({exc})") from None
        return ReplayProvider(config)
    return VendorProvider(config)


__all__ = ["Provider", "VendorProvider", "aclose_client", "build_provider", "secrets"]
