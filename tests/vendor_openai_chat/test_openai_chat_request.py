"""encode_request / decode_request: pairing, the fitting ladder, errors, and other vendors."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    AudioPart,
    DataSource,
    DocumentPart,
    FileSource,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    RunAgentInput,
    TextPart,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
    VideoPart,
)

from toolwire import adapters
from toolwire.adapters import openai_chat
from toolwire.errors import UnansweredToolCall
from toolwire.losses import Loss, PartsDroppedWarning
from toolwire.protocol.pairing import pair_history

PNG = "iVBORw0KGgo="


def call(cid: str, args: str = '{"q":1}') -> ToolCall:
    return ToolCall(id=cid, function=FunctionCall(name="look", arguments=args))


def run(*messages: Any) -> RunAgentInput:
    return RunAgentInput(thread_id="t", run_id="r", messages=list(messages))


MEDIA = [
    TextPart(text="two charts"),
    ImagePart(source=DataSource(value=PNG, mime_type="image/png")),
    ImagePart(source=UrlSource(value="https://example.com/a.png", mime_type="image/png")),
    ImagePart(source=FileSource(value="file-img", provider="openai")),
    DocumentPart(
        source=FileSource(value="file-doc", provider="openai", mime_type="application/pdf")
    ),
    DocumentPart(source=FileSource(value="file_011", provider="anthropic")),
    DocumentPart(source=DataSource(value="JVBE", mime_type="application/pdf")),
    AudioPart(source=DataSource(value="UklG", mime_type="audio/wav")),
    VideoPart(source=UrlSource(value="https://example.com/v.mp4", mime_type="video/mp4")),
]


def media_history() -> RunAgentInput:
    return run(
        UserMessage(id="u", content="go"),
        AssistantMessage(id="a", tool_calls=[call("c1"), call("c2", "")]),
        ToolMessage(id="t2", tool_call_id="c2", content="second", error="timed out"),
        ToolMessage(id="t1", tool_call_id="c1", content=MEDIA),
    )


def test_calls_then_results_in_call_order_content_null() -> None:
    with pytest.warns(PartsDroppedWarning):
        body = openai_chat.encode_request(media_history(), model="gpt-4o")
    roles = [(m["role"], m.get("tool_call_id")) for m in body["messages"]]
    assert roles == [("user", None), ("assistant", None), ("tool", "c1"), ("tool", "c2")]
    assistant = body["messages"][1]
    assert assistant["content"] is None
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == ['{"q":1}', "{}"]


def test_media_dropped_with_warning_by_default() -> None:
    losses: list[Loss] = []
    with pytest.warns(PartsDroppedWarning) as record:
        body = openai_chat.encode_request(media_history(), model="gpt-4o", losses=losses)
    tool = body["messages"][2]
    assert tool["content"] == [{"type": "text", "text": "two charts"}]
    assert len(losses) == len(MEDIA) - 1 == len(record)
    assert {(x.part_kind, x.source_kind) for x in losses} == {
        (p.type, p.source.type) for p in MEDIA[1:]
    }
    assert all(x.tool_call_id == "c1" for x in losses)
    assert all('media="relocate"' in (x.upgrade or "") for x in losses)  # the way to keep them


def test_relocate_moves_what_a_user_message_takes() -> None:
    losses: list[Loss] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = openai_chat.encode_request(
            media_history(), model="gpt-4o", media="relocate", losses=losses, media_label=None
        )
    msgs = body["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "tool", "user"]
    moved = msgs[-1]["content"]
    assert moved == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "file", "file": {"file_id": "file-doc"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE",
                                  "filename": "document.pdf"}},
    ]  # fmt: skip
    assert all('media="relocate"' not in (x.upgrade or "") for x in losses)  # it was asked for
    # dropped: an image file handle (image_url takes no file id), another provider's handle,
    # audio (gpt-4o takes none), video
    assert [(x.part_kind, x.source_kind) for x in losses] == [
        ("image", "file"),
        ("document", "file"),
        ("audio", "data"),
        ("video", "url"),
    ]


def test_audio_relocates_for_an_audio_model() -> None:
    history = run(
        AssistantMessage(id="a", tool_calls=[call("c1")]),
        ToolMessage(id="t", tool_call_id="c1", content=[MEDIA[7]]),
    )
    body = openai_chat.encode_request(
        history, model="gpt-4o-audio-preview", media="relocate", media_label=None
    )
    assert body["messages"][1]["content"] == ""  # all moved: answered with the empty string
    assert body["messages"][2]["content"] == [
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}}
    ]


@pytest.mark.parametrize("model", ["gpt-3.5-turbo", "o3-mini", "gpt-4-0613"])
def test_relocation_moves_nothing_for_a_model_whose_user_messages_take_no_media(model: str) -> None:
    # these models have no vision or audio input (reference section 7): relocating would only
    # move the parts into a message the model cannot read either
    losses: list[Loss] = []
    with pytest.warns(PartsDroppedWarning):
        body = openai_chat.encode_request(
            media_history(), model=model, media="relocate", losses=losses
        )
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "tool"]
    assert body["messages"][2]["content"] == [{"type": "text", "text": "two charts"}]
    assert len(losses) == len(MEDIA) - 1  # every media part, each named
    assert all("vision model" in (x.upgrade or "") for x in losses)


def test_all_dropped_is_answered_with_empty_string_and_error_reaches_model() -> None:
    history = run(
        AssistantMessage(id="a", tool_calls=[call("c1"), call("c2")]),
        ToolMessage(id="t1", tool_call_id="c1", content=[MEDIA[8]]),
        ToolMessage(id="t2", tool_call_id="c2", content="", error="permission denied"),
    )
    with pytest.warns(PartsDroppedWarning):
        body = openai_chat.encode_request(history, model="gpt-4o")
    assert body["messages"][1]["content"] == ""
    assert body["messages"][2]["content"] == "Error: permission denied"


def test_error_with_content_keeps_both() -> None:
    with pytest.warns(PartsDroppedWarning):
        body = openai_chat.encode_request(media_history(), model="gpt-4o-mini", media="relocate")
    assert body["messages"][3]["content"] == "second\n\nError: timed out"


def test_unanswered_call_is_refused() -> None:
    history = run(AssistantMessage(id="a", tool_calls=[call("c1")]))
    with pytest.raises(UnansweredToolCall, match="c1"):
        openai_chat.encode_request(history, model="gpt-4o")


def test_reasoning_and_opaque_values_are_reported() -> None:
    history = run(
        ReasoningMessage(id="r", content="thinking", encrypted_value="enc"),
        UserMessage(id="u", content="hi"),
    )
    losses: list[Loss] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = openai_chat.encode_request(history, model="gpt-4o", losses=losses)
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert [x.kind for x in losses] == ["reasoning-dropped", "encrypted-value-dropped"]


def test_text_only_model_drops_user_images() -> None:
    history = run(UserMessage(id="u", content=[TextPart(text="see"), MEDIA[1]]))
    with pytest.warns(PartsDroppedWarning, match="gpt-3.5-turbo"):
        body = openai_chat.encode_request(history, model="gpt-3.5-turbo")
    assert body["messages"][0]["content"] == [{"type": "text", "text": "see"}]


def test_decode_request_parts_and_legacy_functions() -> None:
    body = {
        "model": "gpt-4o",
        "temperature": 0,
        "messages": [
            {"role": "developer", "content": [{"type": "text", "text": "be brief"}]},
            {"role": "user", "content": [
                {"type": "input_audio", "input_audio": {"data": "UklG", "format": "mp3"}},
                {"type": "file", "file": {"file_data": "JVBE", "filename": "r.pdf"}}]},
            {"role": "assistant", "content": None,
             "function_call": {"name": "look", "arguments": "{}"}},
            {"role": "function", "name": "look", "content": "found"},
        ],
    }  # fmt: skip
    got = openai_chat.decode_request(body)
    assert got.messages[0].content == "be brief"
    audio, doc = got.messages[1].content
    assert (audio.source.mime_type, doc.source.mime_type) == ("audio/mpeg", "application/pdf")
    assert got.messages[2].tool_calls[0].id == got.messages[3].tool_call_id
    assert got.forwarded_props == {"model": "gpt-4o", "temperature": 0}
    assert got == openai_chat.decode_request(body)  # ids are stable


# ----------------------------------------------------------------- cross-vendor


#: The other model vendors. Dialogflow and Asgard are platform peers whose requests carry no
#: model history with calls and results, so the pairing rule does not apply to them.
OTHERS = ["anthropic", "openai_responses", "gemini"]


@pytest.mark.parametrize("name", OTHERS)
def test_history_encodes_to_other_vendors_paired(name: str) -> None:
    """A history decoded from this vendor, encoded for another, keeps every call answered."""
    other = adapters.get(name)
    history = media_history()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = openai_chat.encode_request(history, model="gpt-4o")
        back = openai_chat.decode_request(body)
        theirs = other.encode_request(back, model=_model_for(name))
        again = other.decode_request(theirs)
    paired = pair_history(again.messages, target=name, allow_trailing_unanswered=False)
    answered = [r.tool_call_id for t in paired.turns for r in t.results if r is not None]
    assert answered == ["c1", "c2"]


def _model_for(name: str) -> str:
    return {
        "anthropic": "claude-sonnet-4-5",
        "openai_responses": "gpt-4o",
        "gemini": "gemini-3-flash-preview",
    }.get(name, "default")


def test_a_permissive_tool_result_table_still_cannot_put_media_in_a_tool_message() -> None:
    """A caller's own table may claim images fit; the wire holds text only: dropped, reported."""
    from toolwire.protocol.fitting import Accepts, PartRule

    lenient = Accepts(target="custom", rules=(PartRule(kind="image"),))
    history = run(
        AssistantMessage(id="a", tool_calls=[call("c1")]),
        ToolMessage(id="t", tool_call_id="c1", content=[MEDIA[0], MEDIA[1]]),
    )
    losses: list[Loss] = []
    with pytest.warns(PartsDroppedWarning, match="holds text only"):
        body = openai_chat.encode_request(
            history, model="gpt-4o", tool_result=lenient, losses=losses
        )
    assert body["messages"][1]["content"] == [{"type": "text", "text": "two charts"}]
    assert [(x.part_kind, x.tool_call_id) for x in losses] == [("image", "c1")]


def test_a_tool_message_id_is_the_one_recipe_every_adapter_uses() -> None:
    """Chat names no tool message: its id is minted from the call id alone, so the same
    answer decoded by another adapter (Responses' history, an MCP result) has the same id."""
    from toolwire.adapters import mcp, openai_responses

    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    chat = openai_chat.decode_request(
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
            ],
        }
    )
    responses = openai_responses.decode_request(
        {
            "input": [
                {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
            ]
        }
    )
    from_mcp = mcp.decode_result(
        {"content": [{"type": "text", "text": "ok"}]}, tool_call_id="call_1"
    )
    ids = {
        m.id for m in [*chat.messages, *responses.messages, from_mcp] if isinstance(m, ToolMessage)
    }
    assert len(ids) == 1 and ids != {"call_1"}
