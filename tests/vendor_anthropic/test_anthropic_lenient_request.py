"""Request shapes Anthropic documents beside the block lists (issue 36): decoded, not written.

``system``, a message's ``content`` and a ``tool_result``'s ``content`` are each "a string or
blocks" in the SDK's types; each loose body is what the SDK itself sends, and decodes to the
same history as its all-blocks twin. The reads are the shared ``Fields.several`` /
``text_or_several``, so one block object for a block list reads as the list of it too.
"""

from __future__ import annotations

from typing import Any

import pytest
from _anthropic_sdk import sdk_sent_body
from lenient import changed, history, said

from toolwire.adapters.anthropic import decode_request, encode_request
from toolwire.errors import VendorDataError

BLOCKS: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 256,
    "system": [{"type": "text", "text": "Answer briefly."}],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"c": "P"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "content": [{"type": "text", "text": "18C"}],
                }
            ],
        },
    ],
}


def loose(path: str, value: Any) -> dict[str, Any]:
    return changed(BLOCKS, path, value)


SDK_DOCUMENTED = [
    ("system-string", ("system", "Answer briefly.")),
    ("user-content-string", ("messages.0.content", "Weather in Paris?")),
    ("tool-result-content-string", ("messages.2.content.0.content", "18C")),
]
ONE_BLOCK = [
    ("system-one-block", ("system", {"type": "text", "text": "Answer briefly."})),
    (
        "user-content-one-block",
        ("messages.0.content", {"type": "text", "text": "Weather in Paris?"}),
    ),
    (
        "tool-result-content-one-block",
        ("messages.2.content.0.content", {"type": "text", "text": "18C"}),
    ),
]


@pytest.mark.parametrize(
    "change", [c for _, c in SDK_DOCUMENTED], ids=[n for n, _ in SDK_DOCUMENTED]
)
def test_a_string_where_blocks_go_is_what_the_sdk_sends_and_decodes_the_same(
    change: tuple[str, Any],
) -> None:
    body = loose(*change)
    assert sdk_sent_body(body) == body  # the SDK's own types take it, unchanged
    assert said(decode_request, body) == said(decode_request, BLOCKS)


@pytest.mark.parametrize("change", [c for _, c in ONE_BLOCK], ids=[n for n, _ in ONE_BLOCK])
def test_one_block_where_a_list_goes_decodes_the_same(change: tuple[str, Any]) -> None:
    assert history(decode_request, loose(*change)) == history(decode_request, BLOCKS)


def test_the_encoder_writes_blocks_and_strings_as_before() -> None:
    ri = decode_request(loose("messages.2.content.0.content", {"type": "text", "text": "18C"}))
    body = encode_request(ri, model="claude-sonnet-4-6", max_tokens=256)
    result = body["messages"][2]["content"][0]
    assert result["type"] == "tool_result"
    assert isinstance(result["content"], (str, list))
    assert sdk_sent_body(dict(body))["messages"] == body["messages"]


def test_a_number_for_content_is_still_refused_by_name() -> None:
    with pytest.raises(
        VendorDataError,
        match=r"messages\[0\]\.content: expected a string or a list or an object, got int",
    ):
        decode_request(loose("messages.0.content", 5))
