"""Request bodies both ways: a recorded history decodes and encodes back; ids from other
vendors are mapped to nine letters and digits, a call and its result together; parts are
fitted by the capability rows; the SDK's own request model takes what is sent."""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest
from _mistral_support import load
from ag_ui.core import (
    AssistantMessage,
    DataSource,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    RunAgentInput,
    TextPart,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from mistralai.client.models import ChatCompletionStreamRequest

from toolwire.adapters import mistral as adapter
from toolwire.losses import PartsDroppedWarning

NINE = re.compile(r"[a-zA-Z0-9]{9}")
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
    "AAAABJRU5ErkJggg=="
)


def _quiet(fn: Any, *args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _run(*messages: Any) -> RunAgentInput:
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=list(messages),
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def test_a_recorded_history_decodes_and_encodes_back() -> None:
    body, _ = load("history_with_image.yaml")
    run = adapter.decode_request(body)
    assert [type(m).__name__ for m in run.messages] == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolMessage",
    ]
    image = run.messages[1].content[1]
    assert isinstance(image, ImagePart) and isinstance(image.source, UrlSource)
    assert run.messages[3].tool_call_id == run.messages[2].tool_calls[0].id == "N1ceWx001"
    again = _quiet(adapter.encode_request, run, model=body["model"], stream=True)
    assert again == body and again.losses == []


def test_foreign_ids_are_mapped_with_their_results_and_reported() -> None:
    calls = [
        ToolCall(
            id="toolu_01A09q90qw90lq917835lq9", function=FunctionCall(name="a", arguments="{}")
        ),
        ToolCall(id="call_abc", function=FunctionCall(name="b", arguments="")),
        ToolCall(id="Ok1234567", function=FunctionCall(name="c", arguments='{"x":1}')),
    ]
    run = _run(
        UserMessage(id="u", content="go"),
        AssistantMessage(id="a", tool_calls=calls),
        *[
            ToolMessage(id=f"r{i}", tool_call_id=c.id, content=f"done {i}")
            for i, c in enumerate(calls)
        ],
    )
    sent = _quiet(adapter.encode_request, run, model="mistral-large-latest")
    made = [c["id"] for c in sent["messages"][1]["tool_calls"]]
    answered = [m["tool_call_id"] for m in sent["messages"][2:]]
    assert made == answered and len(set(made)) == 3
    assert all(NINE.fullmatch(i) for i in made)
    assert made[2] == "Ok1234567"  # a conforming id is sent as it is
    remapped = [loss for loss in sent.losses if loss.kind == "call-id-remapped"]
    assert [loss.tool_call_id for loss in remapped] == [calls[0].id, calls[1].id]
    assert _quiet(adapter.encode_request, run, model="mistral-large-latest") == sent
    # each tool message names its function, and empty arguments become the object the API wants
    assert [m["name"] for m in sent["messages"][2:]] == ["a", "b", "c"]
    assert sent["messages"][1]["tool_calls"][1]["function"]["arguments"] == "{}"


def test_reasoning_becomes_a_thinking_chunk_and_comes_back() -> None:
    run = _run(
        UserMessage(id="u", content="Is 221 prime?"),
        ReasoningMessage(id="re", content="221 = 13 × 17."),
        AssistantMessage(id="a", content="No."),
    )
    sent = _quiet(adapter.encode_request, run, model="magistral-medium-latest")
    assert sent["messages"][1]["content"] == [
        {"type": "thinking", "thinking": [{"type": "text", "text": "221 = 13 × 17."}]},
        {"type": "text", "text": "No."},
    ]
    back = adapter.decode_request(sent)
    assert isinstance(back.messages[1], ReasoningMessage)
    assert back.messages[1].content == "221 = 13 × 17." and back.messages[2].content == "No."


def _image_result(model: str, **kw: Any) -> Any:
    image = ImagePart(source=DataSource(value=PNG, mime_type="image/png"))
    call = ToolCall(id="Shot12345", function=FunctionCall(name="screenshot", arguments="{}"))
    run = _run(
        UserMessage(id="u", content=[TextPart(text="look"), image]),
        AssistantMessage(id="a", tool_calls=[call]),
        ToolMessage(
            id="t",
            tool_call_id="Shot12345",
            content=[TextPart(text="taken"), image],
            error="blurry",
        ),
    )
    return adapter.encode_request(run, model=model, **kw)


def test_a_text_only_model_drops_the_user_image_with_a_hint() -> None:
    with pytest.warns(PartsDroppedWarning):
        sent = _image_result("codestral-latest")
    assert sent["messages"][0]["content"] == [{"type": "text", "text": "look"}]
    assert any("vision model" in (loss.upgrade or "") for loss in sent.losses)


def test_tool_result_media_drops_or_relocates_and_the_error_reaches_the_model() -> None:
    with pytest.warns(PartsDroppedWarning):
        sent = _image_result("mistral-medium-latest")
    assert sent["messages"][0]["content"][1]["type"] == "image_url"
    assert sent["messages"][2]["content"] == "taken\n\nError: blurry"
    assert len(sent["messages"]) == 3
    moved = _quiet(_image_result, "mistral-medium-latest", media="relocate")
    assert moved["messages"][3]["role"] == "user"
    kinds = [c["type"] for c in moved["messages"][3]["content"]]
    assert kinds == ["text", "image_url"]
    assert "Shot12345" in moved["messages"][3]["content"][0]["text"]


def test_the_sdk_request_model_takes_every_body() -> None:
    body, _ = load("history_with_image.yaml")
    for sent in (
        _quiet(adapter.encode_request, adapter.decode_request(body), model="mistral-medium-latest"),
        _quiet(_image_result, "mistral-medium-latest", media="relocate"),
    ):
        ChatCompletionStreamRequest.model_validate(sent)


def test_a_thinking_signature_goes_back_to_mistral_and_to_no_one_else() -> None:
    body = {
        "model": "magistral-medium-latest",
        "messages": [
            {"role": "user", "content": "Is 221 prime?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": [{"type": "text", "text": "13 × 17."}],
                        "signature": "sig-opaque-0001",
                    },
                    {"type": "text", "text": "No."},
                ],
            },
            {"role": "user", "content": "Why?"},
        ],
    }
    run = adapter.decode_request(body)
    reasoning = run.messages[1]
    assert isinstance(reasoning, ReasoningMessage)
    assert reasoning.encrypted_value == "sig-opaque-0001"
    assert _quiet(adapter.encode_request, run, model=body["model"]) == body
    from toolwire.adapters import cohere

    elsewhere = _quiet(cohere.encode_request, run, model="command-a-03-2025")
    assert "sig-opaque-0001" not in str(elsewhere)
    assert any(loss.kind == "encrypted-value-dropped" for loss in elsewhere.losses)
