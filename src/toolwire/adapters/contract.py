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


__all__ = ["Adapter", "Decoder", "Encoder", "ResultPeer"]
