"""Regression tests for the weather agent, replayed from a cassette: no key, no network.

Record (once, with a key):   ANTHROPIC_API_KEY=... pytest --record-mode=once
Replay (CI, the default):     pytest
Accept a changed stream:      pytest --toolwire-update   (then review the .agui.jsonl diff)
"""

from __future__ import annotations

import anthropic
from weather_agent import converse


def test_weather_agent(toolwire_cassette):
    with toolwire_cassette("weather.yaml"):
        events = converse(anthropic.Anthropic(max_retries=0), "Weather in Paris and time in Tokyo?")
    toolwire_cassette.assert_snapshot(events)


def test_the_agent_answers_both_calls(toolwire_cassette):
    with toolwire_cassette("weather.yaml"):
        events = converse(anthropic.Anthropic(max_retries=0), "Weather in Paris and time in Tokyo?")
    calls = [e.tool_call_name for e in events if e.type == "TOOL_CALL_START"]
    assert calls == ["get_weather", "get_time"]
    assert [e.type for e in events].count("RUN_FINISHED") == 2
