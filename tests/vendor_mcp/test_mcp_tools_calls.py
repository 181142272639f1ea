"""MCP ``Tool`` <-> AG-UI ``Tool``, ``tools/call`` params <-> AG-UI ``ToolCall``.

The MCP shapes are the examples of MCP 2026-07-28 (``server/tools.mdx``); every
encoded value is also parsed by the SDK's own ``mcp.types`` model.
"""

from __future__ import annotations

from typing import Any

import mcp.types as mt
import pytest
from ag_ui.core import FunctionCall, Tool, ToolCall

from toolwire import adapters
from toolwire.errors import UnsupportedInput, VendorDataError
from toolwire.losses import ContentLossWarning, Loss, UnrecognizedMaterialWarning

m = adapters.get("mcp")

WEATHER = {
    "name": "get_weather_data",
    "title": "Weather Data Retriever",
    "description": "Get current weather data for a location",
    "inputSchema": {
        "type": "object",
        "properties": {"location": {"type": "string", "description": "City name or zip code"}},
        "required": ["location"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {
            "temperature": {"type": "number", "description": "Temperature in celsius"},
            "conditions": {"type": "string", "description": "Weather conditions description"},
            "humidity": {"type": "number", "description": "Humidity percentage"},
        },
        "required": ["temperature", "conditions", "humidity"],
    },
    "annotations": {"title": "Weather", "readOnlyHint": True, "openWorldHint": True},
    "icons": [{"src": "https://example.com/sun.png", "mimeType": "image/png"}],
    "_meta": {"com.example/owner": "weather-team"},
}


def test_decode_tool() -> None:
    tool = m.decode_tool(WEATHER)
    assert tool.name == "get_weather_data"
    assert tool.description == "Get current weather data for a location"
    assert tool.parameters == WEATHER["inputSchema"]
    assert tool.metadata == {
        "mcp.title": "Weather Data Retriever",
        "mcp.outputSchema": WEATHER["outputSchema"],
        "mcp.annotations": WEATHER["annotations"],
        "mcp.icons": WEATHER["icons"],
        "mcp._meta": WEATHER["_meta"],
    }


def test_a_tool_comes_back_whole_and_the_sdk_takes_it() -> None:
    out = m.encode_tool(m.decode_tool(WEATHER))
    assert out == WEATHER
    sdk = mt.Tool.model_validate(out)
    assert sdk.model_dump(mode="json", by_alias=True, exclude_none=True) == WEATHER


def test_an_sdk_tool_decodes_like_its_json() -> None:
    assert m.decode_tool(mt.Tool.model_validate(WEATHER)) == m.decode_tool(WEATHER)


def test_no_description_is_the_empty_string_and_back() -> None:
    spec = {"name": "ping", "inputSchema": {"type": "object", "additionalProperties": False}}
    tool = m.decode_tool(spec)
    assert tool.description == "" and tool.metadata is None
    assert m.encode_tool(tool) == spec


@pytest.mark.parametrize(
    ("parameters", "schema"),
    [
        (None, {"type": "object"}),
        (
            {"properties": {"q": {"type": "string"}}},
            {"type": "object", "properties": {"q": {"type": "string"}}},
        ),
        ({"type": "object"}, {"type": "object"}),
    ],
)
def test_agui_parameters_become_an_object_input_schema(parameters: Any, schema: Any) -> None:
    out = m.encode_tool(Tool(name="t", description="d", parameters=parameters))
    assert out == {"name": "t", "description": "d", "inputSchema": schema}
    mt.Tool.model_validate(out)


@pytest.mark.parametrize("parameters", [{"type": "string"}, ["not", "a", "schema"]])
def test_a_schema_for_something_else_is_refused(parameters: Any) -> None:
    with pytest.raises(UnsupportedInput, match="tool 't'"):
        m.encode_tool(Tool(name="t", description="d", parameters=parameters))


def test_foreign_tool_metadata_is_a_loss() -> None:
    losses: list[Loss] = []
    tool = Tool(name="t", description="d", metadata={"openai.strict": True, "mcp.title": "T"})
    with pytest.warns(ContentLossWarning, match="openai.strict"):
        out = m.encode_tool(tool, losses=losses)
    assert out["title"] == "T"
    assert [x.kind for x in losses] == ["metadata-dropped"]


@pytest.mark.parametrize(
    ("tool", "where"),
    [
        ({"inputSchema": {"type": "object"}}, r"tool\.name: missing"),
        ({"name": "t"}, r"tool 't'\.inputSchema: missing"),
        (
            {"name": "t", "inputSchema": {}, "description": 3},
            r"tool 't'\.description: expected a string",
        ),
        (
            {"name": "t", "inputSchema": {}, "annotations": "x"},
            r"tool 't'\.annotations: expected an object",
        ),
    ],
)
def test_malformed_tools(tool: Any, where: str) -> None:
    with pytest.raises(VendorDataError, match=where):
        m.decode_tool(tool)


def test_unknown_tool_fields_are_stripped_with_a_warning() -> None:
    with pytest.warns(UnrecognizedMaterialWarning, match=r"tool 't'\.flavour"):
        tool = m.decode_tool({"name": "t", "inputSchema": {"type": "object"}, "flavour": "mint"})
    assert tool.metadata is None


# ------------------------------------------------------------------------ calls

CALL = {"name": "get_weather", "arguments": {"location": "New York"}}


def test_decode_call() -> None:
    call = m.decode_call(CALL, tool_call_id="call_1")
    assert call == ToolCall(
        id="call_1", function=FunctionCall(name="get_weather", arguments='{"location":"New York"}')
    )


def test_a_whole_request_and_an_sdk_model_decode_like_the_params() -> None:
    request = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": CALL}
    want = m.decode_call(CALL, tool_call_id="c")
    assert m.decode_call(request, tool_call_id="c") == want
    assert m.decode_call(mt.CallToolRequestParams.model_validate(CALL), tool_call_id="c") == want


def test_a_call_comes_back_whole() -> None:
    params = {**CALL, "_meta": {"progressToken": "p1"}, "requestState": "eyJ4IjoxfQ"}
    call = m.decode_call(params, tool_call_id="c")
    assert call.metadata == {"mcp._meta": {"progressToken": "p1"}, "mcp.requestState": "eyJ4IjoxfQ"}
    out = m.encode_call(call)
    assert out == params
    mt.CallToolRequestParams.model_validate(out)


def test_no_arguments_is_empty_text_and_back() -> None:
    call = m.decode_call({"name": "ping"}, tool_call_id="c")
    assert call.function.arguments == ""
    assert m.encode_call(call) == {"name": "ping"}
    assert m.encode_call(m.decode_call({"name": "ping", "arguments": {}}, tool_call_id="c")) == {
        "name": "ping",
        "arguments": {},
    }


@pytest.mark.parametrize("text", ['{"location": "New', "[1, 2]", '"just text"', "null"])
def test_argument_text_that_is_not_an_object_is_a_clear_error(text: str) -> None:
    call = ToolCall(id="call_7", function=FunctionCall(name="get_weather", arguments=text))
    with pytest.raises(
        UnsupportedInput, match=r"tool call 'call_7' \(get_weather\).*not a JSON object"
    ) as info:
        m.encode_call(call)
    assert text not in str(info.value)  # the model's text is not echoed


def test_foreign_call_metadata_and_signatures_are_losses() -> None:
    call = ToolCall(
        id="c",
        function=FunctionCall(name="f", arguments="{}"),
        encrypted_value="sig",
        metadata={"anthropic.caller": {"type": "direct"}},
    )
    losses: list[Loss] = []
    with pytest.warns(ContentLossWarning):
        assert m.encode_call(call, losses=losses) == {"name": "f", "arguments": {}}
    assert (
        len(losses) == 1 and "encryptedValue" in losses[0].reason and losses[0].tool_call_id == "c"
    )


@pytest.mark.parametrize(
    ("params", "error", "where"),
    [
        ({"arguments": {}}, VendorDataError, r"params\.name: missing"),
        (
            {"name": "f", "arguments": [1]},
            VendorDataError,
            r"params\.arguments: expected an object",
        ),
        (
            {"name": "f", "arguments": {"x": float("inf")}},
            VendorDataError,
            r"params\.arguments: not JSON",
        ),
        ({"method": "tools/list", "params": {}}, UnsupportedInput, "not tools/call"),
        ({"method": "tools/call"}, VendorDataError, r"request\.params: missing"),
        ("get_weather", VendorDataError, "expected a JSON object"),
    ],
)
def test_malformed_calls(params: Any, error: type[Exception], where: str) -> None:
    with pytest.raises(error, match=where):
        m.decode_call(params, tool_call_id="c")


def test_a_call_id_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(UnsupportedInput, match="tool_call_id must be a string"):
        m.decode_call(CALL, tool_call_id=3)  # type: ignore[arg-type]
