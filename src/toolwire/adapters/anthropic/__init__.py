"""Anthropic Messages <-> AG-UI, both directions (tool_use, tool_result, thinking, server tools).

The whole mapping lives in this package: ``decoder`` (stream -> AG-UI),
``encoder`` (AG-UI -> stream), ``request`` (history <-> request body),
``parts`` (content blocks <-> parts) and ``wire`` (SSE, metadata keys, usage).
See ``docs/adapters/anthropic.md`` for the tables.
"""

from __future__ import annotations

from toolwire.adapters.anthropic.decoder import Decoder
from toolwire.adapters.anthropic.encoder import Encoder
from toolwire.adapters.anthropic.request import decode_request, encode_request
from toolwire.adapters.anthropic.wire import (
    MODEL_ROUTE,
    is_model_exchange,
    iter_sse_chunks,
    sse_chunks,
    to_sse,
)
from toolwire.protocol.surface import stream_surface

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "anthropic", Decoder, Encoder
)

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
