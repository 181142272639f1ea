"""Decoder rules one at a time (seed-peers.md §3.4 and the SDK reducer), on small frame lists."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from _asgard_shapes import check_frame
from pydantic import BaseModel, ConfigDict

from toolwire import ContentLossWarning
from toolwire.adapters import asgard
from toolwire.errors import TruncatedStream, VendorDataError, VendorStreamError
from toolwire.protocol import validate_stream

FACT = {
    "asgard.run.init": "runInit",
    "asgard.run.done": "runDone",
    "asgard.run.error": "runError",
    "asgard.message.start": "messageStart",
    "asgard.message.delta": "messageDelta",
    "asgard.message.complete": "messageComplete",
    "asgard.message.thinking.start": "messageThinkingStart",
    "asgard.message.thinking.complete": "messageThinkingComplete",
    "asgard.tool_call.start": "toolCallStart",
    "asgard.tool_call.complete": "toolCallComplete",
    "asgard.tool_call.consent": "toolCallConsent",
    "asgard.subagent.start": "subagentStart",
    "asgard.subagent.complete": "subagentComplete",
    "asgard.completion_model.usage": "completionModelUsage",
    "asgard.process.start": "processStart",
    "asgard.process.complete": "processComplete",
}


def fr(et: str, payload: Any = None, req: str = "r1") -> dict[str, Any]:
    """A frame written out by hand in the documented envelope (checked by the shape checker)."""
    fact: dict[str, Any] = {k: None for k in FACT.values()}
    if et in FACT:
        fact[FACT[et]] = {} if payload is None else payload
    frame = {
        "eventType": et,
        "requestId": req,
        "eventId": "e",
        "namespace": "ns",
        "botProviderName": "bot",
        "customChannelId": "ch",
        "fact": fact,
    }
    check_frame(frame)
    return frame


def msg(mid: str, text: str, **kw: Any) -> dict[str, Any]:
    m = {
        "messageId": mid,
        "replyToCustomMessageId": "",
        "text": text,
        "payload": None,
        "isDebug": False,
        "idx": None,
        "template": None,
    }
    m.update(kw)
    return {"message": m}


def call(pid: str, seq: int, name: str, param: Any, **kw: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"processId": pid, "callSeq": seq}
    d.update({k: v for k, v in kw.items() if k in ("toolUseId", "parentToolUseId")})
    d["toolCall"] = {"toolsetName": kw.get("toolset", ""), "toolName": name, "parameter": param}
    d.update({k: v for k, v in kw.items() if k in ("toolCallResult", "isError")})
    return d


INIT = fr("asgard.run.init")
DONE = fr("asgard.run.done")


def run(frames: list[dict[str, Any]], **kw: Any) -> list[dict[str, Any]]:
    events = list(asgard.decode_run(frames, **kw))
    validate_stream(events)
    return [e.model_dump(by_alias=True, exclude_none=True) for e in events]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_call_start_is_start_args_end_with_the_sdk_key_and_compact_args() -> None:
    ev = run([INIT, fr("asgard.tool_call.start", call("p", 3, "t", {"b": 1, "a": "é"})), DONE])
    assert types(ev)[1:4] == ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    assert ev[1]["toolCallId"] == "p-3"  # `${processId}-${callSeq}` (seed 004)
    assert ev[1]["parentMessageId"]
    assert ev[2]["delta"] == '{"b":1,"a":"é"}'  # key order and characters kept
    assert ev[-1]["outcome"]["pendingToolCallIds"] == ["p-3"]


def test_call_ids_tool_use_id_and_qualified_ids() -> None:
    start = fr("asgard.tool_call.start", call("p", 0, "t", {}, toolUseId="toolu_X"))
    assert run([INIT, start, DONE], call_ids="tool_use_id")[1]["toolCallId"] == "toolu_X"
    assert run([INIT, start, DONE], qualify_with_run=True)[1]["toolCallId"] == "r1:p-0"
    assert run([INIT, start, DONE], used_ids={"p-0"})[1]["toolCallId"] == "r1:p-0"


def test_parallel_calls_share_the_preceding_message_and_results_reset_it() -> None:
    ev = run(
        [
            INIT,
            fr("asgard.message.start", msg("m1", "hi")),
            fr("asgard.message.complete", msg("m1", "hi")),
            fr("asgard.tool_call.start", call("p", 0, "a", {})),
            fr("asgard.tool_call.start", call("p", 1, "b", {})),
            fr("asgard.tool_call.complete", call("p", 0, "a", {}, toolCallResult={"ok": 1})),
            fr("asgard.tool_call.complete", call("p", 1, "b", {}, toolCallResult={"ok": 2})),
            fr("asgard.tool_call.start", call("p", 2, "c", {})),
            DONE,
        ]
    )
    starts = [e for e in ev if e["type"] == "TOOL_CALL_START"]
    assert [s["parentMessageId"] for s in starts[:2]] == ["m1", "m1"]
    assert starts[2]["parentMessageId"] != "m1"  # made after the results: the next turn


def test_error_result_rules_of_the_seed() -> None:
    frames = [
        INIT,
        fr("asgard.tool_call.start", call("p", 0, "a", {})),
        fr(
            "asgard.tool_call.complete",
            call("p", 0, "a", {}, toolCallResult={"message": "x"}, isError=True),
        ),
        fr("asgard.tool_call.complete", call("p", 1, "b", {}, toolCallResult={"error": "legacy"})),
        fr(
            "asgard.tool_call.complete",
            call("p", 2, "c", {}, toolCallResult={"ok": True}, isError=False),
        ),
        fr("asgard.tool_call.complete", call("p", 3, "d", {}, toolCallResult="plain")),
        DONE,
    ]
    events = list(asgard.decode_run(frames))
    m = validate_stream(events)
    tools = {t.tool_call_id: t for t in m.messages if t.role == "tool"}
    assert tools["p-0"].error == "x" and tools["p-0"].content == '{"message":"x"}'
    assert tools["p-1"].error == "legacy"
    assert tools["p-2"].error is None
    assert tools["p-3"].error is None and tools["p-3"].content == "plain"
    # a complete with no start still yields its call (the SDK drops it; we keep the data)
    names = {
        c.function.name for a in m.messages if a.role == "assistant" for c in a.tool_calls or []
    }
    assert names == {"a", "b", "c", "d"}


def test_message_reducer_rules() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = run(
            [
                INIT,
                fr("asgard.message.delta", msg("m", "a")),  # no start: opened lazily
                fr("asgard.message.delta", msg("m", "b")),
                fr("asgard.message.complete", msg("m", "abc")),  # the missing suffix
                fr("asgard.message.delta", msg("m", "late")),  # after complete: dropped
                fr("asgard.message.start", msg("m", "late")),
                fr("asgard.message.start", msg("n", "x")),
                fr("asgard.message.complete", msg("n", "zzz")),  # contradicts: warn, keep deltas
                DONE,
            ]
        )
    text = [e["delta"] for e in ev if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert text == ["a", "b", "c", "x"]
    end_n = next(e for e in ev if e["type"] == "TEXT_MESSAGE_END" and e["messageId"] == "n")
    assert end_n["metadata"]["asgard"]["text"] == "zzz"
    assert any(issubclass(w.category, ContentLossWarning) for w in caught)


def test_thinking_becomes_reasoning() -> None:
    ev = run(
        [
            INIT,
            fr("asgard.message.thinking.start", msg("t", "")),
            fr("asgard.message.thinking.complete", msg("t", "why")),
            DONE,
        ]
    )
    assert types(ev)[1:-1] == [
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
    ]
    # the complete frame's text is the reasoning (its start frame held none)
    assert [e["delta"] for e in ev if e["type"] == "REASONING_MESSAGE_CONTENT"] == ["why"]


def test_open_items_are_closed_at_run_done() -> None:
    ev = run(
        [
            INIT,
            fr("asgard.process.start", {"processId": "p", "task": None}),
            fr("asgard.message.start", msg("m", "half")),
            DONE,
        ]
    )
    assert types(ev)[-3:-1] == ["TEXT_MESSAGE_END", "STEP_FINISHED"]


def test_consent_is_the_interrupt_outcome() -> None:
    pending = [
        {
            "toolCallId": "toolu_A",
            "toolsetName": "",
            "toolName": "rm",
            "parameter": {"p": 1},
            "reason": "Delete",
            "alreadyAllowed": False,
        },
        {
            "toolCallId": "other",
            "toolsetName": "",
            "toolName": "ls",
            "parameter": {},
            "alreadyAllowed": False,
        },
        {
            "toolCallId": "ok",
            "toolsetName": "",
            "toolName": "cat",
            "parameter": {},
            "alreadyAllowed": True,
        },
    ]
    frames = [
        INIT,
        fr("asgard.tool_call.start", call("p", 0, "rm", {"p": 1}, toolUseId="toolu_A")),
        fr("asgard.tool_call.start", call("p", 1, "ls", {})),
        fr("asgard.tool_call.consent", {"processId": "p", "pendingCalls": pending}),
        DONE,
    ]
    ev = run(frames)
    outcome = ev[-1]["outcome"]
    assert outcome["type"] == "interrupt"
    first, second = outcome["interrupts"]
    assert first["id"] == "toolu_A" and first["toolCallId"] == "p-0"
    assert first["message"] == "Delete" and first["reason"] == "tool_call_consent"
    assert first["responseSchema"]["properties"]["result"]["enum"] == [
        "ALLOW_ONCE",
        "ALLOW_ALWAYS",
        "DENY_ONCE",
    ]
    # unknown relation between the consent id and the call: no toolCallId, only a hint
    assert "toolCallId" not in second
    assert second["metadata"]["asgard"]["candidateToolCallId"] == "p-1"
    assert first["metadata"]["asgard"]["alreadyAllowedCalls"] == [pending[2]]
    d = asgard.Decoder()
    for f in frames:
        d.feed(f)
    assert d.already_allowed == [pending[2]]


def test_subagent_is_announced_before_its_events_and_closed() -> None:
    ev = run(
        [
            INIT,
            fr("asgard.tool_call.start", call("p", 0, "Agent", {}, toolUseId="U")),
            fr(
                "asgard.subagent.start",
                {"agentId": "a", "parentToolUseId": "U", "subagentType": "gp"},
            ),
            fr(
                "asgard.tool_call.start",
                call("q", 0, "Read", {}, toolUseId="V", parentToolUseId="U"),
            ),
            fr("asgard.message.start", msg("m", "x", parentToolUseId="U")),
            fr(
                "asgard.subagent.complete",
                {"agentId": "a", "parentToolUseId": "U", "status": "failed"},
            ),
            DONE,
        ]
    )
    started = next(i for i, e in enumerate(ev) if e["type"] == "SUBAGENT_STARTED")
    tagged = [i for i, e in enumerate(ev) if e.get("subagentRunId") == "U" and i != started]
    assert ev[started]["parentToolCallId"] == "p-0" and ev[started]["name"] == "gp"
    assert min(tagged) > started
    assert ev[-2]["type"] == "SUBAGENT_ERROR" and ev[-2]["message"] == "failed"


def test_unknown_types_pass_as_raw_and_an_unknown_event_type_is_announced() -> None:
    other = fr("asgard.sandbox.ready")
    with pytest.warns(ContentLossWarning) as seen:
        ev = run([INIT, other, {"eventType": "ping"}, DONE])
    assert [str(w.message) for w in seen] == [
        "toolwire: event-dropped for AG-UI: chunk 2: eventType: 'ping' is no Asgard event type"
    ]
    assert ev[1] == {"type": "RAW", "event": other, "source": "asgard"}
    assert types(ev) == ["RUN_STARTED", "RAW", "RUN_FINISHED"]


def test_frames_after_run_done_are_dropped_and_a_second_run_is_refused() -> None:
    with pytest.warns(ContentLossWarning, match="material-after-end.*chunk 2"):
        after = run([INIT, DONE, fr("asgard.message.delta", msg("m", "x"))])
    assert types(after) == ["RUN_STARTED", "RUN_FINISHED"]
    d = asgard.Decoder()
    d.feed(INIT)
    d.feed(DONE)
    with pytest.raises(VendorDataError, match="chunk 2"):
        d.feed(fr("asgard.run.init", req="r2"))


def test_truncation_and_in_stream_error() -> None:
    with pytest.raises(TruncatedStream):
        list(asgard.decode_stream([INIT]))
    with pytest.raises(TruncatedStream):
        list(asgard.decode_stream([]))
    err = {
        "error": {
            "message": "boom",
            "code": "E1",
            "inner": "",
            "location": {
                "namespace": "",
                "workflowName": "",
                "processorName": "",
                "processorType": "",
            },
        }
    }
    with pytest.raises(VendorStreamError) as info:
        list(asgard.decode_stream([INIT, fr("asgard.run.error", err)]))
    assert (info.value.vendor, info.value.error_type, info.value.message) == (
        "asgard",
        "E1",
        "boom",
    )


@pytest.mark.parametrize(
    ("frame", "where"),
    [
        ({"fact": {}}, "chunk 1: eventType"),
        ({"eventType": "asgard.tool_call.start"}, "chunk 1: fact"),
        (
            {"eventType": "asgard.tool_call.start", "fact": {"toolCallStart": []}},
            "chunk 1: fact.toolCallStart",
        ),
        (
            {
                "eventType": "asgard.tool_call.start",
                "fact": {"toolCallStart": {"callSeq": 0, "toolCall": {}}},
            },
            "chunk 1: fact.toolCallStart.processId",
        ),
        (
            {
                "eventType": "asgard.tool_call.start",
                "fact": {
                    "toolCallStart": {
                        "processId": "p",
                        "callSeq": True,
                        "toolCall": {"toolName": "t"},
                    }
                },
            },
            "chunk 1: fact.toolCallStart.callSeq",
        ),
        (
            {
                "eventType": "asgard.tool_call.start",
                "fact": {
                    "toolCallStart": {"processId": "p", "callSeq": 0, "toolCall": {"toolName": 5}}
                },
            },
            "chunk 1: fact.toolCallStart.toolCall.toolName",
        ),
        (
            {
                "eventType": "asgard.message.delta",
                "fact": {"messageDelta": {"message": {"messageId": "m", "text": 3}}},
            },
            "chunk 1: fact.messageDelta.message.text",
        ),
        (
            {
                "eventType": "asgard.tool_call.consent",
                "fact": {"toolCallConsent": {"processId": "p", "pendingCalls": [1]}},
            },
            "chunk 1: fact.toolCallConsent.pendingCalls[0]",
        ),
        (
            {
                "eventType": "asgard.completion_model.usage",
                "fact": {"completionModelUsage": {"inputTokens": "9"}},
            },
            "chunk 1: fact.completionModelUsage.inputTokens",
        ),
        (  # TokenUsage counts are JSON-safe integers: 0 .. 2**53 - 1
            {
                "eventType": "asgard.completion_model.usage",
                "fact": {"completionModelUsage": {"outputTokens": 2**53}},
            },
            "chunk 1: fact.completionModelUsage.outputTokens",
        ),
        (
            {
                "eventType": "asgard.completion_model.usage",
                "fact": {"completionModelUsage": {"totalTokens": -1}},
            },
            "chunk 1: fact.completionModelUsage.totalTokens",
        ),
        (
            {
                "eventType": "asgard.subagent.complete",
                "fact": {
                    "subagentComplete": {"agentId": "a", "parentToolUseId": "u", "status": "paused"}
                },
            },
            "chunk 1: fact.subagentComplete.status",
        ),
        (
            {"eventType": "asgard.run.error", "fact": {"runError": {}}},
            "chunk 1: fact.runError.error",
        ),
        (  # numbers JSON cannot hold (json.loads reads NaN/Infinity): were a bare ValueError
            {
                "eventType": "asgard.tool_call.start",
                "fact": {"toolCallStart": call("p", 0, "t", {"a": float("inf")})},
            },
            "chunk 1: fact.toolCallStart.toolCall.parameter",
        ),
        (
            {
                "eventType": "asgard.tool_call.complete",
                "fact": {"toolCallComplete": call("p", 0, "t", {}, toolCallResult=[float("nan")])},
            },
            "chunk 1: fact.toolCallComplete.toolCallResult",
        ),
    ],
)
def test_malformed_frames_name_the_chunk_and_field(frame: dict[str, Any], where: str) -> None:
    d = asgard.Decoder()
    d.feed(INIT)
    with pytest.raises(VendorDataError) as info:
        d.feed(frame)
    assert info.value.where == where


def test_not_an_object_and_bad_sse() -> None:
    with pytest.raises(VendorDataError, match="chunk 0"):
        asgard.Decoder().feed(["not", "a", "frame"])
    with pytest.raises(VendorDataError, match="SSE event 1"):
        list(asgard.sse_chunks(b'data: {"eventType":"asgard.run.init"}\n\ndata: nope\n\n'))


class _Model(BaseModel):
    """An object standing in for a typed frame (Asgard has no Python SDK)."""

    model_config = ConfigDict(extra="allow")


def test_objects_and_dicts_give_identical_events() -> None:
    frames = [INIT, fr("asgard.tool_call.start", call("p", 0, "t", {"x": [1, 2]})), DONE]
    objs = [_Model(**json.loads(json.dumps(f))) for f in frames]
    a = [e.model_dump() for e in asgard.decode_stream(frames)]
    b = [e.model_dump() for e in asgard.decode_stream(objs)]
    assert a == b and a


async def test_async_decoding_equals_sync() -> None:
    frames = [INIT, fr("asgard.tool_call.start", call("p", 0, "t", {})), DONE]

    async def gen() -> Any:
        for f in frames:
            yield f

    got = [e async for e in asgard.adecode_stream(gen())]
    assert got == list(asgard.decode_stream(frames))


def test_decode_response_takes_a_whole_capture() -> None:
    frames = [INIT, fr("asgard.tool_call.start", call("p", 0, "t", {})), DONE]
    assert asgard.decode_response(frames) == list(asgard.decode_stream(frames))


def test_a_source_that_fails_before_its_first_frame_ends_the_run_with_run_error() -> None:
    # decode_run reads the first frame ahead for the run's ids; a failure there is the
    # shared framer's to report, like a failure of any later read (never a bare exception)
    def source() -> Any:
        raise ConnectionResetError("connection reset by peer")
        yield

    events = list(asgard.decode_run(source()))
    validate_stream(events)
    assert types([e.model_dump(by_alias=True) for e in events]) == ["RUN_STARTED", "RUN_ERROR"]
    assert "connection reset" in events[-1].message


def test_a_source_that_fails_after_its_first_frame_ends_the_run_with_run_error() -> None:
    def source() -> Any:
        yield INIT
        raise ConnectionResetError("connection reset by peer")

    events = list(asgard.decode_run(source()))
    validate_stream(events)
    assert events[0].run_id == INIT["requestId"]
    assert events[-1].type == "RUN_ERROR" and "connection reset" in events[-1].message
