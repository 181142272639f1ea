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

from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
)
from contextlib import aclosing
from dataclasses import dataclass
from functools import partial
from operator import attrgetter
from typing import Any
from urllib.parse import urlsplit

from toolwire.adapters.contract import ChunkReader, Framing
from toolwire.failures import error_in_body
from toolwire.protocol.pushed import form_of, pieces
from toolwire.redaction import credential_values

#: what the byte readers yield for a piece that completed no chunk, so the driver can check
#: its run deadline while a vendor trickles keep-alive bytes (skipped, never decoded)
TICK = object()


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


#: where :func:`hold_headers` keeps extra headers in a request body whose SDK call takes
#: them apart from the body (never sent as a body field: :func:`split_headers` takes it out)
HEADERS_KEY = "toolwire:headers"


def hold_headers(body: dict[str, Any], headers: dict[str, str]) -> None:
    """Keep extra HTTP headers with ``body`` until the SDK call (:func:`split_headers`)."""
    given = body.get(HEADERS_KEY)
    body[HEADERS_KEY] = {**(given if isinstance(given, dict) else {}), **headers}


def split_headers(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The body without the held headers, and the headers (``{}`` when none were held)."""
    if HEADERS_KEY not in body:
        return body, {}
    rest = {k: v for k, v in body.items() if k != HEADERS_KEY}
    held = body[HEADERS_KEY]
    return rest, dict(held) if isinstance(held, dict) else {}


Resource = Callable[[Any], Any]


def _create(client: Any, resource: Resource) -> Any:
    return resource(client.with_options(max_retries=0)).with_streaming_response.create


def sent_as_is(kwargs: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``kwargs`` of a Stainless-style SDK's call with the conversation (``keys``, where a
    list) handed over in ``extra_body``, an empty list in its argument's place.

    Such an SDK walks every argument in Python to rename and reformat it (its TypedDict
    transform: ~0.3 ms a message), inside the call, on the event loop of a server: a long
    history would hold every other stream up for the whole walk. toolwire's request body
    is the wire's JSON already, which the walk leaves as it is; ``extra_body`` is sent as
    given, merged over the walked arguments, so the body sent is the same, key order
    included. A caller's own ``extra_body`` still has the last word."""
    moved = {k: kwargs[k] for k in keys if type(kwargs.get(k)) is list and kwargs[k]}
    if not moved:
        return kwargs
    extra = kwargs.get("extra_body")
    if extra is not None and not isinstance(extra, dict):
        return kwargs  # (the SDK's own error for it, as before)
    empty: dict[str, Any] = {key: [] for key in moved}
    return {**kwargs, **empty, "extra_body": {**moved, **(extra or {})}}


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
        yield from read_body(
            response.iter_bytes(),
            reader,
            content_type=response.headers.get("content-type", ""),
            error_of=partial(error_in_body, _label(client)),
        )


async def aread_raw(
    client: Any, resource: Resource, kwargs: dict[str, Any], reader: ChunkReader
) -> AsyncIterator[Any]:
    """The async form of :func:`read_raw`."""
    async with _create(client, resource)(**kwargs) as response:
        read = aread_body(
            response.iter_bytes(),
            reader,
            content_type=response.headers.get("content-type", ""),
            error_of=partial(error_in_body, _label(client)),
        )
        async with aclosing(read) as chunks:
            async for chunk in chunks:
                yield chunk


#: ``body -> error``: the vendor's error when a success response's whole body (JSON where
#: a stream was asked for) is an error document, else ``None``
ErrorOf = Callable[[bytes], BaseException | None]


def read_body(
    pieces: Iterable[bytes],
    reader: ChunkReader,
    *,
    content_type: str = "",
    error_of: ErrorOf | None = None,
) -> Iterator[Any]:
    """A streamed response's body (its byte pieces, split anywhere) through ``reader`` (an
    adapter's ``FRAMING.reader()``): the chunk dicts, :data:`TICK` for a piece that
    completed none, nothing after the vendor's end marker, the reader's rest at the end (a
    stream cut inside a frame is its error). A body the response's ``content_type`` says is
    one JSON document (an error sent with status 200) is read whole: ``error_of``'s error
    is raised, else the document is read as the stream."""
    if _whole_json(content_type):
        yield from _whole_body(error_of, reader, b"".join(pieces))
        return
    for piece in pieces:
        yield from reader.feed(piece) or (TICK,)
        if reader.done:
            return
    yield from reader.close()


async def aread_body(
    pieces: AsyncIterable[bytes],
    reader: ChunkReader,
    *,
    content_type: str = "",
    error_of: ErrorOf | None = None,
) -> AsyncGenerator[Any, None]:
    """The async form of :func:`read_body`."""
    if _whole_json(content_type):
        body = b"".join([piece async for piece in pieces])
        for chunk in _whole_body(error_of, reader, body):
            yield chunk
        return
    async for piece in pieces:
        for chunk in reader.feed(piece) or (TICK,):
            yield chunk
        if reader.done:
            return
    for chunk in reader.close():
        yield chunk


def _label(client: Any) -> str:
    """The SDK's package name, to say whose error it was."""
    return (module_roots(client)[0] or "vendor").split(".")[0]


def _whole_json(content_type: str) -> bool:
    """A response that is one JSON document, not ``text/event-stream``."""
    kind = str(content_type).lower()
    return "json" in kind and "event-stream" not in kind


def _whole_body(error_of: ErrorOf | None, reader: ChunkReader, body: bytes) -> Iterator[Any]:
    """A JSON body where a stream was asked for: the vendor's error, or read as the stream."""
    error = error_of(body) if error_of is not None else None
    if error is not None:
        raise error
    yield from reader.feed(body)
    yield from reader.close()


async def aclose(client: Any) -> None:
    """Close an async SDK client made for one run (its connections with it)."""
    closer = getattr(client, "close", None)
    if closer is not None:
        await closer()


class HttpxBridge:
    """An ``httpx`` async transport that sends through another async HTTP client (an
    ``httpx2.AsyncClient``, which the replay hands every SDK): for the SDKs built on plain
    ``httpx``, whose clients take only an ``httpx`` transport. The response is read whole
    (what the replay serves is a recording). ``httpx`` is imported when one is made."""

    def __new__(cls, client: Any) -> Any:
        import httpx

        class _Bridge(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                body = await request.aread()
                sent = client.build_request(
                    request.method,
                    str(request.url),
                    headers=list(request.headers.raw),
                    content=body,
                )
                got = await client.send(sent)
                content = await got.aread()
                headers = [
                    (k, v)
                    for k, v in got.headers.items()
                    if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
                ]
                return httpx.Response(got.status_code, headers=headers, content=content)

            async def aclose(self) -> None:
                await client.aclose()

        return _Bridge()


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


#: each client's delta form (:func:`push_reader`; the clients are the adapters' ``CLIENT``
#: objects)
_FORMS: dict[Any, Any] = {}


def push_reader(sdk: Any, framing: Framing) -> ChunkReader:
    """The push reader a run reads a raw body with: ``framing``'s, a piece's chunks handed on
    at once (``protocol.pushed``: the driver reads them fused with its decoder's delta form).
    ``sdk`` is an adapter's ``CLIENT``: its adapter's decoder is asked for its form once."""
    found = _FORMS.get(sdk, _FORMS)
    if found is _FORMS:
        from toolwire import adapters

        found = None
        for name in adapters.model_names():
            if adapters.client(name) is sdk:
                found = form_of(adapters.model(name).Decoder())
        _FORMS[sdk] = found
    return pieces(framing.reader(), found)  # type: ignore[return-value]


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
        kwargs = sent_as_is(self.stream_kwargs(body), self.conversation_keys)
        return read_raw(client, attrgetter(self.resource), kwargs, self.reader())

    def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        kwargs = sent_as_is(self.stream_kwargs(body), self.conversation_keys)
        return aread_raw(client, attrgetter(self.resource), kwargs, self.reader())

    def reader(self) -> ChunkReader:
        """The push reader a run reads the body with (:func:`push_reader`)."""
        return push_reader(self, self.framing)

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
    "HEADERS_KEY",
    "TICK",
    "ApiChoice",
    "ErrorOf",
    "HttpxBridge",
    "StainlessClient",
    "aclose",
    "add_extra_headers",
    "aread_body",
    "aread_raw",
    "async_by_name",
    "base_url",
    "class_names",
    "from_package",
    "hold_headers",
    "module_roots",
    "push_reader",
    "read_body",
    "read_raw",
    "split_headers",
]
