"""toolwire.testing.calls_from_events: the same view of a stream from event objects and JSON."""

from __future__ import annotations

import pytest
from ag_ui.core import ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent

from toolwire.errors import UnsupportedInput
from toolwire.testing.calls import calls_from_events

# two interleaved calls, the second with no arguments at all (AG-UI allows both)
EVENTS = [
    ToolCallStartEvent(tool_call_id="a", tool_call_name="get_weather"),
    ToolCallArgsEvent(tool_call_id="a", delta='{"city": '),
    ToolCallStartEvent(tool_call_id="b", tool_call_name="now"),
    ToolCallArgsEvent(tool_call_id="a", delta='"Oslo"}'),
    ToolCallEndEvent(tool_call_id="a"),
    ToolCallEndEvent(tool_call_id="b"),
]
WANT = [("a", "get_weather", '{"city": "Oslo"}'), ("b", "now", "")]


def test_objects_and_their_json_give_the_same_calls_in_start_order() -> None:
    as_json = [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in EVENTS]
    assert calls_from_events(EVENTS) == WANT
    assert calls_from_events(as_json) == WANT
    assert calls_from_events(iter(EVENTS))[0].arguments == '{"city": "Oslo"}'


def test_arguments_for_a_call_that_never_started_are_an_error() -> None:
    with pytest.raises(UnsupportedInput, match=r"event 0: TOOL_CALL_ARGS for 'x'"):
        calls_from_events([ToolCallArgsEvent(tool_call_id="x", delta="{}")])
