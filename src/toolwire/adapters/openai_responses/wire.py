"""The Responses vocabulary both directions share: vendor labels, metadata keys, SSE
framing, usage both ways, the stop-reason map and the field reader.

Everything the Responses API says that an AG-UI field cannot hold rides in
``metadata`` under an ``openai.`` key (the protocol asks producers to prefix
keys they invent), so a later request can give it back to the API unchanged.
The stream is SSE with an ``event:`` line naming each payload's ``type``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypedDict

from ag_ui.core import TokenUsage

from toolwire.protocol._fastpath import (
    OTHERS_FROM_HERE,
    SCALAR,
    SCALAR_OR_EMPTY_LIST,
    DeltaForm,
    Index,
    Text,
    Word,
)
from toolwire.protocol.callids import IdRule
from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.framing import sse_framing
from toolwire.protocol.recorded import ModelRoute
from toolwire.protocol.sse import frame_sse, sse_json_values
from toolwire.protocol.usage import token_count

#: The adapter's name in errors, losses and the capability table.
VENDOR = "openai_responses"
#: Every vendor field is read through this (one wording for every wrong shape).
FIELDS = Fields(VENDOR)


# ---------------------------------------------------------------- the wire's shapes
# As the Responses API documents them (``openai.types.responses``); the decoder's handlers and
# the request builders are typed with them, and every read of input from the network is
# still checked at run time.


class ResponseUsage(TypedDict, total=False):
    input_tokens: int
    input_tokens_details: dict[str, Any]
    output_tokens: int
    output_tokens_details: dict[str, Any]
    total_tokens: int


class OutputItem(TypedDict, total=False):
    """An ``output[]`` item (``type``: ``message``, ``reasoning``, ``function_call``,
    ``custom_tool_call``, the server tools' calls, ``mcp_approval_request`` ...); which
    fields it has follows its type."""

    type: str
    id: str
    status: str
    role: str
    phase: str
    content: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    encrypted_content: str | None
    call_id: str
    name: str
    arguments: str
    input: str
    server_label: str
    output: Any


class Response(TypedDict, total=False):
    """The ``response`` of the lifecycle events, and a whole (non-streamed) answer."""

    id: str
    object: str
    created_at: float
    status: str
    model: str
    output: list[OutputItem]
    usage: ResponseUsage | None
    incomplete_details: dict[str, Any] | None
    error: dict[str, Any] | None


class ResponseEvent(TypedDict, total=False):
    """``response.created`` / ``in_progress`` / ``queued`` and the terminal
    ``response.completed`` / ``incomplete`` / ``failed``; an ``error`` event carries
    ``code`` and ``message`` instead."""

    type: str
    sequence_number: int
    response: Response
    code: str | None
    message: str
    param: str | None


class OutputItemEvent(TypedDict, total=False):
    """``response.output_item.added`` / ``.done``."""

    type: str
    sequence_number: int
    output_index: int
    item: OutputItem


class ItemDeltaEvent(TypedDict, total=False):
    """A delta of an item's text or arguments (the :data:`DELTA_FORM` event:
    ``response.output_text.delta``, ``function_call_arguments.delta`` ...)."""

    type: str
    sequence_number: int
    item_id: str
    output_index: int
    content_index: int
    delta: str
    logprobs: list[Any]
    obfuscation: str


class ReasoningEvent(TypedDict, total=False):
    """``response.reasoning_summary_part.added`` / ``.done``, ``reasoning_summary_text.delta``,
    ``reasoning_text.delta`` / ``.done``: the part of reasoning item ``output_index``."""

    type: str
    sequence_number: int
    item_id: str
    output_index: int
    summary_index: int
    content_index: int
    delta: str
    text: str
    part: dict[str, Any]


class InputItem(TypedDict, total=False):
    """An ``input[]`` item: a message (``role``, ``content``), a ``function_call``
    (``call_id``, ``name``, ``arguments``), a ``function_call_output`` (``call_id``,
    ``output``), a ``reasoning`` item, or an output item given back whole."""

    type: str
    id: str
    role: str
    content: str | list[dict[str, Any]]
    phase: str
    call_id: str
    name: str
    arguments: str
    output: str | list[dict[str, Any]]
    summary: list[dict[str, Any]]
    encrypted_content: str
    status: str


class FunctionTool(TypedDict, total=False):
    """A ``tools[]`` entry of a client function (``{"type": "function", ...}``)."""

    type: str
    name: str
    description: str | None
    parameters: dict[str, Any] | None
    strict: bool | None


class ResponsesRequest(TypedDict, total=False):
    """The request body of ``POST /responses``."""

    model: str
    input: list[InputItem]
    instructions: str
    tools: list[dict[str, Any]]
    tool_choice: str | dict[str, Any]
    stream: bool
    store: bool
    previous_response_id: str
    include: list[str]
    reasoning: dict[str, Any]


#: ``TokenUsage.provider`` and ``FileSource.provider`` for OpenAI.
PROVIDER = "openai"
#: ``POST .../responses`` under any host and prefix (Azure's ``/openai/v1/responses``
#: included); not ``GET /responses/{id}``, ``/input_items`` or ``/cancel``.
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/responses",))
#: ``input[].call_id``: 400 "string too long. Expected a string with maximum length 64".
CALL_ID_RULE = IdRule(VENDOR, max_length=64, source="Responses request validation")

#: The vendor item id (``fc_…``, ``msg_…``, ``rs_…``) of a call, message or reasoning.
ITEM_ID_KEY = "openai.item_id"
#: The vendor item type when it is not the default for its AG-UI shape.
ITEM_TYPE_KEY = "openai.item_type"
#: A whole vendor item (minus bulky results held in parts) for items AG-UI cannot model.
ITEM_KEY = "openai.item"
#: Extra fields of a ``function_call`` item (``namespace``, ``caller``, ...).
CALL_FIELDS_KEY = "openai.fields"
#: ``ResponseOutputMessage.phase`` (``commentary`` / ``final_answer``), to be resent.
PHASE_KEY = "openai.phase"
#: ``output_text`` annotations (URL and file citations) of an assistant message.
ANNOTATIONS_KEY = "openai.annotations"
#: Which list of a reasoning item a reasoning message came from (``summary``/``content``).
REASONING_PART_KEY = "openai.reasoning_part"
#: ``detail`` of an ``input_image`` / ``input_file`` part.
DETAIL_KEY = "openai.detail"
#: A non-function tool definition (web search, tool search, ...) kept whole.
TOOL_KEY = "openai.tool"
#: Extra fields of a function tool definition (``strict``, ``defer_loading``, ...).
TOOL_FIELDS_KEY = "openai.tool_fields"
#: Where a tool result came from: the whole output item, when it is not ``function_call_output``.
OUTPUT_ITEM_KEY = "openai.output_item"


#: Events that end a response; anything after them is ignored.
TERMINAL = ("response.completed", "response.incomplete", "response.failed", "error")
#: Error codes OpenAI documents as worth retrying (the run driver reads them too).
RETRYABLE_ERRORS = frozenset(
    {"server_error", "rate_limit_exceeded", "overloaded", "server_is_overloaded"}
)

_STOP_REASONS: dict[str, FinishReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}


def map_stop_reason(
    status: str, *, incomplete_reason: str | None = None, made_calls: bool = False
) -> FinishReason:
    """A response's end (``status``, ``incomplete_details.reason``) -> ``toolwire.finishReason``."""
    if status == "completed":
        return "tool_calls" if made_calls else "stop"
    if status == "incomplete":
        return _STOP_REASONS.get(incomplete_reason or "", "other")
    return "error" if status == "failed" else "other"


#: ``incomplete_details.reason`` for a normalized reason that Responses reports as incomplete
INCOMPLETE_FOR = {"length": "max_output_tokens", "content_filter": "content_filter"}


# ------------------------------------------------------------------ SSE framing


#: A text or function-call argument delta as OpenAI writes them (compact, ``type``,
#: ``sequence_number``, ``item_id`` and ``output_index`` first, in that order; then
#: ``delta``, other members, each a scalar or an empty list, after ``output_index`` and
#: after ``delta``: ``content_index``, ``logprobs``, ``obfuscation``): the event type, the
#: output item's index and the text. The members OpenAI always writes first are declared,
#: not taken as others (trying others between them was a sixth of the event's match); a
#: delta written another way goes the general way. The decoder's rule
#: (``Decoder._item_delta``) reads what it becomes.
DELTA_FORM = DeltaForm(
    {
        "type": Word(
            "type", "response.output_text.delta", "response.function_call_arguments.delta"
        ),
        "sequence_number": SCALAR,
        "item_id": SCALAR,
        "output_index": Index("output_index"),
        OTHERS_FROM_HERE: SCALAR_OR_EMPTY_LIST,
        "delta": Text("delta"),
    },
    any_event=True,
)


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """The JSON payloads of a Responses SSE body, as the dicts the ``Decoder`` takes; the
    decoder reads the text and argument deltas fused (:data:`DELTA_FORM`)."""
    return sse_json_values(body, VENDOR, stop_at="[DONE]")


def to_sse(chunks: Iterable[dict[str, Any]]) -> bytes:
    """Responses SSE bytes: an ``event:`` line naming each payload's ``type``, LF endings."""
    return frame_sse(chunks, event_of="type", vendor=VENDOR)


# ------------------------------------------------------------------ usage both ways

#: ``ResponseUsage`` counts -> ``TokenUsage`` fields: (details group or None, wire, AG-UI)
_USAGE = (
    (None, "input_tokens", "input_tokens"),
    (None, "output_tokens", "output_tokens"),
    (None, "total_tokens", "total_tokens"),
    ("input_tokens_details", "cached_tokens", "cached_input_tokens"),
    ("input_tokens_details", "cache_write_tokens", "cache_write_input_tokens"),
    ("output_tokens_details", "reasoning_tokens", "reasoning_tokens"),
)


def token_usage(response: dict[str, Any]) -> TokenUsage | None:
    """``response.usage`` as ``TokenUsage``, leaving out any count OpenAI did not give."""
    usage = response.get("usage")
    if not isinstance(usage, dict):
        return None
    kw: dict[str, Any] = {"provider": PROVIDER}
    if isinstance(response.get("model"), str):
        kw["model"] = response["model"]
    for group, src, dst in _USAGE:
        holder = usage if group is None else usage.get(group)
        if isinstance(holder, dict):
            where = f"response.usage.{src}" if group is None else f"response.usage.{group}.{src}"
            value = token_count(holder.get(src), VENDOR, where)
            if value is not None:
                kw[dst] = value
    return TokenUsage(**kw)


def usage_fields(usage: Any) -> dict[str, Any] | None:
    """The first ``TokenUsage`` as ``ResponseUsage`` (every count it does not hold as 0)."""
    if not usage:
        return None
    u = usage[0]
    details: dict[str, Any] = {"cached_tokens": u.cached_input_tokens or 0}
    if u.cache_write_input_tokens is not None:
        details["cache_write_tokens"] = u.cache_write_input_tokens
    return {
        "input_tokens": u.input_tokens or 0,
        "input_tokens_details": details,
        "output_tokens": u.output_tokens or 0,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens or 0},
        "total_tokens": u.total_tokens or 0,
    }


#: The Responses API's SSE: ``event:`` lines naming each JSON event.
FRAMING = sse_framing(VENDOR, sse_chunks, to_sse, stop_at="[DONE]")
