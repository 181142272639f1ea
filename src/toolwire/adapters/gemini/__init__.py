"""Google Gemini (google-genai: Gemini API and Vertex) <-> AG-UI 1.0, both directions.

The mapping, module by module: ``decoder`` (response chunks -> events),
``partial_args`` (Vertex streamed arguments -> JSON text), ``encoder`` (events
-> chunks and SSE), ``request`` (history <-> ``generate_content`` requests),
``parts`` (media and ``functionResponse`` <-> content parts), ``usage``.
The tables are in ``docs/adapters/gemini.md``.
"""

from toolwire.adapters.gemini.decoder import (
    Decoder,
    is_model_exchange,
    is_streamed,
    iter_chunks,
    sse_chunks,
)
from toolwire.adapters.gemini.encoder import Encoder, to_sse
from toolwire.adapters.gemini.request import decode_request, encode_request
from toolwire.adapters.gemini.wire import MODEL_ROUTE
from toolwire.protocol.surface import stream_surface

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "gemini", Decoder, Encoder
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
    "is_streamed",
    "iter_chunks",
    "sse_chunks",
    "to_sse",
]
