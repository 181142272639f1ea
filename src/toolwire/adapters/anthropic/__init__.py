"""Anthropic Messages <-> AG-UI, both directions (tool_use, tool_result, thinking, server tools).

The whole mapping lives in this package: ``decoder`` (stream -> AG-UI), ``encoder``
(AG-UI -> stream), ``request`` (history <-> request body), ``parts`` (content blocks <->
parts) and ``wire`` (the field reader, SSE framing, metadata keys, usage both ways, the
stop-reason map). See ``docs/adapters/anthropic.md`` for the tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.adapters.anthropic.client import CLIENT as CLIENT
from toolwire.adapters.anthropic.decoder import Decoder as Decoder
from toolwire.adapters.anthropic.encoder import Encoder as Encoder
from toolwire.adapters.anthropic.request import decode_request as decode_request
from toolwire.adapters.anthropic.request import encode_request as encode_request
from toolwire.adapters.anthropic.wire import CALL_ID_RULE as CALL_ID_RULE
from toolwire.adapters.anthropic.wire import FRAMING as FRAMING
from toolwire.adapters.anthropic.wire import MODEL_ROUTE as MODEL_ROUTE
from toolwire.adapters.anthropic.wire import is_model_exchange as is_model_exchange
from toolwire.adapters.anthropic.wire import iter_sse_chunks as iter_sse_chunks
from toolwire.adapters.anthropic.wire import sse_chunks as sse_chunks
from toolwire.adapters.anthropic.wire import to_sse as to_sse
from toolwire.protocol.surface import stream_surface

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "anthropic", Decoder, Encoder
)

#: The contract's optional hooks this adapter does not need (``contract.HOOKS``).
load_recording = None
is_streamed = None
decoder_options = None

if TYPE_CHECKING:  # mypy holds this package to the contract of its kind
    from toolwire.adapters import anthropic as _self
    from toolwire.adapters.contract import ModelAdapter

    _contract: ModelAdapter = _self

__all__ = [
    "CALL_ID_RULE",
    "CLIENT",
    "FRAMING",
    "MODEL_ROUTE",
    "Decoder",
    "Encoder",
    "adecode_stream",
    "decode_request",
    "decode_response",
    "decode_stream",
    "decoder_options",
    "encode_request",
    "encode_stream",
    "is_model_exchange",
    "is_streamed",
    "iter_sse_chunks",
    "load_recording",
    "sse_chunks",
    "to_sse",
]
