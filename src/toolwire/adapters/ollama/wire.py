"""The Ollama ``/api/chat`` vocabulary both directions share: names, metadata keys, the
NDJSON framing, usage, errors, the stop-reason map and the field reader.

The stream is NDJSON (``application/x-ndjson``): one ``ChatResponse`` object a line; the
last has ``done: true`` with ``done_reason`` and the counts. Nothing in the stream names
the turn, so the assistant message id is minted from the model and the first line's
``created_at`` (the same recording gives the same id). Tool calls arrive whole, their
``function.arguments`` a JSON object; newer servers add ``id`` and ``function.index``,
older ones neither (ids are then minted from the message id and the call's ordinal).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from ag_ui.core import TokenUsage

from toolwire.errors import VendorStreamError
from toolwire.protocol._fastpath import (
    ABSENT,
    OTHERS,
    SCALAR,
    DeltaForm,
    Index,
    Maybe,
    OneOf,
    Text,
    Whole,
)
from toolwire.protocol.callids import IdRule
from toolwire.protocol.chat_request import FunctionDefinition
from toolwire.protocol.chat_request import FunctionTool as ToolDefinition
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.ndjson import ndjson_framing
from toolwire.protocol.usage import token_count
from toolwire.recordings import ModelRoute

#: The adapter name used in errors, losses and capability lookups.
VENDOR = "ollama"
#: Every vendor field is read through this.
FIELDS = Fields(VENDOR)
#: ``/api/chat`` under any host (a local server, a proxy's prefix).
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/api/chat",))
#: Ollama takes any string as ``tool_calls[].id`` (it echoes what it minted, ``call_...``);
#: nothing is mapped.
CALL_ID_RULE = IdRule(VENDOR, source="Ollama api.ToolCall.ID (any string)")
#: ``TokenUsage.provider``.
PROVIDER = "ollama"


def _is_done(obj: dict[str, Any]) -> bool:
    return obj.get("done") is True


#: NDJSON, ending with the object that has ``done: true``.
FRAMING = ndjson_framing(VENDOR, terminal=_is_done)

#: A line as Ollama writes most of a stream (compact, its keys in this order): not the last
#: (``done: false``), no error, no log probabilities; any other top-level member
#: (``model``, ``created_at``, ...) a scalar; its message's ``content``, and ``thinking``
#: when there is some, and whole calls when there are some: one call spelled out (its
#: ``arguments`` an object read whole), or several read whole; no images, no tool name,
#: every other member (``role``) a scalar. The decoder's rule (``Decoder._common``) reads
#: what it becomes.
DELTA_FORM = DeltaForm(
    {
        OTHERS: SCALAR,
        "message": {
            OTHERS: SCALAR,
            "content": Text("content"),
            "thinking": Maybe(Text("thinking")),
            "tool_calls": Maybe(
                OneOf(
                    [
                        {
                            "id": Text("call_id"),
                            "function": {
                                "index": Index("slot"),
                                "name": Text("name"),
                                "arguments": Whole("arguments", 4),
                            },
                        }
                    ],
                    Whole("calls", 6),
                )
            ),
            "images": ABSENT,
            "tool_name": ABSENT,
        },
        "done": False,
        "logprobs": ABSENT,
        "error": ABSENT,
    },
    lines=True,
    many=True,
)

#: RUN_FINISHED metadata: the last line's ``done_reason`` as the server wrote it.
STOP_REASON_KEY = "ollama.done_reason"
#: RUN_FINISHED metadata: the server's timings in nanoseconds (``total_duration`` ...).
DURATIONS_KEY = "ollama.durations"
#: Tool-call start metadata: ``function.index`` as the server numbered the call.
INDEX_KEY = "ollama.index"

_DURATIONS = ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")


# ---------------------------------------------------------------- the wire's shapes
# As Ollama's ``api`` package documents them (``ChatRequest``, ``ChatResponse``, ``Message``);
# the decoder and the request builders are typed with them, and every read of input from
# the network is still checked at run time.


class FunctionCall(TypedDict, total=False):
    """``function`` of a call: ``arguments`` an object; ``index`` as the server numbered it."""

    name: str
    arguments: dict[str, Any]
    index: int


class ToolCall(TypedDict, total=False):
    id: str
    function: FunctionCall


class ChatMessage(TypedDict, total=False):
    """``message`` of a line, and one ``messages[]`` entry of the request."""

    role: str
    content: str
    thinking: str
    images: list[str]
    tool_calls: list[ToolCall]
    tool_name: str
    tool_call_id: str


class ChatChunk(TypedDict, total=False):
    """One NDJSON line of a ``/api/chat`` stream (and the whole non-streamed response): the
    last one has ``done: true``, the reason, the counts and the timings."""

    model: str
    created_at: str
    message: ChatMessage
    done: bool
    done_reason: str
    total_duration: int
    load_duration: int
    prompt_eval_count: int
    prompt_eval_duration: int
    eval_count: int
    eval_duration: int
    logprobs: Any
    error: str


class ChatRequest(TypedDict, total=False):
    """The request body of ``POST /api/chat``."""

    model: str
    messages: list[ChatMessage]
    tools: list[ToolDefinition]
    stream: bool
    think: bool | str
    format: str | dict[str, Any]
    options: dict[str, Any]
    keep_alive: str | int


def token_usage(chunk: Mapping[str, Any], model: str | None, where: str) -> TokenUsage | None:
    """The last line's ``prompt_eval_count`` / ``eval_count`` -> ``TokenUsage``.

    The total is their sum only when both were given (no zero for a count not made).
    """
    prompt = token_count(chunk.get("prompt_eval_count"), VENDOR, f"{where}.prompt_eval_count")
    output = token_count(chunk.get("eval_count"), VENDOR, f"{where}.eval_count")
    if prompt is None and output is None:
        return None
    kw: dict[str, Any] = {}
    if prompt is not None:
        kw["input_tokens"] = prompt
    if output is not None:
        kw["output_tokens"] = output
    if prompt is not None and output is not None:
        kw["total_tokens"] = prompt + output
    if model:
        kw["model"] = model
    return TokenUsage(provider=PROVIDER, **kw)


def usage_fields(usages: list[TokenUsage]) -> dict[str, int]:
    """``TokenUsage`` entries -> the last line's counts (summed; absent ones stay absent)."""
    out: dict[str, int] = {}
    prompt = [u.input_tokens for u in usages if u.input_tokens is not None]
    output = [u.output_tokens for u in usages if u.output_tokens is not None]
    if prompt:
        out["prompt_eval_count"] = sum(prompt)
    if output:
        out["eval_count"] = sum(output)
    return out


def durations(chunk: Mapping[str, Any]) -> dict[str, int]:
    """The timings of the last line that are whole numbers."""
    return {k: v for k in _DURATIONS if type(v := chunk.get(k)) is int and v >= 0}


#: In-stream errors worth another attempt (Ollama's are plain strings; these words mark
#: a server that is busy or loading, not a request it refuses).
RETRYABLE_ERRORS = frozenset({"server busy", "overloaded", "timeout"})


def stream_error(error: Any) -> VendorStreamError:
    """An ``{"error": "..."}`` line (or body) as the exception to raise."""
    message = error if isinstance(error, str) else str(error)
    lowered = message.lower()
    retryable = any(word in lowered for word in RETRYABLE_ERRORS)
    return VendorStreamError(
        VENDOR, "error", message or "the server reported an error", retryable=retryable
    )


_STOP_REASONS: dict[str, FinishReason] = {"stop": "stop", "length": "length"}


def map_stop_reason(done_reason: str | None, *, made_calls: bool = False) -> FinishReason:
    """``done_reason`` -> ``toolwire.finishReason``: Ollama says ``stop`` after tool calls
    too, so a turn that made calls is ``tool_calls``; ``load``/``unload`` are ``other``."""
    reason = _STOP_REASONS.get(done_reason or "", "other")
    if reason == "stop" and made_calls:
        return "tool_calls"
    return reason


def stop_reason_for(reason: FinishReason | None) -> str:
    """The ``done_reason`` to write for a normalized reason."""
    return "length" if reason == "length" else "stop"


__all__ = [
    "CALL_ID_RULE",
    "DELTA_FORM",
    "DURATIONS_KEY",
    "FIELDS",
    "FRAMING",
    "INDEX_KEY",
    "MODEL_ROUTE",
    "PROVIDER",
    "RETRYABLE_ERRORS",
    "STOP_REASON_KEY",
    "VENDOR",
    "ChatChunk",
    "ChatMessage",
    "ChatRequest",
    "FunctionCall",
    "FunctionDefinition",
    "ToolCall",
    "ToolDefinition",
    "durations",
    "map_stop_reason",
    "stop_reason_for",
    "stream_error",
    "token_usage",
    "usage_fields",
]
