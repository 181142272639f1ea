"""The Chat Completions vocabulary both directions share: names, metadata keys, SSE
framing, usage, errors, the stop-reason map and the field reader.

Kept in one place so the decoder, the encoder and the request mappers agree on
how a message id is derived from a completion id, which metadata keys carry
what AG-UI has no field for, and how usage is counted. The stream is plain
``data:`` lines (no ``event:`` names) ending in ``data: [DONE]``; like the SDK,
reading stops at ``[DONE]``, and whether the completion really ended is the
decoder's call (a ``finish_reason`` per choice), so a body cut before it still
reads as truncated.
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
)
from toolwire.protocol.callids import IdRule
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.framing import sse_framing
from toolwire.protocol.ids import mint_id
from toolwire.protocol.recorded import ModelRoute
from toolwire.protocol.sse import frame_sse, sse_json_values
from toolwire.protocol.usage import token_count

#: The adapter name used in errors, losses and capability lookups.
VENDOR = "openai_chat"
#: Every vendor field is read through this (one wording for every wrong shape).
FIELDS = Fields(VENDOR)


# ---------------------------------------------------------------- the wire's shapes
# As Chat Completions documents them (``openai.types.chat``); the decoder and the request
# builders are typed with them, and every read of input from the network is still checked
# at run time.


class FunctionDelta(TypedDict, total=False):
    """``function`` of a call (whole in a request or response; a fragment in a stream)."""

    name: str
    arguments: str


class CustomCall(TypedDict, total=False):
    """``custom`` of a custom tool's call: free text ``input``."""

    name: str
    input: str


class ToolCallDelta(TypedDict, total=False):
    """``choices[].delta.tool_calls[]``: a fragment of call ``index`` (``id``, ``type`` and
    the name come in its first fragment)."""

    index: int
    id: str
    type: str
    function: FunctionDelta
    custom: CustomCall


class ChoiceDelta(TypedDict, total=False):
    """``choices[].delta`` (and a whole message read as one delta). ``reasoning_content`` /
    ``reasoning``: what compatible servers stream reasoning in; ``function_call``: the legacy
    call."""

    role: str | None
    content: str | None
    refusal: str | None
    tool_calls: list[ToolCallDelta] | None
    function_call: FunctionDelta | None
    reasoning_content: str | None
    reasoning: str | None
    audio: dict[str, Any] | None
    annotations: list[Any] | None


class ChunkChoice(TypedDict, total=False):
    index: int
    delta: ChoiceDelta
    finish_reason: str | None
    logprobs: dict[str, Any] | None


class CompletionUsage(TypedDict, total=False):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: dict[str, Any] | None
    completion_tokens_details: dict[str, Any] | None


class ChatCompletionChunk(TypedDict, total=False):
    """One ``data:`` payload of a stream (``chat.completion.chunk``; ``error``: an in-stream
    error some servers send)."""

    id: str
    object: str
    created: int
    model: str
    system_fingerprint: str | None
    service_tier: str | None
    choices: list[ChunkChoice]
    usage: CompletionUsage | None
    error: dict[str, Any]


class ToolCallParam(TypedDict, total=False):
    """A call of an assistant message (``type``: ``function``, or ``custom``)."""

    id: str
    type: str
    function: FunctionDelta
    custom: CustomCall


class ChatMessage(TypedDict, total=False):
    """``ChatCompletionMessage`` of a whole response, and a request's message param
    (``system``/``developer``/``user``/``assistant``/``tool``)."""

    role: str
    content: str | list[dict[str, Any]] | None
    name: str
    refusal: str | None
    tool_calls: list[ToolCallParam]
    tool_call_id: str
    function_call: FunctionDelta | None
    audio: dict[str, Any] | None
    annotations: list[Any]


class CompletionChoice(TypedDict, total=False):
    index: int
    message: ChatMessage
    finish_reason: str
    logprobs: dict[str, Any] | None


class ChatCompletion(TypedDict, total=False):
    """A whole (non-streamed) ``chat.completion``."""

    id: str
    object: str
    created: int
    model: str
    choices: list[CompletionChoice]
    usage: CompletionUsage | None


class FunctionDefinition(TypedDict, total=False):
    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool


class CustomDefinition(TypedDict, total=False):
    name: str
    description: str
    format: dict[str, Any]


class ToolParam(TypedDict, total=False):
    """A ``tools[]`` entry: ``{"type": "function", "function": ...}`` or ``custom``."""

    type: str
    function: FunctionDefinition
    custom: CustomDefinition


class ChatCompletionRequest(TypedDict, total=False):
    """The request body of ``POST /chat/completions`` (the options it takes beside these
    go in as given)."""

    model: str
    messages: list[ChatMessage]
    tools: list[ToolParam]
    tool_choice: str | dict[str, Any]
    stream: bool
    stream_options: dict[str, Any]


#: Chat Completions under any host and prefix: OpenAI's ``/v1``, Azure's
#: ``/openai/deployments/D``, and OpenAI-compatible servers (``/api/v1``, ``/openai/v1``...).
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/chat/completions",))
#: ``tool_calls[].id`` / ``tool_call_id``: the API answers a longer one with 400
#: "string too long. Expected a string with maximum length 40".
CALL_ID_RULE = IdRule(VENDOR, max_length=40, source="Chat Completions request validation")
#: ``TokenUsage.provider`` and the issuer of the file handles this API resolves.
PROVIDER = "openai"

#: Text-message metadata: the text arrived as ``delta.refusal``, not ``delta.content``.
REFUSAL_KEY = "openai.refusal"
#: Tool-call / tool metadata: ``"custom"`` for a custom (free-text input) tool.
TOOL_TYPE_KEY = "openai.type"
#: Tool metadata: the function tool's ``strict`` flag.
STRICT_KEY = "openai.strict"
#: Tool metadata: a custom tool's ``format`` object.
FORMAT_KEY = "openai.format"
#: Media-part metadata: ``image_url.detail``.
DETAIL_KEY = "openai.detail"
#: Media-part metadata: a file's name (the key the AG-UI compatibility boundary uses too).
FILENAME_KEY = "filename"
#: ``RUN_FINISHED`` metadata: each choice's ``finish_reason``, in choice order.
STOP_REASONS_KEY = "openai.finish_reasons"
#: Start-event metadata of choice *i* > 0 (``n > 1``): its index and the completion id, which
#: its (minted) message id does not tell, so an encoder numbers it as the vendor did.
CHOICE_KEY = "openai.choice"
COMPLETION_ID_KEY = "openai.completion_id"

#: In-stream error types worth a retry before anything was emitted.
_RETRYABLE = frozenset(
    {"server_error", "rate_limit_exceeded", "rate_limit_error", "overloaded_error", "timeout"}
)
#: Error types worth another attempt (the run driver reads them too).
RETRYABLE_ERRORS = _RETRYABLE


def message_id(completion_id: str, choice: int) -> str:
    """The AG-UI message id of one choice: the completion id itself for choice 0.

    Choices after the first share the completion id on the wire, so theirs is
    minted from it and the choice index (stable across replays).
    """
    return completion_id if choice == 0 else mint_id("msg", completion_id, "choice", choice)


def _count(value: Any, where: str) -> int | None:
    return token_count(value, VENDOR, where)


def token_usage(usage: Any, model: Any, where: str) -> TokenUsage | None:
    """``CompletionUsage`` -> ``TokenUsage``; counts the vendor did not give stay absent.

    OpenAI's ``prompt_tokens`` already includes cached tokens and
    ``completion_tokens`` already includes reasoning tokens, which is the
    protocol's accounting, so the totals are copied as they are.
    """
    usage = FIELDS.opt_obj(usage, where)
    if usage is None:
        return None
    prompt = usage.get("prompt_tokens_details")
    completion = usage.get("completion_tokens_details")
    prompt = prompt if isinstance(prompt, dict) else {}
    completion = completion if isinstance(completion, dict) else {}
    fields: dict[str, Any] = {
        "input_tokens": _count(usage.get("prompt_tokens"), f"{where}.prompt_tokens"),
        "output_tokens": _count(usage.get("completion_tokens"), f"{where}.completion_tokens"),
        "total_tokens": _count(usage.get("total_tokens"), f"{where}.total_tokens"),
        "reasoning_tokens": _count(
            completion.get("reasoning_tokens"),
            f"{where}.completion_tokens_details.reasoning_tokens",
        ),
        "cached_input_tokens": _count(
            prompt.get("cached_tokens"), f"{where}.prompt_tokens_details.cached_tokens"
        ),
        "cache_write_input_tokens": _count(
            prompt.get("cache_write_tokens"), f"{where}.prompt_tokens_details.cache_write_tokens"
        ),
    }
    kw = {k: v for k, v in fields.items() if v is not None}
    if isinstance(model, str) and model:
        kw["model"] = model
    return TokenUsage(provider=PROVIDER, **kw)


def usage_fields(usages: list[TokenUsage]) -> dict[str, Any] | None:
    """``TokenUsage`` entries -> one ``CompletionUsage`` dict (summed), or ``None``.

    ``None`` when no entry has both totals: the SDK type requires them, and a
    zero would claim a count nobody made.
    """
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
    written = [u.cache_write_input_tokens for u in full if u.cache_write_input_tokens is not None]
    reasoning = [u.reasoning_tokens for u in full if u.reasoning_tokens is not None]
    if cached or written:
        details: dict[str, int] = {}
        if cached:
            details["cached_tokens"] = sum(cached)
        if written:
            details["cache_write_tokens"] = sum(written)
        out["prompt_tokens_details"] = details
    if reasoning:
        out["completion_tokens_details"] = {"reasoning_tokens": sum(reasoning)}
    return out


def stream_error(error: Any) -> VendorStreamError:
    """A top-level ``error`` object (in a stream or a body) as the exception to raise."""
    if isinstance(error, dict):
        kind = error.get("type") or error.get("code") or "error"
        message = error.get("message") or "the vendor reported an error"
        code = error.get("code")
    else:
        kind, message, code = "error", str(error), None
    retryable = str(kind) in _RETRYABLE or str(code) in _RETRYABLE
    return VendorStreamError(VENDOR, str(kind), str(message), retryable=retryable)


_STOP_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}
#: the finish_reason written for a normalized one; stop / tool_calls follow the choice's calls
_FOR_REASON = {"length": "length", "content_filter": "content_filter"}


def map_stop_reason(finish_reason: str | None) -> FinishReason:
    """A choice's ``finish_reason`` -> ``toolwire.finishReason`` (the table: docs/decisions.md)."""
    return _STOP_REASONS.get(finish_reason or "", "other")


def stop_reason_for(reason: FinishReason | None) -> str | None:
    """The ``finish_reason`` for a normalized reason (None: what the choice's calls imply)."""
    return _FOR_REASON.get(reason or "")


# ------------------------------------------------------------------ SSE framing

DONE = "[DONE]"


#: A chunk as OpenAI writes most of a stream (compact, its keys in this order): one choice,
#: no finish, no usage, no error, its delta one text fragment or one argument fragment of a
#: call by its index; any other top-level member (``id``, ``model``, ``obfuscation``, ...) a
#: scalar. The decoder's rule (``Decoder._plain_delta``) reads what it becomes.
DELTA_FORM = DeltaForm(
    {
        OTHERS: SCALAR,
        "choices": [
            {
                "index": Index("choice"),
                "delta": OneOf(
                    {"content": Text("content")},
                    {
                        "tool_calls": [
                            {"index": Index("slot"), "function": {"arguments": Text("arguments")}}
                        ]
                    },
                ),
                "logprobs": ABSENT_OR_NULL,
                "finish_reason": ABSENT_OR_NULL,
            }
        ],
        "usage": ABSENT_OR_NULL,
        "error": ABSENT,
    }
)


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """The chunk dicts of an SSE body (whole, or as byte pieces split anywhere).

    Stops at ``data: [DONE]`` (anything after it is ignored, as the SDK does).
    A ``data`` payload that is not a JSON object raises ``VendorDataError``
    naming the SSE event. Its decoder reads the common deltas fused (:data:`DELTA_FORM`).
    """
    return sse_json_values(body, VENDOR, stop_at=DONE)


def to_sse(chunks: Iterable[Any]) -> bytes:
    """Chunks (dicts or SDK objects) as the API frames them: ``data: {...}`` blocks, then
    ``data: [DONE]``."""
    return frame_sse(chunks, done=DONE, vendor=VENDOR, objects=True)


#: OpenAI Chat's SSE: one JSON chunk a ``data:`` line, ``[DONE]`` last.
FRAMING = sse_framing(VENDOR, sse_chunks, to_sse, stop_at="[DONE]")


__all__ = [
    "CHOICE_KEY",
    "COMPLETION_ID_KEY",
    "DETAIL_KEY",
    "DONE",
    "FIELDS",
    "FILENAME_KEY",
    "FORMAT_KEY",
    "FRAMING",
    "PROVIDER",
    "REFUSAL_KEY",
    "STOP_REASONS_KEY",
    "STRICT_KEY",
    "TOOL_TYPE_KEY",
    "VENDOR",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatCompletionRequest",
    "ChatMessage",
    "ChoiceDelta",
    "ChunkChoice",
    "CompletionChoice",
    "CompletionUsage",
    "CustomCall",
    "CustomDefinition",
    "FunctionDefinition",
    "FunctionDelta",
    "ToolCallDelta",
    "ToolCallParam",
    "ToolParam",
    "map_stop_reason",
    "message_id",
    "sse_chunks",
    "stop_reason_for",
    "stream_error",
    "to_sse",
    "token_usage",
    "usage_fields",
]
