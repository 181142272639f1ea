"""Request shapes Anthropic documents beside the block lists (issue 36): decoded, not written.

``system``, a message's ``content`` and a ``tool_result``'s ``content`` are each "a string or
blocks" in the SDK's types; each loose body is what the SDK itself sends, and decodes to the
same history as its all-blocks twin. The reads are the shared ``Fields.several`` /
``text_or_several``, so one block object for a block list reads as the list of it too.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _anthropic_sdk import sdk_sent_body

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


def loose(change: Any) -> dict[str, Any]:
    body = copy.deepcopy(BLOCKS)
    change(body)
    return body


def history(body: dict[str, Any]) -> list[dict[str, Any]]:
    ri = decode_request(body, thread_id="t", run_id="r")
    return [m.model_dump(mode="json", exclude_none=True) for m in ri.messages]


def said(body: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What the history says: roles, text, calls and answers (a string and one text part
    say the same; ids minted from a block's position may differ)."""
    out = []
    for m in history(body):
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p["text"] for p in content if p["type"] == "text")
        calls = [(c["id"], c["function"]["arguments"]) for c in m.get("tool_calls", [])]
        out.append((m["role"], content, calls, m.get("tool_call_id")))
    return out


def _set(path: str, value: Any) -> Any:
    def change(body: dict[str, Any]) -> None:
        *head, last = path.split(".")
        node: Any = body
        for key in head:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = value

    return change


SDK_DOCUMENTED = [
    ("system-string", _set("system", "Answer briefly.")),
    ("user-content-string", _set("messages.0.content", "Weather in Paris?")),
    ("tool-result-content-string", _set("messages.2.content.0.content", "18C")),
]
ONE_BLOCK = [
    ("system-one-block", _set("system", {"type": "text", "text": "Answer briefly."})),
    (
        "user-content-one-block",
        _set("messages.0.content", {"type": "text", "text": "Weather in Paris?"}),
    ),
    (
        "tool-result-content-one-block",
        _set("messages.2.content.0.content", {"type": "text", "text": "18C"}),
    ),
]


@pytest.mark.parametrize(
    "change", [c for _, c in SDK_DOCUMENTED], ids=[n for n, _ in SDK_DOCUMENTED]
)
def test_a_string_where_blocks_go_is_what_the_sdk_sends_and_decodes_the_same(change: Any) -> None:
    body = loose(change)
    assert sdk_sent_body(body) == body  # the SDK's own types take it, unchanged
    assert said(body) == said(BLOCKS)


@pytest.mark.parametrize("change", [c for _, c in ONE_BLOCK], ids=[n for n, _ in ONE_BLOCK])
def test_one_block_where_a_list_goes_decodes_the_same(change: Any) -> None:
    assert history(loose(change)) == history(BLOCKS)


def test_the_encoder_writes_blocks_and_strings_as_before() -> None:
    ri = decode_request(
        loose(_set("messages.2.content.0.content", {"type": "text", "text": "18C"}))
    )
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
        decode_request(loose(_set("messages.0.content", 5)))
