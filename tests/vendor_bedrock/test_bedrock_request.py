"""Converse requests both ways, every body checked by botocore's own parameter validation."""

from __future__ import annotations

import base64
import re
import warnings
from typing import Any

import pytest
from _bedrock_sdk import CASSETTES, MODEL, validate
from ag_ui.core import (
    AssistantMessage,
    DataSource,
    DocumentPart,
    FunctionCall,
    ImagePart,
    RunAgentInput,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from botocore.exceptions import ParamValidationError

from toolwire.adapters.bedrock import decode_request, encode_request, to_boto3
from toolwire.errors import UnansweredToolCall, VendorDataError
from toolwire.recordings import load_recording

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
PDF = base64.b64encode(b"%PDF-1.4 fake").decode()


def requests() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for p in sorted(CASSETTES.glob("*.yaml")):
        for i, ex in enumerate(load_recording(p.read_bytes(), p.name)):
            if isinstance(ex.request_body, dict):
                out.append((f"{p.stem}-{i}", ex.request_body))
    return out


REQUESTS = requests()


def quiet_encode(ri: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return encode_request(ri, **kw)


def without_success(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for m in messages:
        blocks = []
        for b in m["content"]:
            if "toolResult" in b and b["toolResult"].get("status") == "success":
                b = {"toolResult": {k: v for k, v in b["toolResult"].items() if k != "status"}}
            blocks.append(b)
        out.append({**m, "content": blocks})
    return out


def ask(text: str = "hi") -> UserMessage:
    return UserMessage(id="u1", content=text)


def call(cid: str, name: str = "f", args: str = '{"a":1}') -> ToolCall:
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=args))


def run(messages: list[Any], tools: list[Tool] | None = None) -> RunAgentInput:
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=messages,
        tools=tools or [],
        context=[],
        state=None,
        forwarded_props=None,
    )


def test_the_cassettes_hold_requests() -> None:
    assert len(REQUESTS) >= 8


@pytest.mark.parametrize(("name", "body"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_recorded_requests_pass_botocores_validation_as_recorded(
    name: str, body: dict[str, Any]
) -> None:
    # the HTTP body has no modelId (it rides in the URL): the keyword arguments do
    validate("Converse", to_boto3({"modelId": MODEL, **body}))


@pytest.mark.parametrize(("name", "body"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_decode_then_encode_gives_back_what_the_protocol_holds(
    name: str, body: dict[str, Any]
) -> None:
    ri = decode_request(body)
    again = quiet_encode(ri, model=MODEL, use_forwarded_props=True)
    validate("Converse", to_boto3(again))
    validate("ConverseStream", to_boto3(again))
    assert again["modelId"] == MODEL
    # (``status: success`` is what an absent status means: the protocol holds no flag for it)
    assert again["messages"] == without_success(body["messages"])
    assert again.get("system") == body.get("system")
    assert again.get("toolConfig") == body.get("toolConfig")
    assert again.get("inferenceConfig") == body.get("inferenceConfig")
    # and the same body decodes to the same ids (a replay is byte-identical)
    assert decode_request(body) == ri


def test_reasoning_signatures_and_redacted_content_go_back_unchanged() -> None:
    (_, body) = next(r for r in REQUESTS if r[0] == "reasoning_tool_use_signature-1")
    ri = decode_request(body)
    again = quiet_encode(ri, model=MODEL)
    assert again["messages"][1]["content"][:2] == body["messages"][1]["content"][:2]
    kwargs = to_boto3(again)
    redacted = kwargs["messages"][1]["content"][1]["reasoningContent"]["redactedContent"]
    assert redacted == b"\x01\x02opaque-redacted-reasoning\xff"  # boto3 takes the blob as bytes


def test_boto3_keyword_arguments_with_bytes_decode_as_the_json_body_does() -> None:
    (_, body) = next(r for r in REQUESTS if r[0] == "tool_result_media-0")
    assert decode_request(to_boto3(body)) == decode_request(body)


def test_tool_result_media_is_kept_for_claude_and_dropped_for_a_text_only_model() -> None:
    (_, body) = next(r for r in REQUESTS if r[0] == "tool_result_media-0")
    ri = decode_request(body)
    claude = quiet_encode(ri, model=MODEL)
    results = [b["toolResult"] for b in claude["messages"][2]["content"]]
    assert [list(c) for c in results[0]["content"]] == [["text"], ["image"]]
    assert results[1]["content"][0]["document"]["name"] == "Q3 report"
    assert results[1]["content"][1]["image"]["source"] == {
        "s3Location": {"uri": "s3://reports-bucket/q3/cover.jpg", "bucketOwner": "123456789012"}
    }
    validate("Converse", to_boto3(claude))
    llama = quiet_encode(ri, model="meta.llama3-3-70b-instruct-v1:0")
    validate("Converse", to_boto3(llama))
    kinds = [
        [next(iter(c)) for c in b["toolResult"]["content"]] for b in llama["messages"][2]["content"]
    ]
    assert kinds == [["text"], []]
    assert {loss.kind for loss in llama.losses} == {"part-dropped"}
    assert len(llama.losses) == 3


def test_media_relocates_to_the_user_message_for_a_model_that_takes_it_there() -> None:
    ri = run(
        [
            ask(),
            AssistantMessage(id="a1", tool_calls=[call("c1")]),
            ToolMessage(
                id="r1",
                tool_call_id="c1",
                content=[
                    TextPart(text="see"),
                    ImagePart(source=DataSource(value=PNG, mime_type="image/png")),
                ],
            ),
        ]
    )
    body = quiet_encode(ri, model="amazon.nova-pro-v1:0", media="relocate")
    validate("Converse", to_boto3(body))
    user = body["messages"][2]["content"]
    assert user[0]["toolResult"]["content"] == [{"text": "see"}]
    assert any("image" in b for b in user[1:])


def test_a_json_result_goes_back_as_json() -> None:
    (_, body) = next(r for r in REQUESTS if r[0] == "parallel_three_tool_use-1")
    again = quiet_encode(decode_request(body), model=MODEL)
    first = again["messages"][2]["content"][0]["toolResult"]
    assert first["content"] == [{"json": {"temp_c": 18}}]


def test_an_error_result_has_status_error_and_its_text() -> None:
    ri = run(
        [
            ask(),
            AssistantMessage(id="a1", tool_calls=[call("c1")]),
            ToolMessage(id="r1", tool_call_id="c1", content="", error="disk full"),
        ]
    )
    body = quiet_encode(ri, model=MODEL)
    result = body["messages"][2]["content"][0]["toolResult"]
    assert result == {"toolUseId": "c1", "status": "error", "content": [{"text": "disk full"}]}
    validate("Converse", to_boto3(body))
    back = decode_request(body)
    assert back.messages[-1].error == "disk full"


def test_foreign_ids_are_mapped_to_converses_rule_and_stay_paired() -> None:
    odd = "call_abc.def:ghi/" + "z" * 70
    ri = run(
        [
            ask(),
            AssistantMessage(id="a1", tool_calls=[call(odd), call("toolu_ok")]),
            ToolMessage(id="r1", tool_call_id=odd, content="one"),
            ToolMessage(id="r2", tool_call_id="toolu_ok", content="two"),
        ]
    )
    body = quiet_encode(ri, model=MODEL)
    uses = [b["toolUse"]["toolUseId"] for b in body["messages"][1]["content"]]
    answered = [b["toolResult"]["toolUseId"] for b in body["messages"][2]["content"]]
    assert uses == answered
    assert uses[1] == "toolu_ok"
    for tid in uses:
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tid)
    assert any(loss.kind.startswith("tool-call-id") or "id" in loss.kind for loss in body.losses)


def test_an_unanswered_call_is_refused_or_settled() -> None:
    ri = run([ask(), AssistantMessage(id="a1", tool_calls=[call("c1")])])
    with pytest.raises(UnansweredToolCall):
        quiet_encode(ri, model=MODEL)
    answered = quiet_encode(ri, model=MODEL, unanswered="answer", unanswered_text="no result")
    result = answered["messages"][2]["content"][0]["toolResult"]
    assert result["toolUseId"] == "c1" and result["status"] == "error"
    validate("Converse", to_boto3(answered))


def test_tools_become_tool_specs_with_their_schema() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    body = quiet_encode(
        run([ask()], [Tool(name="calc", description="adds", parameters=schema)]),
        model=MODEL,
        max_tokens=256,
    )
    assert body["toolConfig"] == {
        "tools": [
            {"toolSpec": {"name": "calc", "description": "adds", "inputSchema": {"json": schema}}}
        ]
    }
    assert body["inferenceConfig"] == {"maxTokens": 256}
    validate("ConverseStream", to_boto3(body))


def test_arguments_that_are_not_an_object_go_out_empty_with_a_loss() -> None:
    ri = run(
        [
            ask(),
            AssistantMessage(id="a1", tool_calls=[call("c1", args='{"a":')]),
            ToolMessage(id="r1", tool_call_id="c1", content="x"),
        ]
    )
    body = quiet_encode(ri, model=MODEL)
    assert body["messages"][1]["content"][0]["toolUse"]["input"] == {}
    assert [loss.kind for loss in body.losses] == ["arguments-not-object"]


def test_a_document_without_a_name_gets_one_converse_takes() -> None:
    ri = run(
        [
            ask(),
            AssistantMessage(id="a1", tool_calls=[call("c1")]),
            ToolMessage(
                id="r1",
                tool_call_id="c1",
                content=[DocumentPart(source=DataSource(value=PDF, mime_type="application/pdf"))],
            ),
        ]
    )
    body = quiet_encode(ri, model=MODEL)
    doc = body["messages"][2]["content"][0]["toolResult"]["content"][0]["document"]
    assert doc["format"] == "pdf" and doc["name"] == "document-1"
    validate("Converse", to_boto3(body))


def test_botocores_validation_would_catch_a_broken_body() -> None:
    # the check used above can fail: a toolUse without its input is refused
    with pytest.raises(ParamValidationError):
        validate(
            "Converse",
            {
                "modelId": MODEL,
                "messages": [
                    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "x", "name": "f"}}]}
                ],
            },
        )


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ({}, "messages"),
        ({"messages": [{"role": "robot", "content": []}]}, "unknown role"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "content"),
        (
            {
                "messages": [
                    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "x", "name": "f"}}]}
                ]
            },
            "input",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"image": {"format": "png", "source": {"bytes": "%%%"}}}],
                    }
                ]
            },
            "base64",
        ),
    ],
)
def test_bad_request_bodies_name_the_field(body: dict[str, Any], match: str) -> None:
    with pytest.raises(VendorDataError, match=match):
        decode_request(body)


def test_the_shipped_bedrock_rows_take_s3_urls_only() -> None:
    """Converse reads media as bytes or from S3 (``s3Location``): the capability rows say so,
    so a web URL is dropped by the fitting, with the reason, before the encoder sees it."""
    from ag_ui.core import ImagePart, UrlSource

    from toolwire.capabilities import accepts

    place = accepts("bedrock", place="tool_result", model="anthropic.claude-sonnet-4")
    s3 = ImagePart(source=UrlSource(value="s3://b/chart.png", mime_type="image/png"))
    web = ImagePart(source=UrlSource(value="https://x.test/chart.png", mime_type="image/png"))
    assert place.why_not(s3) is None
    assert place.why_not(web) is not None and "s3://" in (place.why_not(web) or "")
