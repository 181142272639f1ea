"""AG-UI -> Asgard frames: well-formed per the platform's types, and decoded back unchanged."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from _asgard_shapes import check_frame
from ag_ui.core import (
    DataSource,
    ImagePart,
    Interrupt,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    TextPart,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from conftest import replay_cassette
from toolwire import ContentLossWarning, PartsDroppedWarning, ToolwireWarning
from toolwire.adapters import asgard
from toolwire.errors import ProtocolViolation, TruncatedStream
from toolwire.protocol import parse_sse, validate_stream


def dumps(events: Any) -> list[dict[str, Any]]:
    return [e.model_dump(by_alias=True, exclude_none=True) for e in events]


@pytest.mark.parametrize(
    "name",
    ["parallel_calls.yaml", "consent.yaml", "subagents.yaml", "edge_cases.yaml", "rejoin.yaml"],
)
@pytest.mark.parametrize("call_ids", ["process_seq", "tool_use_id"])
def test_decode_encode_decode_is_identity(name: str, call_ids: str) -> None:
    for ex in replay_cassette(name):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frames = list(asgard.sse_chunks(ex.body))
            first = list(asgard.decode_run(frames, call_ids=call_ids))
            encoded = list(asgard.encode_stream(first))
            body = asgard.to_sse(encoded)
            again = list(asgard.decode_run(asgard.sse_chunks(body), call_ids=call_ids))
        for n, frame in enumerate(encoded):
            check_frame(frame, f"encoded frame {n}")
        assert dumps(again) == dumps(first)


def test_sse_framing_is_data_lines_with_lf() -> None:
    run = [RunStartedEvent(thread_id="t", run_id="r"), RunFinishedEvent(thread_id="t", run_id="r")]
    frames = list(asgard.encode_stream(run))
    body = asgard.to_sse(frames)
    assert body.startswith(b"data: {") and body.endswith(b"}\n\n") and b"\r" not in body
    assert b"event:" not in body  # the type is in the JSON
    assert [json.loads(e.data) for e in parse_sse(body)] == frames


def anthropic_like_run() -> list[Any]:
    """A turn as another vendor's decoder gives it: its own ids, args text with spaces."""
    return [
        RunStartedEvent(thread_id="th", run_id="run-9"),
        ToolCallStartEvent(
            tool_call_id="toolu_01AAA", tool_call_name="get_weather", parent_message_id="msg_1"
        ),
        ToolCallArgsEvent(tool_call_id="toolu_01AAA", delta='{"city": '),
        ToolCallArgsEvent(tool_call_id="toolu_01AAA", delta='"Paris"}'),
        ToolCallEndEvent(tool_call_id="toolu_01AAA"),
        ToolCallStartEvent(
            tool_call_id="toolu_01BBB", tool_call_name="get_weather", parent_message_id="msg_1"
        ),
        ToolCallArgsEvent(tool_call_id="toolu_01BBB", delta='{"city": "Tokyo"}'),
        ToolCallEndEvent(tool_call_id="toolu_01BBB"),
        ToolCallResultEvent(message_id="res1", tool_call_id="toolu_01AAA", content="sunny"),
        ToolCallResultEvent(
            message_id="res2",
            tool_call_id="toolu_01BBB",
            content="no such city",
            metadata={"toolwire.error": "no such city"},
        ),
        RunFinishedEvent(
            thread_id="th",
            run_id="run-9",
            outcome=RunFinishedInterruptOutcome(
                interrupts=[
                    Interrupt(
                        id="int-1", reason="approval", tool_call_id="toolu_01AAA", message="ok?"
                    )
                ]
            ),
        ),
    ]


def test_foreign_calls_keep_ids_names_and_arguments() -> None:
    frames = list(asgard.encode_stream(anthropic_like_run()))
    for n, frame in enumerate(frames):
        check_frame(frame, f"frame {n}")
    kinds = [f["eventType"] for f in frames]
    assert kinds == [
        "asgard.run.init",
        "asgard.tool_call.start",
        "asgard.tool_call.start",
        "asgard.tool_call.complete",
        "asgard.tool_call.complete",
        "asgard.tool_call.consent",
        "asgard.run.done",
    ]
    s1, s2 = frames[1]["fact"]["toolCallStart"], frames[2]["fact"]["toolCallStart"]
    assert (s1["toolUseId"], s2["toolUseId"]) == ("toolu_01AAA", "toolu_01BBB")
    assert (s1["processId"], s1["callSeq"], s2["callSeq"]) == ("run-9", 0, 1)
    assert s1["toolCall"]["parameter"] == {"city": "Paris"}
    c2 = frames[4]["fact"]["toolCallComplete"]
    assert c2["isError"] is True and c2["toolCallResult"] == "no such city"
    assert "isError" not in frames[3]["fact"]["toolCallComplete"]
    consent = frames[5]["fact"]["toolCallConsent"]
    assert consent["pendingCalls"] == [
        {
            "toolCallId": "int-1",
            "toolsetName": "",
            "toolName": "get_weather",
            "parameter": {"city": "Paris"},
            "alreadyAllowed": False,
            "reason": "ok?",
        }
    ]
    # back to AG-UI, with the ids toolwire put in toolUseId
    events = list(asgard.decode_run(frames, call_ids="tool_use_id"))
    m = validate_stream(events)
    calls = [c for a in m.messages if a.role == "assistant" for c in a.tool_calls or []]
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("toolu_01AAA", "get_weather", {"city": "Paris"}),
        ("toolu_01BBB", "get_weather", {"city": "Tokyo"}),
    ]
    tools = {t.tool_call_id: t for t in m.messages if t.role == "tool"}
    assert tools["toolu_01AAA"].content == "sunny" and tools["toolu_01AAA"].error is None
    assert tools["toolu_01BBB"].error == "no such city"
    (it,) = events[-1].outcome.interrupts
    assert (it.id, it.tool_call_id, it.message) == ("int-1", None, "ok?")


def test_what_asgard_cannot_carry_is_a_loss_with_a_warning() -> None:
    img = ImagePart(source=DataSource(value="aGk=", mime_type="image/png"))
    events = [
        RunStartedEvent(thread_id="t", run_id="r"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
        ToolCallArgsEvent(tool_call_id="c1", delta="[1, 2]"),
        ToolCallEndEvent(tool_call_id="c1"),
        ToolCallStartEvent(tool_call_id="c2", tool_call_name="g"),
        ToolCallArgsEvent(tool_call_id="c2", delta='{"a": 1, "a": 2}'),
        ToolCallEndEvent(tool_call_id="c2"),
        ToolCallResultEvent(
            message_id="m1", tool_call_id="c1", content=[TextPart(text="see "), img]
        ),
        ToolCallResultEvent(message_id="m2", tool_call_id="c2", content=[img]),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    enc = asgard.Encoder()
    with pytest.warns(ToolwireWarning) as caught:
        frames = [f for e in events for f in enc.feed(e)] + enc.close()
    assert any(issubclass(w.category, PartsDroppedWarning) for w in caught)
    kinds = [loss.kind for loss in enc.losses]
    assert kinds.count("part-dropped") == 2
    assert "arguments-not-object" in kinds and "arguments-duplicate-keys" in kinds
    starts = [f["fact"]["toolCallStart"] for f in frames if f["eventType"].endswith("start")]
    assert starts[0]["toolCall"]["parameter"] == {}  # no invented wrapper key
    results = [
        f["fact"]["toolCallComplete"]["toolCallResult"]
        for f in frames
        if f["eventType"].endswith("complete")
    ]
    assert results == ["see ", ""]  # the call is answered, with no placeholder


def test_a_bare_turn_gets_an_implicit_run() -> None:
    frames = list(
        asgard.encode_stream(
            [
                ToolCallStartEvent(tool_call_id="c", tool_call_name="f"),
                ToolCallEndEvent(tool_call_id="c"),
            ],
            run_id="R",
            thread_id="T",
        )
    )
    assert [f["eventType"] for f in frames] == [
        "asgard.run.init",
        "asgard.tool_call.start",
        "asgard.run.done",
    ]
    assert frames[0]["requestId"] == "R" and frames[0]["customChannelId"] == "T"
    assert frames[1]["fact"]["toolCallStart"]["toolCall"]["parameter"] == {}


def test_an_open_explicit_run_is_not_closed_for_it() -> None:
    enc = asgard.Encoder()
    frames = enc.feed(RunStartedEvent(thread_id="t", run_id="r"))
    with pytest.raises(ProtocolViolation, match="truncated"):
        enc.close()  # a cut run is never given run.done (issue 12)
    assert [f["eventType"] for f in frames] == ["asgard.run.init"]
    with pytest.raises(TruncatedStream, match=r"no asgard\.run\.done"):
        list(asgard.decode_stream(frames))


def test_a_late_run_error_after_run_finished_opens_no_new_run() -> None:
    from ag_ui.core import RunErrorEvent

    enc = asgard.Encoder()
    frames: list[dict[str, Any]] = []
    for ev in (
        RunStartedEvent(thread_id="t", run_id="r"),
        RunFinishedEvent(thread_id="t", run_id="r"),
        RunErrorEvent(message="late failure", code="E"),
    ):
        frames += enc.feed(ev)
    frames += enc.close()
    assert [f["eventType"] for f in frames] == [
        "asgard.run.init",
        "asgard.run.done",
        "asgard.run.error",
    ]


def test_metadata_from_other_vendors_is_a_reported_loss_not_a_silent_one() -> None:
    # seed-peers §3.5 / issue 7: what Asgard cannot carry is a loss with a warning. Frames have
    # no metadata field: another vendor's facts on a call, a result or the run cannot travel.
    from ag_ui.core import TokenUsage

    events = [
        RunStartedEvent(thread_id="t", run_id="r"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", metadata={"openai": {"x": 1}}),
        ToolCallArgsEvent(tool_call_id="c1", delta="{}"),
        ToolCallEndEvent(tool_call_id="c1"),
        ToolCallResultEvent(
            message_id="m1",
            tool_call_id="c1",
            content="ok",
            metadata={"anthropic.block": {"type": "web_search_tool_result"}},
        ),
        RunFinishedEvent(
            thread_id="t",
            run_id="r",
            usage=[TokenUsage(model="m", input_tokens=3, output_tokens=4, total_tokens=7)],
            metadata={"anthropic.stop_reason": "tool_use"},
        ),
    ]
    enc = asgard.Encoder()
    with pytest.warns(ContentLossWarning, match="metadata-dropped"):
        frames = [f for e in events for f in enc.feed(e)] + enc.close()
    for n, frame in enumerate(frames):
        check_frame(frame, f"frame {n}")
    dropped = [(loss.kind, loss.tool_call_id) for loss in enc.losses]
    assert dropped == [
        ("metadata-dropped", "c1"),
        ("metadata-dropped", "c1"),
        ("metadata-dropped", None),
    ]
    reasons = " ".join(loss.reason for loss in enc.losses)
    for key in ("'openai'", "'anthropic.block'", "'anthropic.stop_reason'"):
        assert key in reasons
    # the usage itself travels (model and the three counts): no loss for it
    (usage,) = [
        f["fact"]["completionModelUsage"] for f in frames if f["eventType"].endswith("usage")
    ]
    assert (usage["inputTokens"], usage["outputTokens"], usage["totalTokens"]) == (3, 4, 7)
