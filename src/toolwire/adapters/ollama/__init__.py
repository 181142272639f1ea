"""Ollama ``/api/chat`` <-> AG-UI 1.0: NDJSON lines, whole tool calls, ``role:"tool"`` results.

The mapping, both ways, is in ``docs/adapters/ollama.md``. Modules: ``decoder`` (lines
or a whole response -> events), ``encoder`` (events -> lines), ``request`` (request
bodies both ways), ``wire`` (names, metadata keys, the NDJSON framing, usage, errors, the
stop-reason map, the field reader), ``recording`` (which recorded bodies are streams),
``client`` (the ``ollama`` SDK for the drivers). No
vendor SDK is imported: SDK objects and plain dicts are both accepted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from toolwire.protocol.surface import stream_surface

from .client import CLIENT as CLIENT
from .decoder import Decoder as Decoder
from .encoder import Encoder as Encoder
from .recording import is_streamed as is_streamed
from .request import decode_request as decode_request
from .request import encode_request as encode_request
from .wire import CALL_ID_RULE as CALL_ID_RULE
from .wire import FRAMING as FRAMING
from .wire import MODEL_ROUTE as MODEL_ROUTE
from .wire import VENDOR

#: The stream functions every adapter offers, bound to this adapter's classes.
decode_stream, adecode_stream, encode_stream, decode_response = stream_surface(
    VENDOR, Decoder, Encoder
)


#: The contract's optional hooks this adapter does not need (``contract.HOOKS``).
load_recording = None
decoder_options = None

if TYPE_CHECKING:  # mypy holds this package to the contract of its kind
    from toolwire.adapters import ollama as _self
    from toolwire.adapters.contract import ModelAdapter

    _contract: ModelAdapter = _self


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """The chunk dicts of a stream body: Ollama's is NDJSON, not SSE (the contract's name
    for "the vendor's framing, read"; ``FRAMING.read`` is the same)."""
    return FRAMING.read(body)


def to_sse(chunks: Iterable[Any]) -> bytes:
    """Chunks as the server frames them: NDJSON (``FRAMING.write``)."""
    return FRAMING.write(chunks)


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
