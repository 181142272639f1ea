"""OpenAI Responses API <-> AG-UI 1.0: tool calls, tool results, reasoning, both ways.

The mapping, both directions, is in ``docs/adapters/openai_responses.md``.
Sans-I/O: nothing here imports ``openai``; SDK objects and plain dicts are
both accepted and give the same output.
"""

from __future__ import annotations

from toolwire.adapters.openai_responses.decoder import Decoder, sse_chunks
from toolwire.adapters.openai_responses.encoder import Encoder, to_sse
from toolwire.adapters.openai_responses.wire import MODEL_ROUTE
from toolwire.adapters.openai_responses.request import decode_request, encode_request
from toolwire.protocol.surface import stream_surface

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "openai_responses", Decoder, Encoder
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
    "sse_chunks",
    "to_sse",
]
