"""The Asgard wire vocabulary: event types, the envelope, SSE framing, the field reader.

Every Asgard SSE frame is ``data: <one JSON envelope>`` with the type in the
JSON (``eventType``), never in an SSE ``event:`` line. The envelope carries a
``fact`` object with one key per event type, of which only the one matching
``eventType`` is filled (seed-peers.md §3.2-3.3).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from toolwire.protocol.fields import Fields
from toolwire.protocol.finish import FinishReason
from toolwire.protocol.framing import sse_framing
from toolwire.protocol.recorded import ModelRoute
from toolwire.protocol.sse import frame_sse, sse_json_values

VENDOR = "asgard"
#: A bot provider's message endpoint (``/ns/N/bot-provider/B/message/sse``, or ``/message``).
MODEL_ROUTE = ModelRoute(VENDOR, suffixes=("/message/sse", "/message"))
#: Every Asgard field is read through this (one wording for every wrong shape).
FIELDS = Fields(VENDOR)
#: Metadata key (on tool calls, results, messages, interrupts) holding what only Asgard has.
META_KEY = "asgard"

RUN_INIT = "asgard.run.init"
RUN_DONE = "asgard.run.done"
RUN_ERROR = "asgard.run.error"
PROCESS_START = "asgard.process.start"
PROCESS_COMPLETE = "asgard.process.complete"
MESSAGE_START = "asgard.message.start"
MESSAGE_DELTA = "asgard.message.delta"
MESSAGE_COMPLETE = "asgard.message.complete"
THINKING_START = "asgard.message.thinking.start"
THINKING_DELTA = "asgard.message.thinking.delta"
THINKING_COMPLETE = "asgard.message.thinking.complete"
TOOL_CALL_START = "asgard.tool_call.start"
TOOL_CALL_COMPLETE = "asgard.tool_call.complete"
TOOL_CALL_CONSENT = "asgard.tool_call.consent"
SUBAGENT_START = "asgard.subagent.start"
SUBAGENT_COMPLETE = "asgard.subagent.complete"
USAGE = "asgard.completion_model.usage"
MESSAGE_USER = "asgard.message.user"  # only on a GET rejoin replay

#: ``eventType`` -> its ``fact`` key (TS ``Fact``, Go ``GenericBotSseEventFact``).
FACT_KEY: dict[str, str] = {
    RUN_INIT: "runInit",
    RUN_DONE: "runDone",
    RUN_ERROR: "runError",
    PROCESS_START: "processStart",
    PROCESS_COMPLETE: "processComplete",
    MESSAGE_START: "messageStart",
    MESSAGE_DELTA: "messageDelta",
    MESSAGE_COMPLETE: "messageComplete",
    THINKING_START: "messageThinkingStart",
    THINKING_DELTA: "messageThinkingDelta",
    THINKING_COMPLETE: "messageThinkingComplete",
    TOOL_CALL_START: "toolCallStart",
    TOOL_CALL_COMPLETE: "toolCallComplete",
    TOOL_CALL_CONSENT: "toolCallConsent",
    SUBAGENT_START: "subagentStart",
    SUBAGENT_COMPLETE: "subagentComplete",
    USAGE: "completionModelUsage",
    MESSAGE_USER: "messageUser",
}

#: The consent answers the platform takes (TS ``ToolCallConsentResult``).
CONSENT_RESULTS = ("ALLOW_ONCE", "ALLOW_ALWAYS", "DENY_ONCE")


def envelope(
    event_type: str,
    payload: dict[str, Any],
    *,
    request_id: str,
    event_id: str,
    namespace: str = "",
    bot_provider_name: str = "",
    custom_channel_id: str = "",
) -> dict[str, Any]:
    """One frame as the platform sends it: every ``fact`` key null except this event's."""
    fact: dict[str, Any] = dict.fromkeys(FACT_KEY.values())
    fact[FACT_KEY[event_type]] = payload
    return {
        "eventType": event_type,
        "requestId": request_id,
        "eventId": event_id,
        "namespace": namespace,
        "botProviderName": bot_provider_name,
        "customChannelId": custom_channel_id,
        "fact": fact,
    }


def sse_chunks(body: bytes | str | Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """An Asgard SSE body (whole, or an iterable of byte pieces split anywhere) as the
    envelope dicts :class:`Decoder` takes.

    ``id:`` cursors and comment lines are ignored (the AG-UI binding does not
    resume); a ``data`` payload that is not a JSON object is a ``VendorDataError``
    naming the SSE event's position.
    """
    return sse_json_values(body, VENDOR)


def to_sse(chunks: Iterable[dict[str, Any]]) -> bytes:
    """Frames as the platform's SSE bytes: ``data: <json>`` and a blank line, LF ends."""
    return frame_sse(chunks, vendor=VENDOR)


def map_stop_reason(*, consent_asked: bool) -> FinishReason:
    """How an Asgard run ended: ``run.done`` carries no reason; a consent request pauses it."""
    return "pause" if consent_asked else "stop"


#: Asgard's SSE frames, one JSON envelope a ``data:`` line.
FRAMING = sse_framing(VENDOR, sse_chunks, to_sse)


__all__ = [
    "CONSENT_RESULTS",
    "FACT_KEY",
    "FIELDS",
    "FRAMING",
    "META_KEY",
    "MODEL_ROUTE",
    "VENDOR",
    "envelope",
    "map_stop_reason",
    "sse_chunks",
    "to_sse",
]
