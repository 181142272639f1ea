"""Losses are values, warned once at the surface (issue 10 point 2).

Each path of the adapter that can lose something — the stream decoder, the stream encoder
and ``encode_request`` — warns exactly once per loss, and the warning is the record its
``losses`` holds (the losses are the ones docs/adapters/gemini.md names).
"""

from __future__ import annotations

import warnings
from typing import Any

from ag_ui.core import Context, RunAgentInput, ToolCallResultEvent, UserMessage

from toolwire.adapters import gemini
from toolwire.losses import Loss, ToolwireWarning


def _warned(run: Any) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = run()
    return got, [w for w in caught if issubclass(w.category, ToolwireWarning)]


def _same(loss: Loss, warned: warnings.WarningMessage) -> None:
    assert str(warned.message) == loss.message
    assert warned.category is loss.category


def _chunk(index: int, parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    cand: dict[str, Any] = {"index": index, "content": {"role": "model", "parts": parts}}
    if finish:
        cand["finishReason"] = finish
    return {"responseId": "resp-1", "candidates": [cand]}


def test_the_decoder_warns_once_about_other_candidates_and_model_media() -> None:
    chunks = [
        _chunk(0, [{"text": "Hello"}]),
        _chunk(1, [{"text": "another answer"}]),
        _chunk(1, [{"text": "more of it"}]),  # the same loss: recorded once
        _chunk(0, [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}], "STOP"),
    ]
    decoder = gemini.Decoder()

    def run() -> list[Any]:
        out = []
        for chunk in chunks:
            out += decoder.feed(chunk)
        return out + decoder.close()

    _, warned = _warned(run)
    assert [loss.kind for loss in decoder.losses] == ["candidate-dropped", "model-media-dropped"]
    assert len(warned) == 2
    for loss, warning in zip(decoder.losses, warned, strict=True):
        _same(loss, warning)


def test_the_encoder_warns_once_about_a_client_tool_result() -> None:
    encoder = gemini.Encoder()
    result = ToolCallResultEvent(message_id="m", tool_call_id="call-1", content="18 degrees")
    _, warned = _warned(lambda: encoder.feed(result) + encoder.close())
    assert [loss.kind for loss in encoder.losses] == ["result-dropped"]
    assert len(warned) == 1
    _same(encoder.losses[0], warned[0])


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
    body, warned = _warned(lambda: gemini.encode_request(run_input, model="gemini-2.5-flash"))
    assert [loss.kind for loss in body.losses] == ["context-dropped"]
    assert len(warned) == 1
    _same(body.losses[0], warned[0])
