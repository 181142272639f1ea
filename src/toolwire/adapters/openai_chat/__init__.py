"""OpenAI Chat Completions <-> AG-UI 1.0: streamed ``tool_calls`` deltas, ``role:"tool"`` results.

The mapping, both ways, is in ``docs/adapters/openai_chat.md``. Modules:
``decoder`` (chunks or a whole completion -> events), ``encoder`` (events ->
chunks), ``request`` (request bodies both ways), ``parts`` (content parts),
``wire`` (names, metadata keys, SSE framing, usage, errors, the stop-reason map,
the field reader). No vendor SDK is imported: SDK objects and plain dicts are
both accepted.
"""

from __future__ import annotations

from toolwire.protocol.surface import stream_surface

from .decoder import Decoder as Decoder
from .decoder import decoder_options as decoder_options
from .encoder import Encoder as Encoder
from .request import decode_request as decode_request
from .request import encode_request as encode_request
from .wire import MODEL_ROUTE as MODEL_ROUTE
from .wire import VENDOR
from .wire import sse_chunks as sse_chunks
from .wire import to_sse as to_sse

#: the request body keys that hold the conversation (what a replay compares)
CONVERSATION_KEYS = ("messages",)

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    VENDOR, Decoder, Encoder
)
