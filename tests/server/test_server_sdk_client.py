"""A vendor provider builds one SDK client per key and event loop, even for runs that arrive
together at a cold server.

Each of the first concurrent runs used to build its own client, and all but the last were
dropped unclosed. Collecting one (the SDK's ``__del__`` closes it on the loop later) closed its
sockets' descriptors first; by the time its close ran a new connection could hold the same
number, and the close took that connection's reader off the loop: the server never read its
request and answered ``408`` after ``header_timeout`` (issue 38, ``--workers 2``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from toolwire.server._config import AgentConfig
from toolwire.server._providers import VendorProvider


class CountingClients:
    """Stands in for an adapter's ``CLIENT``: records the SDK clients built and closed."""

    def __init__(self) -> None:
        self.built: list[tuple[str | None, object]] = []
        self.closed: list[object] = []

    def make_client(self, *, api_key: str | None, base_url: str | None) -> object:
        client = object()
        self.built.append((api_key, client))
        return client

    async def aclose(self, client: Any) -> None:
        self.closed.append(client)


def _provider() -> tuple[VendorProvider, CountingClients]:
    provider = VendorProvider(AgentConfig(name="a", provider="anthropic", base_url="http://x"))
    clients = CountingClients()
    provider.client = clients  # type: ignore[assignment]
    return provider, clients


async def test_runs_arriving_together_share_one_client() -> None:
    provider, clients = _provider()
    got = await asyncio.gather(*(provider._sdk_client("key-1") for _ in range(16)))
    assert len(clients.built) == 1
    assert all(client is clients.built[0][1] for client in got)
    assert clients.closed == []
    # and a later run reuses it
    assert await provider._sdk_client("key-1") is clients.built[0][1]
    assert len(clients.built) == 1


async def test_a_new_key_closes_the_old_client_and_builds_one_for_all_its_runs() -> None:
    provider, clients = _provider()
    first = await provider._sdk_client("key-1")
    got = await asyncio.gather(*(provider._sdk_client("key-2") for _ in range(8)))
    assert [key for key, _ in clients.built] == ["key-1", "key-2"]
    assert clients.closed == [first]
    assert all(client is clients.built[1][1] for client in got)


def test_each_event_loop_gets_its_own_client() -> None:
    provider, clients = _provider()

    async def runs() -> list[Any]:
        return list(await asyncio.gather(*(provider._sdk_client("key-1") for _ in range(4))))

    one, two = asyncio.run(runs()), asyncio.run(runs())
    assert len(clients.built) == 2
    assert set(map(id, one)) == {id(clients.built[0][1])}
    assert set(map(id, two)) == {id(clients.built[1][1])}


async def test_a_client_the_key_changed_away_from_is_closed_by_its_last_run() -> None:
    provider, clients = _provider()
    async with provider._leased("key-1") as first:
        async with provider._leased("key-1") as again:
            assert again is first
            second = await provider._sdk_client("key-2")  # the key rotated mid-run
            assert second is not first
            assert clients.closed == []  # two runs still stream on the first client
        assert clients.closed == []  # one still does
    assert clients.closed == [first]
    async with provider._leased("key-2") as now:
        assert now is second
    assert clients.closed == [first]  # the current client stays open between runs


async def test_shutdown_leaves_a_streaming_run_its_client_until_it_ends() -> None:
    provider, clients = _provider()
    async with provider._leased("key-1") as client:
        await provider.aclose()
        assert clients.closed == []
    assert clients.closed == [client]
