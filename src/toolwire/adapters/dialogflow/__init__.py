"""Google Dialogflow ``ToolCallInfo`` <-> AG-UI 1.0 (the mapping: docs/adapters/dialogflow.md).

Decode: Dialogflow responses (``GenerateSuggestionsResponse``, ``AnalyzeContentResponse``,
streamed ``StreamingReactiveCompanionSuggestionsResponse``, bare ``ToolCallInfo``) ->
AG-UI events; ``NEEDS_CONFIRMATION`` -> an interrupt. Encode: AG-UI events ->
``ToolCallInfo`` dicts; resume entries -> ``SuggestionInput`` requests. The
``google-cloud-dialogflow`` SDK is optional: its message objects are accepted
as input when installed, never imported otherwise.
"""

from __future__ import annotations

from toolwire.protocol.surface import stream_surface

from .recording import exchange_chunks, is_model_exchange, load_recording
from .request import (
    decode_request,
    encode_history,
    encode_request,
    suggestion_input,
)
from .stream import (
    CONFIRMATION_REASON,
    CONFIRMATION_SCHEMA,
    Decoder,
    Encoder,
    sse_chunks,
    to_sse,
)
from .wire import MODEL_ROUTE

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "dialogflow", Decoder, Encoder
)


__all__ = [
    "CONFIRMATION_REASON",
    "CONFIRMATION_SCHEMA",
    "MODEL_ROUTE",
    "Decoder",
    "Encoder",
    "adecode_stream",
    "decode_request",
    "decode_response",
    "decode_stream",
    "encode_history",
    "encode_request",
    "encode_stream",
    "exchange_chunks",
    "is_model_exchange",
    "load_recording",
    "sse_chunks",
    "suggestion_input",
    "to_sse",
]
