"""Request bodies both ways: a recorded ``/api/chat`` history decodes to ``RunAgentInput`` and
encodes back to the same body; parts are fitted by the capability rows; the SDK accepts what
is sent; calls and results stay paired."""

from __future__ import annotations

import json
import warnings
from typing import Any

import ollama
import pytest
from _ollama_support import load
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

from toolwire.adapters import ollama as adapter
from toolwire.losses import PartsDroppedWarning
from toolwire.testing.fake_vendor import FakeVendor, Reply

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
    "AAAABJRU5ErkJggg=="
)


def _quiet(fn: Any, *args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def test_a_recorded_history_decodes_to_what_it_says() -> None:
    body, _ = load("history_with_images.yaml")
    run = adapter.decode_request(body)
    kinds = [type(m).__name__ for m in run.messages]
    assert kinds == [
        "SystemMessage",
        "UserMessage",
        "ReasoningMessage",
        "AssistantMessage",
        "ToolMessage",
    ]
    user = run.messages[1]
    assert isinstance(user.content, list) and isinstance(user.content[1], ImagePart)
    assert user.content[1].source.value == body["messages"][1]["images"][0]
    assert run.messages[2].content == body["messages"][2]["thinking"]
    (call,) = run.messages[3].tool_calls
    assert (call.id, call.function.name, call.function.arguments) == (
        "call_h1st0ry1",
        "get_weather",
        '{"city":"Nice"}',
    )
    assert run.messages[4].tool_call_id == "call_h1st0ry1"
    assert run.forwarded_props == {"model": body["model"], "stream": True}


def test_decode_then_encode_gives_the_recorded_body_back() -> None:
    body, _ = load("history_with_images.yaml")
    run = adapter.decode_request(body)
    again = _quiet(adapter.encode_request, run, model=body["model"], stream=True)
    assert again == body
    assert again.losses == []


def test_an_older_body_without_ids_pairs_results_by_tool_name() -> None:
    body = {
        "model": "llama3.1",
        "messages": [
            {"role": "user", "content": "weather and time?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
                    {"function": {"name": "get_time", "arguments": {}}},
                ],
            },
            {"role": "tool", "content": "12:00", "tool_name": "get_time"},
            {"role": "tool", "content": "sunny", "tool_name": "get_weather"},
        ],
    }
    run = adapter.decode_request(body)
    weather, time_ = run.messages[1].tool_calls
    assert weather.id != time_.id
    assert [(m.tool_call_id, m.content) for m in run.messages[2:]] == [
        (time_.id, "12:00"),
        (weather.id, "sunny"),
    ]
    assert adapter.decode_request(body) == run  # minted ids are stable
    # encoded: each result right after its call's message, in call order, named both ways
    sent = _quiet(adapter.encode_request, run, model="llama3.1")
    assert [(m["tool_name"], m["tool_call_id"], m["content"]) for m in sent["messages"][2:]] == [
        ("get_weather", weather.id, "sunny"),
        ("get_time", time_.id, "12:00"),
    ]


def _with_image_result(user_image: bool = False) -> RunAgentInput:
    image = ImagePart(source=DataSource(value=PNG, mime_type="image/png"))
    user: Any = [TextPart(text="look"), image] if user_image else "look"
    call = ToolCall(id="c1", function=FunctionCall(name="screenshot", arguments=""))
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[
            UserMessage(id="u", content=user),
            AssistantMessage(id="a", tool_calls=[call]),
            ToolMessage(
                id="tm", tool_call_id="c1", content=[TextPart(text="taken"), image], error="blurry"
            ),
        ],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def test_a_text_only_family_drops_a_user_image_and_says_which_model_to_use() -> None:
    with pytest.warns(PartsDroppedWarning):
        sent = adapter.encode_request(_with_image_result(user_image=True), model="llama3.1:8b")
    assert "images" not in sent["messages"][0]
    upgrades = {loss.upgrade for loss in sent.losses if loss.kind == "part-dropped"}
    assert any(u and "vision model" in u for u in upgrades)


def test_a_vision_family_takes_a_user_image_as_base64() -> None:
    sent = _quiet(adapter.encode_request, _with_image_result(user_image=True), model="gemma3:12b")
    assert sent["messages"][0] == {"role": "user", "content": "look", "images": [PNG]}


def test_tool_result_media_is_dropped_by_default_and_the_error_reaches_the_model() -> None:
    with pytest.warns(PartsDroppedWarning):
        sent = adapter.encode_request(_with_image_result(), model="gemma3:12b")
    call, result = sent["messages"][1], sent["messages"][2]
    assert call["tool_calls"] == [{"id": "c1", "function": {"name": "screenshot", "arguments": {}}}]
    assert result == {
        "role": "tool",
        "content": "taken\n\nError: blurry",
        "tool_name": "screenshot",
        "tool_call_id": "c1",
    }
    assert len(sent["messages"]) == 3


def test_tool_result_media_relocates_into_a_user_message_after_the_results() -> None:
    sent = _quiet(
        adapter.encode_request, _with_image_result(), model="gemma3:12b", media="relocate"
    )
    moved = sent["messages"][3]
    assert moved["role"] == "user" and moved["images"] == [PNG]
    assert "c1" in moved["content"] and "screenshot" in moved["content"]
    assert sent.losses == []


def test_reasoning_rides_on_the_next_assistant_message() -> None:
    run = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[
            UserMessage(id="u", content="hi"),
            ReasoningMessage(id="re", content="they greet me"),
            AssistantMessage(id="a", content="hello"),
        ],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    sent = _quiet(adapter.encode_request, run, model="qwen3")
    assert sent["messages"][1] == {
        "role": "assistant",
        "content": "hello",
        "thinking": "they greet me",
    }


def test_the_sdk_sends_the_encoded_body() -> None:
    body, _ = load("history_with_images.yaml")
    sent = _quiet(adapter.encode_request, adapter.decode_request(body), model=body["model"])
    last = b'{"model":"m","created_at":"t","message":{"role":"assistant","content":"ok"},'
    last += b'"done":true}\n'
    with FakeVendor([Reply(headers={"content-type": "application/x-ndjson"}, chunks=[last])]) as v:
        reply = ollama.Client(host=v.base_url).chat(
            model=sent["model"], messages=sent["messages"], tools=sent["tools"]
        )
        seen = json.loads(v.requests[0].body)
    assert reply.message.content == "ok"
    # the SDK validates every message and tool on the way (its own models)
    assert [m["role"] for m in seen["messages"]] == [m["role"] for m in sent["messages"]]
    assert seen["messages"][1]["images"] == [body["messages"][1]["images"][0]]
    assert seen["messages"][3]["tool_name"] == "get_weather"
