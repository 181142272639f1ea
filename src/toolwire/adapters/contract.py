"""The adapter contract as types: what every adapter module, Decoder and Encoder offers.

ADAPTERS.md describes one surface for every vendor; these Protocols make it
something mypy checks (``toolwire.adapters`` asserts each adapter module against
:class:`Adapter` under ``TYPE_CHECKING``) and ``tests/cross/test_contract.py``
checks at run time (names, signatures, option errors; ``toolwire.testing.contract``
is that check for a plugin author's own package). Members are typed with their real
signatures (callback Protocols); ``encode_request`` keeps per-vendor options by design
(``**options``), and the test reads its real signature. The surface lists
(``adapters.SURFACE`` ...) are derived from these classes by :func:`members`, never
written out again.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
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

from toolwire.protocol.callids import IdRule
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.recorded import Exchange, ModelRoute, Recorded

if TYPE_CHECKING:
    from toolwire.losses import Loss
    from toolwire.protocol.surface import Encoded


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
    @property
    def done(self) -> bool: ...

    def feed(self, piece: bytes) -> list[dict[str, Any]]: ...

    #: the rest; a stream cut inside a frame is ``TruncatedStream``, never success
    def close(self) -> list[dict[str, Any]]: ...


class Framing(Protocol):
    """How a vendor frames a stream on the wire: SSE, NDJSON, a JSON array, the AWS event
    stream. Reading is bytes -> chunk dicts, writing chunks -> bytes; the shared readers
    and writers live in ``toolwire.protocol``, an adapter names which one and its options."""

    #: ``"sse"``, ``"ndjson"``, ``"json-array"``, ``"aws-eventstream"``
    @property
    def name(self) -> str: ...
    #: the response's content type (``text/event-stream`` ...)
    @property
    def media_type(self) -> str: ...

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
    @property
    def extras(self) -> tuple[str, ...]: ...
    #: environment variables that hold the key, in the order they are tried
    @property
    def key_env(self) -> tuple[str, ...]: ...
    #: the model a server agent uses when its config names none
    @property
    def default_model(self) -> str: ...
    #: the request body keys that hold the conversation (what replay compares)
    @property
    def conversation_keys(self) -> tuple[str, ...]: ...
    #: in-stream or in-body error types worth another attempt
    @property
    def retryable_errors(self) -> frozenset[str]: ...
    #: HTTP header names and URL query keys (lower case) that carry credentials
    @property
    def secret_headers(self) -> frozenset[str]: ...
    @property
    def secret_query_keys(self) -> frozenset[str]: ...

    #: the API this adapter serves among adapters that share one SDK (``toolwire.run``'s
    #: ``api=``: OpenAI's ``"chat"`` / ``"responses"``), else ``None``
    @property
    def api(self) -> str | None: ...
    #: other names ``toolwire serve``'s config accepts for this provider (``"openai"``)
    @property
    def provider_aliases(self) -> tuple[str, ...]: ...
    #: what the SDK appends to its base URL before the model call's path (the replay
    #: serves a recording at its recorded URL: ``"/v1/messages"``; ``""`` for none)
    @property
    def endpoint_suffix(self) -> str: ...
    #: request/response headers (lower case) that name the account: not credentials,
    #: but never written to a shared cassette
    @property
    def account_headers(self) -> frozenset[str]: ...

    #: (what it is, a regular expression) per shape of this vendor's keys and tokens: the
    #: cassette kit refuses to write a cassette that holds one
    @property
    def key_shapes(self) -> tuple[tuple[str, str], ...]: ...

    #: whether ``client`` is this vendor's SDK client (``api`` picks among adapters that
    #: share one SDK, e.g. ``"chat"`` / ``"responses"`` for OpenAI)
    def claims(self, client: Any, api: str | None) -> bool: ...

    #: an async SDK client (``toolwire.arun`` takes it, ``toolwire.run`` does not)
    def is_async(self, client: Any) -> bool: ...

    #: whether ``toolwire.arun`` can drive this client (an async one, or a client with an
    #: async side, as google-genai's ``Client.aio``)
    def drives_async(self, client: Any) -> bool: ...

    #: options ``encode_request`` needs from the client (e.g. Gemini's Vertex backend)
    def encode_options(self, client: Any) -> dict[str, Any]: ...

    #: put the caller's params that ``encode_request`` does not name into the body
    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None: ...

    #: one streamed turn through the SDK, its own retries off: chunk dicts, SDK events, or
    #: ``protocol.pushed.Piece``s (a network piece's chunks, which the driver reads fused;
    #: iterating one gives its chunk dicts), with ``clients.TICK`` for a piece that held none
    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]: ...

    def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]: ...

    #: an async SDK client for a server agent or the replay (SDK retries off); the
    #: replay passes ``http_client`` (its transport) and the recording's base URL
    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any: ...

    async def aclose(self, client: Any) -> None: ...

    #: the credential values a client holds, to keep out of every text a run sends
    def secrets(self, client: Any) -> list[str]: ...

    #: the OpenTelemetry GenAI ``gen_ai.provider.name`` of a run over ``client``
    #: (``"anthropic"``, ``"openai"``, ``"gcp.gemini"``, ``"aws.bedrock"`` ...)
    def telemetry_provider(self, client: Any) -> str: ...

    #: the endpoint ``client`` sends to (telemetry's ``server.address``), None when unknown
    def base_url(self, client: Any) -> str | None: ...

    #: extra HTTP headers (the trace context) for the request the SDK sends with ``body``
    def add_headers(self, body: dict[str, Any], headers: dict[str, str]) -> None: ...


class DecodeStream(Protocol):
    """``decode_stream(chunks, **options)``: a whole stream -> the turn's events, lazily."""

    def __call__(self, chunks: Iterable[Any], /, **options: Any) -> Iterator[BaseEvent]: ...


class ADecodeStream(Protocol):
    """``adecode_stream(chunks, **options)``: the async form."""

    def __call__(
        self, chunks: AsyncIterable[Any], /, **options: Any
    ) -> AsyncIterator[BaseEvent]: ...


class EncodeStream(Protocol):
    """``encode_stream(events, **options)``: AG-UI events -> the vendor's chunk dicts."""

    def __call__(self, events: Iterable[Any], /, **options: Any) -> Iterator[dict[str, Any]]: ...


class DecodeResponse(Protocol):
    """``decode_response(response, **options)``: one whole response -> the turn's events."""

    def __call__(self, response: Any, /, **options: Any) -> list[BaseEvent]: ...


class EncodeRequest(Protocol):
    """``encode_request(run_input, *, model, losses=None, **vendor options)``: the vendor's
    request body (an ``Encoded``: a dict with its ``losses``). Each vendor adds keyword
    options of its own (``media``, ``unanswered`` ...): the contract test reads them from
    the real signature."""

    def __call__(
        self,
        run_input: RunAgentInput | dict[str, Any],
        /,
        *,
        model: str,
        losses: list[Loss] | None = None,
    ) -> Encoded: ...


class DecodeRequest(Protocol):
    """``decode_request(body, *, thread_id=None, run_id=None)``: a body -> its input."""

    def __call__(
        self, body: Any, /, *, thread_id: str | None = None, run_id: str | None = None
    ) -> RunAgentInput: ...


class LoadRecording(Protocol):
    """Hook: a recording file the generic reader cannot cut into exchanges."""

    def __call__(self, data: bytes, name: str, /) -> list[Exchange]: ...


class IsStreamed(Protocol):
    """Hook: a recorded body that is a stream though its type does not say SSE."""

    def __call__(self, exchange: Recorded, /) -> bool: ...


class DecoderOptions(Protocol):
    """Hook: the ``Decoder`` options a recorded request implies."""

    def __call__(self, request: Any, /) -> dict[str, Any]: ...


class Adapter(Protocol):
    """One stream adapter module (``adapters.get(name)`` for a stream or model adapter).

    The optional hooks are declared here too: an adapter without one sets it to ``None``
    (the shared reader then does the plain thing), so nothing is found with ``getattr``.
    """

    @property
    def MODEL_ROUTE(self) -> ModelRoute: ...

    #: how the vendor frames a stream on the wire (``toolwire.protocol.framing``)
    @property
    def FRAMING(self) -> Framing: ...

    @property
    def Decoder(self) -> Callable[..., BaseDecoder]: ...

    @property
    def Encoder(self) -> Callable[..., Encoder]: ...

    @property
    def encode_request(self) -> EncodeRequest: ...

    @property
    def decode_request(self) -> DecodeRequest: ...

    # bound by ``toolwire.protocol.surface.stream_surface``: (chunks or events, **options)
    @property
    def decode_stream(self) -> DecodeStream: ...

    @property
    def adecode_stream(self) -> ADecodeStream: ...

    @property
    def encode_stream(self) -> EncodeStream: ...

    @property
    def decode_response(self) -> DecodeResponse: ...

    # optional hooks (``None`` where the adapter needs none)
    @property
    def load_recording(self) -> LoadRecording | None: ...

    @property
    def is_streamed(self) -> IsStreamed | None: ...

    @property
    def decoder_options(self) -> DecoderOptions | None: ...


class ModelAdapter(Adapter, Protocol):
    """A stream adapter that talks to a model through a vendor SDK (``toolwire.run``,
    ``toolwire serve``): it also brings its SDK knowledge and its call id rule."""

    @property
    def CLIENT(self) -> VendorClient: ...

    #: the target's documented tool call id rule, which every encoder maps ids through
    @property
    def CALL_ID_RULE(self) -> IdRule: ...


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


#: The optional hooks of :class:`Adapter` (``None`` where an adapter needs none).
HOOKS: tuple[str, ...] = ("load_recording", "is_streamed", "decoder_options")


def members(protocol: type) -> tuple[str, ...]:
    """The public members a Protocol declares (its own and its bases'), in declaration
    order: the one source of every surface list."""
    out: list[str] = []
    for klass in reversed(protocol.__mro__):
        if klass is object or klass is Protocol or not getattr(klass, "_is_protocol", False):
            continue
        names = [*getattr(klass, "__annotations__", {}), *vars(klass)]
        for name in names:
            if not name.startswith("_") and name not in out:
                out.append(name)
    return tuple(out)


__all__ = [
    "HOOKS",
    "ADecodeStream",
    "Adapter",
    "ChunkReader",
    "DecodeRequest",
    "DecodeResponse",
    "DecodeStream",
    "Decoder",
    "DecoderOptions",
    "EncodeRequest",
    "EncodeStream",
    "Encoder",
    "Framing",
    "IsStreamed",
    "LoadRecording",
    "ModelAdapter",
    "ResultPeer",
    "VendorClient",
    "members",
]
