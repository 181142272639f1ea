"""Google Dialogflow ``ToolCallInfo`` <-> AG-UI 1.0 (the mapping: docs/adapters/dialogflow.md).

Decode: Dialogflow responses (``GenerateSuggestionsResponse``, ``AnalyzeContentResponse``,
streamed ``StreamingReactiveCompanionSuggestionsResponse``, bare ``ToolCallInfo``) ->
AG-UI events; ``NEEDS_CONFIRMATION`` -> an interrupt. Encode: AG-UI events ->
``ToolCallInfo`` dicts; resume entries -> ``SuggestionInput`` requests. The
``google-cloud-dialogflow`` SDK is optional: its message objects are accepted
as input when installed, never imported otherwise.

The package: ``decoder`` (responses -> AG-UI), ``encoder`` (AG-UI -> ToolCallInfo),
``request`` (``SuggestionInput`` requests <-> resume entries, history -> ToolCallInfo),
``parts`` (one ``ToolCall``/``ToolCallResult`` <-> one AG-UI call/result), ``wire``
(field names, enums, the field reader, SSE framing, the stop-reason map) and
``recording`` (a recording cut into runs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.protocol.surface import stream_surface

from .decoder import Decoder as Decoder
from .encoder import Encoder as Encoder
from .recording import exchange_chunks as exchange_chunks
from .recording import is_model_exchange as is_model_exchange
from .recording import load_recording as load_recording
from .request import decode_request as decode_request
from .request import encode_history as encode_history
from .request import encode_request as encode_request
from .request import suggestion_input as suggestion_input
from .wire import CONFIRMATION_REASON as CONFIRMATION_REASON
from .wire import CONFIRMATION_SCHEMA as CONFIRMATION_SCHEMA
from .wire import FRAMING as FRAMING
from .wire import MODEL_ROUTE as MODEL_ROUTE
from .wire import sse_chunks as sse_chunks
from .wire import to_sse as to_sse

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "dialogflow", Decoder, Encoder
)

#: The contract's optional hooks this adapter does not need (``contract.HOOKS``).
is_streamed = None
decoder_options = None

if TYPE_CHECKING:  # mypy holds this package to the contract of its kind
    from toolwire.adapters import dialogflow as _self
    from toolwire.adapters.contract import Adapter

    _contract: Adapter = _self

__all__ = [
    "CONFIRMATION_REASON",
    "CONFIRMATION_SCHEMA",
    "FRAMING",
    "MODEL_ROUTE",
    "Decoder",
    "Encoder",
    "adecode_stream",
    "decode_request",
    "decode_response",
    "decode_stream",
    "decoder_options",
    "encode_history",
    "encode_request",
    "encode_stream",
    "exchange_chunks",
    "is_model_exchange",
    "is_streamed",
    "load_recording",
    "sse_chunks",
    "suggestion_input",
    "to_sse",
]
