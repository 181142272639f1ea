"""The Cohere v2 chat vocabulary both directions share: names, metadata keys, SSE framing,
usage, errors, the stop-reason map and the field reader.

A v2 stream is SSE; each event's ``data`` is one object whose ``type`` names it:
``message-start`` (the message ``id``), ``content-start`` / ``content-delta`` /
``content-end`` (a ``text`` or ``thinking`` content item by ``index``), ``tool-plan-delta``
(the text a model writes before its calls), ``tool-call-start`` / ``-delta`` / ``-end``
(a call by ``index``: its ``id`` and ``function.name`` first, then argument text),
``citation-start`` / ``-end``, and ``message-end`` with ``finish_reason`` and ``usage``
(or ``error``). A stream without ``message-end`` was cut.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypedDict

from ag_ui.core import TokenUsage

from toolwire.errors import VendorDataError, VendorStreamError
from toolwire.protocol._fastpath import ABSENT_OR_NULL, DeltaForm, Index, OneOf, Text
from toolwire.protocol.callids import IdRule
from toolwire.protocol.chat_request import FunctionTool as ToolDefinition
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.framing import sse_framing
from toolwire.protocol.sse import frame_sse, sse_json_values
from toolwire.protocol.usage import MAX_TOKEN_COUNT
from toolwire.recordings import ModelRoute

#: The adapter name used in errors, losses and capability lookups.
VENDOR = "cohere"
#: Every vendor field is read through this.
FIELDS = Fields(VENDOR)
#: ``POST /v2/chat`` (``api.cohere.com``, or a proxy's prefix).
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/v2/chat",))
#: Cohere takes any non-empty string as ``tool_calls[].id`` / ``tool_call_id`` (it mints
#: ``<name>_<random>`` itself); nothing is mapped.
CALL_ID_RULE = IdRule(VENDOR, source="Cohere v2 chat (ToolCallV2.id: any string)")
#: ``TokenUsage.provider``.
PROVIDER = "cohere"

#: Text-message start metadata: the text is the model's ``tool_plan``, not ``content``.
TOOL_PLAN_KEY = "cohere.tool_plan"
#: RUN_FINISHED metadata: the ``message-end`` ``finish_reason`` as Cohere wrote it.
STOP_REASON_KEY = "cohere.finish_reason"
#: RUN_FINISHED metadata: the citations of the answer (``citation-start`` objects, in order).
CITATIONS_KEY = "cohere.citations"
#: Text-part metadata of a tool result: the ``document.id`` it came as.
DOCUMENT_ID_KEY = "cohere.document_id"
#: Media-part metadata: ``image_url.detail``.
DETAIL_KEY = "cohere.detail"

DONE = "[DONE]"


# ---------------------------------------------------------------- the wire's shapes
# As the v2 chat API documents them (``cohere.v2`` types); the decoder's handlers take them,
# and every read of input from the network is still checked at run time.


class FunctionCall(TypedDict, total=False):
    name: str
    arguments: str


class ToolCall(TypedDict, total=False):
    """``ToolCallV2`` (in a stream's ``tool-call-start``/``-delta``: the part it carries)."""

    id: str
    type: str
    function: FunctionCall


class ContentItem(TypedDict, total=False):
    """A content item: ``text`` (``text``) or ``thinking`` (``thinking``)."""

    type: str
    text: str
    thinking: str


class Message(TypedDict, total=False):
    """``delta.message`` of a stream event (one item of each field), or a response's whole
    ``AssistantMessageResponse`` (lists)."""

    role: str
    content: Any
    tool_plan: str
    tool_calls: Any
    citations: Any


class Usage(TypedDict, total=False):
    """``Usage``: ``tokens`` (read and written) and ``billed_units``, ``cached_tokens``."""

    billed_units: dict[str, Any]
    tokens: dict[str, Any]
    cached_tokens: int


class StreamDelta(TypedDict, total=False):
    """An event's ``delta``: its ``message`` part; at ``message-end`` the finish and usage."""

    message: Message
    finish_reason: str
    usage: Usage
    error: str


class ChatStreamEvent(TypedDict, total=False):
    """One ``data`` payload of a v2 chat stream (``type``: ``message-start``,
    ``content-start``/``-delta``/``-end``, ``tool-plan-delta``, ``tool-call-start``/``-delta``/
    ``-end``, ``citation-start``/``-end``, ``message-end``, ``debug``)."""

    type: str
    id: str
    index: int
    delta: StreamDelta
    logprobs: Any


class ChatResponse(TypedDict, total=False):
    """A whole (non-streamed) ``V2ChatResponse``."""

    id: str
    finish_reason: str
    message: Message
    usage: Usage
    logprobs: Any


class ChatMessage(TypedDict, total=False):
    """One ``messages[]`` entry of the request (``system``/``user``/``assistant``/``tool``)."""

    role: str
    content: str | list[dict[str, Any]]
    tool_plan: str
    tool_calls: list[ToolCall]
    tool_call_id: str


class ChatRequest(TypedDict, total=False):
    """The request body of ``POST /v2/chat``."""

    model: str
    messages: list[ChatMessage]
    tools: list[ToolDefinition]
    stream: bool


#: Error finish reasons (``ERROR``, ``TIMEOUT``) and in-body error kinds worth a retry.
RETRYABLE_ERRORS = frozenset({"TIMEOUT", "service_unavailable", "too_many_requests"})


def stream_error(kind: str, message: Any) -> VendorStreamError:
    text = message if isinstance(message, str) and message else f"the model stopped with {kind}"
    return VendorStreamError(VENDOR, kind, text, retryable=kind in RETRYABLE_ERRORS)


_STOP_REASONS: dict[str, FinishReason] = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "TOOL_CALL": "tool_calls",
}


def map_stop_reason(finish_reason: str | None) -> FinishReason:
    """``message-end`` ``finish_reason`` -> ``toolwire.finishReason``."""
    return _STOP_REASONS.get(finish_reason or "", "other")


def stop_reason_for(reason: FinishReason | None, *, made_calls: bool = False) -> str:
    """The ``finish_reason`` to write for a normalized reason."""
    if reason == "length":
        return "MAX_TOKENS"
    return "TOOL_CALL" if made_calls else "COMPLETE"


def _count(value: Any, where: str) -> int | None:
    """A token count; the SDK's models hold them as floats (``12.0``)."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKEN_COUNT:
        raise VendorDataError(VENDOR, where, f"expected a token count, got {value!r}")
    return value


def token_usage(usage: Any, model: str | None, where: str) -> TokenUsage | None:
    """``usage`` -> ``TokenUsage``: ``tokens`` (what the model read and wrote) when given,
    else ``billed_units``; ``cached_tokens`` as cached input (part of the input count)."""
    usage = FIELDS.opt_obj(usage, where)
    if usage is None:
        return None
    tokens = usage.get("tokens")
    key = "tokens"
    if not isinstance(tokens, dict):
        tokens, key = usage.get("billed_units"), "billed_units"
    tokens = tokens if isinstance(tokens, dict) else {}
    fields = {
        "input_tokens": _count(tokens.get("input_tokens"), f"{where}.{key}.input_tokens"),
        "output_tokens": _count(tokens.get("output_tokens"), f"{where}.{key}.output_tokens"),
        "cached_input_tokens": _count(usage.get("cached_tokens"), f"{where}.cached_tokens"),
    }
    kw: dict[str, Any] = {k: v for k, v in fields.items() if v is not None}
    if not kw:
        return None
    if "input_tokens" in kw and "output_tokens" in kw:
        kw["total_tokens"] = kw["input_tokens"] + kw["output_tokens"]
    if model:
        kw["model"] = model
    return TokenUsage(provider=PROVIDER, **kw)


def usage_fields(usages: list[TokenUsage]) -> dict[str, Any] | None:
    """``TokenUsage`` entries -> a ``usage`` object (summed), ``None`` when none has a count."""
    inputs = [u.input_tokens for u in usages if u.input_tokens is not None]
    outputs = [u.output_tokens for u in usages if u.output_tokens is not None]
    if not inputs and not outputs:
        return None
    tokens: dict[str, int] = {}
    if inputs:
        tokens["input_tokens"] = sum(inputs)
    if outputs:
        tokens["output_tokens"] = sum(outputs)
    out: dict[str, Any] = {"billed_units": dict(tokens), "tokens": tokens}
    cached = [u.cached_input_tokens for u in usages if u.cached_input_tokens is not None]
    if cached:
        out["cached_tokens"] = sum(cached)
    return out


#: The events Cohere sends most of a stream as (compact, its keys in this order, after an
#: ``event:`` line naming the type, which the reader does not read): a content item's text
#: or thinking by its index, a call's argument text by its index, the tool plan's text, a
#: call's start (its id and name, no argument text yet) and its end. No other member (log
#: probabilities only as ``null``). The decoder's rule (``Decoder._common``) reads what
#: it becomes.
DELTA_FORM = DeltaForm(
    OneOf(
        {
            "type": "content-delta",
            "index": Index("content"),
            "delta": {
                "message": {
                    "content": OneOf({"text": Text("text")}, {"thinking": Text("thinking")})
                }
            },
            "logprobs": ABSENT_OR_NULL,
        },
        {
            "type": "tool-call-delta",
            "index": Index("call"),
            "delta": {"message": {"tool_calls": {"function": {"arguments": Text("arguments")}}}},
        },
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": Text("plan")}}},
        {
            "type": "tool-call-start",
            "index": Index("start"),
            "delta": {
                "message": {
                    "tool_calls": {
                        "id": Text("call_id"),
                        "type": "function",
                        "function": {"name": Text("name"), "arguments": ""},
                    }
                }
            },
        },
        {"type": "tool-call-end", "index": Index("end")},
    ),
    any_event=True,
)


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """The event payloads of an SSE body (whole, or pieces split anywhere); a ``[DONE]``
    line, which the SDK also takes as the end, stops reading. Read lazily, as an
    :class:`~toolwire.protocol._fastpath.SSEChunks` its decoder reads fused
    (:data:`DELTA_FORM`)."""
    return sse_json_values(body, VENDOR, stop_at=DONE)


def to_sse(chunks: Iterable[Any]) -> bytes:
    """Events as the API frames them: ``event: <type>`` and one ``data:`` line each."""
    return frame_sse(chunks, event_of="type", vendor=VENDOR, objects=True)


#: SSE, each event's type in its data; ``message-end`` is the last.
FRAMING = sse_framing(VENDOR, sse_chunks, to_sse, stop_at=DONE)

__all__ = [
    "CALL_ID_RULE",
    "CITATIONS_KEY",
    "DELTA_FORM",
    "DETAIL_KEY",
    "DOCUMENT_ID_KEY",
    "FIELDS",
    "FRAMING",
    "MODEL_ROUTE",
    "PROVIDER",
    "RETRYABLE_ERRORS",
    "STOP_REASON_KEY",
    "TOOL_PLAN_KEY",
    "VENDOR",
    "ChatMessage",
    "ChatRequest",
    "ChatResponse",
    "ChatStreamEvent",
    "Message",
    "StreamDelta",
    "ToolCall",
    "ToolDefinition",
    "Usage",
    "map_stop_reason",
    "sse_chunks",
    "stop_reason_for",
    "stream_error",
    "to_sse",
    "token_usage",
    "usage_fields",
]
