"""The Asgard wire shapes, written down from the platform's published types.

Asgard has no Python SDK, so this checker stands in for "parsed by the
vendor SDK": it encodes, field by field, the TypeScript interfaces of
``asgard-ai-platform/asgard-js-sdk`` ``packages/core/src/types/sse-response.ts``
(commit ea9faac, "confirmed against asgard-core@dev-1.16.19"), the request type
``types/client.ts`` (bf54342), and, for the frames that file lacks
(``process.*``, ``completion_model.usage``), the Go structs of
``asgard-sdk-go`` v1.1.1 ``pkg/models`` as summarised in seed-peers.md §3.3.
It is independent of toolwire's code: tests use it to reject a malformed
cassette and to check what the encoder emits.
"""

from __future__ import annotations

from typing import Any

JSON = object()  # any JSON value
OPT = "optional"

# a spec is: a Python type, a tuple of alternatives, a dict {key: spec | (spec, OPT)},
# a list [spec] (array of), None (must be null), or JSON.

MESSAGE = {
    "messageId": str,
    "replyToCustomMessageId": str,
    "text": str,
    "payload": JSON,
    "isDebug": bool,
    "idx": (int, None),
    "template": (dict, None),
    "parentToolUseId": (str, OPT),
}
TOOL_CALL = {
    "toolsetName": str,
    "toolName": str,
    "parameter": dict,
    "reason": (str, OPT),
}
TOOL_CALL_BASE = {
    "processId": str,
    "callSeq": int,
    "toolUseId": (str, OPT),
    "parentToolUseId": (str, OPT),
    "toolCall": TOOL_CALL,
}
PAYLOADS: dict[str, tuple[str, Any]] = {
    "asgard.run.init": ("runInit", (dict, None)),
    "asgard.run.done": ("runDone", (dict, None)),
    "asgard.run.error": (
        "runError",
        {
            "error": {
                "message": str,
                "code": str,
                "inner": str,
                "location": {
                    "namespace": str,
                    "workflowName": str,
                    "processorName": str,
                    "processorType": str,
                },
            }
        },
    ),
    "asgard.process.start": ("processStart", {"processId": str, "task": JSON}),
    "asgard.process.complete": ("processComplete", {"processId": str, "taskResult": JSON}),
    "asgard.message.start": ("messageStart", {"message": MESSAGE}),
    "asgard.message.delta": ("messageDelta", {"message": MESSAGE}),
    "asgard.message.complete": ("messageComplete", {"message": MESSAGE}),
    "asgard.message.thinking.start": ("messageThinkingStart", {"message": MESSAGE}),
    "asgard.message.thinking.delta": ("messageThinkingDelta", {"message": MESSAGE}),
    "asgard.message.thinking.complete": ("messageThinkingComplete", {"message": MESSAGE}),
    "asgard.tool_call.start": ("toolCallStart", TOOL_CALL_BASE),
    "asgard.tool_call.complete": (
        "toolCallComplete",
        {
            **TOOL_CALL_BASE,
            "toolCallResult": JSON,  # TS Record<string, unknown>, Go interface{}
            "isError": (bool, OPT),
            "toolUseResultSidecar": (dict, OPT),
        },
    ),
    "asgard.tool_call.consent": (
        "toolCallConsent",
        {
            "processId": str,
            "pendingCalls": [
                {
                    "toolCallId": str,
                    "toolsetName": str,
                    "toolName": str,
                    "parameter": dict,
                    "alreadyAllowed": bool,
                    "reason": (str, OPT),
                }
            ],
        },
    ),
    "asgard.subagent.start": (
        "subagentStart",
        {
            "agentId": str,
            "parentToolUseId": str,
            "subagentType": (str, OPT),
            "description": (str, OPT),
        },
    ),
    "asgard.subagent.complete": (
        "subagentComplete",
        {
            "agentId": str,
            "parentToolUseId": str,
            "subagentType": (str, OPT),
            "status": ("completed", "failed", "cancelled"),
            "summary": (str, OPT),
        },
    ),
    "asgard.message.user": (  # UserMessageEventData, on a GET rejoin only
        "messageUser",
        {
            "messageId": str,
            "text": str,
            "identityHint": (str, OPT),
            "customMessageId": (str, OPT),
            "blobIds": ([str], OPT),
        },
    ),
    "asgard.completion_model.usage": (
        "completionModelUsage",
        {
            "processId": str,
            "completionModelName": str,
            "inputTokens": (int, OPT),
            "outputTokens": (int, OPT),
            "totalTokens": (int, OPT),
        },
    ),
}
ENVELOPE = {
    "eventType": str,
    "requestId": str,
    "eventId": (str, OPT),  # Go GenericBotSseEvent; the TS type and the mock omit it
    "traceId": (str, OPT),
    "namespace": str,
    "botProviderName": str,
    "customChannelId": str,
    "fact": dict,
}
REQUEST = {  # FetchSsePayload, types/client.ts
    "customChannelId": str,
    "customMessageId": (str, OPT),
    "text": str,
    "payload": (dict, OPT),
    "action": ("NONE", "RESET_CHANNEL", "RESPONSE_TOOL_CALL_CONSENT", "NUDGE"),
    "blobIds": ([str], OPT),
    "toolCallConsents": (
        [
            {
                "toolCallId": str,
                "result": ("ALLOW_ONCE", "ALLOW_ALWAYS", "DENY_ONCE"),
                "denyReason": str,
            }
        ],
        OPT,
    ),
}


class ShapeError(AssertionError):
    pass


def _check(value: Any, spec: Any, path: str) -> None:
    if spec is JSON:
        return
    if spec is None:
        if value is not None:
            raise ShapeError(f"{path}: expected null, got {value!r}")
        return
    if isinstance(spec, str):  # a literal
        if value != spec:
            raise ShapeError(f"{path}: expected {spec!r}, got {value!r}")
        return
    if isinstance(spec, tuple):
        alts = [s for s in spec if s != OPT]
        errors = []
        for alt in alts:
            try:
                _check(value, alt, path)
                return
            except ShapeError as exc:
                errors.append(str(exc))
        raise ShapeError(" / ".join(errors))
    if isinstance(spec, list):
        if not isinstance(value, list):
            raise ShapeError(f"{path}: expected an array, got {type(value).__name__}")
        for i, item in enumerate(value):
            _check(item, spec[0], f"{path}[{i}]")
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            raise ShapeError(f"{path}: expected an object, got {type(value).__name__}")
        for key, sub in spec.items():
            optional = isinstance(sub, tuple) and OPT in sub
            if key not in value:
                if not optional:
                    raise ShapeError(f"{path}.{key}: missing")
                continue
            if optional and value[key] is None and None not in sub:
                raise ShapeError(f"{path}.{key}: an omitempty field sent as null")
            _check(value[key], sub, f"{path}.{key}")
        return
    if spec is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ShapeError(f"{path}: expected an integer, got {value!r}")
        return
    if not isinstance(value, spec):
        raise ShapeError(f"{path}: expected {spec.__name__}, got {type(value).__name__}")


def check_frame(frame: Any, where: str = "frame") -> None:
    """Raise ``ShapeError`` unless ``frame`` is a well-formed Asgard envelope."""
    _check(frame, ENVELOPE, where)
    et = frame["eventType"]
    if et not in PAYLOADS:
        if not et.startswith("asgard."):
            raise ShapeError(f"{where}.eventType: {et!r} is not an asgard.* type")
        return  # additive types (prompt_suggestion, channel.title.update, ...): envelope only
    key, spec = PAYLOADS[et]
    fact = frame["fact"]
    if key not in fact:
        raise ShapeError(f"{where}.fact.{key}: missing")
    _check(fact[key], spec, f"{where}.fact.{key}")
    for other, value in fact.items():
        if other != key and value is not None:
            raise ShapeError(f"{where}.fact.{other}: only {key} may be set on {et}")


def check_request(body: Any, where: str = "request") -> None:
    """Raise ``ShapeError`` unless ``body`` is a well-formed ``FetchSsePayload``."""
    _check(body, REQUEST, where)
