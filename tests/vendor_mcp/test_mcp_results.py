"""CallToolResult <-> ToolMessage, one content type per row, both directions.

The MCP side of each row is the block as MCP 2026-07-28 writes it
(``docs/specification/2026-07-28/server/tools.mdx`` and ``schema.ts``); the AG-UI
side is the part the issue and docs/adapters/mcp.md say it becomes.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import mcp.types as mt
import pytest
from ag_ui.core import ToolMessage

from toolwire import adapters
from toolwire.errors import ToolwireError, UnsupportedInput, VendorDataError
from toolwire.losses import (
    ContentLossWarning,
    Loss,
    PartsDroppedWarning,
    UnrecognizedMaterialWarning,
)

m = adapters.get("mcp")

ANN = {"audience": ["user"], "priority": 0.9}
META = {"com.example/trace": "t-1"}

# (name, MCP content block, AG-UI part)
DECODE_ROWS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "text",
        {"type": "text", "text": "Tool result text"},
        {"type": "text", "text": "Tool result text"},
    ),
    (
        "text with annotations and _meta",
        {"type": "text", "text": "hi", "annotations": ANN, "_meta": META},
        {"type": "text", "text": "hi", "metadata": {"mcp.annotations": ANN, "mcp._meta": META}},
    ),
    (
        "image",
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "annotations": ANN},
        {
            "type": "image",
            "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"},
            "metadata": {"mcp.annotations": ANN},
        },
    ),
    (
        "audio",
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "audio", "source": {"type": "data", "value": "UklGRg==", "mimeType": "audio/wav"}},
    ),
    (
        "embedded text resource",
        {
            "type": "resource",
            "resource": {
                "uri": "file:///project/src/main.rs",
                "mimeType": "text/x-rust",
                "text": 'fn main() {\n    println!("Hello world!");\n}',
            },
        },
        {
            "type": "text",
            "text": 'fn main() {\n    println!("Hello world!");\n}',
            "metadata": {
                "mcp.type": "resource",
                "mcp.uri": "file:///project/src/main.rs",
                "mcp.mimeType": "text/x-rust",
            },
        },
    ),
    (
        "embedded PDF blob",
        {
            "type": "resource",
            "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="},
            "annotations": ANN,
        },
        {
            "type": "document",
            "source": {"type": "data", "value": "JVBERi0=", "mimeType": "application/pdf"},
            "metadata": {
                "mcp.type": "resource",
                "mcp.uri": "file:///r.pdf",
                "mcp.annotations": ANN,
            },
        },
    ),
    *(
        (
            f"embedded {kind} blob",
            {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "blob": "QUJD"}},
            {
                "type": kind,
                "source": {"type": "data", "value": "QUJD", "mimeType": mime},
                "metadata": {"mcp.type": "resource", "mcp.uri": uri},
            },
        )
        for kind, mime, uri in [
            ("image", "image/png", "s3://b/x.png"),
            ("audio", "audio/mpeg", "a://1"),
        ]
    ),
    (
        "embedded video blob with the contents' _meta",
        {
            "type": "resource",
            "resource": {"uri": "v://1", "mimeType": "video/mp4", "blob": "AAAA", "_meta": META},
        },
        {
            "type": "video",
            "source": {"type": "data", "value": "AAAA", "mimeType": "video/mp4"},
            "metadata": {"mcp.type": "resource", "mcp.uri": "v://1", "mcp.resource._meta": META},
        },
    ),
    (
        "embedded blob without a MIME type",
        {"type": "resource", "resource": {"uri": "x://1", "blob": "AAAA"}},
        {
            "type": "document",
            "source": {"type": "data", "value": "AAAA", "mimeType": "application/octet-stream"},
            "metadata": {"mcp.type": "resource", "mcp.uri": "x://1"},
        },
    ),
    (
        "resource link (the spec's example)",
        {
            "type": "resource_link",
            "uri": "file:///project/src/main.rs",
            "name": "main.rs",
            "description": "Primary application entry point",
            "mimeType": "text/x-rust",
        },
        {
            "type": "document",
            "source": {
                "type": "url",
                "value": "file:///project/src/main.rs",
                "mimeType": "text/x-rust",
            },
            "metadata": {
                "mcp.type": "resource_link",
                "mcp.name": "main.rs",
                "mcp.description": "Primary application entry point",
            },
        },
    ),
    (
        "image resource link with title, size, icons",
        {
            "type": "resource_link",
            "uri": "https://example.com/a.png",
            "name": "a.png",
            "title": "A",
            "mimeType": "image/png",
            "size": 1024,
            "icons": [{"src": "https://example.com/i.png"}],
        },
        {
            "type": "image",
            "source": {
                "type": "url",
                "value": "https://example.com/a.png",
                "mimeType": "image/png",
            },
            "metadata": {
                "mcp.type": "resource_link",
                "mcp.name": "a.png",
                "mcp.title": "A",
                "mcp.size": 1024,
                "mcp.icons": [{"src": "https://example.com/i.png"}],
            },
        },
    ),
    (
        "resource link without a MIME type: a document part, URL with no MIME type",
        {"type": "resource_link", "uri": "https://example.com/thing", "name": "thing"},
        {
            "type": "document",
            "source": {"type": "url", "value": "https://example.com/thing"},
            "metadata": {"mcp.type": "resource_link", "mcp.name": "thing"},
        },
    ),
]


def _dump(msg: ToolMessage) -> dict[str, Any]:
    return msg.model_dump(mode="json", by_alias=True, exclude_none=True)


def _result(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"content": list(blocks), **extra}


@pytest.mark.parametrize(
    ("block", "part"), [r[1:] for r in DECODE_ROWS], ids=[r[0] for r in DECODE_ROWS]
)
def test_decode_block(block: dict[str, Any], part: dict[str, Any]) -> None:
    msg = m.decode_result(_result(block), tool_call_id="c1")
    assert _dump(msg)["content"] == [part]


@pytest.mark.parametrize(
    ("block", "part"), [r[1:] for r in DECODE_ROWS], ids=[r[0] for r in DECODE_ROWS]
)
def test_sdk_models_decode_like_their_json(block: dict[str, Any], part: dict[str, Any]) -> None:
    sdk = mt.CallToolResult.model_validate(_result(block))
    assert _dump(m.decode_result(sdk, tool_call_id="c1")) == _dump(
        m.decode_result(_result(block, resultType="complete"), tool_call_id="c1")
    )


@pytest.mark.parametrize(
    ("block", "part"), [r[1:] for r in DECODE_ROWS], ids=[r[0] for r in DECODE_ROWS]
)
def test_encode_part_restores_the_block(block: dict[str, Any], part: dict[str, Any]) -> None:
    msg = ToolMessage(id="t", tool_call_id="c1", content=[part])  # type: ignore[list-item]
    out = m.encode_result(msg)
    expected = dict(block)
    if block.get("type") == "resource" and "mimeType" not in block["resource"]:
        # AG-UI data needs a MIME type: the generic binary one comes back
        expected = {
            **block,
            "resource": {**block["resource"], "mimeType": "application/octet-stream"},
        }
    assert out == {"content": [expected], "resultType": "complete"}
    assert mt.CallToolResult.model_validate(out).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )["content"] == [expected]


def test_the_ids_follow_the_call() -> None:
    msg = m.decode_result(_result({"type": "text", "text": "x"}), tool_call_id="c1")
    again = m.decode_result(_result({"type": "text", "text": "y"}), tool_call_id="c1")
    other = m.decode_result(_result({"type": "text", "text": "x"}), tool_call_id="c2")
    assert msg.tool_call_id == "c1" and msg.role == "tool"
    assert msg.id == again.id != other.id
    named = m.decode_result(_result(), tool_call_id="c1", message_id="m-9")
    assert named.id == "m-9" and named.content == ""


# ---------------------------------------------------------------- AG-UI-born parts

ENCODE_ROWS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("text", {"type": "text", "text": "ok"}, {"type": "text", "text": "ok"}),
    (
        "image data",
        {"type": "image", "source": {"type": "data", "value": "iVBO", "mimeType": "image/jpeg"}},
        {"type": "image", "data": "iVBO", "mimeType": "image/jpeg"},
    ),
    (
        "audio data",
        {"type": "audio", "source": {"type": "data", "value": "SUQz", "mimeType": "audio/mpeg"}},
        {"type": "audio", "data": "SUQz", "mimeType": "audio/mpeg"},
    ),
    (
        "image URL: a resource link named by its URI",
        {
            "type": "image",
            "source": {"type": "url", "value": "https://e.com/a.png", "mimeType": "image/png"},
        },
        {
            "type": "resource_link",
            "uri": "https://e.com/a.png",
            "name": "https://e.com/a.png",
            "mimeType": "image/png",
        },
    ),
    (
        "document URL without MIME type",
        {"type": "document", "source": {"type": "url", "value": "https://e.com/d"}},
        {"type": "resource_link", "uri": "https://e.com/d", "name": "https://e.com/d"},
    ),
]


@pytest.mark.parametrize(
    ("part", "block"), [r[1:] for r in ENCODE_ROWS], ids=[r[0] for r in ENCODE_ROWS]
)
def test_encode_agui_born_parts(part: dict[str, Any], block: dict[str, Any]) -> None:
    losses: list[Loss] = []
    out = m.encode_result(
        {"id": "t", "role": "tool", "toolCallId": "c1", "content": [part]}, losses=losses
    )
    assert out["content"] == [block]
    assert losses == []


@pytest.mark.parametrize("kind", ["document", "video"])
def test_data_parts_with_no_uri_become_embedded_resources_with_a_minted_uri(kind: str) -> None:
    part = {
        "type": kind,
        "source": {"type": "data", "value": "AAAA", "mimeType": "application/pdf"},
    }
    msg = {"id": "t", "role": "tool", "toolCallId": "c1", "content": [part, part]}
    out = m.encode_result(msg)
    uris = [b["resource"]["uri"] for b in out["content"]]
    assert all(re.fullmatch(r"toolwire:resource_[0-9a-f]{24}", u) for u in uris)
    assert uris[0] != uris[1]  # one per place
    assert m.encode_result(msg) == out  # same input, same URIs
    other = m.encode_result({**msg, "toolCallId": "c2"})
    assert [b["resource"]["uri"] for b in other["content"]] != uris
    assert out["content"][0]["resource"]["blob"] == "AAAA"
    mt.CallToolResult.model_validate(out)


def test_a_file_handle_is_dropped_with_a_loss() -> None:
    part = {"type": "image", "source": {"type": "file", "value": "file-abc", "provider": "openai"}}
    msg = {
        "id": "t",
        "role": "tool",
        "toolCallId": "c1",
        "content": [{"type": "text", "text": "x"}, part],
    }
    losses: list[Loss] = []
    with pytest.warns(PartsDroppedWarning, match="image part #1"):
        out = m.encode_result(msg, losses=losses)
    assert out["content"] == [{"type": "text", "text": "x"}]
    assert [(x.kind, x.part_index, x.part_kind, x.source_kind, x.tool_call_id) for x in losses] == [
        ("part-dropped", 1, "image", "file", "c1")
    ]


def test_what_a_block_cannot_hold_is_a_loss() -> None:
    part = {
        "type": "text",
        "id": "p1",
        "text": "hit",
        "metadata": {"url": "https://e.com", "mcp._meta": META},
    }
    msg = {
        "id": "t",
        "role": "tool",
        "toolCallId": "c1",
        "content": [part],
        "metadata": {"anthropic.block": {}},
    }
    losses: list[Loss] = []
    with pytest.warns(ContentLossWarning):
        out = m.encode_result(msg, losses=losses)
    assert out["content"] == [{"type": "text", "text": "hit", "_meta": META}]
    assert [x.kind for x in losses] == ["metadata-dropped", "metadata-dropped"]
    assert "its id" in losses[0].reason and "'url'" in losses[0].reason
    assert "'anthropic.block'" in losses[1].reason


def test_string_content() -> None:
    base = {"id": "t", "role": "tool", "toolCallId": "c1"}
    assert m.encode_result({**base, "content": "42"})["content"] == [{"type": "text", "text": "42"}]
    assert m.encode_result({**base, "content": ""}) == {"content": [], "resultType": "complete"}


# ----------------------------------------------------------------------- isError


def test_is_error_becomes_the_message_error_and_back() -> None:
    result = _result(
        {"type": "text", "text": "Invalid departure date: must be in the future."}, isError=True
    )
    msg = m.decode_result(result, tool_call_id="c1")
    assert msg.error == "Invalid departure date: must be in the future."
    assert msg.content[0].text == msg.error  # type: ignore[union-attr]
    assert m.encode_result(msg) == {**result, "resultType": "complete"}


def test_is_error_false_is_no_error() -> None:
    msg = m.decode_result(_result({"type": "text", "text": "ok"}, isError=False), tool_call_id="c1")
    assert msg.error is None
    assert "isError" not in m.encode_result(msg)


@pytest.mark.parametrize(
    ("content", "error", "blocks"),
    [
        ("", "boom", [{"type": "text", "text": "boom"}]),
        (
            "partial",
            "boom",
            [{"type": "text", "text": "partial"}, {"type": "text", "text": "boom"}],
        ),
        ("it said boom", "boom", [{"type": "text", "text": "it said boom"}]),
        ("", "", []),
    ],
)
def test_an_agui_error_reaches_the_model_with_the_content(
    content: str, error: str, blocks: list[Any]
) -> None:
    out = m.encode_result(
        {"id": "t", "role": "tool", "toolCallId": "c1", "content": content, "error": error}
    )
    assert out["isError"] is True
    assert out["content"] == blocks


# -------------------------------------------------------------- structuredContent


def test_structured_content_restated_by_the_server_is_not_duplicated() -> None:
    value = {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}
    text = (
        '{"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}'  # the spec's example
    )
    result = {
        "resultType": "complete",
        "content": [{"type": "text", "text": text}],
        "structuredContent": value,
    }
    msg = m.decode_result(result, tool_call_id="c1")
    assert _dump(msg)["content"] == [{"type": "text", "text": text}]
    assert msg.metadata == {"mcp.structuredContent": value}
    assert m.encode_result(msg) == result


def test_structured_content_not_restated_gets_one_json_text_part() -> None:
    value = [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}]
    result = _result({"type": "text", "text": "Found 2 users"}, structuredContent=value)
    msg = m.decode_result(result, tool_call_id="c1")
    assert _dump(msg)["content"] == [
        {"type": "text", "text": "Found 2 users"},
        {
            "type": "text",
            "text": '[{"id":"1","name":"Alice"},{"id":"2","name":"Bob"}]',
            "metadata": {"mcp.type": "structuredContent"},
        },
    ]
    assert msg.metadata == {"mcp.structuredContent": value}
    # the added text is not sent back as content: structuredContent says it
    assert m.encode_result(msg) == {**result, "resultType": "complete"}


@pytest.mark.parametrize("value", [None, 3, "text", True, []])
def test_structured_content_may_be_any_json_value(value: Any) -> None:
    msg = m.decode_result(_result(structuredContent=value), tool_call_id="c1")
    assert msg.metadata == {"mcp.structuredContent": value}
    assert m.encode_result(msg)["structuredContent"] == value


def test_structured_content_without_the_marked_part_keeps_the_content() -> None:
    msg = {
        "id": "t",
        "role": "tool",
        "toolCallId": "c1",
        "content": "22.5",
        "metadata": {"mcp.structuredContent": 22.5},
    }
    assert m.encode_result(msg) == {
        "content": [{"type": "text", "text": "22.5"}],
        "structuredContent": 22.5,
        "resultType": "complete",
    }


def test_result_meta_and_extension_fields_are_kept() -> None:
    result = _result(
        {"type": "text", "text": "x"},
        _meta={"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
        **{"com.example/extra": {"a": 1}},
    )
    msg = m.decode_result(result, tool_call_id="c1")
    assert msg.metadata == {
        "mcp._meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
        "mcp.com.example/extra": {"a": 1},
    }
    assert m.encode_result(msg) == {**result, "resultType": "complete"}


# ------------------------------------------------------------------- bad input


def test_unknown_content_types_are_stripped_with_a_warning() -> None:
    result = _result({"type": "hologram", "data": "x"}, {"type": "text", "text": "kept"})
    with pytest.warns(UnrecognizedMaterialWarning, match=r"content\[0\].*'hologram'"):
        msg = m.decode_result(result, tool_call_id="c1")
    assert _dump(msg)["content"] == [{"type": "text", "text": "kept"}]


def test_unknown_properties_of_a_block_are_stripped_with_a_warning() -> None:
    result = _result({"type": "text", "text": "kept", "colour": "red"})
    with pytest.warns(UnrecognizedMaterialWarning, match=r"content\[0\]\.colour"):
        msg = m.decode_result(result, tool_call_id="c1")
    assert _dump(msg)["content"] == [{"type": "text", "text": "kept"}]


def test_every_unknown_block_stripped_leaves_an_answer() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnrecognizedMaterialWarning)
        msg = m.decode_result(_result({"type": "hologram"}), tool_call_id="c1")
    assert msg.content == ""


@pytest.mark.parametrize(
    ("result", "where"),
    [
        ({}, r"result\.content: missing"),
        ({"content": {}}, r"result\.content: expected a list"),
        ({"content": ["text"]}, r"result\.content\[0\]"),
        ({"content": [{"text": "no type"}]}, r"result\.content\[0\]\.type: missing"),
        ({"content": [{"type": "text"}]}, r"result\.content\[0\]\.text: missing"),
        (
            {"content": [{"type": "text", "text": 5}]},
            r"result\.content\[0\]\.text: expected a string",
        ),
        ({"content": [{"type": "image", "data": "x"}]}, r"result\.content\[0\]\.mimeType: missing"),
        ({"content": [{"type": "audio", "mimeType": "audio/wav"}]}, r"content\[0\]\.data: missing"),
        (
            {"content": [{"type": "text", "text": "x", "annotations": []}]},
            r"content\[0\]\.annotations: expected an object",
        ),
        ({"content": [{"type": "resource"}]}, r"content\[0\]\.resource: missing"),
        (
            {"content": [{"type": "resource", "resource": {"uri": "u"}}]},
            r"content\[0\]\.resource: .*exactly one",
        ),
        (
            {"content": [{"type": "resource", "resource": {"uri": "u", "text": "a", "blob": "b"}}]},
            r"content\[0\]\.resource: .*exactly one",
        ),
        ({"content": [{"type": "resource", "resource": {"text": "a"}}]}, r"resource\.uri: missing"),
        ({"content": [{"type": "resource_link", "uri": "u"}]}, r"content\[0\]\.name: missing"),
        ({"content": [{"type": "resource_link", "name": "n"}]}, r"content\[0\]\.uri: missing"),
        (
            {"content": [{"type": "resource_link", "uri": "u", "name": "n", "size": True}]},
            r"content\[0\]\.size",
        ),
        ({"content": [], "isError": "yes"}, r"result\.isError: expected a boolean"),
        ({"content": [], "_meta": []}, r"result\._meta: expected an object"),
        (
            {"content": [], "structuredContent": float("nan")},
            r"result\.structuredContent: not JSON",
        ),
    ],
)
def test_malformed_results_name_the_place(result: Any, where: str) -> None:
    with pytest.raises(VendorDataError, match=where):
        m.decode_result(result, tool_call_id="c1")


@pytest.mark.parametrize("result", [None, "text", 3, [1]])
def test_a_result_that_is_not_an_object(result: Any) -> None:
    with pytest.raises(VendorDataError, match="result: expected a JSON object"):
        m.decode_result(result, tool_call_id="c1")


def test_an_input_required_result_is_not_an_answer() -> None:
    result = {"resultType": "input_required", "inputRequests": {}}
    with pytest.raises(UnsupportedInput, match="input_required"):
        m.decode_result(result, tool_call_id="c1")


@pytest.mark.parametrize(
    "message", [None, {"id": "t"}, {"id": "t", "role": "tool", "content": 5, "toolCallId": "c"}]
)
def test_encode_result_refuses_what_is_not_a_tool_message(message: Any) -> None:
    with pytest.raises(UnsupportedInput, match="not a ToolMessage"):
        m.encode_result(message)


def test_errors_are_toolwire_errors() -> None:
    assert issubclass(VendorDataError, ToolwireError) and issubclass(
        UnsupportedInput, ToolwireError
    )


@pytest.mark.parametrize(
    "kw", [{"tool_call_id": 5}, {"tool_call_id": None}, {"tool_call_id": "c", "message_id": 7}]
)
def test_ids_that_are_not_strings_are_refused(kw: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedInput, match="must be a string"):
        m.decode_result(_result(), **kw)


def test_deeply_nested_text_is_not_a_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    msg = m.decode_result(
        _result({"type": "text", "text": deep}, structuredContent=[]), tool_call_id="c"
    )
    assert msg.content[0].text == deep  # type: ignore[union-attr]
    assert msg.content[-1].text == "[]"  # type: ignore[union-attr]
