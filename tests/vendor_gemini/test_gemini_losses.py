"""Losses are values, warned once at the surface (issue 10 point 2).

Each path of the adapter that can lose something (the stream decoder, the stream encoder,
``encode_request``) warns exactly once per loss, and each warning is the record its
``losses`` holds: same category, same message. The losses are the ones
docs/adapters/gemini.md names.
"""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import Context, RunAgentInput, ToolCallResultEvent, UserMessage

from toolwire.adapters import gemini
from toolwire.losses import ToolwireWarning


def _chunk(index: int, parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    cand: dict[str, Any] = {"index": index, "content": {"role": "model", "parts": parts}}
    if finish:
        cand["finishReason"] = finish
    return {"responseId": "resp-1", "candidates": [cand]}


_IMAGE = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
_STREAM = [
    _chunk(0, [{"text": "Hello"}]),
    _chunk(1, [{"text": "another answer"}]),
    _chunk(1, [{"text": "more of it"}]),  # the same loss again: recorded once
    _chunk(0, [_IMAGE], "STOP"),  # media in the model's answer
]


def test_the_decoder_warns_once_about_other_candidates_and_model_media() -> None:
    decoder = gemini.Decoder()
    with pytest.warns(ToolwireWarning) as caught:
        for chunk in _STREAM:
            decoder.feed(chunk)
        decoder.close()
    assert [loss.kind for loss in decoder.losses] == ["candidate-dropped", "model-media-dropped"]
    assert [(w.category, str(w.message)) for w in caught] == [
        (loss.category, loss.message) for loss in decoder.losses
    ]


def test_the_encoder_warns_once_about_a_client_tool_result() -> None:
    encoder = gemini.Encoder()
    result = ToolCallResultEvent(message_id="m", tool_call_id="call-1", content="18 degrees")
    with pytest.warns(ToolwireWarning) as caught:
        encoder.feed(result)
        encoder.close()
    assert [loss.kind for loss in encoder.losses] == ["result-dropped"]
    assert [(w.category, str(w.message)) for w in caught] == [
        (loss.category, loss.message) for loss in encoder.losses
    ]


def test_encode_request_warns_once_about_context() -> None:
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u", content="hi")],
        tools=[],
        context=[Context(description="city", value="Paris")],
        state=None,
        forwarded_props=None,
    )
    with pytest.warns(ToolwireWarning) as caught:
        body = gemini.encode_request(run_input, model="gemini-2.5-flash")
    assert [loss.kind for loss in body.losses] == ["context-dropped"]
    assert [(w.category, str(w.message)) for w in caught] == [
        (loss.category, loss.message) for loss in body.losses
    ]
