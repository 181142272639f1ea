"""Anthropic Messages <-> AG-UI, both directions (tool_use, tool_result, thinking, server tools).

The whole mapping lives in this package: ``decoder`` (stream -> AG-UI), ``encoder``
(AG-UI -> stream), ``request`` (history <-> request body), ``parts`` (content blocks <->
parts) and ``wire`` (the field reader, SSE framing, metadata keys, usage both ways, the
stop-reason map). See ``docs/adapters/anthropic.md`` for the tables.
"""

from __future__ import annotations

from toolwire.adapters.anthropic.decoder import Decoder as Decoder
from toolwire.adapters.anthropic.encoder import Encoder as Encoder
from toolwire.adapters.anthropic.request import decode_request as decode_request
from toolwire.adapters.anthropic.request import encode_request as encode_request
from toolwire.adapters.anthropic.wire import MODEL_ROUTE as MODEL_ROUTE
from toolwire.adapters.anthropic.wire import is_model_exchange as is_model_exchange
from toolwire.adapters.anthropic.wire import iter_sse_chunks as iter_sse_chunks
from toolwire.adapters.anthropic.wire import sse_chunks as sse_chunks
from toolwire.adapters.anthropic.wire import to_sse as to_sse
from toolwire.protocol.surface import stream_surface

#: the request body keys that hold the conversation (what a replay compares)
CONVERSATION_KEYS = ("system", "messages")

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "anthropic", Decoder, Encoder
)
