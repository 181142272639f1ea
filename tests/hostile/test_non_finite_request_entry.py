"""A NaN or an infinity reaching a request body, by each way a caller's value enters one.

``encode_request`` walks its body for NaN / infinity only when something that entered it may
hold one (``toolwire.protocol.finite``: the run input's free-form slots, the other
arguments, values parsed from text). Each test here puts a non-finite number in one such
way, on every adapter, and asserts the ``VendorDataError`` naming the place in the body, or,
where the vendor does not carry that value, a body strict JSON takes. Every outcome is also
compared with the walk of every body (the scan switched off), the rule before the scan:
same error, same message, same body.
"""

from __future__ import annotations

import copy
import json
import math
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from ag_ui.core import RunAgentInput, UserMessage
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.adapters.mcp import encode_call, encode_result, encode_tool
from toolwire.errors import UnsupportedInput, VendorDataError
from toolwire.protocol import finite

VENDORS = list(adapters.NAMES)
NAN, INF = float("nan"), float("inf")
#: the vendors whose request carries the run's tool definitions
SENDS_TOOLS = {
    "anthropic",
    "openai_chat",
    "openai_responses",
    "gemini",
    "bedrock",
    "ollama",
    "mistral",
    "cohere",
}
#: the vendors whose ``encode_request`` passes unknown keywords into the body as options
TAKES_OPTIONS = {
    "anthropic",
    "openai_chat",
    "openai_responses",
    "bedrock",
    "ollama",
    "mistral",
    "cohere",
}
#: the vendors that send a call's arguments as a parsed JSON object (not as text)
SENDS_ARGUMENT_OBJECTS = {"anthropic", "bedrock", "gemini", "ollama"}


def _history(arguments: str = '{"x": 1}', result: Any = "ok") -> dict[str, Any]:
    return {
        "threadId": "t",
        "runId": "r",
        "messages": [
            {"id": "u1", "role": "user", "content": "go"},
            {
                "id": "a1",
                "role": "assistant",
                "toolCalls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "f", "arguments": arguments},
                    }
                ],
            },
            {"id": "r1", "role": "tool", "toolCallId": "call_1", "content": result},
        ],
        "tools": [{"name": "f", "description": "d", "parameters": {"type": "object"}}],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }


@contextmanager
def _walk_always() -> Iterator[None]:
    """The rule before the scan: no input is scanned, so every body is walked."""
    with mock.patch.object(finite, "input_read", lambda run: None):
        yield


def _outcome(fn: Callable[..., Any], *args: Any, **kw: Any) -> tuple[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            body = fn(*args, **kw)
        except VendorDataError as exc:
            return "error", str(exc)
    return "body", json.dumps(body, allow_nan=True, sort_keys=True, default=repr)


def _encode(vendor: str, given: Any, **kw: Any) -> tuple[str, str]:
    """The outcome of ``encode_request``, after checking it is the walk-every-body one."""
    fn = adapters.get(vendor).encode_request
    kw.setdefault("model", "m")
    got = _outcome(fn, copy.deepcopy(given), **kw)
    with _walk_always():
        want = _outcome(fn, copy.deepcopy(given), **kw)
    assert got == want, (vendor, got[1][:300], want[1][:300])
    if got[0] == "body":
        json.loads(got[1], parse_constant=_refuse)  # strict JSON: no NaN, no Infinity
    return got


def _refuse(name: str) -> Any:
    raise AssertionError(f"{name} written into a request body")


def _refused(outcome: tuple[str, str], *where: str) -> None:
    kind, text = outcome
    assert kind == "error", text[:300]
    assert "request body" in text and "NaN or an infinity" in text, text
    for part in where:
        assert part in text, (part, text)


# -- each way in, on every adapter -----------------------------------------------------------


@pytest.mark.parametrize("bad", [NAN, INF, -INF])
@pytest.mark.parametrize("vendor", VENDORS)
def test_a_tool_schema(vendor: str, bad: float) -> None:
    given = _history()
    given["tools"][0]["parameters"] = {"type": "object", "properties": {"n": {"maximum": bad}}}
    got = _encode(vendor, given)
    if vendor in SENDS_TOOLS:
        _refused(got, "maximum")
    else:
        assert got[0] == "body"


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_tool_schema_given_as_a_model(vendor: str) -> None:
    given = RunAgentInput.model_validate(_history())
    assert given.tools is not None
    given.tools[0].parameters = {"type": "object", "minimum": [1, -INF]}
    got = _encode(vendor, given)
    if vendor in SENDS_TOOLS:
        _refused(got, "minimum")


@pytest.mark.parametrize("vendor", sorted(TAKES_OPTIONS))
def test_an_option(vendor: str) -> None:
    _refused(_encode(vendor, _history(), temperature=NAN), "temperature")
    _refused(_encode(vendor, _history(), extra={"deep": [[INF]]}), "extra")


@pytest.mark.parametrize("vendor", ["anthropic", "bedrock"])
def test_max_tokens(vendor: str) -> None:
    _refused(_encode(vendor, _history(), max_tokens=INF))


@pytest.mark.parametrize("vendor", VENDORS)
def test_state_and_context_are_not_sent_so_never_refused(vendor: str) -> None:
    given = _history()
    given["state"] = {"n": NAN, "list": [INF]}
    assert _encode(vendor, given)[0] == "body"


KEPT = {"use_forwarded_props": True}


@pytest.mark.parametrize(
    ("vendor", "props", "kw", "where"),
    [
        ("anthropic", {"anthropic": {"temperature": NAN}}, KEPT, "temp"),
        ("bedrock", {"bedrock": {"inferenceConfig": {"topP": INF}}}, KEPT, "topP"),
        ("gemini", {"gemini": {"generation_config": {"temperature": NAN}}}, {}, "temperature"),
        ("gemini", {"gemini": {"tool_config": {"x": [-INF]}}}, {}, "tool_config"),
        ("asgard", {"asgard": {"payload": {"x": NAN}}}, {}, "payload"),
    ],
)  # fmt: skip
def test_forwarded_props_a_vendor_sends(
    vendor: str, props: dict[str, Any], kw: dict[str, Any], where: str
) -> None:
    given = _history()
    given["forwardedProps"] = props
    _refused(_encode(vendor, given, **kw), where)


@pytest.mark.parametrize("vendor", VENDORS)
def test_forwarded_props_of_every_vendor(vendor: str) -> None:
    given = _history()
    given["forwardedProps"] = {name: {"temperature": NAN, "payload": [INF]} for name in VENDORS}
    _encode(vendor, given)  # refused or not, as the walk of the body says


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_argument_text_with_a_constant_is_not_an_object(vendor: str, text: str) -> None:
    # (the constants are refused by the arguments' reader: the text is carried as text or
    # the call is sent without it, with a loss; test_non_finite_arguments says which)
    assert _encode(vendor, _history(arguments=f'{{"x": {text}}}'))[0] == "body"


@pytest.mark.parametrize("text", ["1e999", "-1E400", "[1, 2e308]"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_argument_text_whose_number_is_too_large(vendor: str, text: str) -> None:
    # json reads a number past a double's range as an infinity: the arguments' reader
    # refuses it as it does the constants (the text is carried as text or the call is sent
    # without it, with a loss), so no vendor's body holds one
    # (_encode reads the body back refusing NaN and the infinities)
    assert _encode(vendor, _history(arguments=f'{{"x": {text}}}'))[0] == "body"


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_tool_result_holding_json(vendor: str) -> None:
    for text in ('{"x": 1e999}', '{"x": NaN}', '{"x": [-Infinity]}'):
        _encode(vendor, _history(result=text))
        _encode(vendor, _history(result=[{"type": "text", "text": text}]))


def test_a_tool_result_cohere_would_cite_as_a_document() -> None:
    # a number past a double's range is not read as an object (as NaN's text is not): the
    # result goes as its text, nothing lost, and the body holds no infinity
    kind, text = _encode("cohere", _history(result='{"x": 1e999}'))
    assert kind == "body"
    assert '"text": "{\\"x\\": 1e999}"' in text, text


def test_a_json_tool_result_bedrock_sends_as_json() -> None:
    part = {"type": "text", "text": '{"x": NaN}', "metadata": {"bedrock.type": "json"}}
    _refused(_encode("bedrock", _history(result=[part])), "json")


@pytest.mark.parametrize("form", ["object", "output-json"])
def test_a_gemini_response_parsed_from_the_result(form: str) -> None:
    given = _history(result='{"x": 1e999}')
    given["messages"][2]["metadata"] = {"gemini.responseForm": form}
    _refused(_encode("gemini", given), "response")


@pytest.mark.parametrize("vendor", VENDORS)
def test_metadata_everywhere(vendor: str) -> None:
    meta = {"anything": NAN}
    given = _history(result=[{"type": "text", "text": "ok", "metadata": meta}])
    for m in given["messages"]:
        m["metadata"] = meta
    given["messages"][1]["toolCalls"][0]["metadata"] = meta
    given["tools"][0]["metadata"] = meta
    _encode(vendor, given)


@pytest.mark.parametrize(
    ("vendor", "place", "meta", "where"),
    [
        ("anthropic", "result", {"anthropic.cache_control": {"ttl": NAN}}, "cache_control"),
        ("gemini", "call", {"gemini.toolType": INF, "gemini.part": "toolCall"}, "tool_type"),
    ],
)
def test_metadata_a_vendor_copies(
    vendor: str, place: str, meta: dict[str, Any], where: str
) -> None:
    given = _history()
    target = given["messages"][2] if place == "result" else given["messages"][1]["toolCalls"][0]
    target["metadata"] = meta
    _refused(_encode(vendor, given), where)


@pytest.mark.parametrize("vendor", VENDORS)
def test_extra_fields_on_any_model(vendor: str) -> None:
    given = _history(result=[{"type": "text", "text": "ok", "extraField": NAN}])
    given["messages"][0]["extraField"] = [INF]
    given["messages"][1]["toolCalls"][0]["function"]["extraField"] = NAN
    given["extraField"] = NAN
    _encode(vendor, given)


class _Subclassed(UserMessage):
    """A caller's own message class: its fields are read by their types, not assumed."""

    score: Any = None


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_message_subclass_with_a_field_of_its_own(vendor: str) -> None:
    given = RunAgentInput.model_validate(_history())
    given.messages[0] = _Subclassed(id="u1", content="go", score=NAN)
    _encode(vendor, given)


# -- MCP's encoders (they read no run input: every body is walked) ---------------------------


def test_mcp_results_tools_and_calls() -> None:
    result = {
        "id": "r",
        "role": "tool",
        "toolCallId": "c",
        "content": "ok",
        "metadata": {"mcp.structuredContent": {"x": NAN}},
    }
    _refused(_outcome(encode_result, result), "structuredContent")
    tool = {"name": "f", "description": "d", "parameters": {"type": "object", "maximum": INF}}
    _refused(_outcome(encode_tool, tool), "maximum")
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"x":1e999}'}}
    with pytest.raises(UnsupportedInput, match="not a JSON object"):  # (as for NaN's text)
        encode_call(call)


# -- the scan against the walk, on inputs drawn at random ------------------------------------

_KEYS = [
    "anthropic.cache_control",
    "anthropic.block",
    "anthropic.type",
    "bedrock.type",
    "gemini.toolType",
    "gemini.responseForm",
    "gemini.part",
    "openai.detail",
    "mistral.detail",
    "cohere.detail",
    "cohere.document_id",
    "dialogflow",
    "asgard",
    "x",
]
_BAD = st.sampled_from([NAN, INF, -INF])
_LEAF = st.one_of(_BAD, st.integers(-5, 5), st.text(max_size=3), st.just("object"))
_VALUE = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(_KEYS), inner, max_size=3)
    ),
    max_leaves=6,
)
_META = st.dictionaries(st.sampled_from(_KEYS), _VALUE, max_size=3)
_TEXT = st.sampled_from(['{"x": 1}', '{"x": 1e999}', '{"x": NaN}', "[1e400]", "plain", ""])


@st.composite
def _inputs(draw: st.DrawFn) -> dict[str, Any]:
    given = _history(arguments=draw(_TEXT), result=draw(_TEXT))
    slots: list[tuple[dict[str, Any], str]] = [
        (given["messages"][0], "metadata"),
        (given["messages"][1], "metadata"),
        (given["messages"][1]["toolCalls"][0], "metadata"),
        (given["messages"][2], "metadata"),
        (given["tools"][0], "metadata"),
    ]
    for holder, key in slots:
        if draw(st.booleans()):
            holder[key] = draw(_META)
    if draw(st.booleans()):
        given["tools"][0]["parameters"] = draw(_VALUE)
    if draw(st.booleans()):
        given["forwardedProps"] = {v: draw(_META) for v in draw(st.sets(st.sampled_from(VENDORS)))}
    if draw(st.booleans()):
        given["state"] = draw(_VALUE)
    if draw(st.booleans()):
        text = draw(_TEXT)
        given["messages"][2]["content"] = [
            {"type": "text", "text": text, "metadata": draw(_META)},
            {"type": "image", "source": {"type": "url", "value": "https://x/y.png"}},
        ]
    return given


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(given=_inputs(), vendor=st.sampled_from(VENDORS))
def test_the_scan_decides_as_the_walk_would(given: dict[str, Any], vendor: str) -> None:
    kw: dict[str, Any] = {}
    if vendor in ("anthropic", "bedrock"):
        kw["use_forwarded_props"] = True
    _encode(vendor, given, **kw)


# -- the scan itself ------------------------------------------------------------------------


def test_the_scan_reads_the_ag_ui_classes_as_they_are() -> None:
    # (ag-ui's message classes have the shape the fast reading assumes: else it is off)
    assert finite._FAST_MESSAGES


@pytest.mark.parametrize(
    "field",
    ["state", "forwarded_props", "tool_params", "tool_meta", "message_meta", "part_meta",
     "call_meta", "extra", "resume"],
)  # fmt: skip
def test_the_scan_finds_each_free_slot(field: str) -> None:
    given = _history(result=[{"type": "text", "text": "ok"}])
    if field == "state":
        given["state"] = [NAN]
    elif field == "forwarded_props":
        given["forwardedProps"] = {"a": {"b": INF}}
    elif field == "tool_params":
        given["tools"][0]["parameters"] = {"m": -INF}
    elif field == "tool_meta":
        given["tools"][0]["metadata"] = {"m": NAN}
    elif field == "message_meta":
        given["messages"][0]["metadata"] = {"m": NAN}
    elif field == "part_meta":
        given["messages"][2]["content"][0]["metadata"] = NAN
    elif field == "call_meta":
        given["messages"][1]["toolCalls"][0]["metadata"] = {"m": [NAN]}
    elif field == "extra":
        given["messages"][2]["content"][0]["other"] = INF
    else:
        given["resume"] = [{"interruptId": "i", "status": "resolved", "payload": {"p": NAN}}]
    run = RunAgentInput.model_validate(given)
    assert not finite.free_finite(run)
    clean = RunAgentInput.model_validate(_history(result=[{"type": "text", "text": "ok"}]))
    assert finite.free_finite(clean)


def test_a_slot_holding_an_object_counts_as_maybe() -> None:
    class Opaque:
        value = math.nan

    given = RunAgentInput.model_validate(_history())
    given.state = Opaque()
    assert not finite.free_finite(given)
