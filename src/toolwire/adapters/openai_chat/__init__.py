"""OpenAI Chat Completions <-> AG-UI 1.0: streamed ``tool_calls`` deltas, ``role:"tool"`` results.

The mapping, both ways, is in ``docs/adapters/openai_chat.md``. Modules:
``decoder`` (chunks -> events), ``encoder`` (events -> chunks), ``sse``
(body bytes <-> chunks), ``request`` (request bodies, whole responses),
``parts`` (content parts), ``wire`` (names, metadata keys, usage, errors).
No vendor SDK is imported: SDK objects and plain dicts are both accepted.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from ag_ui.core import BaseEvent

from toolwire.protocol.decoding import adecode_iter, decode_iter, encode_iter

from .decoder import Decoder
from .encoder import Encoder
from .request import decode_request, decode_response, encode_request
from .sse import sse_chunks, to_sse
from .wire import MODEL_ROUTE


def decode_stream(chunks: Iterable[Any]) -> Iterator[BaseEvent]:
    """AG-UI events for an iterable of chunks (SDK ``ChatCompletionChunk`` objects or dicts)."""
    return decode_iter(Decoder(), chunks)


def adecode_stream(chunks: AsyncIterable[Any]) -> AsyncIterator[BaseEvent]:
    """``decode_stream`` over an async iterable (e.g. an ``AsyncStream``)."""
    return adecode_iter(Decoder(), chunks)


def encode_stream(events: Iterable[Any], **options: Any) -> Iterator[dict[str, Any]]:
    """Chunk dicts for AG-UI events; ``options`` go to :class:`Encoder` (``model``, ``created``)."""
    return encode_iter(Encoder(**options), events)


__all__ = [
    "MODEL_ROUTE",
    "Decoder",
    "Encoder",
    "adecode_stream",
    "decode_request",
    "decode_response",
    "decode_stream",
    "encode_request",
    "encode_stream",
    "sse_chunks",
    "to_sse",
]
