"""OpenAI Responses API <-> AG-UI 1.0: tool calls, tool results, reasoning, both ways.

The mapping, both directions, is in ``docs/adapters/openai_responses.md``. Modules:
``decoder`` (stream events or a whole response -> events), ``encoder`` (events ->
stream events), ``request`` (request bodies both ways), ``parts`` (content parts),
``items`` (the call and output items, hosted tools included), ``wire`` (labels,
metadata keys, SSE framing, usage both ways, the stop-reason map, the field reader).
Sans-I/O: nothing here imports ``openai``; SDK objects and plain dicts are both
accepted and give the same output.
"""

from __future__ import annotations

from toolwire.protocol.surface import stream_surface

from .decoder import Decoder as Decoder
from .encoder import Encoder as Encoder
from .request import decode_request as decode_request
from .request import encode_request as encode_request
from .wire import MODEL_ROUTE as MODEL_ROUTE
from .wire import VENDOR
from .wire import sse_chunks as sse_chunks
from .wire import to_sse as to_sse

#: the request body keys that hold the conversation (what a replay compares)
CONVERSATION_KEYS = ("instructions", "input")

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    VENDOR, Decoder, Encoder
)
