"""Requests: fitting tool results, errors, pairing, reasoning, and reading bodies back."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _openai_responses_support import sdk_accepts
from ag_ui.core import (
    AssistantMessage,
    AudioPart,
    DataSource,
    DeveloperMessage,
    DocumentPart,
    FileSource,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
    VideoPart,
)

from toolwire import PartsDroppedWarning
from toolwire.adapters import openai_responses as a
from toolwire.errors import UnansweredToolCall, UnsupportedInput, VendorDataError
from toolwire.losses import ContentLossWarning, Loss


def _call(cid: str, name: str = "f", args: str = "{}", **kw: Any) -> ToolCall:
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=args), **kw)


def _run(*messages: Any, tools: list[Tool] | None = None) -> RunAgentInput:
    kw = {"tools": tools} if tools else {}
    return RunAgentInput(thread_id="t", run_id="r", messages=list(messages), **kw)


def _encode(run: RunAgentInput, **kw: Any) -> tuple[dict[str, Any], list[Loss]]:
    losses: list[Loss] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = a.encode_request(run, model="gpt-5", losses=losses, **kw)
    sdk_accepts(body)
    return body, losses


def test_tool_result_parts_are_fitted_and_losses_announced() -> None:
    content = [
        TextPart(text="see"),
        AudioPart(source=DataSource(value="UklG", mime_type="audio/wav")),
        VideoPart(source=UrlSource(value="https://x/v.mp4", mime_type="video/mp4")),
        ImagePart(source=FileSource(value="file_011", provider="anthropic")),
        ImagePart(source=DataSource(value="iVBO", mime_type="image/png")),
        DocumentPart(source=DataSource(value="aGk=", mime_type="text/plain")),
    ]
    run = _run(
        UserMessage(id="u", content="go"),
        AssistantMessage(id="m", tool_calls=[_call("c1")]),
        ToolMessage(id="t", tool_call_id="c1", content=content),
    )
    with pytest.warns(PartsDroppedWarning) as caught:
        losses: list[Loss] = []
        body = a.encode_request(run, model="gpt-5", losses=losses)
    assert len(caught) == 3
    assert [(x.part_index, x.part_kind, x.tool_call_id) for x in losses] == [
        (1, "audio", "c1"),
        (2, "video", "c1"),
        (3, "image", "c1"),
    ]
    assert "anthropic" in losses[2].reason
    out = body["input"][-1]
    assert out == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": [
            {"type": "input_text", "text": "see"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBO"},
            {
                "type": "input_file",
                "file_data": "data:text/plain;base64,aGk=",
                "filename": "file.txt",
            },
        ],
    }


def test_a_result_with_every_part_dropped_is_answered_with_the_empty_string() -> None:
    run = _run(
        AssistantMessage(id="m", tool_calls=[_call("c1")]),
        ToolMessage(
            id="t",
            tool_call_id="c1",
            content=[AudioPart(source=DataSource(value="x", mime_type="audio/mp3"))],
        ),
    )
    body, losses = _encode(run)
    assert body["input"][-1] == {"type": "function_call_output", "call_id": "c1", "output": ""}
    assert [x.kind for x in losses] == ["part-dropped"]


def test_tool_error_reaches_the_model_with_the_content() -> None:
    run = _run(
        AssistantMessage(id="m", tool_calls=[_call("c1"), _call("c2")]),
        ToolMessage(id="t1", tool_call_id="c1", content="partial", error="timed out"),
        ToolMessage(id="t2", tool_call_id="c2", content=[TextPart(text="x")], error="boom"),
    )
    body, _ = _encode(run)
    assert body["input"][-2]["output"] == "Error: timed out\n\npartial"
    assert body["input"][-1]["output"] == [
        {"type": "input_text", "text": "Error: boom"},
        {"type": "input_text", "text": "x"},
    ]


def test_calls_are_answered_in_call_order_right_after_them() -> None:
    run = _run(
        AssistantMessage(id="m", content="two calls", tool_calls=[_call("c1"), _call("c2")]),
        UserMessage(id="u", content="meanwhile"),
        ToolMessage(id="t2", tool_call_id="c2", content="2"),
        ToolMessage(id="t1", tool_call_id="c1", content="1"),
    )
    body, _ = _encode(run)
    kinds = [(i.get("type") or i["role"], i.get("call_id")) for i in body["input"]]
    assert kinds == [
        ("assistant", None),
        ("function_call", "c1"),
        ("function_call", "c2"),
        ("function_call_output", "c1"),
        ("function_call_output", "c2"),
        ("user", None),
    ]


def test_an_unanswered_call_is_refused_before_the_end_and_at_it() -> None:
    # the API answers a function_call without its function_call_output with 400
    # "No tool output found for function call", wherever it stands
    with pytest.raises(UnansweredToolCall):
        a.encode_request(
            _run(
                AssistantMessage(id="m", tool_calls=[_call("c1")]),
                UserMessage(id="u", content="next"),
            ),
            model="gpt-5",
        )
    with pytest.raises(UnansweredToolCall):
        a.encode_request(
            _run(
                UserMessage(id="u", content="q"), AssistantMessage(id="m", tool_calls=[_call("c1")])
            ),
            model="gpt-5",
        )


def test_orphan_results_and_foreign_reasoning_and_signatures_are_losses() -> None:
    run = _run(
        ReasoningMessage(id="r", content="thinking", encrypted_value="anthropic-signature"),
        AssistantMessage(id="m", tool_calls=[_call("c1", encrypted_value="gemini-sig")]),
        ToolMessage(id="t", tool_call_id="c1", content="ok"),
        ToolMessage(id="t9", tool_call_id="nobody", content="orphan"),
    )
    with pytest.warns(ContentLossWarning):
        losses: list[Loss] = []
        body = a.encode_request(run, model="gpt-5", losses=losses)
    assert sorted(x.kind for x in losses) == [
        "orphan-result-dropped",
        "reasoning-dropped",
        "signature-dropped",
    ]
    assert [i["type"] for i in body["input"]] == ["function_call", "function_call_output"]


def test_openai_reasoning_is_resent_with_its_summary_parts_and_encrypted_content() -> None:
    meta = {"openai.item_id": "rs_1"}
    run = _run(
        ReasoningMessage(id="rs_1", content="a", encrypted_value="gAAA", metadata=meta),
        ReasoningMessage(id="rs_1:1", content="b", metadata=meta),
        ReasoningMessage(
            id="rs_2", content="", encrypted_value="gBBB", metadata={"openai.item_id": "rs_2"}
        ),
    )
    body, _ = _encode(run)
    assert body["input"] == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "encrypted_content": "gAAA",
            "summary": [
                {"type": "summary_text", "text": "a"},
                {"type": "summary_text", "text": "b"},
            ],
        },
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gBBB"},
    ]


def test_messages_tools_and_options() -> None:
    run = _run(
        SystemMessage(id="s", content="sys"),
        DeveloperMessage(id="d", content="dev"),
        UserMessage(
            id="u",
            content=[TextPart(text="look"), ImagePart(source=UrlSource(value="https://x/i.png"))],
        ),
        tools=[Tool(name="f", description="does f", parameters={"type": "object"})],
    )
    body, _ = _encode(run, store=False)
    assert body == {
        "model": "gpt-5",
        "input": [
            {"role": "system", "content": "sys"},
            {"role": "developer", "content": "dev"},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "look"},
                    {"type": "input_image", "image_url": "https://x/i.png", "detail": "auto"},
                ],
            },
        ],
        "tools": [
            {
                "type": "function",
                "name": "f",
                "description": "does f",
                "parameters": {"type": "object"},
                "strict": False,
            }
        ],
        "store": False,
    }
    with pytest.raises(UnsupportedInput):
        a.encode_request(run, model="gpt-5", media="sideways")
    assert a.encode_request(run, model="gpt-5", media="relocate")["input"] == body["input"]


def test_decode_request_reads_every_item_kind() -> None:
    body = {
        "model": "gpt-5",
        "instructions": "be brief",
        "input": [
            {"role": "user", "content": "hi"},
            {
                "type": "message",
                "role": "assistant",
                "id": "msg_1",
                "status": "completed",
                "phase": "commentary",
                "content": [{"type": "output_text", "text": "calling", "annotations": []}],
            },
            {
                "type": "custom_tool_call",
                "id": "ctc_1",
                "call_id": "call_c",
                "name": "sql",
                "input": "SELECT 1",
            },
            {"type": "custom_tool_call_output", "call_id": "call_c", "output": "1"},
            {"type": "item_reference", "id": "msg_old"},
        ],
        "tools": [
            {"type": "web_search"},
            {
                "type": "function",
                "name": "f",
                "description": None,
                "parameters": {},
                "strict": True,
            },
        ],
    }
    with pytest.warns(ContentLossWarning, match="item_reference"):
        run = a.decode_request(body)
    user, assistant, tool = run.messages
    assert user.content == "hi"
    assert (
        assistant.content == "calling" and assistant.tool_calls[0].function.arguments == "SELECT 1"
    )
    assert tool.content == "1" and tool.tool_call_id == "call_c"
    assert run.forwarded_props == {
        "openai_responses": {"model": "gpt-5", "instructions": "be brief"}
    }
    again = a.encode_request(run, model="gpt-5")
    assert again["input"] == body["input"][:4]
    assert again["tools"] == body["tools"]
    assert a.decode_request({"model": "m", "input": "just text"}).messages[0].content == "just text"


@pytest.mark.parametrize(
    "body,where",
    [
        ({"input": 5}, "request.input"),
        (
            {"input": [{"type": "function_call", "name": "f", "arguments": ""}]},
            "request.input[0].call_id",
        ),
        ({"input": [{"type": "function_call_output", "call_id": "c"}]}, "request.input[0].output"),
        (
            {"input": [{"role": "user", "content": [{"type": "input_image"}]}]},
            "request.input[0].content[0].image_url",
        ),
    ],
)
def test_decode_request_bad_bodies_name_the_place(body: dict[str, Any], where: str) -> None:
    with pytest.raises(VendorDataError) as info:
        a.decode_request(body)
    assert info.value.where == where


def test_a_document_type_openai_does_not_read_is_dropped() -> None:
    zipped = DocumentPart(source=DataSource(value="UEsD", mime_type="application/zip"))
    run = _run(
        AssistantMessage(id="m", tool_calls=[_call("c1")]),
        ToolMessage(id="t", tool_call_id="c1", content=[TextPart(text="a"), zipped]),
    )
    body, losses = _encode(run)
    assert body["input"][-1]["output"] == [{"type": "input_text", "text": "a"}]
    assert [(x.part_kind, x.mime_type) for x in losses] == [("document", "application/zip")]


def test_minted_ids_are_stable_across_the_requests_of_a_conversation() -> None:
    first = {"model": "m", "input": [{"role": "user", "content": "hi"}]}
    later = {
        "model": "m",
        "input": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": "more"},
        ],
    }
    one, two = a.decode_request(first), a.decode_request(later)
    assert one.messages[0].id == two.messages[0].id
    assert one.thread_id == two.thread_id and one.run_id != two.run_id
    assert len({m.id for m in two.messages}) == 3
    again = a.decode_request(later)
    assert [m.id for m in again.messages] == [m.id for m in two.messages]


def test_inline_file_data_always_carries_a_file_name() -> None:
    # OpenAI requires filename next to file_data and reads the type from its extension
    named = DocumentPart(
        source=DataSource(value="JVBE", mime_type="application/pdf"),
        metadata={"filename": "q3.pdf"},
    )
    unnamed = DocumentPart(source=DataSource(value="JVBE", mime_type="application/pdf"))
    nameless = DocumentPart(source=DataSource(value="eA==", mime_type="text/x-unheard-of"))
    run = _run(
        AssistantMessage(id="m", tool_calls=[_call("c1")]),
        ToolMessage(id="t", tool_call_id="c1", content=[named, unnamed, nameless]),
    )
    body, losses = _encode(run)
    assert [p.get("filename") for p in body["input"][-1]["output"]] == ["q3.pdf", "file.pdf"]
    assert [(x.part_index, x.mime_type) for x in losses] == [(2, "text/x-unheard-of")]
