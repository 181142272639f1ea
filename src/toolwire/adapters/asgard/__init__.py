"""Asgard chatbot SDK (asgard-ai-platform) <-> AG-UI 1.0: SSE frames, consent, history.

The mapping tables are in ``docs/adapters/asgard.md``; the wire shapes in
``reference/seed-peers.md`` §3. Asgard has no Python SDK: input is the JSON the
platform sends (envelope dicts), or objects that dump to it.

The package: ``decoder`` (frames -> AG-UI, and ``decode_run``), ``encoder`` (AG-UI ->
frames), ``request`` (``RunAgentInput`` <-> the POST body), ``parts`` (JSON values <->
argument text and result content), ``wire`` (event types, the envelope, SSE framing,
the stop-reason map, the field reader), ``history`` (the SDK's stored conversation)
and ``recording`` (a capture cut into runs).
"""

from typing import TYPE_CHECKING

from toolwire.protocol.surface import stream_surface

from .decoder import CONSENT_REASON as CONSENT_REASON
from .decoder import CONSENT_SCHEMA as CONSENT_SCHEMA
from .decoder import Decoder as Decoder
from .decoder import decode_run as decode_run
from .encoder import Encoder as Encoder
from .history import from_conversation as from_conversation
from .history import to_conversation as to_conversation
from .recording import load_recording as load_recording
from .request import decode_request as decode_request
from .request import encode_request as encode_request
from .wire import FRAMING as FRAMING
from .wire import MODEL_ROUTE as MODEL_ROUTE
from .wire import VENDOR as VENDOR
from .wire import envelope as envelope
from .wire import sse_chunks as sse_chunks
from .wire import to_sse as to_sse

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "asgard", Decoder, Encoder
)

#: The contract's optional hooks this adapter does not need (``contract.HOOKS``).
is_streamed = None
decoder_options = None

if TYPE_CHECKING:  # mypy holds this package to the contract of its kind
    from toolwire.adapters import asgard as _self
    from toolwire.adapters.contract import Adapter

    _contract: Adapter = _self

__all__ = [
    "CONSENT_REASON",
    "CONSENT_SCHEMA",
    "FRAMING",
    "MODEL_ROUTE",
    "VENDOR",
    "Decoder",
    "Encoder",
    "adecode_stream",
    "decode_request",
    "decode_response",
    "decode_run",
    "decode_stream",
    "decoder_options",
    "encode_request",
    "encode_stream",
    "envelope",
    "from_conversation",
    "is_streamed",
    "load_recording",
    "sse_chunks",
    "to_conversation",
    "to_sse",
]
