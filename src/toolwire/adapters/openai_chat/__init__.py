"""OpenAI Chat Completions <-> AG-UI 1.0: streamed ``tool_calls`` deltas, ``role:"tool"`` results.

The mapping, both ways, is in ``docs/adapters/openai_chat.md``. Modules:
``decoder`` (chunks or a whole completion -> events), ``encoder`` (events ->
chunks), ``request`` (request bodies both ways), ``parts`` (content parts),
``wire`` (names, metadata keys, SSE framing, usage, errors, the stop-reason map,
the field reader). No vendor SDK is imported: SDK objects and plain dicts are
both accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.protocol.surface import stream_surface

from .client import CLIENT as CLIENT
from .decoder import Decoder as Decoder
from .decoder import decoder_options as decoder_options
from .encoder import Encoder as Encoder
from .request import decode_request as decode_request
from .request import encode_request as encode_request
from .wire import CALL_ID_RULE as CALL_ID_RULE
from .wire import FRAMING as FRAMING
from .wire import MODEL_ROUTE as MODEL_ROUTE
from .wire import VENDOR
from .wire import sse_chunks as sse_chunks
from .wire import to_sse as to_sse

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    VENDOR, Decoder, Encoder
)

#: The contract's optional hooks this adapter does not need (``contract.HOOKS``).
load_recording = None
is_streamed = None

if TYPE_CHECKING:  # mypy holds this package to the contract of its kind
    from toolwire.adapters import openai_chat as _self
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
    "is_streamed",
    "load_recording",
    "sse_chunks",
    "to_sse",
]
