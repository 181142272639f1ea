"""Losses are values, warned once at the surface (issue 10 point 2).

Each path of the adapter that can lose something (the stream decoder, the stream encoder,
``encode_request``) warns exactly once per loss, and each warning is the record its
``losses`` holds: same category, same message. The kinds are the ones
docs/adapters/anthropic.md names.
"""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import (
    EventType,
    ReasoningMessage,
    RunAgentInput,
    ToolCallResultEvent,
    UserMessage,
)

from toolwire.adapters import anthropic
from toolwire.losses import ContentLossWarning

_MCP_CALL = {
    "type": "mcp_tool_use",
    "id": "mcptoolu_1",
    "name": "fetch",
    "server_name": "docs",
    "input": {},
}
#: a custom-content document: unpacked into its own parts, with a loss
_DOCUMENT = {"type": "document", "source": {"type": "content", "content": "page text"}}
_STREAM: list[dict[str, Any]] = [
    {"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": {}}},
    {"type": "content_block_start", "index": 0, "content_block": _MCP_CALL},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_1",
            "content": [_DOCUMENT],
        },
    },
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
    {"type": "message_stop"},
]


def test_the_decoder_warns_once_about_an_unpacked_document() -> None:
    decoder = anthropic.Decoder()
    with pytest.warns(ContentLossWarning) as caught:
        events = [e for chunk in _STREAM for e in decoder.feed(chunk)] + decoder.close()
    assert [loss.kind for loss in decoder.losses] == ["document-unpacked"]
    assert [(w.category, str(w.message)) for w in caught] == [
        (loss.category, loss.message) for loss in decoder.losses
    ]
    result = next(e for e in events if e.type == EventType.TOOL_CALL_RESULT)
    assert result.content[0].text == "page text"  # the document's text is kept as a part


def test_the_encoder_warns_once_about_a_client_tool_result() -> None:
    encoder = anthropic.Encoder()
    result = ToolCallResultEvent(message_id="m", tool_call_id="toolu_1", content="18 degrees")
    with pytest.warns(ContentLossWarning) as caught:
        encoder.feed(result)
        encoder.feed(result)  # the same loss again: recorded and warned once
        encoder.close()
    assert [loss.kind for loss in encoder.losses] == ["tool-result-dropped"]
    assert [(w.category, str(w.message)) for w in caught] == [
        (loss.category, loss.message) for loss in encoder.losses
    ]


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
    with pytest.warns(ContentLossWarning) as caught:
        body = anthropic.encode_request(run_input, model="claude-sonnet-4-5")
    assert [loss.kind for loss in body.losses] == ["reasoning-dropped"]
    assert [(w.category, str(w.message)) for w in caught] == [
        (loss.category, loss.message) for loss in body.losses
    ]
