"""Any JSON thrown at the decoder and at decode_request fails only with toolwire's errors.

Chunks are built from Gemini's own field names with values of any JSON type, so malformed
input reaches every branch; a bare KeyError/TypeError/AttributeError escaping is a bug.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample
from losses_seen import losses_are_an_outcome

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


# Values of the right type, mixed in below beside arbitrary JSON: with arbitrary JSON alone almost
# every example stops at its first type check (of 400 Gemini-shaped streams none held text, and
# no request held an answered call), so the paths behind the checks were never fuzzed.
names = st.sampled_from(["f", "g"])
call_ids = st.sampled_from(["c1", "c2"])
piece = st.fixed_dictionaries(
    {"jsonPath": st.sampled_from(["$.a", "$.a[0]", "$.b", "$.b.c"])},
    optional={
        "stringValue": st.text(max_size=3),
        "numberValue": st.integers(-3, 3),
        "boolValue": st.booleans(),
        "willContinue": st.booleans(),
    },
)
function_call = st.fixed_dictionaries(
    {"name": names},
    optional={
        "id": call_ids,
        "args": st.dictionaries(st.sampled_from(["a", "b"]), json_values, max_size=2),
        "willContinue": st.booleans(),
        "partialArgs": st.lists(piece, max_size=3),
    },
)
function_response = st.fixed_dictionaries(
    {"name": names},
    optional={
        "id": call_ids,
        "response": st.dictionaries(st.sampled_from(["output", "error", "x"]), json_values),
    },
)
WELL_TYPED: dict[str, Any] = {
    "text": st.one_of(st.text(min_size=1, max_size=5), st.just("")),  # "" as often as not
    "thought": st.booleans(),
    "thoughtSignature": st.sampled_from(["c2ln", "dGhpbms="]),
    "functionCall": function_call,
    "functionResponse": function_response,
    "executableCode": st.fixed_dictionaries(
        {"code": st.text(max_size=5)}, optional={"language": st.just("PYTHON")}
    ),
    "codeExecutionResult": st.fixed_dictionaries(
        {"outcome": st.sampled_from(["OUTCOME_OK", "OUTCOME_FAILED"])},
        optional={"output": st.text(max_size=5)},
    ),
    "inlineData": st.fixed_dictionaries(
        {"mimeType": st.just("image/png"), "data": st.just("aGk=")}
    ),
    "fileData": st.fixed_dictionaries(
        {"mimeType": st.just("application/pdf"), "fileUri": st.just("gs://b/x.pdf")}
    ),
}


def _value(key: str) -> Any:
    return st.one_of(WELL_TYPED[key], json_values) if key in WELL_TYPED else json_values


def _parts(keys: tuple[str, ...]) -> Any:
    """A part that is one well-typed field (signed or not), or any mix of the fields with any
    values."""
    typed = [k for k in keys if k in WELL_TYPED]
    single = st.sampled_from(typed).flatmap(lambda k: st.fixed_dictionaries({k: WELL_TYPED[k]}))
    # Gemini signs the part a signature rides on (a call, a text): both well-typed at once
    signed = st.tuples(single, WELL_TYPED["thoughtSignature"]).map(
        lambda t: {**t[0], "thoughtSignature": t[1]}
    )
    mixed = st.fixed_dictionaries({}, optional={k: _value(k) for k in keys})
    return st.one_of(single, signed, mixed)


def _decode(chunks: list[Any]) -> None:
    try:
        with losses_are_an_outcome():
            list(gemini.decode_stream(chunks))
    except ToolwireError:
        pass


@settings(max_examples=4 * settings.default.max_examples)
@given(st.lists(json_values, max_size=4))
def test_decoder_raises_only_toolwire_errors(chunks: list[Any]) -> None:
    _decode(chunks)


part = _parts(
    (
        "text",
        "functionCall",
        "thoughtSignature",
        "thought",
        "executableCode",
        "codeExecutionResult",
        "partialArgs",
    )
)
chunk = st.fixed_dictionaries(
    {
        "candidates": st.lists(
            st.fixed_dictionaries(
                {"content": st.fixed_dictionaries({"parts": st.lists(part, max_size=3)})},
                optional={
                    "finishReason": st.one_of(st.just("STOP"), json_values),
                    "groundingMetadata": st.one_of(st.just({}), json_values),
                },
            ),
            max_size=1,
        ),
    },
    # well-typed as often as not: one wrong-typed field stops the stream at its first chunk
    optional={
        "usageMetadata": st.one_of(
            st.fixed_dictionaries({}, optional={"promptTokenCount": st.integers(0, 9)}),
            json_values,
        ),
        "responseId": st.one_of(st.just("r1"), json_values),
    },
)


@settings(max_examples=4 * settings.default.max_examples)
@given(st.lists(chunk, max_size=4))
def test_decoder_with_gemini_shaped_chunks_raises_only_toolwire_errors(chunks: list[Any]) -> None:
    _decode(chunks)


request_part = _parts(
    (
        "text",
        "functionCall",
        "functionResponse",
        "thoughtSignature",
        "inlineData",
        "fileData",
        "executableCode",
        "codeExecutionResult",
    )
)
content = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "model"]), "parts": st.lists(request_part, max_size=3)},
)


@st.composite
def answered_turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A model turn of calls and the user turn answering them (by name, by id or wrongly),
    each with any parts beside: random turns alone almost never pair a response with a call."""
    calls = draw(st.lists(function_call, min_size=1, max_size=3))
    answers = []
    for c in draw(st.permutations(calls)):
        fr = draw(function_response)
        fr["name"] = draw(st.sampled_from([c["name"], "other"]))
        if "id" in c and draw(st.booleans()):
            fr["id"] = c["id"]
        answers.append({"functionResponse": fr})
    extra = st.lists(request_part, max_size=1)
    return [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [*draw(extra), *({"functionCall": c} for c in calls)]},
        {"role": "user", "parts": [*answers, *draw(extra)]},
    ]


request_bodies = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {
            "contents": st.one_of(
                st.lists(content, max_size=4),
                st.tuples(answered_turns(), st.lists(content, max_size=2)).map(
                    lambda t: t[0] + t[1]
                ),
            )
        },
        # well-typed as often as not: a wrong one stops the request before its contents
        optional={
            "systemInstruction": st.one_of(st.just({"parts": [{"text": "be brief"}]}), json_values),
            "tools": st.one_of(st.just([{"functionDeclarations": [{"name": "f"}]}]), json_values),
            "config": st.one_of(st.just({}), json_values),
        },
    ),
)


@settings(max_examples=4 * settings.default.max_examples)
@given(request_bodies)
def test_decode_request_raises_only_toolwire_errors(body: Any) -> None:
    try:
        with losses_are_an_outcome():
            gemini.decode_request(body)
    except ToolwireError:
        pass


def _decoded_kinds(chunks: list[Any]) -> set[str]:
    try:
        with losses_are_an_outcome():
            return {e.type.value for e in gemini.decode_stream(chunks)}
    except ToolwireError:
        return set()


def _answered_request(body: Any) -> bool:
    try:
        with losses_are_an_outcome():
            ri = gemini.decode_request(body)
    except ToolwireError:
        return False
    return any(m.role == "tool" for m in ri.messages)


# a ceiling for find(), not a depth: the search stops at its first hit, in any profile; and
# only generation runs, since the hit is all that is asserted (shrinking it cost most of the time)
_REACH = settings(max_examples=3_000, database=None, deadline=None, phases=[Phase.generate])


REACHED = [
    "TEXT_MESSAGE_CONTENT",
    "REASONING_ENCRYPTED_VALUE",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_RESULT",
]


@functools.cache
def _reached() -> frozenset[str]:
    """The kinds of the events the generated streams decoded to, in one search that stops
    once every kind of REACHED has been seen (or at _REACH's ceiling): one search shared by
    the four cases below instead of four searches over the same strategy."""
    seen: set[str] = set()

    def all_seen(chunks: list[Any]) -> bool:
        seen.update(_decoded_kinds(chunks))
        return seen.issuperset(REACHED)

    try:
        find(st.lists(chunk, max_size=4), all_seen, settings=_REACH)
    except NoSuchExample:
        pass  # the cases that were not reached fail below, each naming its kind
    return frozenset(seen)


@pytest.mark.parametrize("kind", REACHED)
def test_the_chunk_strategy_reaches_streams_that_decode_to(kind: str) -> None:
    # the fuzz above says little if no generated stream gets past the type checks
    assert kind in _reached(), f"no stream of {_REACH.max_examples} decoded to {kind}"


def test_the_request_strategy_reaches_answered_calls() -> None:
    find(request_bodies, _answered_request, settings=_REACH)


# numbers JSON cannot hold (json.loads reads "NaN" and "Infinity", SDK objects hold them)
_NAN = float("nan")
_INF_CALL = {"name": "f", "args": {"a": float("inf")}}


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
        (_stop([{"functionCall": _INF_CALL}]), r"parts\[0\]\.functionCall\.args"),
        (_stop([{"toolCall": {"args": {"a": _NAN}}}]), "toolCall.args"),
        (
            _stop([{"toolCall": {}}, {"toolResponse": {"response": {"a": _NAN}}}]),
            "toolResponse.response",
        ),
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
        (  # was a bare ValueError out of json.dumps
            {"contents": [{"role": "model", "parts": [{"functionCall": _INF_CALL}]}]},
            r"contents\[0\]\.parts\[0\]\.functionCall\.args",
        ),
        (
            {
                "contents": [
                    _CALL,
                    {
                        "role": "user",
                        "parts": [
                            {"functionResponse": {"name": "f", "response": {"output": [_NAN]}}}
                        ],
                    },
                ]
            },
            r"functionResponse\.response",
        ),
    ],
)
def test_found_by_fuzzing_decode_request(body: Any, where: str) -> None:
    with pytest.raises(VendorDataError, match=where):
        gemini.decode_request(body)
