"""The names this adapter shares between its modules: vendor labels and metadata keys.

Everything the Responses API says that an AG-UI field cannot hold rides in
``metadata`` under an ``openai.`` key (the protocol asks producers to prefix
keys they invent), so a later request can give it back to the API unchanged.
"""

from __future__ import annotations

from toolwire.protocol.callids import IdRule
from toolwire.protocol.finish import FinishReason
from toolwire.recordings import ModelRoute

#: The adapter's name in errors, losses and the capability table.
VENDOR = "openai_responses"
#: ``TokenUsage.provider`` and ``FileSource.provider`` for OpenAI.
PROVIDER = "openai"
#: ``POST .../responses`` under any host and prefix (Azure's ``/openai/v1/responses``
#: included); not ``GET /responses/{id}``, ``/input_items`` or ``/cancel``.
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/responses",))
#: ``input[].call_id``: 400 "string too long. Expected a string with maximum length 64".
CALL_ID_RULE = IdRule(VENDOR, max_length=64, source="Responses request validation")

#: The vendor item id (``fc_…``, ``msg_…``, ``rs_…``) of a call, message or reasoning.
ITEM_ID = "openai.item_id"
#: The vendor item type when it is not the default for its AG-UI shape.
ITEM_TYPE = "openai.item_type"
#: A whole vendor item (minus bulky results held in parts) for items AG-UI cannot model.
ITEM = "openai.item"
#: Extra fields of a ``function_call`` item (``namespace``, ``caller``, ...).
FIELDS = "openai.fields"
#: ``ResponseOutputMessage.phase`` (``commentary`` / ``final_answer``), to be resent.
PHASE = "openai.phase"
#: ``output_text`` annotations (URL and file citations) of an assistant message.
ANNOTATIONS = "openai.annotations"
#: Which list of a reasoning item a reasoning message came from (``summary``/``content``).
REASONING_PART = "openai.reasoning_part"
#: ``detail`` of an ``input_image`` / ``input_file`` part.
DETAIL = "openai.detail"
#: A non-function tool definition (web search, tool search, ...) kept whole.
TOOL = "openai.tool"
#: Extra fields of a function tool definition (``strict``, ``defer_loading``, ...).
TOOL_FIELDS = "openai.tool_fields"
#: Where a tool result came from: the whole output item, when it is not ``function_call_output``.
OUTPUT_ITEM = "openai.output_item"


_INCOMPLETE: dict[str, FinishReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}


def map_openai_responses_stop_reason(
    status: str, *, incomplete_reason: str | None = None, made_calls: bool = False
) -> FinishReason:
    """A response's end (``status``, ``incomplete_details.reason``) -> ``toolwire.finishReason``."""
    if status == "completed":
        return "tool_calls" if made_calls else "stop"
    if status == "incomplete":
        return _INCOMPLETE.get(incomplete_reason or "", "other")
    return "error" if status == "failed" else "other"
