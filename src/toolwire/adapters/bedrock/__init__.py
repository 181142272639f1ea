"""AWS Bedrock Converse <-> AG-UI, both directions (toolUse, toolResult, reasoning), over the
AWS event stream.

The whole mapping lives in this package: ``decoder`` (ConverseStream events -> AG-UI),
``encoder`` (AG-UI -> events), ``request`` (history <-> ``converse``/``converse_stream``
keyword arguments), ``parts`` (content blocks <-> parts), ``wire`` (the field reader, the
event-stream framing, metadata keys, usage both ways, the stop-reason map) and ``client``
(boto3's ``bedrock-runtime`` client for the drivers). The frame reader itself is shared:
``toolwire.protocol.eventstream``. See ``docs/adapters/bedrock.md`` for the tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.adapters.bedrock.client import CLIENT as CLIENT
from toolwire.adapters.bedrock.decoder import Decoder as Decoder
from toolwire.adapters.bedrock.encoder import Encoder as Encoder
from toolwire.adapters.bedrock.request import decode_request as decode_request
from toolwire.adapters.bedrock.request import encode_request as encode_request
from toolwire.adapters.bedrock.wire import CALL_ID_RULE as CALL_ID_RULE
from toolwire.adapters.bedrock.wire import FRAMING as FRAMING
from toolwire.adapters.bedrock.wire import MODEL_ROUTE as MODEL_ROUTE
from toolwire.adapters.bedrock.wire import is_streamed as is_streamed
from toolwire.adapters.bedrock.wire import load_recording as load_recording
from toolwire.adapters.bedrock.wire import sse_chunks as sse_chunks
from toolwire.adapters.bedrock.wire import to_boto3 as to_boto3
from toolwire.adapters.bedrock.wire import to_sse as to_sse
from toolwire.protocol.surface import stream_surface

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    "bedrock", Decoder, Encoder
)

#: The contract's optional hook this adapter does not need (``contract.HOOKS``).
decoder_options = None

if TYPE_CHECKING:  # mypy holds this package to the contract of its kind
    from toolwire.adapters import bedrock as _self
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
    "to_boto3",
    "to_sse",
]
