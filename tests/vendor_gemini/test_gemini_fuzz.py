"""Any JSON thrown at the decoder and at decode_request fails only with toolwire's errors.

Chunks are built from Gemini's own field names with values of any JSON type, so malformed
input reaches every branch; a bare KeyError/TypeError/AttributeError escaping is a bug.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters import gemini
from toolwire.errors import ToolwireError, VendorDataError

NAMES = [
    "candidates",
    "content",
    "parts",
    "text",
    "thought",
    "thoughtSignature",
    "functionCall",
    "name",
    "id",
    "args",
    "partialArgs",
    "jsonPath",
    "stringValue",
    "numberValue",
    "boolValue",
    "nullValue",
    "willContinue",
    "executableCode",
    "code",
    "language",
    "codeExecutionResult",
    "outcome",
    "output",
    "toolCall",
    "toolResponse",
    "toolType",
    "response",
    "finishReason",
    "finishMessage",
    "index",
    "groundingMetadata",
    "groundingChunks",
    "web",
    "uri",
    "title",
    "webSearchQueries",
    "usageMetadata",
    "promptTokenCount",
    "totalTokenCount",
    "thoughtsTokenCount",
    "candidatesTokenCount",
    "responseId",
    "modelVersion",
    "error",
    "message",
    "status",
    "promptFeedback",
    "blockReason",
    "inlineData",
    "fileData",
    "role",
    "functionResponse",
    "mimeType",
    "data",
    "fileUri",
    "systemInstruction",
    "contents",
    "tools",
    "functionDeclarations",
    "config",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.sampled_from(["$.a", "$.a[0]", "STOP", "MAX_TOKENS", "model", "user", "OUTCOME_OK"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(NAMES), inner, max_size=4),
    ),
    max_leaves=25,
)


def _decode(chunks: list[Any]) -> None:
    try:
        list(gemini.decode_stream(chunks))
    except ToolwireError:
        pass


@settings(max_examples=400)
@given(st.lists(json_values, max_size=4))
def test_decoder_raises_only_toolwire_errors(chunks: list[Any]) -> None:
    _decode(chunks)


part = st.fixed_dictionaries(
    {},
    optional={
        k: json_values
        for k in (
            "text",
            "functionCall",
            "thoughtSignature",
            "thought",
            "executableCode",
            "codeExecutionResult",
            "partialArgs",
        )
    },
)
chunk = st.fixed_dictionaries(
    {
        "candidates": st.lists(
            st.fixed_dictionaries(
                {"content": st.fixed_dictionaries({"parts": st.lists(part, max_size=3)})},
                optional={
                    "finishReason": st.one_of(st.just("STOP"), json_values),
                    "groundingMetadata": json_values,
                },
            ),
            max_size=1,
        ),
    },
    optional={"usageMetadata": json_values, "responseId": json_values},
)


@settings(max_examples=400)
@given(st.lists(chunk, max_size=4))
def test_decoder_with_gemini_shaped_chunks_raises_only_toolwire_errors(chunks: list[Any]) -> None:
    _decode(chunks)


content = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "model"]),
        "parts": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    k: json_values
                    for k in (
                        "text",
                        "functionCall",
                        "functionResponse",
                        "thoughtSignature",
                        "inlineData",
                        "fileData",
                        "executableCode",
                        "codeExecutionResult",
                    )
                },
            ),
            max_size=3,
        ),
    },
)


@settings(max_examples=400)
@given(
    st.one_of(
        json_values,
        st.fixed_dictionaries(
            {"contents": st.lists(content, max_size=4)},
            optional={
                "systemInstruction": json_values,
                "tools": json_values,
                "config": json_values,
            },
        ),
    )
)
def test_decode_request_raises_only_toolwire_errors(body: Any) -> None:
    try:
        gemini.decode_request(body)
    except ToolwireError:
        pass


def _stop(parts: list[Any], **cand: Any) -> list[dict[str, Any]]:
    return [{"candidates": [{"content": {"parts": parts}, "finishReason": "STOP", **cand}]}]


@pytest.mark.parametrize(
    ("chunks", "where"),
    [
        (_stop([], groundingMetadata={"groundingChunks": 5}), "groundingMetadata.groundingChunks"),
        (_stop([{"executableCode": {"code": 1}}]), "executableCode.code"),
        (_stop([{"toolCall": {"args": 5}}]), "toolCall.args"),
        (_stop([{"toolCall": {}}, {"toolResponse": {"response": 5}}]), "toolResponse.response"),
        ([{"candidates": [{"content": {"parts": []}, "finishReason": {"a": 1}}]}], "finishReason"),
        (  # beyond what AG-UI's TokenUsage holds (a JSON-safe integer)
            [
                {
                    "candidates": [{"content": {"parts": []}, "finishReason": "STOP"}],
                    "usageMetadata": {"promptTokenCount": 2**53},
                }
            ],
            "usageMetadata",
        ),
    ],
)
def test_found_by_fuzzing_decoder(chunks: list[Any], where: str) -> None:
    with pytest.raises(VendorDataError, match=where):
        list(gemini.decode_stream(chunks))


_CALL = {"role": "model", "parts": [{"functionCall": {"name": "f"}}]}


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (
            {
                "contents": [
                    _CALL,
                    {
                        "role": "user",
                        "parts": [{"functionResponse": {"name": "f", "response": {}, "parts": 5}}],
                    },
                ]
            },
            r"functionResponse\.parts",
        ),
        (
            {"contents": [{"role": "model", "parts": [{"executableCode": {"code": 5}}]}]},
            r"executableCode\.code",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"inlineData": {"data": 5}}]}]},
            r"inlineData\.data",
        ),
    ],
)
def test_found_by_fuzzing_decode_request(body: Any, where: str) -> None:
    with pytest.raises(VendorDataError, match=where):
        gemini.decode_request(body)
