"""Anthropic Messages <-> AG-UI, both directions (tool_use, tool_result, thinking, server tools).

The whole mapping lives in this package: ``decoder`` (stream -> AG-UI),
``encoder`` (AG-UI -> stream), ``request`` (history <-> request body),
``parts`` (content blocks <-> parts) and ``wire`` (SSE, metadata keys, usage).
See ``docs/adapters/anthropic.md`` for the tables.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from ag_ui.core import BaseEvent

from toolwire.adapters.anthropic.decoder import Decoder
from toolwire.adapters.anthropic.encoder import Encoder, encode_stream
from toolwire.adapters.anthropic.request import decode_request, decode_response, encode_request
from toolwire.adapters.anthropic.wire import (
    MODEL_ROUTE,
    is_model_exchange,
    iter_sse_chunks,
    sse_chunks,
    to_sse,
)
from toolwire.protocol.decoding import adecode_iter, decode_iter


def decode_stream(chunks: Iterable[Any]) -> Iterator[BaseEvent]:
    """Anthropic stream events (SDK objects or dicts) -> AG-UI events of the turn."""
    return decode_iter(Decoder(), chunks)


def adecode_stream(chunks: AsyncIterable[Any]) -> AsyncIterator[BaseEvent]:
    """The async twin of :func:`decode_stream` (e.g. over ``AsyncAnthropic`` streams)."""
    return adecode_iter(Decoder(), chunks)


__all__ = [
    "MODEL_ROUTE",
    "Decoder",
    "Encoder",
    "adecode_stream",
    "decode_request",
    "decode_response",
    "decode_stream",
    "encode_request",
    "encode_stream",
    "is_model_exchange",
    "iter_sse_chunks",
    "sse_chunks",
    "to_sse",
]
