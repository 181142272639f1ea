"""OpenAI Chat Completions <-> AG-UI 1.0: streamed ``tool_calls`` deltas, ``role:"tool"`` results.

The mapping, both ways, is in ``docs/adapters/openai_chat.md``. Modules:
``decoder`` (chunks -> events), ``encoder`` (events -> chunks), ``sse``
(body bytes <-> chunks), ``request`` (request bodies, whole responses),
``parts`` (content parts), ``wire`` (names, metadata keys, usage, errors).
No vendor SDK is imported: SDK objects and plain dicts are both accepted.
"""

from __future__ import annotations

from toolwire.adapters.openai_chat.decoder import Decoder, decoder_options
from toolwire.adapters.openai_chat.encoder import Encoder
from toolwire.adapters.openai_chat.request import decode_request, encode_request
from toolwire.adapters.openai_chat.sse import sse_chunks, to_sse
from toolwire.adapters.openai_chat.wire import MODEL_ROUTE
from toolwire.protocol.surface import stream_surface

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "openai_chat", Decoder, Encoder
)


__all__ = [
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
    "sse_chunks",
    "to_sse",
]
