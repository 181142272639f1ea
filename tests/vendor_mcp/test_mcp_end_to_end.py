"""End to end with real parts: an MCP server (the SDK's ``MCPServer``, FastMCP's name in
mcp 2.x) over the SDK's in-process memory transport, called by the SDK's real
``Client``; toolwire maps the results into ToolMessages, and the next request is
encoded for every model adapter in the registry. Each body is judged by that vendor SDK's
own types (``sdk_accepts`` in ``tests/vendor_<name>/_rules.py``), and the losses are exactly
the ones the capability table predicts. The
prediction is read here from ``adapters/<target>/capabilities.json`` (the rows of
docs/capabilities.md) by this test's own matcher, not from the encoders.
"""

from __future__ import annotations

import asyncio
import warnings
from fnmatch import fnmatchcase
from typing import Any, TypedDict

import mcp.types as mt
import pytest
from _media import b64, pdf, png, wav
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    RunAgentInput,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from vendor_rules import CONVERSATIONS, FAMILIES, MODELS, SDK_ACCEPTS, check_id, check_request

from toolwire import adapters, capabilities
from toolwire.losses import Loss, PartsDroppedWarning

mcp_adapter = adapters.get("mcp")

PNG, WAV, PDF = b64(png()), b64(wav()), b64(pdf())
LINK = "https://example.com/files/q3-summary.pdf"


class Weather(TypedDict):
    temperature: float
    conditions: str


def build_server() -> MCPServer:
    server = MCPServer("toolwire-e2e")

    @server.tool(title="Sales chart")
    def chart() -> list[mt.ContentBlock]:
        """Sales by quarter, as a chart."""
        return [
            mt.TextContent(text="Sales by quarter"),
            mt.ImageContent(data=PNG, mime_type="image/png"),
        ]

    @server.tool()
    def listen() -> list[mt.ContentBlock]:
        """The recorded briefing."""
        return [mt.AudioContent(data=WAV, mime_type="audio/wav")]

    @server.tool()
    def report() -> mt.CallToolResult:
        """The Q3 report, embedded."""
        resource = mt.BlobResourceContents(
            uri="file:///reports/q3.pdf", mime_type="application/pdf", blob=PDF
        )
        return mt.CallToolResult(
            content=[
                mt.TextContent(text="Q3 report attached"),
                mt.EmbeddedResource(resource=resource),
            ],
            structured_content={"quarter": "Q3", "pages": 1},
        )

    @server.tool()
    def find_doc() -> list[mt.ContentBlock]:
        """A link to the summary (not fetched)."""
        return [mt.ResourceLink(uri=LINK, name="q3-summary.pdf", mime_type="application/pdf")]

    @server.tool()
    def weather(city: str) -> Weather:
        """Structured output."""
        return {"temperature": 22.5, "conditions": f"sunny in {city}"}

    @server.tool()
    def broken() -> str:
        """Fails."""
        raise ToolError("the sensor is offline")

    return server


CALLS = [
    ToolCall(id="call_chart", function=FunctionCall(name="chart", arguments="{}")),
    ToolCall(id="call_listen", function=FunctionCall(name="listen", arguments="")),
    ToolCall(id="call_report", function=FunctionCall(name="report", arguments="{}")),
    ToolCall(id="call_find", function=FunctionCall(name="find_doc", arguments="{}")),
    ToolCall(
        id="call_weather", function=FunctionCall(name="weather", arguments='{"city":"Lisbon"}')
    ),
    ToolCall(id="call_broken", function=FunctionCall(name="broken", arguments="{}")),
]


async def _session() -> tuple[list[Any], list[Any]]:
    async with Client(build_server()) as client:
        listed = await client.list_tools()
        results = []
        for call in CALLS:
            params = mcp_adapter.encode_call(call)
            results.append(await client.call_tool(params["name"], params.get("arguments")))
        return list(listed.tools), results


@pytest.fixture(scope="module")
def session() -> tuple[RunAgentInput, list[Any]]:
    tools, results = asyncio.run(_session())
    messages: list[Any] = [
        UserMessage(id="u1", content="Summarise Q3 for me"),
        AssistantMessage(id="a1", tool_calls=CALLS),
    ]
    for call, result in zip(CALLS, results, strict=True):
        assert isinstance(result, mt.CallToolResult)
        messages.append(mcp_adapter.decode_result(result, tool_call_id=call.id))
    run_input = RunAgentInput(
        thread_id="t1",
        run_id="r1",
        state=None,
        messages=messages,
        tools=[mcp_adapter.decode_tool(t) for t in tools],
        context=[],
        forwarded_props=None,
    )
    return run_input, results


def _tool_messages(run_input: RunAgentInput) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in run_input.messages if isinstance(m, ToolMessage)}


def test_the_sdk_results_become_tool_messages_with_every_part(session: Any) -> None:
    run_input, results = session
    tm = _tool_messages(run_input)
    dump = {k: m.model_dump(mode="json", by_alias=True, exclude_none=True) for k, m in tm.items()}
    chart = dump["call_chart"]["content"]
    assert chart[0] == {"type": "text", "text": "Sales by quarter"}
    assert chart[1] == {
        "type": "image",
        "source": {"type": "data", "value": PNG, "mimeType": "image/png"},
    }
    assert dump["call_listen"]["content"] == [
        {"type": "audio", "source": {"type": "data", "value": WAV, "mimeType": "audio/wav"}}
    ]
    report = dump["call_report"]
    assert report["content"][1]["type"] == "document"
    assert report["content"][1]["source"] == {
        "type": "data",
        "value": PDF,
        "mimeType": "application/pdf",
    }
    assert report["content"][1]["metadata"]["mcp.uri"] == "file:///reports/q3.pdf"
    # the server sent no JSON text for its structured content: it is added, once
    assert report["content"][2]["text"] == '{"quarter":"Q3","pages":1}'
    assert report["metadata"]["mcp.structuredContent"] == {"quarter": "Q3", "pages": 1}
    link = dump["call_find"]["content"][0]
    assert link["type"] == "document"
    assert link["source"] == {"type": "url", "value": LINK, "mimeType": "application/pdf"}
    # the SDK's server restates structured output as JSON text: not duplicated
    weather = dump["call_weather"]
    assert [p["type"] for p in weather["content"]] == ["text"]
    assert weather["metadata"]["mcp.structuredContent"] == {
        "temperature": 22.5,
        "conditions": "sunny in Lisbon",
    }
    assert results[5].is_error is True
    assert dump["call_broken"]["error"] == results[5].content[0].text
    assert "sensor is offline" in dump["call_broken"]["error"]


def test_the_tool_definitions_come_across(session: Any) -> None:
    run_input, _ = session
    tools = {t.name: t for t in run_input.tools}
    assert set(tools) == {c.function.name for c in CALLS}
    assert tools["chart"].metadata == {"mcp.title": "Sales chart"}
    assert tools["chart"].description == "Sales by quarter, as a chart."
    assert tools["weather"].parameters["properties"]["city"]["type"] == "string"
    assert tools["weather"].metadata["mcp.outputSchema"]["required"] == [
        "temperature",
        "conditions",
    ]


# ------------------------------------------------------- the capability table's prediction


def _conforms(target: str, call_id: str) -> bool:
    try:
        check_id(target, call_id)
    except AssertionError:
        return False
    return True


def _row(target: str, family: str) -> dict[str, Any]:
    (row,) = [f for f in capabilities.table(target)["families"] if f["name"] == family]
    return row


def _takes(spec: dict[str, Any], part: dict[str, Any]) -> bool:
    if part["type"] == "text":
        return bool(spec.get("text", True))
    source = part["source"]
    mime = source.get("mimeType")
    for rule in spec.get("rules", []):
        if rule["kind"] != part["type"] or source["type"] not in rule.get(
            "sources", ["data", "url", "file"]
        ):
            continue
        schemes = rule.get("url_schemes")
        if source["type"] == "url" and schemes and source["value"].split(":")[0] not in schemes:
            continue
        if mime is None:
            if rule.get("allow_unknown_mime", True):
                return True
        elif any(fnmatchcase(mime.lower(), p) for p in rule.get("mime_types", ["*"])):
            return True
    return False


def predicted_drops(run_input: RunAgentInput, target: str, media: str) -> list[tuple[str, int]]:
    row = _row(target, FAMILIES[target])
    out = []
    for call_id, msg in _tool_messages(run_input).items():
        if isinstance(msg.content, str):
            continue
        for i, part in enumerate(msg.content):
            p = part.model_dump(mode="json", by_alias=True, exclude_none=True)
            if _takes(row["tool_result"], p):
                continue
            if media == "relocate" and p["type"] != "text" and _takes(row["user_message"], p):
                continue
            out.append((call_id, i))
    return sorted(out)


@pytest.mark.parametrize("media", ["drop", "relocate"])
@pytest.mark.parametrize("target", list(MODELS))
def test_next_request_for_each_vendor_loses_exactly_what_the_table_says(
    session: Any, target: str, media: str
) -> None:
    run_input, _ = session
    model = MODELS[target]
    losses: list[Loss] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = adapters.get(target).encode_request(
            run_input, model=model, media=media, losses=losses
        )
    dropped = sorted(
        (x.tool_call_id or "", x.part_index or 0) for x in losses if x.kind == "part-dropped"
    )
    assert dropped == predicted_drops(run_input, target, media)
    # the calls were made AG-UI side, unsigned: a family that requires thought
    # signatures (the table's ``thought_signatures``) reports that, and nothing else
    signed = _row(target, FAMILIES[target]).get("thought_signatures") == "required"
    # and a call id the target's rule rejects is sent as a conforming one, reported
    remapped = ["call-id-remapped" for c in CALLS if not _conforms(target, c.id)]
    other = [x.kind for x in losses if x.kind != "part-dropped"]
    assert sorted(other) == sorted(remapped + (["thought-signature-missing"] if signed else []))
    assert len([w for w in caught if issubclass(w.category, PartsDroppedWarning)]) == len(dropped)
    SDK_ACCEPTS[target](body)
    check_request(target, body)  # the target's pairing and id rules (tests/cross/vendor_rules)


def test_the_table_says_what_the_issue_says(session: Any) -> None:
    """The prediction itself, spelled out: Anthropic keeps image, PDF and PDF link in
    tool_result and drops audio; Chat keeps no media in a tool message; Gemini 3
    keeps PNG and PDF data in functionResponse.parts, not audio or a URL."""
    run_input, _ = session
    audio, link = ("call_listen", 0), ("call_find", 0)
    assert predicted_drops(run_input, "anthropic", "drop") == [audio]
    assert predicted_drops(run_input, "openai_chat", "drop") == sorted(
        [("call_chart", 1), audio, link, ("call_report", 1)]
    )
    assert predicted_drops(run_input, "openai_chat", "relocate") == sorted([audio, link])
    assert predicted_drops(run_input, "gemini", "drop") == sorted([audio, link])
    assert predicted_drops(run_input, "gemini", "relocate") == [link]


def _with_warnings_silenced(target: str, run_input: RunAgentInput, media: str = "drop") -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return adapters.get(target).encode_request(run_input, model=MODELS[target], media=media)


def test_anthropic_keeps_image_and_pdf_inside_tool_result(session: Any) -> None:
    body = _with_warnings_silenced("anthropic", session[0])
    results = {
        b["tool_use_id"]: b
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    }
    assert [b["type"] for b in results["call_chart"]["content"]] == ["text", "image"]
    assert results["call_chart"]["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": PNG,
    }
    report = results["call_report"]["content"]
    assert report[1]["type"] == "document"
    assert report[1]["source"]["data"] == PDF
    assert results["call_find"]["content"][0]["source"] == {"type": "url", "url": LINK}
    assert results["call_broken"]["is_error"] is True


def test_gemini_3_keeps_media_in_function_response_parts(session: Any) -> None:
    body = _with_warnings_silenced("gemini", session[0])
    # google-genai keyword arguments: snake_case field names
    responses = {
        p["function_response"]["id"]: p["function_response"]
        for c in body["contents"]
        for p in c["parts"]
        if "function_response" in p
    }
    chart = responses["call_chart"]["parts"]
    assert [p["inline_data"]["mime_type"] for p in chart] == ["image/png"]
    assert chart[0]["inline_data"]["data"] == PNG
    report = responses["call_report"]["parts"]
    assert [p["inline_data"]["mime_type"] for p in report] == ["application/pdf"]
    assert "parts" not in responses["call_listen"]


def test_openai_chat_tool_messages_hold_text_only(session: Any) -> None:
    body = _with_warnings_silenced("openai_chat", session[0])
    tool_msgs = [m for m in body["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == len(CALLS)
    for m in tool_msgs:
        content = m["content"]
        assert isinstance(content, str) or all(p["type"] == "text" for p in content)
    relocated = _with_warnings_silenced("openai_chat", session[0], media="relocate")
    user_parts = [
        p
        for m in relocated["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for p in m["content"]
    ]
    assert {p["type"] for p in user_parts} >= {"image_url", "file"}


@pytest.mark.parametrize("target", list(MODELS))
def test_the_sdk_checks_can_fail(session: Any, target: str) -> None:
    """A field the vendor's types do not know, in the first message, is caught."""
    body = _with_warnings_silenced(target, session[0])
    first = body[CONVERSATIONS[target]][0]
    first["toolwire_bogus"] = 1
    with pytest.raises(Exception) as caught:
        SDK_ACCEPTS[target](body)
    assert "toolwire_bogus" in str(caught.value) or isinstance(caught.value, AssertionError)
