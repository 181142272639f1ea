"""AG-UI history -> Gemini requests (and back): fitting, pairing, ids, signatures, errors.

Every body is put through google-genai's own request conversion (the JSON it would POST), so
a request the SDK would refuse to build fails here. Expected shapes come from
vendor-wire-formats.md §5B and from the hand-built cassette's recorded request.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from _gemini_project import request_view
from _gemini_sdk import OWN, field, sdk_wire_request
from ag_ui.core import (
    AssistantMessage,
    DataSource,
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
)

from toolwire import PartsDroppedWarning, UnansweredToolCall
from toolwire.adapters import gemini
from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.testing.recording_cache import recording

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5E"
    "rkJggg=="
)
PDF = "JVBERi0xLjQKJSVFT0YK"


def _input(*messages: Any, tools: list[Tool] | None = None) -> RunAgentInput:
    return RunAgentInput(
        thread_id="t", run_id="r", messages=list(messages), tools=tools or [], context=[]
    )


def _call(cid: str, name: str = "get", args: str = '{"q":1}', sig: str | None = None) -> ToolCall:
    kw = {"encrypted_value": sig} if sig else {}
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=args), **kw)


def _history(content: Any, *, error: str | None = None) -> RunAgentInput:
    kw = {"error": error} if error else {}
    return _input(
        UserMessage(id="u1", content="go"),
        AssistantMessage(id="a1", tool_calls=[_call("c1", sig="c2lnLTE=")]),
        ToolMessage(id="t1", tool_call_id="c1", content=content, **kw),
    )


def _encode(ri: RunAgentInput, model: str, **kw: Any) -> tuple[dict[str, Any], list[Loss]]:
    losses: list[Loss] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = gemini.encode_request(ri, model=model, losses=losses, **kw)
    return body, losses


def _response_turn(wire: dict[str, Any]) -> list[dict[str, Any]]:
    return wire["contents"][-1]["parts"]


def test_recorded_media_request_decodes_to_parts_and_encodes_back_identically() -> None:
    ex = recording(OWN / "gemini3_function_response_media.yaml")[0]
    body = ex.request_body
    ri = gemini.decode_request(body)
    tools = [m for m in ri.messages if isinstance(m, ToolMessage)]
    assert [t.tool_call_id for t in tools] == ["fc-radar", "fc-report"]
    radar, report = tools[0].content, tools[1].content
    assert isinstance(radar, list) and isinstance(report, list)
    assert radar[0] == TextPart(text="Radar for Paris")
    assert isinstance(radar[1], ImagePart) and radar[1].source.mime_type == "image/png"
    assert radar[1].metadata == {"gemini.displayName": "radar.png"}
    assert [type(p) for p in report] == [DocumentPart, DocumentPart]
    assert isinstance(report[1].source, FileSource)
    assert report[1].source.value == "https://generativelanguage.googleapis.com/v1beta/files/abc123"
    assistant = next(m for m in ri.messages if isinstance(m, AssistantMessage))
    assert (assistant.tool_calls or [])[0].encrypted_value == "cmFkYXItc2ln"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kwargs = gemini.encode_request(ri, model="gemini-3-flash-preview")
    assert request_view(sdk_wire_request(kwargs)) == request_view(body)


def test_gemini3_puts_media_in_function_response_parts_on_both_backends() -> None:
    content = [
        TextPart(text="see"),
        ImagePart(source=DataSource(value=PNG, mime_type="image/png")),
        DocumentPart(source=DataSource(value=PDF, mime_type="application/pdf")),
    ]
    for vertex in (False, True):
        body, losses = _encode(
            _history(content), "gemini-3-pro-preview", backend="vertex" if vertex else "gemini_api"
        )
        assert losses == []
        (part,) = _response_turn(sdk_wire_request(body, vertex=vertex))
        fr = part["functionResponse"]
        assert fr["id"] == "c1" and fr["response"] == {"output": "see"}
        blobs = [field(p, "inlineData") for p in fr["parts"]]
        assert [(b["mime_type"], b["data"]) for b in blobs] == [
            ("image/png", PNG),
            ("application/pdf", PDF),
        ]


def test_gemini2_drops_media_with_a_warning_and_still_answers() -> None:
    content = [ImagePart(source=DataSource(value=PNG, mime_type="image/png"))]
    with pytest.warns(PartsDroppedWarning, match="image"):
        body = gemini.encode_request(_history(content), model="gemini-2.5-flash")
    (part,) = _response_turn(sdk_wire_request(body))
    fr = part["functionResponse"]
    assert "parts" not in fr
    assert fr["response"] == {"output": ""}  # every part dropped: the empty answer
    assert "id" not in fr  # Gemini 2.x is sent no ids


def test_gemini2_relocates_media_beside_the_function_responses_when_asked() -> None:
    content = [
        TextPart(text="chart"),
        ImagePart(source=DataSource(value=PNG, mime_type="image/png")),
    ]
    body, losses = _encode(
        _history(content), "gemini-2.5-flash", media="relocate", media_label=None
    )
    assert losses == []
    parts = _response_turn(sdk_wire_request(body))
    assert list(parts[0]) == ["functionResponse"]
    assert parts[0]["functionResponse"]["response"] == {"output": "chart"}
    assert field(parts[1], "inlineData")["data"] == PNG  # same user turn, after the responses


def test_url_sources_are_dropped_and_data_urls_travel_inline() -> None:
    content = [
        ImagePart(source=UrlSource(value="https://example.com/a.png", mime_type="image/png")),
        ImagePart(source=UrlSource(value=f"data:image/png;base64,{PNG}")),
    ]
    body, losses = _encode(_history(content), "gemini-3-pro-preview")
    assert [(x.part_index, x.source_kind) for x in losses] == [(0, "url")]
    fr = _response_turn(sdk_wire_request(body))[0]["functionResponse"]
    assert [field(p, "inlineData")["data"] for p in fr["parts"]] == [PNG]


def test_file_handles_go_only_to_the_backend_that_resolves_them() -> None:
    files = FileSource(
        value="https://generativelanguage.googleapis.com/v1beta/files/x",
        provider="gemini",
        mime_type="application/pdf",
    )
    gcs = FileSource(value="gs://bucket/report.pdf", provider="vertex", mime_type="application/pdf")
    content = [DocumentPart(source=files), DocumentPart(source=gcs)]
    api, api_losses = _encode(_history(content), "gemini-3-pro-preview")
    vx, vx_losses = _encode(_history(content), "gemini-3-pro-preview", backend="vertex")
    api_fr = _response_turn(sdk_wire_request(api))[0]["functionResponse"]
    vx_fr = _response_turn(sdk_wire_request(vx, vertex=True))[0]["functionResponse"]
    assert [field(p, "fileData")["file_uri"] for p in api_fr["parts"]] == [files.value]
    assert [field(p, "fileData")["file_uri"] for p in vx_fr["parts"]] == [gcs.value]
    assert [x.part_index for x in api_losses] == [1]
    assert [x.part_index for x in vx_losses] == [0]


def test_error_reaches_the_model_with_the_content() -> None:
    body, _ = _encode(_history("partial rows", error="timeout"), "gemini-3-pro-preview")
    fr = _response_turn(sdk_wire_request(body))[0]["functionResponse"]
    assert fr["response"] == {"output": "partial rows", "error": "timeout"}
    body, _ = _encode(_history("", error="boom"), "gemini-3-pro-preview")
    fr = _response_turn(sdk_wire_request(body))[0]["functionResponse"]
    assert fr["response"] == {"error": "boom"}
    back = gemini.decode_request(sdk_wire_request(body))
    tool = next(m for m in back.messages if isinstance(m, ToolMessage))
    assert (tool.error, tool.content) == ("boom", "")


def test_calls_and_answers_are_paired_in_call_order_with_signatures() -> None:
    ri = _input(
        SystemMessage(id="s", content="be brief"),
        UserMessage(id="u1", content="two things"),
        ReasoningMessage(id="r1", content="thinking", encrypted_value="dGhpbms="),
        AssistantMessage(
            id="a1",
            content="on it",
            tool_calls=[_call("c1", "a", '{"x":1}', sig="c2lnLTE="), _call("c2", "b", "")],
        ),
        ToolMessage(id="t2", tool_call_id="c2", content="B"),
        ToolMessage(id="t1", tool_call_id="c1", content="A"),
        UserMessage(id="u2", content="thanks"),
        tools=[Tool(name="a", description="A", parameters={"type": "object"})],
    )
    body, _ = _encode(ri, "gemini-3-pro-preview")
    wire = sdk_wire_request(body)
    assert wire["systemInstruction"] == {"parts": [{"text": "be brief"}]}
    model, answers, last = wire["contents"][1:]
    assert model["role"] == "model"
    assert model["parts"][0] == {
        "text": "thinking",
        "thought": True,
        "thoughtSignature": "dGhpbms=",
    }
    assert model["parts"][1] == {"text": "on it"}
    assert model["parts"][2] == {
        "functionCall": {"id": "c1", "args": {"x": 1}, "name": "a"},
        "thoughtSignature": "c2lnLTE=",
    }
    assert model["parts"][3] == {"functionCall": {"id": "c2", "args": {}, "name": "b"}}
    assert [p["functionResponse"]["id"] for p in answers["parts"]] == ["c1", "c2"]
    assert last == {"role": "user", "parts": [{"text": "thanks"}]}
    assert wire["tools"][0]["functionDeclarations"][0]["name"] == "a"


def test_gemini3_turn_without_any_signature_gets_the_documented_skip_value() -> None:
    ri = _input(
        UserMessage(id="u1", content="go"),
        AssistantMessage(id="a1", tool_calls=[_call("c1"), _call("c2")]),
        ToolMessage(id="t1", tool_call_id="c1", content="1"),
        ToolMessage(id="t2", tool_call_id="c2", content="2"),
    )
    body, losses = _encode(ri, "gemini-3-pro-preview")
    parts = sdk_wire_request(body)["contents"][1]["parts"]
    assert [p.get("thoughtSignature") for p in parts] == ["skip_thought_signature_validator", None]
    assert [x.kind for x in losses] == ["thought-signature-missing"]
    body2, losses2 = _encode(ri, "gemini-2.5-flash")
    assert all("thoughtSignature" not in p for p in sdk_wire_request(body2)["contents"][1]["parts"])
    assert losses2 == []


def test_an_unanswered_call_before_more_conversation_is_refused() -> None:
    ri = _input(
        UserMessage(id="u1", content="go"),
        AssistantMessage(id="a1", tool_calls=[_call("c1")]),
        UserMessage(id="u2", content="never mind"),
    )
    with pytest.raises(UnansweredToolCall):
        gemini.encode_request(ri, model="gemini-3-pro-preview")


def test_arguments_that_are_not_an_object_are_a_recorded_loss() -> None:
    ri = _input(
        UserMessage(id="u1", content="go"),
        AssistantMessage(id="a1", tool_calls=[_call("c1", args="[1, 2")]),
        ToolMessage(id="t1", tool_call_id="c1", content="x"),
    )
    body, losses = _encode(ri, "gemini-3-pro-preview")
    assert [x.kind for x in losses][:1] == ["arguments-not-object"]
    assert sdk_wire_request(body)["contents"][1]["parts"][0]["functionCall"]["args"] == {}


def test_decode_request_pairs_by_name_and_order_without_ids() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "a", "args": {"n": 1}}},
                    {"functionCall": {"name": "b", "args": {}}},
                    {"functionCall": {"name": "a", "args": {"n": 2}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "b", "response": {"output": "B"}}},
                    {"functionResponse": {"name": "a", "response": {"output": "A1"}}},
                    {"functionResponse": {"name": "a", "response": {"output": "A2"}}},
                ],
            },
        ]
    }
    ri = gemini.decode_request(body)
    assistant = next(m for m in ri.messages if isinstance(m, AssistantMessage))
    calls = assistant.tool_calls or []
    assert [c.function.arguments for c in calls] == ['{"n":1}', "{}", '{"n":2}']
    answers = {m.tool_call_id: m.content for m in ri.messages if isinstance(m, ToolMessage)}
    assert answers == {calls[0].id: "A1", calls[1].id: "B", calls[2].id: "A2"}
    assert gemini.decode_request(body) == ri  # minted ids are deterministic
    # and the SDK's own kwargs form decodes the same way
    again = gemini.decode_request({"model": "m", "contents": body["contents"]})
    assert again.messages == ri.messages


def test_decode_request_names_the_bad_field() -> None:
    bad = {"contents": [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]}
    with pytest.raises(VendorDataError, match=r"contents\[0\]\.parts\[0\]\.functionCall\.name"):
        gemini.decode_request(bad)
    orphan = {
        "contents": [
            {"role": "user", "parts": [{"functionResponse": {"name": "x", "response": {}}}]}
        ]
    }
    with pytest.raises(VendorDataError, match=r"contents\[0\]\.parts\[0\]"):
        gemini.decode_request(orphan)


def test_resent_calls_never_carry_streaming_fields() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {
                            "id": "c1",
                            "name": "f",
                            "args": {"a": 1},
                            "willContinue": False,
                            "partialArgs": [{"jsonPath": "$.a", "numberValue": 1}],
                        }
                    }
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "c1", "name": "f", "response": {"output": "ok"}}}
                ],
            },
        ]
    }
    kwargs, _ = _encode(gemini.decode_request(body), "gemini-3-pro-preview")
    text = json.dumps(sdk_wire_request(kwargs))  # the Gemini API converter raises on them too
    assert "partial" not in text.lower() and "willContinue" not in text


def test_sdk_objects_decode_like_the_json_they_stand_for() -> None:
    from google.genai import types

    ex = recording(OWN / "gemini3_function_response_media.yaml")[0]
    body = ex.request_body
    contents = [types.Content.model_validate(c) for c in body["contents"]]
    tools = [types.Tool.model_validate(t) for t in body["tools"]]
    config = types.GenerateContentConfig(tools=tools)
    from_sdk = gemini.decode_request({"model": "m", "contents": contents, "config": config})
    assert from_sdk.messages == gemini.decode_request(body).messages
    assert [t.name for t in from_sdk.tools or []] == ["get_radar", "get_report"]


def test_vertex_gcs_media_request_round_trips_through_the_vertex_wire() -> None:
    ex = recording(OWN / "vertex_function_response_gcs.yaml")[0]
    body = ex.request_body
    ri = gemini.decode_request(body, backend="vertex")
    tool = next(m for m in ri.messages if isinstance(m, ToolMessage))
    assert isinstance(tool.content, list)
    gcs = tool.content[1]
    assert isinstance(gcs, DocumentPart) and isinstance(gcs.source, FileSource)
    assert (gcs.source.value, gcs.source.provider) == ("gs://scans/scan-7.pdf", "vertex")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kwargs = gemini.encode_request(ri, model="gemini-3-pro-preview", backend="vertex")
    assert request_view(sdk_wire_request(kwargs, vertex=True)) == request_view(body)
    # the same history on the Gemini API: a gs:// object is not a file it can resolve
    with pytest.warns(PartsDroppedWarning, match="file handle"):
        api = gemini.encode_request(ri, model="gemini-3-pro-preview")
    fr = _response_turn(sdk_wire_request(api))[0]["functionResponse"]
    assert [list(p) for p in fr["parts"]] == [["inline_data"]]


def test_a_signature_that_came_on_a_text_part_goes_back_on_the_text_part() -> None:
    # A Gemini 3 model turn as the wire holds it (vendor-wire-formats.md §5): a signed text
    # part before a signed call, and a later turn whose signature rode on an empty last part.
    sent = [
        {"role": "user", "parts": [{"text": "weather?"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Let me check.", "thoughtSignature": "dGV4dC1zaWc="},
                {
                    "functionCall": {"id": "c1", "name": "get", "args": {"q": 1}},
                    "thoughtSignature": "Y2FsbC1zaWc=",
                },
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "c1", "name": "get", "response": {"output": "sun"}}}
            ],
        },
        {"role": "model", "parts": [{"text": "", "thoughtSignature": "ZW5kLXNpZw=="}]},
        {"role": "user", "parts": [{"text": "thanks"}]},
    ]
    ri = gemini.decode_request({"contents": sent})
    body, losses = _encode(ri, "gemini-3-pro-preview")
    assert sdk_wire_request(body)["contents"] == sent
    assert losses == []


def test_a_streamed_text_signature_reaches_the_next_request_on_the_text_part() -> None:
    from ag_ui.core import RunAgentInput as Input

    from toolwire.protocol import StreamMachine, frame_run

    text = {"text": "Let me check.", "thoughtSignature": "dGV4dC1zaWc="}
    call = {"functionCall": {"id": "c1", "name": "get", "args": {"q": 1}}}
    chunks = [
        {"responseId": "r1", "candidates": [{"content": {"role": "model", "parts": [text]}}]},
        {
            "responseId": "r1",
            "candidates": [{"content": {"role": "model", "parts": [call]}, "finishReason": "STOP"}],
        },
    ]
    machine = StreamMachine()
    list(frame_run(gemini.Decoder(), chunks, thread_id="t", run_id="r", machine=machine))
    machine.close()
    history = [
        UserMessage(id="u1", content="weather?"),
        *machine.messages,
        ToolMessage(id="t1", tool_call_id="c1", content="sun"),
    ]
    body, _ = _encode(
        Input(thread_id="t", run_id="r", messages=history, tools=[], context=[]),
        "gemini-3-pro-preview",
    )
    model_turn = sdk_wire_request(body)["contents"][1]
    assert model_turn["parts"][0] == text
    assert model_turn["parts"][1]["functionCall"] == call["functionCall"]


def test_a_failed_code_run_without_output_reads_as_its_outcome_and_goes_back_without_one() -> None:
    sent = [
        {"role": "user", "parts": [{"text": "loop"}]},
        {
            "role": "model",
            "parts": [
                {"executableCode": {"language": "PYTHON", "code": "while True: pass"}},
                {"codeExecutionResult": {"outcome": "OUTCOME_DEADLINE_EXCEEDED"}},
                {"text": "It timed out."},
            ],
        },
        {"role": "user", "parts": [{"text": "ok"}]},
    ]
    ri = gemini.decode_request({"contents": sent})
    (tool,) = [m for m in ri.messages if isinstance(m, ToolMessage)]
    assert (tool.content, tool.error) == ("OUTCOME_DEADLINE_EXCEEDED",) * 2
    body, _ = _encode(ri, "gemini-2.5-flash")
    parts = sdk_wire_request(body)["contents"][1]["parts"]
    (result,) = [p["codeExecutionResult"] for p in parts if "codeExecutionResult" in p]
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    assert result.get("output", "") == ""


def _declared(parameters: dict[str, Any], key: str = "parameters") -> Any:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [{"functionDeclarations": [{"name": "f", key: parameters}]}],
    }
    (tool,) = gemini.decode_request(body).tools
    return tool.parameters


def test_a_gemini_schema_becomes_the_json_schema_other_vendors_read() -> None:
    """``parameters`` is Gemini's OpenAPI-style Schema (upper-case type names, ``nullable``,
    google-genai's snake_case keywords); an AG-UI tool carries JSON Schema, which OpenAI,
    Anthropic and the rest validate against: the same schema, in that spelling."""
    schema = {
        "type": "OBJECT",
        "properties": {
            "city": {"type": "STRING", "description": "where", "nullable": True},
            "days": {"type": "ARRAY", "items": {"type": "INTEGER"}, "max_items": 7},
            "unit": {"any_of": [{"type": "STRING", "enum": ["c", "f"]}, {"type": "NULL"}]},
            "note": {"type": "TYPE_UNSPECIFIED"},
        },
        "required": ["city"],
    }
    assert _declared(schema) == {
        "type": "object",
        "properties": {
            "city": {"type": ["string", "null"], "description": "where"},
            "days": {"type": "array", "items": {"type": "integer"}, "maxItems": 7},
            "unit": {"anyOf": [{"type": "string", "enum": ["c", "f"]}, {"type": "null"}]},
            "note": {},
        },
        "required": ["city"],
    }
    # JSON Schema given as such is the caller's, kept exactly
    as_given = {"type": "object", "properties": {"x": {"type": "STRING"}}}
    assert _declared(as_given, "parametersJsonSchema") == as_given


def test_a_schema_nested_without_end_is_a_vendor_error() -> None:
    deep: dict[str, Any] = {"type": "STRING"}
    for _ in range(80):
        deep = {"type": "ARRAY", "items": deep}
    with pytest.raises(VendorDataError, match="nested over"):
        _declared(deep)
