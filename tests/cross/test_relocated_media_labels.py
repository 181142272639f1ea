"""Relocated media says which call it came from (issue 11.6).

With ``media="relocate"`` the images of two calls' results land in one user message
(OpenAI Chat, Gemini 2.x); a short label before each call's media names the call id the
target is sent and the tool (a documented default, a caller's template, or none). The
tool message keeps its text parts, or ``""``, exactly as without labels.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    DataSource,
    FunctionCall,
    ImagePart,
    RunAgentInput,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from vendor_rules import check_request

from toolwire import adapters
from toolwire.errors import UnsupportedInput

#: the default label as docs/decisions.md and docs/adapters/openai_chat.md state it
DEFAULT_MEDIA_LABEL = "Media from the result of tool call {tool_call_id} ({tool_name}):"

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmM"
    + "IQAAAABJRU5ErkJggg=="
)
LONG = "call_" + "z" * 50  # a Responses-style id Chat refuses
MODELS = {"openai_chat": "gpt-4o", "gemini": "gemini-2.5-flash"}


def _history() -> RunAgentInput:
    img = ImagePart(source=DataSource(value=PNG, mime_type="image/png"))
    calls = [
        ToolCall(id="call_a", function=FunctionCall(name="chart", arguments="{}")),
        ToolCall(id=LONG, function=FunctionCall(name="photo", arguments="{}")),
    ]
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[
            UserMessage(id="u", content="Show me."),
            AssistantMessage(id="a", tool_calls=calls),
            ToolMessage(id="r1", tool_call_id="call_a", content=[TextPart(text="the chart"), img]),
            ToolMessage(id="r2", tool_call_id=LONG, content=[img]),
        ],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def _encode(target: str, **kw: Any) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return adapters.get(target).encode_request(
            _history(), model=MODELS[target], media="relocate", **kw
        )


def _relocated(target: str, body: dict[str, Any]) -> list[str]:
    """The trailing user content after the results: text as itself, media as 'MEDIA'."""
    if target == "openai_chat":
        (user,) = [m for m in body["messages"][2:] if m["role"] == "user"]
        return [p["text"] if p["type"] == "text" else "MEDIA" for p in user["content"]]
    turn = body["contents"][-1]
    return [
        p["text"] if "text" in p else "MEDIA" for p in turn["parts"] if "function_response" not in p
    ]


def _tool_texts(target: str, body: dict[str, Any]) -> list[Any]:
    if target == "openai_chat":
        return [m["content"] for m in body["messages"] if m["role"] == "tool"]
    turn = body["contents"][-1]
    return [p["function_response"]["response"] for p in turn["parts"] if "function_response" in p]


@pytest.mark.parametrize("target", sorted(MODELS))
def test_each_calls_media_follows_a_label_naming_the_call(target: str) -> None:
    body = _encode(target)
    sent = check_request(target, body)
    if target == "openai_chat":
        assert sent[0] == "call_a" and sent[1] != LONG  # the long id went out remapped
        ids = sent
    else:
        ids = ["call_a", LONG]  # Gemini 2.x is sent no ids: the label names the call's own
    expected = [
        DEFAULT_MEDIA_LABEL.format(tool_call_id=ids[0], tool_name="chart"),
        "MEDIA",
        DEFAULT_MEDIA_LABEL.format(tool_call_id=ids[1], tool_name="photo"),
        "MEDIA",
    ]
    assert _relocated(target, body) == expected
    # the tool messages are exactly what they are without labels
    assert _tool_texts(target, body) == _tool_texts(target, _encode(target, media_label=None))


@pytest.mark.parametrize("target", sorted(MODELS))
def test_a_callers_template_or_none(target: str) -> None:
    body = _encode(target, media_label="[{tool_name}]")
    assert _relocated(target, body) == ["[chart]", "MEDIA", "[photo]", "MEDIA"]
    assert _relocated(target, _encode(target, media_label=None)) == ["MEDIA", "MEDIA"]
    with pytest.raises(UnsupportedInput, match="media_label"):
        _encode(target, media_label="{call}")


@pytest.mark.parametrize("target", sorted(MODELS))
def test_nothing_relocated_no_label(target: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapters.get(target).encode_request(_history(), model=MODELS[target])
    assert "Media from the result" not in str(body)
