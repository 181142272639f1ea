"""The Mistral chat completions vocabulary both directions share: names, the id rule, metadata
keys, SSE framing, usage, errors, the stop-reason map and the field reader.

The stream is ``data:`` lines ending in ``data: [DONE]`` (like OpenAI's Chat Completions);
a ``CompletionChunk`` has ``choices[].delta`` with ``content`` (a string, or a list of
chunks: ``text``, and ``thinking`` for Magistral) and ``tool_calls``, which Mistral sends
whole in one delta (``id``, ``function.name``, ``function.arguments``, ``index``). A
call id is exactly nine letters and digits: the API refuses any other, so ids from other
vendors are mapped (:data:`CALL_ID_RULE`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypedDict

from ag_ui.core import TokenUsage

from toolwire.errors import VendorStreamError
from toolwire.protocol._fastpath import (
    ABSENT,
    ABSENT_OR_NULL,
    OTHERS,
    SCALAR,
    DeltaForm,
    Index,
    OneOf,
    Text,
    Whole,
)
from toolwire.protocol.callids import IdRule
from toolwire.protocol.chat_request import FunctionDefinition
from toolwire.protocol.chat_request import FunctionTool as ToolDefinition
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.framing import sse_framing
from toolwire.protocol.ids import mint_id
from toolwire.protocol.sse import frame_sse, sse_json_values
from toolwire.protocol.usage import token_count
from toolwire.recordings import ModelRoute

#: The adapter name used in errors, losses and capability lookups.
VENDOR = "mistral"
#: Every vendor field is read through this.
FIELDS = Fields(VENDOR)
#: ``POST /v1/chat/completions`` on api.mistral.ai (and a proxy's prefix).
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/v1/chat/completions",))
#: ``tool_calls[].id`` / ``tool_call_id``: the API answers any other with 400 "Tool call id
#: was ... but must be a-z, A-Z, 0-9, with a length of 9".
CALL_ID_RULE = IdRule(
    VENDOR,
    max_length=9,
    pattern="[a-zA-Z0-9]{9}",
    source="Mistral chat completions request validation",
    prefix="",
)
#: ``TokenUsage.provider`` and the issuer of file handles.
PROVIDER = "mistral"

#: RUN_FINISHED metadata: each choice's ``finish_reason``, in choice order.
STOP_REASONS_KEY = "mistral.finish_reasons"
#: Media-part metadata: ``document_url.document_name``.
DOCUMENT_NAME_KEY = "mistral.document_name"
#: Media-part metadata: ``image_url.detail``.
DETAIL_KEY = "mistral.detail"
#: Start metadata of choice *i* > 0 (``n > 1``).
CHOICE_KEY = "mistral.choice"

DONE = "[DONE]"


# ---------------------------------------------------------------- the wire's shapes
# As the chat completions API documents them (``mistralai`` models); the decoder's walk and
# the request builders are typed with them, and every read of input from the network is
# still checked at run time.


class FunctionCall(TypedDict, total=False):
    name: str
    arguments: str | dict[str, Any]


class ToolCall(TypedDict, total=False):
    """A call (whole in a request or response; in a stream, whole in one delta)."""

    id: str
    type: str
    function: FunctionCall
    index: int


class TextChunk(TypedDict, total=False):
    type: str
    text: str


class ThinkChunk(TypedDict, total=False):
    """``{"type": "thinking", "thinking": [text chunks], "signature"?}``."""

    type: str
    thinking: list[TextChunk]
    signature: str


class Delta(TypedDict, total=False):
    """``choices[].delta`` (``DeltaMessage``): text, or a list of text / thinking chunks."""

    role: str | None
    content: str | list[dict[str, Any]] | None
    tool_calls: list[ToolCall] | None


class Choice(TypedDict, total=False):
    """``CompletionResponseStreamChoice`` (``delta``) or a whole response's choice
    (``message``)."""

    index: int
    delta: Delta
    message: Delta
    finish_reason: str | None
    logprobs: Any
    prompt_logprobs: Any
    messages: Any


class Usage(TypedDict, total=False):
    """``UsageInfo`` (``prompt_tokens`` includes cached ones)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: dict[str, Any]


class CompletionChunk(TypedDict, total=False):
    """One ``data:`` payload of a stream (``CompletionChunk``; the SDK's ``CompletionEvent``
    wraps it in ``data``), or a whole ``ChatCompletionResponse`` (its choices' ``message``)."""

    id: str
    object: str
    created: int
    model: str
    choices: list[Choice]
    usage: Usage


class ChatMessage(TypedDict, total=False):
    """One ``messages[]`` entry of the request (``system``/``user``/``assistant``/``tool``)."""

    role: str
    content: str | list[dict[str, Any]] | None
    tool_calls: list[ToolCall]
    tool_call_id: str
    name: str
    prefix: bool


class ChatCompletionRequest(TypedDict, total=False):
    """The request body of ``POST /v1/chat/completions``."""

    model: str
    messages: list[ChatMessage]
    tools: list[ToolDefinition]
    tool_choice: str | dict[str, Any]
    stream: bool


def message_id(completion_id: str, choice: int) -> str:
    """The AG-UI message id of one choice: the completion id itself for choice 0."""
    return completion_id if choice == 0 else mint_id("msg", completion_id, "choice", choice)


def mint_call_id(*parts: object) -> str:
    """A call id Mistral itself would take (nine hex digits), from stable parts."""
    return CALL_ID_RULE.conforming(mint_id("call", *parts))


def token_usage(usage: Any, model: Any, where: str) -> TokenUsage | None:
    """``UsageInfo`` -> ``TokenUsage`` (``prompt_tokens`` includes cached ones, as the
    protocol counts); counts not given stay absent."""
    usage = FIELDS.opt_obj(usage, where)
    if usage is None:
        return None
    details = usage.get("prompt_tokens_details")
    details = details if isinstance(details, dict) else {}
    fields: dict[str, Any] = {
        "input_tokens": token_count(usage.get("prompt_tokens"), VENDOR, f"{where}.prompt_tokens"),
        "output_tokens": token_count(
            usage.get("completion_tokens"), VENDOR, f"{where}.completion_tokens"
        ),
        "total_tokens": token_count(usage.get("total_tokens"), VENDOR, f"{where}.total_tokens"),
        "cached_input_tokens": token_count(
            details.get("cached_tokens"), VENDOR, f"{where}.prompt_tokens_details.cached_tokens"
        ),
    }
    kw = {k: v for k, v in fields.items() if v is not None}
    if not kw:
        return None
    if isinstance(model, str) and model:
        kw["model"] = model
    return TokenUsage(provider=PROVIDER, **kw)


def usage_fields(usages: list[TokenUsage]) -> dict[str, Any] | None:
    """``TokenUsage`` entries -> one ``UsageInfo`` dict (summed), or ``None`` without both
    totals (a zero would claim a count nobody made)."""
    full = [u for u in usages if u.input_tokens is not None and u.output_tokens is not None]
    if not full:
        return None
    prompt = sum(u.input_tokens or 0 for u in full)
    completion = sum(u.output_tokens or 0 for u in full)
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    cached = [u.cached_input_tokens for u in full if u.cached_input_tokens is not None]
    if cached:
        out["prompt_tokens_details"] = {"cached_tokens": sum(cached)}
    return out


#: Error types and codes worth another attempt.
RETRYABLE_ERRORS = frozenset(
    {"service_tier_capacity_exceeded", "rate_limited", "server_error", "internal_error", "3505"}
)


def stream_error(error: Any) -> VendorStreamError:
    """An error payload (``{"object": "error", "message", "type", "code"}``, or a nested
    ``error`` object) as the exception to raise."""
    if isinstance(error, dict):
        kind = error.get("type") or error.get("code") or "error"
        message = error.get("message") or "the vendor reported an error"
        code = error.get("code")
    else:
        kind, message, code = "error", str(error), None
    if not isinstance(message, str):
        message = str(message)
    retryable = str(kind) in RETRYABLE_ERRORS or str(code) in RETRYABLE_ERRORS
    return VendorStreamError(VENDOR, str(kind), message, retryable=retryable)


_STOP_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "model_length": "length",
    "error": "error",
}


def map_stop_reason(finish_reason: str | None) -> FinishReason:
    """A choice's ``finish_reason`` -> ``toolwire.finishReason`` (``model_length``, the
    model's context being full, is ``length`` too)."""
    return _STOP_REASONS.get(finish_reason or "", "other")


def stop_reason_for(reason: FinishReason | None) -> str | None:
    """The ``finish_reason`` for a normalized one (None: what the choice's calls imply)."""
    return "length" if reason == "length" else None


#: A chunk as Mistral writes most of a stream (compact, its keys in this order): one choice,
#: no finish, no usage, its delta a text fragment (a string, or one ``text`` chunk), one
#: piece of Magistral's thinking, or whole calls (one call spelled out, or several read
#: whole); ``object`` the chunk's own, every other top-level member (``id``, ``created``,
#: ``model``, ...) a scalar. The decoder's rule (``Decoder._common``) reads what it becomes.
DELTA_FORM = DeltaForm(
    {
        OTHERS: SCALAR,
        "object": "chat.completion.chunk",
        "choices": [
            {
                "index": Index("choice"),
                "delta": OneOf(
                    {
                        "content": OneOf(
                            Text("content"),
                            [{"type": "text", "text": Text("part")}],
                            [
                                {
                                    "type": "thinking",
                                    "thinking": [{"type": "text", "text": Text("thought")}],
                                }
                            ],
                        )
                    },
                    {
                        "tool_calls": OneOf(
                            [
                                {
                                    "id": Text("call_id"),
                                    "function": {
                                        "name": Text("name"),
                                        "arguments": Text("arguments"),
                                    },
                                    "index": Index("slot"),
                                }
                            ],
                            Whole("calls", 3),
                        )
                    },
                ),
                "finish_reason": ABSENT_OR_NULL,
                "logprobs": ABSENT_OR_NULL,
            }
        ],
        "usage": ABSENT_OR_NULL,
        "error": ABSENT,
    },
    many=True,
)


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """The chunk dicts of an SSE body (whole, or pieces split anywhere); stops at
    ``data: [DONE]``, as the SDK does. Read lazily, as an
    :class:`~toolwire.protocol._fastpath.SSEChunks` its decoder reads fused
    (:data:`DELTA_FORM`)."""
    return sse_json_values(body, VENDOR, stop_at=DONE)


def to_sse(chunks: Iterable[Any]) -> bytes:
    """Chunks as the API frames them: ``data: {...}`` blocks, then ``data: [DONE]``."""
    return frame_sse(chunks, done=DONE, vendor=VENDOR, objects=True)


#: SSE ending in ``data: [DONE]``.
FRAMING = sse_framing(VENDOR, sse_chunks, to_sse, stop_at=DONE)


__all__ = [
    "CALL_ID_RULE",
    "CHOICE_KEY",
    "DELTA_FORM",
    "DETAIL_KEY",
    "DOCUMENT_NAME_KEY",
    "DONE",
    "FIELDS",
    "FRAMING",
    "MODEL_ROUTE",
    "PROVIDER",
    "RETRYABLE_ERRORS",
    "STOP_REASONS_KEY",
    "VENDOR",
    "ChatCompletionRequest",
    "ChatMessage",
    "Choice",
    "CompletionChunk",
    "Delta",
    "FunctionCall",
    "FunctionDefinition",
    "TextChunk",
    "ThinkChunk",
    "ToolCall",
    "ToolDefinition",
    "Usage",
    "map_stop_reason",
    "message_id",
    "mint_call_id",
    "sse_chunks",
    "stop_reason_for",
    "stream_error",
    "to_sse",
    "token_usage",
    "usage_fields",
]
