"""``encode_request`` of a history whose every tool result carries an image, checked against
the wire shape each module documents (built here by hand), with the losses it reports; and
the pieces the request path builds without validation checked against the validated ones."""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

import pytest
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

from toolwire import adapters
from toolwire.protocol.fitting import Accepts, PartRule, fit_content, labelled, media_label
from toolwire.protocol.parts import text_part

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(64))).decode()
URL = f"data:image/png;base64,{PNG}"
#: call ids every chat vendor takes as they are (Mistral: nine letters and digits)
A, B = "callA0001", "callB0001"
LABEL_A = f"Media from the result of tool call {A} (get_weather):"
LABEL_B = f"Media from the result of tool call {B} (render):"


def _image() -> ImagePart:
    return ImagePart(source=DataSource(value=PNG, mime_type="image/png"))


def _round(error: str | None = None) -> RunAgentInput:
    """One round of the media-heavy history: an image with the question, two calls, both
    results text + image (the second failed when ``error``), then the answer."""
    calls = [
        ToolCall(id=A, function=FunctionCall(name="get_weather", arguments='{"city":"Paris"}')),
        ToolCall(id=B, function=FunctionCall(name="render", arguments='{"n":0}')),
    ]
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[
            UserMessage(id="u", content=[TextPart(text="look"), _image()]),
            AssistantMessage(id="a", tool_calls=calls),
            ToolMessage(id="ta", tool_call_id=A, content=[TextPart(text="sunny"), _image()]),
            ToolMessage(
                id="tb",
                tool_call_id=B,
                content=[TextPart(text="rendered"), _image()],
                error=error,
            ),
            AssistantMessage(id="r", content="It is sunny."),
        ],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def _messages(vendor: str, model: str, media: str, error: str | None = None) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapters.get(vendor).encode_request(_round(error), model=model, media=media)
    return body["messages"], body.losses


def _ollama_calls() -> list[dict[str, Any]]:
    return [
        {"id": A, "function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
        {"id": B, "function": {"name": "render", "arguments": {"n": 0}}},
    ]


def test_ollama_relocates_each_result_image_after_its_label() -> None:
    messages, losses = _messages("ollama", "qwen3-vl:8b", "relocate", error="too big")
    assert messages == [
        {"role": "user", "content": "look", "images": [PNG]},
        {"role": "assistant", "content": "", "tool_calls": _ollama_calls()},
        {"role": "tool", "content": "sunny", "tool_name": "get_weather", "tool_call_id": A},
        {
            "role": "tool",
            "content": "rendered\n\nError: too big",
            "tool_name": "render",
            "tool_call_id": B,
        },
        {"role": "user", "content": f"{LABEL_A}\n{LABEL_B}", "images": [PNG, PNG]},
        {"role": "assistant", "content": "It is sunny."},
    ]
    assert losses == []


def test_ollama_drop_loses_each_result_image_with_its_place() -> None:
    messages, losses = _messages("ollama", "qwen3-vl:8b", "drop")
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert "images" not in messages[2] and "images" not in messages[3]
    found = [(x.kind, x.tool_call_id, x.part_index, x.part_kind, x.mime_type) for x in losses]
    assert found == [
        ("part-dropped", A, 1, "image", "image/png"),
        ("part-dropped", B, 1, "image", "image/png"),
    ]


def test_mistral_relocates_each_result_image_after_its_label() -> None:
    messages, losses = _messages("mistral", "mistral-large-latest", "relocate")
    image = {"type": "image_url", "image_url": URL}
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "look"}, image]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": A,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": B,
                    "type": "function",
                    "function": {"name": "render", "arguments": '{"n":0}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": A, "name": "get_weather", "content": "sunny"},
        {"role": "tool", "tool_call_id": B, "name": "render", "content": "rendered"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": LABEL_A},
                image,
                {"type": "text", "text": LABEL_B},
                image,
            ],
        },
        {"role": "assistant", "content": "It is sunny."},
    ]
    assert losses == []


def test_chat_completions_relocates_each_result_image_after_its_label() -> None:
    messages, losses = _messages("openai_chat", "gpt-4o-2024-08-06", "relocate")
    image = {"type": "image_url", "image_url": {"url": URL}}
    assert messages[2:5] == [
        {"role": "tool", "tool_call_id": A, "content": [{"type": "text", "text": "sunny"}]},
        {"role": "tool", "tool_call_id": B, "content": [{"type": "text", "text": "rendered"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": LABEL_A},
                image,
                {"type": "text", "text": LABEL_B},
                image,
            ],
        },
    ]
    assert losses == []


@pytest.mark.parametrize(
    ("vendor", "model"),
    [
        ("ollama", "qwen3-vl:8b"),
        ("mistral", "mistral-large-latest"),
        ("openai_chat", "gpt-4o-2024-08-06"),
        ("cohere", "command-a-vision-07-2025"),
    ],
)
def test_no_label_moves_the_media_alone(vendor: str, model: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labelled_body = adapters.get(vendor).encode_request(_round(), model=model, media="relocate")
        bare = adapters.get(vendor).encode_request(
            _round(), model=model, media="relocate", media_label=None
        )
    text = json.dumps(bare)
    assert "Media from the result" in json.dumps(labelled_body)
    assert "Media from the result" not in text
    assert text.count(PNG) == json.dumps(labelled_body).count(PNG) == 3


# -- the pieces: fitting, labels


def _json(part: TextPart) -> str:
    """The part's JSON, or the error pydantic gives (a lone surrogate has no UTF-8)."""
    try:
        return part.model_dump_json(by_alias=True)
    except Exception as exc:  # (the same error either way is what is checked)
        return repr(exc)


def test_text_part_is_the_validated_part() -> None:
    for text in ("", "x", "Media from the result of tool call c (f):", "\ud800 lone", "é" * 300):
        made, validated = text_part(text), TextPart(text=text)
        assert made == validated
        assert type(made) is TextPart
        assert made.model_fields_set == validated.model_fields_set
        assert made.model_dump() == validated.model_dump()
        assert _json(made) == _json(validated)
        assert made.model_copy(update={"text": "y"}).text == "y"


class _Template(str):
    """A template whose ``format`` gives a ``str`` subclass, which validation makes a str."""

    def format(self, *args: object, **kwargs: object) -> str:
        return _Template(str.format(self, *args, **kwargs))


def test_a_label_from_an_odd_template_is_validated() -> None:
    part = media_label(
        _Template("{tool_call_id}/{tool_name}"), tool_call_id="c", tool_name="f", target="t"
    )
    assert part is not None
    assert type(part.text) is str and part.text == "c/f"
    assert media_label("", tool_call_id="c", tool_name="f", target="t") is None
    out = labelled([_image()], "{tool_name}", tool_call_id="c", tool_name="f", target="t")
    assert [p.type for p in out] == ["text", "image"] and out[0] == TextPart(text="f")


_IMAGES = (PartRule("image", mime_types=("image/*",)),)


def test_a_text_part_a_place_refuses_is_lost_not_relocated() -> None:
    no_text = Accepts(target="t", text=False)
    user = Accepts(target="t", rules=_IMAGES)
    fitted = fit_content([TextPart(text="a"), _image()], no_text, tool_call_id="c", relocate=user)
    assert fitted.content == ""
    assert [p.type for p in fitted.relocated] == ["image"]
    assert [(x.part_index, x.part_kind, x.reason) for x in fitted.losses] == [
        (0, "text", "the target takes no text here")
    ]


def test_text_kept_in_order_among_media_a_place_takes() -> None:
    place = Accepts(target="t", rules=_IMAGES)
    url = ImagePart(source=UrlSource(value="https://x/y.png", mime_type="image/png"))
    parts = [TextPart(text="a"), _image(), TextPart(text="b"), url]
    fitted = fit_content(parts, place)
    assert fitted.content == parts and fitted.relocated == [] and fitted.losses == []
    nothing = Accepts(target="t")
    dropped = fit_content(parts, nothing, tool_call_id="c")
    assert dropped.content == [parts[0], parts[2]]
    assert [(x.part_index, x.reason) for x in dropped.losses] == [
        (1, "t takes no image parts here"),
        (3, "t takes no image parts here"),
    ]


# -- which message a walk takes a message for (the role first, the class when they differ)


class _MyUser(UserMessage):
    """An application's own subclass: still a user message."""


class _Both(UserMessage, ReasoningMessage):
    """A class of two message classes: the isinstance chain's order decides."""


def _one(message: Any) -> RunAgentInput:
    # (built unvalidated: validation picks a message's class by its role)
    return RunAgentInput.model_construct(
        thread_id="t",
        run_id="r",
        messages=[message],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def _sent(vendor: str, message: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapters.get(vendor).encode_request(_one(message), model="m")
    key = "input" if vendor == "openai_responses" else "messages"
    return body[key], [x.kind for x in body.losses]


@pytest.mark.parametrize("vendor", ["openai_chat", "openai_responses"])
def test_a_message_is_taken_by_its_class_when_its_role_says_otherwise(vendor: str) -> None:
    plain = {"role": "user", "content": "hi"}
    assert _sent(vendor, UserMessage(id="u", content="hi")) == ([plain], [])
    assert _sent(vendor, _MyUser(id="u", content="hi")) == ([plain], [])
    by_hand = UserMessage.model_construct(id="u", content="hi", role="assistant")
    assert _sent(vendor, by_hand) == ([plain], [])


def test_a_message_of_two_classes_goes_where_each_chain_takes_it_first() -> None:
    both = _Both(id="b", content="hi")
    # Chat Completions tests user before reasoning; Responses reasoning before user (and
    # drops reasoning OpenAI did not make)
    assert _sent("openai_chat", both) == ([{"role": "user", "content": "hi"}], [])
    assert _sent("openai_responses", both) == ([], ["reasoning-dropped"])
