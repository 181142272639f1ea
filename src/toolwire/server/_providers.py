"""Providers: what answers an agent's runs. ``replay`` from recordings, the rest a vendor's SDK.

A real provider builds the vendor's own async client once (its adapter's
``CLIENT.make_client``: its key from the environment, read when a run starts; ``base_url`` from
the config), reuses it for every run (a new one only when the key changed) and runs the
conversation through ``toolwire.arun``. Its key is held by that client only (the provider keeps
a digest to notice a change), never printed or put in an error: the server redacts every key
value from what it sends and logs.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

from ag_ui.core import BaseEvent, RunAgentInput

from toolwire import adapters
from toolwire.errors import UnsupportedInput
from toolwire.server._config import REPLAY, AgentConfig, ConfigError, providers
from toolwire.server._offload import OFFLOAD


class Provider(Protocol):
    """What the app needs of an agent's provider."""

    config: AgentConfig

    @property
    def model(self) -> str | None: ...

    def unavailable(self) -> str | None:
        """Why a run cannot start now (a missing key), or None."""

    def events(self, run_input: RunAgentInput) -> AsyncIterator[BaseEvent | list[BaseEvent]]:
        """The run's events: one at a time, or lists of those ready together (written at
        once)."""

    def warm(self) -> None:
        """Import now what the first run would (the vendor SDK, the driver): at start-up."""

    def prompts(self) -> list[str]:
        """Messages the page offers to send (the replay agent's recorded first prompts)."""

    def secret_values(self) -> list[str]:
        """The key values to mask in everything this provider's runs send."""

    async def aclose(self) -> None:
        """Close what the provider kept across runs (an SDK client): the app's shutdown."""


def warm_driver() -> None:
    """``toolwire.arun`` and what it imports on a first run (tenacity, the runner)."""
    from toolwire.driver import arun  # noqa: F401


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


class VendorProvider:
    """A vendor behind ``toolwire.arun``: model and params from the config."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config
        self.adapter = providers()[config.provider][0]
        self.client = adapters.client(self.adapter)
        # the SDK client, built once and reused across runs
        self._built: SharedClient | None = None
        # per event loop, held while a client is built (an asyncio lock belongs to one loop)
        self._building: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            WeakKeyDictionary()
        )

    @property
    def model(self) -> str:
        return self.config.model or self.client.default_model

    def _key(self) -> str | None:
        values = [v for name in self.config.key_names if (v := os.environ.get(name))]
        return values[0] if values else None

    def prompts(self) -> list[str]:
        return []  # a real model answers anything

    def secret_values(self) -> list[str]:
        return secrets(self.config)

    def warm(self) -> None:
        warm_driver()
        try:  # a client built and dropped: no connection is opened until a request
            self.client.make_client(api_key="warm-up", base_url=self.config.base_url)
        except ImportError:
            pass  # the SDK is not installed: the first run says so

    def unavailable(self) -> str | None:
        if self._key() is None:
            return f"{' or '.join(self.config.key_names)} is not set in the server's environment"
        return None

    async def events(self, run_input: RunAgentInput) -> AsyncIterator[list[BaseEvent]]:
        """The run's events, a list of those ready together at a time (``batches``)."""
        from toolwire.driver import arun

        key = self._key()
        if key is None:  # checked before the stream; the environment may have changed since
            raise UnsupportedInput(f"agent {self.config.name!r}: {self.unavailable()}")
        model = self.model
        params = dict(self.config.params)
        async with self._leased(key) as client:
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
                async for events in run.batches():
                    yield events

    @asynccontextmanager
    async def _leased(self, key: str) -> AsyncIterator[Any]:
        """The SDK client for ``key`` while a run uses it: a client the key changed away from
        is closed when the last run on it ends, not under the runs still streaming on it."""
        shared = await self._shared(key)
        shared.users += 1
        try:
            yield shared.client
        finally:
            shared.users -= 1
            if shared.retired and shared.users == 0:
                await self.client.aclose(shared.client)

    async def _sdk_client(self, key: str) -> Any:
        """The SDK client for ``key`` (see :meth:`_shared`)."""
        return (await self._shared(key)).client

    async def _shared(self, key: str) -> SharedClient:
        """The SDK client for ``key``, built at the first run and reused by the next ones (its
        connection pool with it); built anew when the key changed, or the event loop did
        (an async client's pool belongs to one loop). Building one loads its CA bundle:
        seconds of CPU under load, so it happens off the event loop. The one it replaces on
        the same loop is retired: closed now if no run uses it, else by its last run.

        One build at a time per loop: the runs that arrive together at a cold server wait for
        the first one's client. Each building its own left all but the last unreferenced,
        never closed; collecting such a client (its ``__del__`` closes it on the loop later)
        closed its sockets' descriptors first, and by the time its close ran, a new
        connection could hold the same descriptor number: the close took that connection's
        reader off the loop, and its request was never read (a ``408`` after
        ``header_timeout``)."""
        loop = asyncio.get_running_loop()
        digest = hashlib.sha256(key.encode()).hexdigest()
        built = self._built
        if built is not None and built.digest == digest and built.loop is loop:
            return built
        lock = self._building.get(loop)
        if lock is None:
            lock = self._building[loop] = asyncio.Lock()
        async with lock:
            built = self._built  # another run may have built it while this one waited
            if built is not None and built.digest == digest and built.loop is loop:
                return built
            if built is not None and built.loop is loop:
                await self._retire(built)
            client = await OFFLOAD.in_thread(
                self.client.make_client, api_key=key, base_url=self.config.base_url
            )
            self._built = SharedClient(digest, loop, client)
            return self._built

    async def _retire(self, shared: SharedClient) -> None:
        shared.retired = True
        if shared.users == 0:
            await self.client.aclose(shared.client)

    async def aclose(self) -> None:
        """Close the client the runs shared (the app's shutdown calls this; a run still on
        it closes it as it ends)."""
        built, self._built = self._built, None
        if built is not None and built.loop is asyncio.get_running_loop():
            await self._retire(built)


@dataclass
class SharedClient:
    """An SDK client the runs on one event loop share, and how many use it now."""

    digest: str  # of the key it was built with
    loop: asyncio.AbstractEventLoop
    client: Any
    users: int = 0
    retired: bool = False  # replaced (or the server closing): closed by its last run


def build_provider(config: AgentConfig) -> Provider:
    """The provider object for one configured agent."""
    if config.provider == REPLAY:
        try:
            from toolwire.server._replay import ReplayProvider
        except ImportError as exc:  # it plays each recording through its vendor's SDK
            need = "the replay provider needs the vendor SDKs: pip install 'toolwire[server,all]'"
            raise ConfigError(f"config: agent {config.name!r}: {need} ({exc})") from None
        return ReplayProvider(config)
    return VendorProvider(config)


__all__ = ["Provider", "VendorProvider", "build_provider", "secrets", "warm_driver"]
