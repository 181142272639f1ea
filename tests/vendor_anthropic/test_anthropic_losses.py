"""Losses are values, warned once at the surface (issue 10 point 2).

Each path of the adapter that can lose something — the stream decoder, the stream encoder
and ``encode_request`` — warns exactly once per loss, and the warning is the record its
``losses`` holds (the loss kinds are the ones docs/adapters/anthropic.md names).
"""

from __future__ import annotations

import warnings
from typing import Any

from ag_ui.core import (
    EventType,
    ReasoningMessage,
    RunAgentInput,
    ToolCallResultEvent,
    UserMessage,
)

from toolwire.adapters import anthropic
from toolwire.losses import ContentLossWarning, Loss, ToolwireWarning


def _warned(run: Any) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = run()
    return got, [w for w in caught if issubclass(w.category, ToolwireWarning)]


def _same(loss: Loss, warned: warnings.WarningMessage) -> None:
    assert str(warned.message) == loss.message
    assert warned.category is loss.category


def test_the_decoder_warns_once_about_an_unpacked_document() -> None:
    document = {"type": "document", "source": {"type": "content", "content": "page text"}}
    chunks = [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": {}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {
                "type": "mcp_tool_use",
                "id": "mcptoolu_1",
                "name": "fetch",
                "server_name": "docs",
                "input": {},
            },
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "mcp_tool_result",
                "tool_use_id": "mcptoolu_1",
                "content": [document],
            },
        },
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]
    decoder = anthropic.Decoder()

    def run() -> list[Any]:
        out = []
        for chunk in chunks:
            out += decoder.feed(chunk)
        return out + decoder.close()

    events, warned = _warned(run)
    assert [loss.kind for loss in decoder.losses] == ["document-unpacked"]
    assert len(warned) == 1
    _same(decoder.losses[0], warned[0])
    assert warned[0].category is ContentLossWarning
    result = next(e for e in events if e.type == EventType.TOOL_CALL_RESULT)
    assert result.content[0].text == "page text"  # the document's text is kept as a part


def test_the_encoder_warns_once_about_a_client_tool_result() -> None:
    encoder = anthropic.Encoder()
    result = ToolCallResultEvent(message_id="m", tool_call_id="toolu_1", content="18 degrees")

    def run() -> list[Any]:
        return encoder.feed(result) + encoder.feed(result) + encoder.close()

    _, warned = _warned(run)
    assert [loss.kind for loss in encoder.losses] == ["tool-result-dropped"]
    assert len(warned) == 1
    _same(encoder.losses[0], warned[0])


def test_encode_request_warns_once_about_unsigned_reasoning() -> None:
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[
            UserMessage(id="u", content="hi"),
            ReasoningMessage(id="think", content="thinking, unsigned"),
        ],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    body, warned = _warned(lambda: anthropic.encode_request(run_input, model="claude-sonnet-4-5"))
    assert [loss.kind for loss in body.losses] == ["reasoning-dropped"]
    assert len(warned) == 1
    _same(body.losses[0], warned[0])
