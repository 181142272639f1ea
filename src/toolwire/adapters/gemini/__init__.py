"""Google Gemini (google-genai: Gemini API and Vertex) <-> AG-UI 1.0, both directions.

The mapping, module by module: ``decoder`` (response chunks -> events), ``encoder``
(events -> chunks), ``request`` (history <-> ``generate_content`` requests), ``parts``
(media and ``functionResponse`` <-> content parts), ``wire`` (the vocabulary, the field
reader, SSE and JSON-array framing, usage both ways, the stop-reason map), and two
Vertex/REST-only readers: ``partial_args`` (streamed arguments -> JSON text) and
``json_array`` (``streamGenerateContent`` without ``alt=sse``). The tables are in
``docs/adapters/gemini.md``.
"""

from typing import TYPE_CHECKING

from toolwire.adapters.gemini.client import CLIENT as CLIENT
from toolwire.adapters.gemini.decoder import Decoder as Decoder
from toolwire.adapters.gemini.encoder import Encoder as Encoder
from toolwire.adapters.gemini.request import decode_request as decode_request
from toolwire.adapters.gemini.request import encode_request as encode_request
from toolwire.adapters.gemini.wire import CALL_ID_RULE as CALL_ID_RULE
from toolwire.adapters.gemini.wire import FRAMING as FRAMING
from toolwire.adapters.gemini.wire import MODEL_ROUTE as MODEL_ROUTE
from toolwire.adapters.gemini.wire import is_model_exchange as is_model_exchange
from toolwire.adapters.gemini.wire import is_streamed as is_streamed
from toolwire.adapters.gemini.wire import iter_chunks as iter_chunks
from toolwire.adapters.gemini.wire import sse_chunks as sse_chunks
from toolwire.adapters.gemini.wire import to_sse as to_sse
from toolwire.protocol.surface import stream_surface

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "gemini", Decoder, Encoder
)

#: The contract's optional hooks this adapter does not need (``contract.HOOKS``).
load_recording = None
decoder_options = None

if TYPE_CHECKING:  # mypy holds this package to the contract of its kind
    from toolwire.adapters import gemini as _self
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
    "iter_chunks",
    "load_recording",
    "sse_chunks",
    "to_sse",
]
