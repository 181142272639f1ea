"""Request bodies both ways: a recorded history (plan + calls, a document result) decodes
and encodes back; a JSON result becomes a document; media in results is dropped or moved
to a user message; the SDK's own request types take what is sent."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _cohere_support import load
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
    UserMessage,
)
from cohere.types import ChatMessageV2, ToolV2
from pydantic import TypeAdapter

from toolwire.adapters import cohere as adapter
from toolwire.losses import PartsDroppedWarning

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
    body, _ = load("thinking_and_citations.yaml")
    run = adapter.decode_request(body)
    _user, assistant, result = run.messages
    assert isinstance(assistant, AssistantMessage)
    assert assistant.content == "I will check the weather."  # the plan is its text
    assert assistant.tool_calls[0].id == result.tool_call_id == "get_weather_0s10w3a7h3r0"
    (part,) = result.content
    assert part.metadata == {"cohere.document_id": "weather-oslo"}
    again = _quiet(
        adapter.encode_request,
        run,
        model=body["model"],
        thinking=body["thinking"],
        stream=True,
    )
    assert again == body and again.losses == []


def test_a_json_result_is_a_document_and_the_error_a_text_item() -> None:
    call = ToolCall(id="c1", function=FunctionCall(name="lookup", arguments=""))
    run = _run(
        UserMessage(id="u", content="go"),
        AssistantMessage(id="a", content="Looking.", tool_calls=[call]),
        ToolMessage(id="t", tool_call_id="c1", content='{"rows": 3}', error="partial"),
    )
    sent = _quiet(adapter.encode_request, run, model="command-a-03-2025")
    assistant, tool = sent["messages"][1], sent["messages"][2]
    assert assistant == {
        "role": "assistant",
        "tool_plan": "Looking.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        ],
    }
    assert tool == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [
            {"type": "document", "document": {"data": {"rows": 3}}},
            {"type": "text", "text": "Error: partial"},
        ],
    }


def test_reasoning_becomes_a_thinking_item_and_comes_back() -> None:
    run = _run(
        UserMessage(id="u", content="Is 221 prime?"),
        ReasoningMessage(id="re", content="13 × 17."),
        AssistantMessage(id="a", content="No."),
    )
    sent = _quiet(adapter.encode_request, run, model="command-a-reasoning-08-2025")
    assert sent["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "13 × 17."},
        {"type": "text", "text": "No."},
    ]
    back = adapter.decode_request(sent)
    assert back.messages[1].content == "13 × 17." and back.messages[2].content == "No."


def _image_result(model: str, **kw: Any) -> Any:
    image = ImagePart(source=DataSource(value=PNG, mime_type="image/png"))
    call = ToolCall(id="shot_1", function=FunctionCall(name="screenshot", arguments="{}"))
    run = _run(
        UserMessage(id="u", content=[TextPart(text="look"), image]),
        AssistantMessage(id="a", tool_calls=[call]),
        ToolMessage(id="t", tool_call_id="shot_1", content=[TextPart(text="taken"), image]),
    )
    return adapter.encode_request(run, model=model, **kw)


def test_images_go_only_to_a_vision_model_s_user_messages() -> None:
    with pytest.warns(PartsDroppedWarning):
        text_only = _image_result("command-a-03-2025")
    assert text_only["messages"][0]["content"] == [{"type": "text", "text": "look"}]
    with pytest.warns(PartsDroppedWarning):
        vision = _image_result("command-a-vision-07-2025")
    assert vision["messages"][0]["content"][1]["type"] == "image_url"
    assert vision["messages"][2]["content"] == [{"type": "text", "text": "taken"}]
    moved = _quiet(_image_result, "command-a-vision-07-2025", media="relocate")
    assert moved["messages"][3]["role"] == "user"
    assert [c["type"] for c in moved["messages"][3]["content"]] == ["text", "image_url"]


def test_the_sdk_types_take_every_body() -> None:
    body, _ = load("thinking_and_citations.yaml")
    sent = [
        _quiet(adapter.encode_request, adapter.decode_request(body), model="command-a-03-2025"),
        _quiet(_image_result, "command-a-vision-07-2025", media="relocate"),
    ]
    messages = TypeAdapter(list[ChatMessageV2])
    tools = TypeAdapter(list[ToolV2])
    for s in sent:
        parsed = messages.validate_python(s["messages"])
        assert [m.role for m in parsed] == [m["role"] for m in s["messages"]]
        tools.validate_python(s.get("tools", []))
