"""Issue 7's cross-peer test: one conversation -- two parallel calls, an error result and a
confirmation -- travels Anthropic stream -> AG-UI -> Asgard frames and Dialogflow ToolCallInfo,
and nothing is lost that both ends can hold.

The Anthropic side is a stream written in the documented wire shape (vendor-wire-formats.md
§4A), parsed by Anthropic's own SDK and decoded from the SDK's event objects. Tool results are
what the agent that ran the tools adds to the AG-UI run; the confirmation is the run's
interrupt outcome; each run's usage and stop reason are what the Anthropic decoder reports.
Expected values are the ones written in the stream and the events below. What the Anthropic
end holds and Asgard can too (calls, ids, arguments, results, the error, the text, the usage
counts and model) arrives; what Asgard cannot hold (the usage's provider, the stop reason) is a
reported loss. ToolCallInfo holds calls, results, the error and the confirmation state only.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import anthropic as anthropic_sdk  # dev dependencies: never skipped
import httpx2
from _asgard_shapes import check_frame
from ag_ui.core import (
    AssistantMessage,
    Interrupt,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    ToolCallResultEvent,
    ToolMessage,
)
from google.cloud import dialogflow_v2 as df

from toolwire.adapters import anthropic, asgard, dialogflow
from toolwire.protocol import RESULT_ERROR_KEY, StreamMachine, validate_stream


def sse(*events: dict[str, Any]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def message_start(mid: str) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 1},
        },
    }


def tool_use(index: int, cid: str, name: str, parts: list[str]) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": cid, "name": name, "input": {}}
    out: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": index, "content_block": block}
    ]
    out += [
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": p},
        }
        for p in parts
    ]
    out.append({"type": "content_block_stop", "index": index})
    return out


def ending() -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    ]


TURN_1 = sse(
    message_start("msg_01T1"),
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Both."}},
    {"type": "content_block_stop", "index": 0},
    *tool_use(1, "toolu_01AAA", "get_weather", ["", '{"city": ', '"Paris"}']),
    *tool_use(2, "toolu_01BBB", "get_weather", ['{"city": "Atlantis"}']),
    *ending(),
)
TURN_2 = sse(
    message_start("msg_01T2"),
    *tool_use(0, "toolu_01CCC", "book_flight", ['{"to": "Paris", "seats": 2}']),
    *ending(),
)


def through_sdk(body: bytes) -> list[Any]:
    """The stream as Anthropic's SDK parses it (its own event objects)."""

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = anthropic_sdk.Anthropic(
        api_key="sk-ant-test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        stream = client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=256,
            messages=[{"role": "user", "content": "weather, then book"}],
            stream=True,
        )
        return list(stream)


def decode_turn(body: bytes) -> tuple[list[Any], dict[str, Any]]:
    """The Anthropic turn's events, and what its decoder says about the run's end (usage and
    the stop reason), as ``RUN_FINISHED`` keyword arguments."""
    d = anthropic.Decoder()
    events = [e for chunk in through_sdk(body) for e in d.feed(chunk)] + d.close()
    return events, {"usage": d.usage, "metadata": d.run_metadata}


def conversation() -> list[Any]:
    """The AG-UI conversation: run 1 (two parallel calls, both answered, one with an error),
    run 2 (a third call the user must confirm first)."""
    turn1, end1 = decode_turn(TURN_1)
    turn2, end2 = decode_turn(TURN_2)
    return [
        RunStartedEvent(thread_id="th-1", run_id="run-1"),
        *turn1,
        ToolCallResultEvent(
            message_id="res-A", tool_call_id="toolu_01AAA", content='{"tempC":21,"sky":"clear"}'
        ),
        ToolCallResultEvent(
            message_id="res-B",
            tool_call_id="toolu_01BBB",
            content="unknown city: Atlantis",
            metadata={RESULT_ERROR_KEY: "unknown city: Atlantis"},
        ),
        RunFinishedEvent(
            thread_id="th-1", run_id="run-1", outcome=RunFinishedSuccessOutcome(), **end1
        ),
        RunStartedEvent(thread_id="th-1", run_id="run-2"),
        *turn2,
        RunFinishedEvent(
            thread_id="th-1",
            run_id="run-2",
            outcome=RunFinishedInterruptOutcome(
                interrupts=[
                    Interrupt(
                        id="toolu_01CCC",
                        reason="tool_call_consent",
                        tool_call_id="toolu_01CCC",
                        message="Book 2 seats to Paris?",
                    )
                ]
            ),
            **end2,
        ),
    ]


#: What the conversation holds, written out: (id, name, arguments as JSON).
CALLS = [
    ("toolu_01AAA", "get_weather", {"city": "Paris"}),
    ("toolu_01BBB", "get_weather", {"city": "Atlantis"}),
    ("toolu_01CCC", "book_flight", {"to": "Paris", "seats": 2}),
]
RESULTS = {
    "toolu_01AAA": ({"tempC": 21, "sky": "clear"}, None),
    "toolu_01BBB": ("unknown city: Atlantis", "unknown city: Atlantis"),
}
#: The assistant text and the usage the Anthropic stream holds (both runs: 100 in, 40 out).
TEXT = "Both."
USAGE = ("claude-sonnet-4-5", 100, 40, 140)


def history(events: list[Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """(calls, tool messages, interrupts) of a validated AG-UI stream."""
    m = validate_stream(events)
    calls = [c for x in m.messages if isinstance(x, AssistantMessage) for c in x.tool_calls or []]
    tools = [x for x in m.messages if isinstance(x, ToolMessage)]
    interrupts = [
        i
        for e in events
        if isinstance(e, RunFinishedEvent) and isinstance(e.outcome, RunFinishedInterruptOutcome)
        for i in e.outcome.interrupts
    ]
    return calls, tools, interrupts


def parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def texts(events: list[Any]) -> list[str]:
    return [
        x.content
        for x in validate_stream(events).messages
        if isinstance(x, AssistantMessage) and x.content
    ]


def usages(events: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (u.model, u.input_tokens, u.output_tokens, u.total_tokens)
        for e in events
        if isinstance(e, RunFinishedEvent)
        for u in e.usage or []
    ]


def test_the_ag_ui_conversation_holds_what_was_written() -> None:
    events = conversation()
    assert texts(events) == [TEXT]
    assert usages(events) == [USAGE, USAGE]
    calls, tools, interrupts = history(events)
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == CALLS
    assert {t.tool_call_id: (parsed(t.content), t.error) for t in tools} == RESULTS
    assert [(i.id, i.tool_call_id) for i in interrupts] == [("toolu_01CCC", "toolu_01CCC")]


def test_asgard_frames_carry_the_whole_conversation() -> None:
    events = conversation()
    enc = asgard.Encoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frames = [f for e in events for f in enc.feed(e)] + enc.close()
    for n, frame in enumerate(frames):
        check_frame(frame, f"frame {n}")
    # nothing about a call, a result or the confirmation was lost on the way; the only losses
    # are what an Asgard frame cannot hold: the usage's provider and the stop reason
    assert [loss for loss in enc.losses if loss.tool_call_id is not None] == []
    assert [loss.kind for loss in enc.losses] == [
        "metadata-dropped",
        "usage-fields-dropped",
        "metadata-dropped",
        "usage-fields-dropped",
    ]
    assert all("anthropic.stop_reason" in loss.reason for loss in enc.losses[::2])
    assert all("provider" in loss.reason for loss in enc.losses[1::2])
    starts = [f["fact"]["toolCallStart"] for f in frames if f["eventType"].endswith("call.start")]
    assert [
        (s["toolUseId"], s["toolCall"]["toolName"], s["toolCall"]["parameter"]) for s in starts
    ] == CALLS
    completes = {
        f["fact"]["toolCallComplete"]["toolUseId"]: f["fact"]["toolCallComplete"]
        for f in frames
        if f["eventType"].endswith("complete")
        and "toolCallComplete" in f["fact"]
        and f["fact"]["toolCallComplete"] is not None
    }
    assert completes["toolu_01AAA"]["toolCallResult"] == {"tempC": 21, "sky": "clear"}
    assert completes["toolu_01BBB"]["isError"] is True
    (consent,) = [
        f["fact"]["toolCallConsent"] for f in frames if f["eventType"].endswith("consent")
    ]
    assert consent["pendingCalls"][0]["toolCallId"] == "toolu_01CCC"
    assert consent["pendingCalls"][0]["parameter"] == {"to": "Paris", "seats": 2}
    # ... and an Asgard client decoding the frames sees the same conversation
    runs: list[Any] = []
    for body in asgard.load_recording(asgard.to_sse(frames), "conversation.sse"):
        runs += list(
            asgard.decode_run(asgard.sse_chunks(body.response_body), call_ids="tool_use_id")
        )
    calls, tools, interrupts = history(runs)
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == CALLS
    assert {t.tool_call_id: (parsed(t.content), t.error) for t in tools} == RESULTS
    assert [(i.id, i.tool_call_id, i.message) for i in interrupts] == [
        ("toolu_01CCC", "toolu_01CCC", "Book 2 seats to Paris?")
    ]
    assert texts(runs) == [TEXT]
    assert usages(runs) == [USAGE, USAGE]


def test_dialogflow_tool_call_info_carries_what_it_can_hold() -> None:
    events = conversation()
    losses: list[Any] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        infos = list(dialogflow.encode_stream(events, losses=losses))
        back = list(dialogflow.decode_stream(infos))
    # Dialogflow's ToolCall has no id: the call is its action and inputParameters
    actions = [
        (i["toolCall"]["action"], i["toolCall"].get("inputParameters"))
        for i in infos
        if "toolCall" in i
    ]
    assert actions == [(name, args) for _, name, args in CALLS]
    # every ToolCallInfo is one google-cloud-dialogflow reads
    for info in infos:
        df.GeneratorSuggestion.ToolCallInfo.from_json(json.dumps(info))
    # what is lost is what ToolCallInfo has no field for: the text, usage, the stop reason,
    # and the interrupt's reason (the call's state says it waits for a human; the message
    # travels as the call's toolDisplayDetails)
    assert sorted({loss.kind for loss in losses}) == [
        "interrupt-reshaped",
        "metadata-dropped",
        "text-message-dropped",
        "usage-dropped",
    ]
    assert all(loss.tool_call_id is None or loss.kind == "interrupt-reshaped" for loss in losses)
    m = StreamMachine()
    m.feed(RunStartedEvent(thread_id="t", run_id="r"))
    for e in back:
        m.feed(e)
    calls = [c for x in m.messages if isinstance(x, AssistantMessage) for c in x.tool_calls or []]
    # the call id travels as answerRecord, so it comes back too
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == CALLS
    tools = {
        t.tool_call_id: (parsed(t.content), t.error)
        for t in m.messages
        if isinstance(t, ToolMessage)
    }
    assert tools == RESULTS
    d = dialogflow.Decoder()
    for info in infos:
        d.feed(info)
    d.close()
    (confirm,) = d.interrupts
    assert confirm.tool_call_id == "toolu_01CCC"
    assert confirm.message == "Book 2 seats to Paris?"  # carried as toolDisplayDetails


def test_both_ends_agree_on_everything_they_both_hold() -> None:
    events = conversation()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frames = list(asgard.encode_stream(events))
        infos = list(dialogflow.encode_stream(events))
    asg = [
        (
            f["fact"]["toolCallStart"]["toolCall"]["toolName"],
            f["fact"]["toolCallStart"]["toolCall"]["parameter"],
        )
        for f in frames
        if f["eventType"] == "asgard.tool_call.start"
    ]
    dfl = [
        (i["toolCall"]["action"], i["toolCall"]["inputParameters"])
        for i in infos
        if "toolCall" in i
    ]
    assert asg == dfl
    asg_err = [
        f["fact"]["toolCallComplete"].get("isError", False)
        for f in frames
        if f["eventType"] == "asgard.tool_call.complete"
    ]
    dfl_err = ["error" in i["toolCallResult"] for i in infos if "toolCallResult" in i]
    assert asg_err == dfl_err == [False, True]
    asg_confirm = [
        (c["toolName"], c["reason"])
        for f in frames
        if f["eventType"] == "asgard.tool_call.consent"
        for c in f["fact"]["toolCallConsent"]["pendingCalls"]
    ]
    dfl_confirm = [
        (i["toolCall"]["action"], i["toolCall"]["toolDisplayDetails"])
        for i in infos
        if i.get("toolCall", {}).get("state") == "NEEDS_CONFIRMATION"
    ]
    assert asg_confirm == dfl_confirm == [("book_flight", "Book 2 seats to Paris?")]
