"""OpenAI Responses API <-> AG-UI 1.0: tool calls, tool results, reasoning, both ways.

The mapping, both directions, is in ``docs/adapters/openai_responses.md``.
Sans-I/O: nothing here imports ``openai``; SDK objects and plain dicts are
both accepted and give the same output.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from ag_ui.core import BaseEvent

from toolwire.protocol import adecode_iter, decode_iter, encode_iter

from .decoder import Decoder, sse_chunks
from .encoder import Encoder, to_sse
from .keys import MODEL_ROUTE
from .request import decode_request, decode_response, encode_request


def decode_stream(chunks: Iterable[Any]) -> Iterator[BaseEvent]:
    """Responses stream events (SDK objects or dicts) -> AG-UI events."""
    return decode_iter(Decoder(), chunks)


def adecode_stream(chunks: AsyncIterable[Any]) -> AsyncIterator[BaseEvent]:
    """The async form of :func:`decode_stream` (e.g. over ``AsyncStream``)."""
    return adecode_iter(Decoder(), chunks)


def encode_stream(
    events: Iterable[BaseEvent | dict[str, Any]], **options: Any
) -> Iterator[dict[str, Any]]:
    """AG-UI events (models or dicts, any form) -> Responses stream-event dicts.

    ``options`` (``model``, ``created_at``, ``response_id``) go to :class:`Encoder`.
    """
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
