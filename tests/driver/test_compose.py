"""``toolwire.RunComposer``: several model turns and tool results as ONE checked AG-UI run."""

from __future__ import annotations

from typing import Any

import pytest
from _agent_support import agent_input, turn_events
from ag_ui.core import (
    CustomEvent,
    EventType,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TokenUsage,
    ToolMessage,
)

import toolwire
from toolwire import adapters
from toolwire.errors import ToolwireError
from toolwire.protocol import validate_stream


def _with_usage(events: list[Any], **usage: Any) -> list[Any]:
    end = events[-1]
    return [*events[:-1], end.model_copy(update={"usage": [TokenUsage(**usage)]})]


def test_two_turns_and_a_result_make_one_run_with_ids_unique_across_turns() -> None:
    c = toolwire.RunComposer(agent_input())
    out = list(c.start())
    # both turns name their message msg_1 and their call call_1 (a replayed vendor id)
    out += c.turn(turn_events([("call_1", "get_weather", {"city": "Oslo"})]))
    assert [x.id for x in c.turn_calls] == ["call_1"]
    out += c.result("call_1", "rain")
    out += c.turn(turn_events([("call_1", "get_weather", {"city": "Bergen"})], text="And?"))
    (second_call,) = c.turn_calls
    assert second_call.id != "call_1" and second_call.arguments == '{"city": "Bergen"}'
    out += c.finish()

    machine = validate_stream(out)
    types = [e.type for e in out]
    assert types.count(EventType.RUN_STARTED) == 1 and types[-1] == EventType.RUN_FINISHED
    starts = [e.message_id for e in out if e.type == EventType.TEXT_MESSAGE_START]
    parents = [e.parent_message_id for e in out if e.type == EventType.TOOL_CALL_START]
    assert parents[0] == "msg_1" and parents[1] != "msg_1" and starts == [parents[1]]
    assert out[-1].outcome.pending_tool_call_ids == [second_call.id]
    # the history for the next request: the user's message, two assistant messages, one result
    history = c.next_input().messages
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant"]
    assert [m.role for m in machine.messages] == [m.role for m in history]
    assert history[2].tool_call_id == "call_1"
    assert history[3].tool_calls[0].id == second_call.id


def test_usage_is_summed_per_provider_and_model_and_the_last_turn_names_the_reason() -> None:
    c = toolwire.RunComposer(agent_input())
    out = list(c.start())
    one = _with_usage(turn_events(text="a"), provider="p", model="m1", input_tokens=3)
    one[-1] = one[-1].model_copy(update={"metadata": {"toolwire.finishReason": "tool_calls"}})
    two = _with_usage(
        turn_events(text="b", message_id="msg_2"),
        provider="p",
        model="m1",
        input_tokens=4,
        output_tokens=2,
    )
    two[-1] = two[-1].model_copy(update={"metadata": {"toolwire.finishReason": "stop"}})
    three = _with_usage(
        turn_events(text="c", message_id="msg_3"), provider="p", model="m2", output_tokens=7
    )
    three[-1] = three[-1].model_copy(update={"metadata": {"toolwire.finishReason": "length"}})
    for t in (one, two, three):
        out += c.turn(t)
    out += c.finish()
    end = out[-1]
    by_model = {u.model: u for u in end.usage}
    assert by_model["m1"].input_tokens == 7 and by_model["m1"].output_tokens == 2
    assert by_model["m2"].output_tokens == 7 and by_model["m2"].input_tokens is None
    assert end.metadata == {"toolwire.finishReason": "length"}
    assert c.finish_reason == "length"
    validate_stream(out)


def test_forwarded_losses_are_merged_into_one_event_each_once() -> None:
    first = {"kind": "part_dropped", "toolCallId": "call_1", "message": "image dropped"}
    second = {"kind": "part_dropped", "toolCallId": "call_2", "message": "image dropped"}

    def with_losses(events: list[Any], records: list[dict[str, Any]]) -> list[Any]:
        return [*events[:-1], CustomEvent(name="toolwire.losses", value=records), events[-1]]

    c = toolwire.RunComposer(agent_input())
    out = list(c.start())
    out += c.turn(with_losses(turn_events(text="a"), [first]))
    out += c.turn(with_losses(turn_events(text="b", message_id="m2"), [first, second]))
    out += c.finish()
    customs = [e for e in out if e.type == EventType.CUSTOM]
    assert len(customs) == 1 and customs[0].value == [first, second]
    assert out[-2] is customs[0]


def test_an_sdk_stream_is_a_turn_through_the_adapters_decoder() -> None:
    anthropic = adapters.get("anthropic")
    chunks = list(anthropic.encode_stream(turn_events([("toolu_1", "get_weather", {"c": 1})])))
    c = toolwire.RunComposer(agent_input())
    out = list(c.start())
    out += c.stream(anthropic.Decoder(), chunks)
    out += c.result("toolu_1", "sunny", error=None)
    out += c.stream(anthropic.Decoder(), chunks)  # the same bytes again: new ids
    out += c.finish()
    validate_stream(out)
    calls = [e.tool_call_id for e in out if e.type == EventType.TOOL_CALL_START]
    assert calls[0] == "toolu_1" and calls[1] != "toolu_1"
    assert out[-1].outcome.pending_tool_call_ids == [calls[1]]
    assert sum(u.input_tokens or 0 for u in out[-1].usage) == 20


def test_a_turn_that_fails_ends_the_run_with_the_usage_so_far() -> None:
    c = toolwire.RunComposer(agent_input())
    out = list(c.start())
    out += c.turn(_with_usage(turn_events(text="a"), input_tokens=5))
    failing = [
        RunStartedEvent(thread_id="t", run_id="r2"),
        RunErrorEvent(message="overloaded", code="overloaded_error"),
    ]
    out += c.turn(failing)
    assert c.ended and out[-1].type == EventType.RUN_ERROR
    assert out[-1].code == "overloaded_error" and out[-1].usage[0].input_tokens == 5
    validate_stream(out)
    with pytest.raises(ToolwireError, match="ended"):
        c.result("x", "late")


def test_a_result_with_an_error_reaches_the_history_as_the_tools_error() -> None:
    c = toolwire.RunComposer(agent_input())
    out = list(c.start())
    out += c.turn(turn_events([("call_1", "get_weather", {})]))
    out += c.result("call_1", "get_weather failed: boom", error="get_weather failed: boom")
    out += c.finish()
    tool = c.next_input().messages[-1]
    assert isinstance(tool, ToolMessage) and tool.error == "get_weather failed: boom"
    assert out[-1].outcome.pending_tool_call_ids is None
    assert isinstance(out[-1], RunFinishedEvent)


def test_misuse_is_a_clear_error() -> None:
    c = toolwire.RunComposer(agent_input())
    with pytest.raises(ToolwireError, match="start"):
        c.result("x", "y")
    c.start()
    with pytest.raises(ToolwireError, match="already started"):
        c.start()
    c.feed(turn_events(text="a")[1])
    with pytest.raises(ToolwireError, match="turn is open"):
        c.result("x", "y")
