"""Asgard chatbot SDK (asgard-ai-platform) <-> AG-UI 1.0: SSE frames, consent, history.

The mapping tables are in ``docs/adapters/asgard.md``; the wire shapes in
``reference/seed-peers.md`` §3. Asgard has no Python SDK: input is the JSON the
platform sends (envelope dicts), or objects that dump to it.
"""

from toolwire.adapters.asgard.decode import (
    CONSENT_REASON,
    CONSENT_SCHEMA,
    Decoder,
    decode_run,
)
from toolwire.adapters.asgard.encode import Encoder
from toolwire.adapters.asgard.frames import MODEL_ROUTE, VENDOR, envelope, sse_chunks, to_sse
from toolwire.adapters.asgard.history import from_conversation, to_conversation
from toolwire.adapters.asgard.recording import load_recording
from toolwire.adapters.asgard.request import decode_request, encode_request
from toolwire.protocol.surface import stream_surface

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "asgard", Decoder, Encoder
)


__all__ = [
    "CONSENT_REASON",
    "CONSENT_SCHEMA",
    "MODEL_ROUTE",
    "VENDOR",
    "Decoder",
    "Encoder",
    "adecode_stream",
    "decode_request",
    "decode_response",
    "decode_run",
    "decode_stream",
    "encode_request",
    "encode_stream",
    "envelope",
    "from_conversation",
    "load_recording",
    "sse_chunks",
    "to_conversation",
    "to_sse",
]
