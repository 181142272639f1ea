"""Round trips MCP -> AG-UI -> MCP (hypothesis), for everything both can hold.

Left out on purpose, as docs/adapters/mcp.md says: a blob resource with no MIME type
(AG-UI data needs one; it comes back as application/octet-stream), ``isError: false``
(comes back absent), a ``null`` structuredContent in an SDK model (the SDK cannot tell
it from absent), and properties the revision does not describe (stripped).
"""

from __future__ import annotations

from typing import Any

import mcp.types as mt
from hypothesis import given
from hypothesis import strategies as st

from toolwire import adapters

m = adapters.get("mcp")

words = st.text(max_size=12)
keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz/._-", min_size=1, max_size=10)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=8,
)
metas = st.dictionaries(keys, json_values, max_size=3)
annotations = st.fixed_dictionaries(
    {},
    optional={
        "audience": st.lists(st.sampled_from(["user", "assistant"]), max_size=2, unique=True),
        "priority": st.floats(0, 1),
        "lastModified": st.just("2025-01-12T15:00:58Z"),
    },
)
common = {"annotations": annotations, "_meta": metas}
b64 = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", max_size=16
)
uris = st.sampled_from(["file:///a/b.txt", "https://example.com/x", "s3://bucket/k", "urn:x:1"])
mimes = st.sampled_from(
    [
        "image/png",
        "image/jpeg",
        "audio/wav",
        "audio/mpeg",
        "video/mp4",
        "application/pdf",
        "text/plain",
        "text/x-rust",
    ]
)


def _block(kind: str, required: dict[str, Any], optional: dict[str, Any]) -> Any:
    return st.fixed_dictionaries(
        {"type": st.just(kind), **required}, optional={**optional, **common}
    )


blocks = st.one_of(
    _block("text", {"text": words}, {}),
    _block("image", {"data": b64, "mimeType": st.sampled_from(["image/png", "image/webp"])}, {}),
    _block("audio", {"data": b64, "mimeType": st.sampled_from(["audio/wav", "audio/ogg"])}, {}),
    _block(
        "resource",
        {
            "resource": st.fixed_dictionaries(
                {"uri": uris, "text": words}, optional={"mimeType": mimes, "_meta": metas}
            )
            | st.fixed_dictionaries(
                {"uri": uris, "blob": b64, "mimeType": mimes}, optional={"_meta": metas}
            )
        },
        {},
    ),
    _block(
        "resource_link",
        {"uri": uris, "name": words},
        {
            "title": words,
            "description": words,
            "mimeType": mimes,
            "size": st.integers(0, 2**40),
            "icons": st.lists(st.fixed_dictionaries({"src": uris}), max_size=2),
        },
    ),
)
results = st.fixed_dictionaries(
    {"content": st.lists(blocks, max_size=5)},
    optional={
        "isError": st.just(True),
        "structuredContent": json_values,
        "_meta": metas,
        "resultType": st.just("complete"),
    },
)


@given(results)
def test_mcp_to_agui_to_mcp(result: dict[str, Any]) -> None:
    msg = m.decode_result(result, tool_call_id="c1")
    assert m.encode_result(msg) == {**result, "resultType": "complete"}


@given(results.filter(lambda r: r.get("structuredContent", 0) is not None))
def test_sdk_models_map_like_their_json(result: dict[str, Any]) -> None:
    sdk = mt.CallToolResult.model_validate(result)
    assert m.decode_result(sdk, tool_call_id="c1") == m.decode_result(result, tool_call_id="c1")


schemas = st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={
        "properties": st.dictionaries(
            words, st.fixed_dictionaries({"type": st.just("string")}), max_size=3
        )
    },
)
tools = st.fixed_dictionaries(
    {"name": keys, "inputSchema": schemas},
    optional={
        "title": words,
        "description": words.filter(bool),
        "outputSchema": schemas,
        "annotations": st.fixed_dictionaries(
            {}, optional={"readOnlyHint": st.booleans(), "title": words}
        ),
        "icons": st.lists(st.fixed_dictionaries({"src": uris}), max_size=2),
        "_meta": metas,
    },
)


@given(tools)
def test_tools_round_trip(tool: dict[str, Any]) -> None:
    assert m.encode_tool(m.decode_tool(tool)) == tool
    assert m.decode_tool(mt.Tool.model_validate(tool)) == m.decode_tool(tool)


calls = st.fixed_dictionaries(
    {"name": keys},
    optional={"arguments": st.dictionaries(words, json_values, max_size=4), "_meta": metas},
)


@given(calls)
def test_calls_round_trip(params: dict[str, Any]) -> None:
    assert m.encode_call(m.decode_call(params, tool_call_id="c")) == params


agui_parts = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": words}),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["image", "audio"]),
            "source": st.fixed_dictionaries(
                {"type": st.just("data"), "value": b64, "mimeType": mimes}
            ),
        }
    ),
)


@given(st.lists(agui_parts, max_size=5), st.none() | words)
def test_agui_text_image_audio_to_mcp_and_back(
    parts: list[dict[str, Any]], error: str | None
) -> None:
    """A part born in AG-UI that MCP holds as a block of its own comes back as it was."""
    msg = {"id": "t", "role": "tool", "toolCallId": "c1", "content": parts}
    if error is not None:
        msg["error"] = error
    result = m.encode_result(msg)
    back = m.decode_result(result, tool_call_id="c1", message_id="t")
    dumped = back.model_dump(mode="json", by_alias=True, exclude_none=True)
    appended = error and error not in "".join(p["text"] for p in parts if p["type"] == "text")
    assert dumped["content"] == (
        parts + ([{"type": "text", "text": error}] if appended else []) or ""
    )
    assert back.error == (
        None
        if error is None
        else "".join(b["text"] for b in result["content"] if b["type"] == "text")
    )
