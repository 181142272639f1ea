"""What the SDK clients of several vendors have in common: the I/O side of ``client.py``.

An adapter's ``client.py`` (its :class:`~toolwire.adapters.contract.VendorClient`) is the
only place that knows its SDK; what several such SDKs do alike lives once here and names
no vendor: telling a client by its classes, reading the raw byte stream of an SDK's
streaming-response API through the adapter's framing (the SDK's auth, base URL, headers
and timeouts; toolwire's reader and decoder), and closing a client made for one run.
:class:`StainlessClient` is the whole ``VendorClient`` of such an SDK, fed by the data
each adapter's ``client.py`` gives it. Nothing here is imported by ``import toolwire``;
the drivers reach it through an adapter's ``CLIENT``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import Any
from urllib.parse import urlsplit

from toolwire.adapters.contract import ChunkReader, Framing
from toolwire.redaction import credential_values


def class_names(client: Any) -> set[str]:
    """The names of the client's classes (its own and its bases')."""
    return {k.__name__ for k in type(client).__mro__}


def module_roots(client: Any) -> list[str]:
    """The modules the client's classes come from, nearest first (``"openai._client"``)."""
    return [klass.__module__ or "" for klass in type(client).__mro__]


def from_package(client: Any, package: str) -> bool:
    """Whether the client's nearest SDK class comes from ``package`` (``"google.genai"``)."""
    for mod in module_roots(client):
        if mod == package or mod.startswith(package + "."):
            return True
    return False


def async_by_name(client: Any, *, but: frozenset[str] = frozenset()) -> bool:
    """The Stainless SDKs' rule: an async client's class (or a base) is ``Async...``."""
    return any(n.startswith("Async") for n in class_names(client) if n not in but)


def add_extra_headers(body: dict[str, Any], headers: dict[str, str]) -> None:
    """Headers for a Stainless-style SDK's call: its ``extra_headers`` keyword (the
    caller's own extra headers kept, ours added)."""
    given = body.get("extra_headers")
    body["extra_headers"] = {**(given if isinstance(given, dict) else {}), **headers}


def base_url(client: Any) -> str | None:
    """A Stainless-style client's ``base_url`` as text (None when it has none)."""
    value = getattr(client, "base_url", None)
    return str(value) if value else None


Resource = Callable[[Any], Any]


def _create(client: Any, resource: Resource) -> Any:
    return resource(client.with_options(max_retries=0)).with_streaming_response.create


def read_raw(
    client: Any, resource: Resource, kwargs: dict[str, Any], reader: ChunkReader
) -> Iterator[Any]:
    """One streamed call through a Stainless-style SDK (``resource(client)`` is the API,
    e.g. ``client.messages``), its own retries off (``with_options`` makes a copy, the
    caller's client is never changed): the response bytes of its
    ``with_streaming_response.create`` fed to ``reader`` (the adapter's
    ``FRAMING.reader()``), the chunk dicts yielded. Nothing is called before the first
    ``next``."""
    with _create(client, resource)(**kwargs) as response:
        for piece in response.iter_bytes():
            yield from reader.feed(piece)
            if reader.done:
                return
        yield from reader.close()


async def aread_raw(
    client: Any, resource: Resource, kwargs: dict[str, Any], reader: ChunkReader
) -> AsyncIterator[Any]:
    """The async form of :func:`read_raw`."""
    async with _create(client, resource)(**kwargs) as response:
        async for piece in response.iter_bytes():
            for chunk in reader.feed(piece):
                yield chunk
            if reader.done:
                return
        for chunk in reader.close():
            yield chunk


async def aclose(client: Any) -> None:
    """Close an async SDK client made for one run (its connections with it)."""
    closer = getattr(client, "close", None)
    if closer is not None:
        await closer()


@dataclass(frozen=True)
class ApiChoice:
    """Which API a client means when the caller names none, where one SDK serves two
    adapters: a client of one of ``classes`` or pointed at one of ``hosts`` means
    ``then``, any other ``otherwise``. Both adapters hold the same choice as data."""

    classes: frozenset[str]
    hosts: frozenset[str]
    then: str
    otherwise: str

    def of(self, client: Any) -> str:
        if class_names(client) & self.classes:
            return self.then
        host = urlsplit(str(getattr(client, "base_url", ""))).hostname or ""
        return self.then if host in self.hosts else self.otherwise


class StainlessClient:
    """The :class:`~toolwire.adapters.contract.VendorClient` of a Stainless-style SDK,
    from data: an adapter's ``client.py`` subclasses it, sets the class attributes (what
    the contract lists as data, plus ``sdk``, ``resource`` and ``framing`` below) and
    overrides only what its SDK does otherwise (another stream, more secrets).

    A run reads the raw response bytes of ``resource``'s ``with_streaming_response``
    through ``framing.reader()``, the SDK's retries off for the call."""

    extras: tuple[str, ...]
    key_env: tuple[str, ...]
    default_model: str
    conversation_keys: tuple[str, ...]
    retryable_errors: frozenset[str]
    secret_headers: frozenset[str]
    secret_query_keys: frozenset[str] = frozenset()
    api: str | None = None
    provider_aliases: tuple[str, ...] = ()
    endpoint_suffix: str
    account_headers: frozenset[str]
    key_shapes: tuple[tuple[str, str], ...]

    #: the SDK's package (whose clients this adapter claims)
    sdk: str
    #: the dotted attribute path of the streamed call's API on a client (``"messages"``)
    resource: str
    #: the adapter's ``FRAMING`` (its push reader reads the response bytes)
    framing: Framing
    #: with ``api``: which API a client means when the caller names none
    api_choice: ApiChoice | None = None
    #: telemetry's provider name, and the names of clients hosted elsewhere (their
    #: classes -> the host's provider name)
    provider_name: str
    hosted: tuple[tuple[frozenset[str], str], ...] = ()

    def sdk_client_class(self) -> Any:
        """The SDK's async client class (imported here, when a client is built)."""
        raise NotImplementedError

    def stream_kwargs(self, body: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments of the streamed call for ``body``."""
        return {**body, "stream": True}

    def claims(self, client: Any, api: str | None) -> bool:
        if not from_package(client, self.sdk):
            return False
        return self.api_choice is None or (api or self.api_choice.of(client)) == self.api

    def is_async(self, client: Any) -> bool:
        return async_by_name(client)

    def drives_async(self, client: Any) -> bool:
        return self.is_async(client)

    def encode_options(self, client: Any) -> dict[str, Any]:
        return {}

    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None:
        body.update(params)

    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]:
        return read_raw(
            client, attrgetter(self.resource), self.stream_kwargs(body), self.framing.reader()
        )

    def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        return aread_raw(
            client, attrgetter(self.resource), self.stream_kwargs(body), self.framing.reader()
        )

    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any:
        return self.sdk_client_class()(
            api_key=api_key, base_url=base_url, http_client=http_client, max_retries=0
        )

    async def aclose(self, client: Any) -> None:
        await aclose(client)

    def secrets(self, client: Any) -> list[str]:
        return credential_values(client)

    def telemetry_provider(self, client: Any) -> str:
        names = class_names(client)
        for classes, name in self.hosted:
            if names & classes:
                return name
        return self.provider_name

    def base_url(self, client: Any) -> str | None:
        return base_url(client)

    def add_headers(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        add_extra_headers(body, headers)


__all__ = [
    "ApiChoice",
    "StainlessClient",
    "aclose",
    "aread_raw",
    "async_by_name",
    "class_names",
    "from_package",
    "module_roots",
    "read_raw",
]
