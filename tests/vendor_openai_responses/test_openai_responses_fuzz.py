"""Any JSON thrown at the decoder and at decode_request fails only with toolwire's errors.

Events and items are built from the Responses API's own type and field names with values of
any JSON type, so malformed input reaches every branch; a bare KeyError/TypeError escaping
is a bug (DESIGN.md: bad input gets a ``toolwire.errors`` exception naming the place).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.adapters import openai_responses as a
from toolwire.errors import ToolwireError, VendorDataError, VendorStreamError

EVENTS = [
    "response.created",
    "response.output_item.added",
    "response.output_item.done",
    "response.output_text.delta",
    "response.refusal.delta",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_part.done",
    "response.reasoning_summary_text.delta",
    "response.reasoning_text.delta",
    "response.reasoning_text.done",
    "response.function_call_arguments.delta",
    "response.custom_tool_call_input.delta",
    "response.mcp_call_arguments.delta",
    "response.completed",
    "response.incomplete",
    "response.failed",
    "error",
]
ITEMS = [
    "message",
    "reasoning",
    "function_call",
    "custom_tool_call",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "computer_call",
    "local_shell_call",
    "function_call_output",
    "custom_tool_call_output",
    "computer_call_output",
    "input_text",
    "input_image",
    "input_file",
    "output_text",
    "summary_text",
]
FIELDS = [
    "id",
    "call_id",
    "name",
    "arguments",
    "input",
    "action",
    "sources",
    "url",
    "queries",
    "results",
    "text",
    "code",
    "outputs",
    "logs",
    "result",
    "output_format",
    "output",
    "error",
    "status",
    "server_label",
    "summary",
    "content",
    "encrypted_content",
    "annotations",
    "container_id",
    "file_id",
    "file_data",
    "file_url",
    "filename",
    "image_url",
    "role",
    "usage",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "input_tokens_details",
    "cached_tokens",
    "incomplete_details",
    "reason",
    "message",
    "model",
    "phase",
    "refusal",
]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 3), st.text(max_size=4), st.sampled_from(ITEMS)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from([*FIELDS, "type"]), inner, max_size=4),
    ),
    max_leaves=12,
)
# Values of the right type beside arbitrary ones: with arbitrary values alone no generated
# stream got past the first type check (none decoded to a single event)
ids = st.sampled_from(["m1", "fc1", "rs1"])
WELL_TYPED: dict[str, Any] = {
    "id": ids,
    "call_id": st.sampled_from(["call_1", "call_2"]),
    "name": st.sampled_from(["f", "g"]),
    "arguments": st.sampled_from(["", "{}", '{"a": 1}', '{"a"']),
    "input": st.text(max_size=4),
    "text": st.text(max_size=4),
    "role": st.just("assistant"),
    "status": st.sampled_from(["completed", "in_progress"]),
    "content": st.just([]),
    "summary": st.just([]),
}


def _field(name: str) -> Any:
    return st.one_of(WELL_TYPED[name], values) if name in WELL_TYPED else values


# an item is its type, the fields above (each well-typed or not) and up to three more: every
# field optional at once made items so large that Hypothesis threw most of them away unrun
# (they overran its data budget)
items = st.sampled_from(ITEMS).flatmap(
    lambda kind: st.fixed_dictionaries(
        {"type": st.just(kind)},
        optional={k: _field(k) for k in WELL_TYPED},
    ).flatmap(
        lambda head: st.dictionaries(st.sampled_from(FIELDS), values, max_size=3).map(
            lambda rest: {**rest, **head}
        )
    )
)
chunks = st.fixed_dictionaries(
    {"type": st.sampled_from(EVENTS)},
    optional={
        "output_index": st.integers(0, 2),
        "item": st.one_of(items, values),
        "delta": st.one_of(st.text(max_size=4), values),
        "item_id": st.one_of(ids, values),
        "summary_index": st.integers(0, 1),
        "content_index": st.one_of(st.integers(0, 1), values),
        "response": values,
        "message": values,
        "code": values,
    },
)
# a stream that opens an output item first, as a real one does, more often than not: the
# events that follow it are then read past their own type checks
opening = st.fixed_dictionaries(
    {"type": st.just("response.output_item.added"), "output_index": st.just(0), "item": items}
)
opened = st.builds(lambda head, rest: [head, *rest], opening, st.lists(chunks, max_size=5))
streams = st.one_of(st.lists(chunks, max_size=6), opened)
FUZZ = settings(
    max_examples=3 * settings.default.max_examples // 2,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


@FUZZ
@given(stream=streams)
def test_any_stream_fails_only_with_toolwire_errors(stream: list[dict[str, Any]]) -> None:
    d = a.Decoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for chunk in stream:
                d.feed(chunk)
            d.close()
        except ToolwireError:
            pass


@FUZZ
@given(
    body=st.fixed_dictionaries(
        {"model": st.just("gpt-5")},
        optional={
            "input": st.one_of(st.lists(st.one_of(items, values), max_size=4), values),
            "tools": values,
            "instructions": values,
        },
    )
)
def test_any_request_body_fails_only_with_toolwire_errors(body: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            a.decode_request(body)
        except ToolwireError:
            pass


def test_an_error_event_with_a_code_that_is_not_text_is_still_the_vendor_error() -> None:
    with pytest.raises(VendorStreamError) as info:
        a.Decoder().feed({"type": "error", "code": [], "message": "boom"})
    assert (info.value.error_type, info.value.message, info.value.retryable) == (
        "error",
        "boom",
        False,
    )


def test_tools_that_are_not_a_list_name_the_field() -> None:
    with pytest.raises(VendorDataError, match=r"request\.tools"):
        a.decode_request({"model": "gpt-5", "input": "hi", "tools": True})


def test_a_count_beyond_what_token_usage_holds_names_the_usage() -> None:
    d = a.Decoder()
    with pytest.raises(VendorDataError, match="usage"):
        d.feed({"type": "response.completed", "response": {"usage": {"input_tokens": 2**53}}})
