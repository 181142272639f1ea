"""The adapter contract as types: what every adapter module, Decoder and Encoder offers.

ADAPTERS.md describes one surface for every vendor; these Protocols make it
something mypy checks (``toolwire.adapters`` asserts each adapter module against
:class:`Adapter` under ``TYPE_CHECKING``) and ``tests/cross/test_contract.py``
checks at run time (names, signatures, option errors). ``encode_request`` is
typed loosely here: its options differ per vendor by design, and the test reads
its real signature.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunAgentInput,
    TokenUsage,
    Tool,
    ToolCall,
    ToolMessage,
)

from toolwire.protocol.decoding import BaseDecoder

if TYPE_CHECKING:  # recordings reads adapters: no import cycle at run time
    from toolwire.losses import Loss
    from toolwire.protocol.surface import Encoded
    from toolwire.recordings import ModelRoute


class Decoder(Protocol):
    """Vendor chunks in, AG-UI events out (sans-I/O: ``feed`` and ``close``).

    What a caller may use of a decoder; every adapter's ``Decoder`` is a
    :class:`~toolwire.protocol.decoding.BaseDecoder` subclass, which the run framer
    needs for its bookkeeping, and so meets this.
    """

    vendor: str
    usage: list[TokenUsage]
    interrupts: list[Interrupt]
    run_metadata: dict[str, Any]
    error_metadata: dict[str, Any]
    cancelled: bool
    #: what the turn could not carry to AG-UI, as values (a driver reports them)
    losses: list[Loss]

    def feed(self, chunk: Any) -> list[BaseEvent]: ...

    def close(self) -> list[BaseEvent]: ...

    #: a whole stream: ``feed`` of each chunk, then ``close()`` (the same events)
    def events(self, chunks: Iterable[Any]) -> Iterator[BaseEvent]: ...

    def feed_response(self, response: Any) -> list[BaseEvent]: ...


class Encoder(Protocol):
    """AG-UI events in, vendor chunk dicts out; what the vendor cannot hold is a loss."""

    losses: list[Loss]

    def feed(self, event: Any) -> list[dict[str, Any]]: ...

    def close(self) -> list[dict[str, Any]]: ...


class ChunkReader(Protocol):
    """Push-style reading of a vendor's stream bytes: pieces split anywhere in, the
    vendor's chunk dicts out (sync and async drivers alike)."""

    #: the vendor's own end marker was read (OpenAI's ``[DONE]``): the rest is ignored
    done: bool

    def feed(self, piece: bytes) -> list[dict[str, Any]]: ...

    #: the rest; a stream cut inside a frame is ``TruncatedStream``, never success
    def close(self) -> list[dict[str, Any]]: ...


class Framing(Protocol):
    """How a vendor frames a stream on the wire: SSE, NDJSON, a JSON array, the AWS event
    stream. Reading is bytes -> chunk dicts, writing chunks -> bytes; the shared readers
    and writers live in ``toolwire.protocol``, an adapter names which one and its options."""

    #: ``"sse"``, ``"ndjson"``, ``"json-array"``, ``"aws-eventstream"``
    name: str
    #: the response's content type (``text/event-stream`` ...)
    media_type: str

    #: a whole body (bytes, text, or pieces split anywhere) -> the chunk dicts, lazily
    def read(self, body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]: ...

    #: a fresh push-style reader (what a driver feeds the HTTP body to)
    def reader(self) -> ChunkReader: ...

    #: chunks (dicts or SDK objects) -> the bytes the vendor's SDK parses back
    def write(self, chunks: Iterable[Any]) -> bytes: ...


class VendorClient(Protocol):
    """Everything the drivers, the server, the replay and the cassette kit need to know
    about a model vendor's SDK: ``adapters/<name>/client.py`` defines one as ``CLIENT``.
    Nothing outside the adapter package names the vendor, imports its SDK or branches
    on it; they ask the registry for this object."""

    #: pip extras that install the SDK (``("anthropic",)``)
    extras: tuple[str, ...]
    #: environment variables that hold the key, in the order they are tried
    key_env: tuple[str, ...]
    #: the model a server agent uses when its config names none
    default_model: str
    #: the request body keys that hold the conversation (what replay compares)
    conversation_keys: tuple[str, ...]
    #: in-stream or in-body error types worth another attempt
    retryable_errors: frozenset[str]
    #: HTTP header names and URL query keys (lower case) that carry credentials
    secret_headers: frozenset[str]
    secret_query_keys: frozenset[str]

    #: whether ``client`` is this vendor's SDK client (``api`` picks among adapters that
    #: share one SDK, e.g. ``"chat"`` / ``"responses"`` for OpenAI)
    def claims(self, client: Any, api: str | None) -> bool: ...

    def is_async(self, client: Any) -> bool: ...

    #: options ``encode_request`` needs from the client (e.g. Gemini's Vertex backend)
    def encode_options(self, client: Any) -> dict[str, Any]: ...

    #: put the caller's params that ``encode_request`` does not name into the body
    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None: ...

    #: one streamed turn through the SDK, its own retries off: chunk dicts or SDK events
    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]: ...

    def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]: ...

    #: an async SDK client for a server agent or the replay (SDK retries off)
    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any: ...

    async def aclose(self, client: Any) -> None: ...

    #: the credential values a client holds, to keep out of every text a run sends
    def secrets(self, client: Any) -> list[str]: ...


class Adapter(Protocol):
    """One stream adapter module (``adapters.get(name)`` for a name in ``NAMES``)."""

    @property
    def MODEL_ROUTE(self) -> ModelRoute: ...

    @property
    def Decoder(self) -> Callable[..., BaseDecoder]: ...

    @property
    def Encoder(self) -> Callable[..., Encoder]: ...

    @property
    def encode_request(self) -> Callable[..., Encoded]: ...

    # bound by ``toolwire.protocol.surface.stream_surface``: (chunks or events, **options)
    @property
    def decode_stream(self) -> Callable[..., Iterator[BaseEvent]]: ...

    @property
    def adecode_stream(self) -> Callable[..., AsyncIterator[BaseEvent]]: ...

    @property
    def encode_stream(self) -> Callable[..., Iterator[dict[str, Any]]]: ...

    @property
    def decode_response(self) -> Callable[..., list[BaseEvent]]: ...

    def decode_request(
        self, body: Any, *, thread_id: str | None = None, run_id: str | None = None
    ) -> RunAgentInput: ...

    def sse_chunks(self, body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]: ...

    def to_sse(self, chunks: Iterable[dict[str, Any]]) -> bytes: ...


class ResultPeer(Protocol):
    """A peer with no stream of its own (MCP): tool results, definitions and calls."""

    def decode_result(
        self, result: Any, *, tool_call_id: str, message_id: str | None = None
    ) -> ToolMessage: ...

    def encode_result(
        self, message: Any, *, losses: list[Loss] | None = None
    ) -> dict[str, Any]: ...

    def decode_tool(self, tool: Any) -> Tool: ...

    def encode_tool(self, tool: Any, *, losses: list[Loss] | None = None) -> dict[str, Any]: ...

    def decode_call(self, params: Any, *, tool_call_id: str) -> ToolCall: ...

    def encode_call(self, call: Any, *, losses: list[Loss] | None = None) -> dict[str, Any]: ...


__all__ = [
    "Adapter",
    "ChunkReader",
    "Decoder",
    "Encoder",
    "Framing",
    "ResultPeer",
    "VendorClient",
]
