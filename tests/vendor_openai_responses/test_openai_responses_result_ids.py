"""A result the vendor gives no id gets one recipe (protocol.ids.result_message_id): the same
result decoded from the stream and from the next request's history has the same id."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import ToolCallResultEvent, ToolMessage

from toolwire.adapters import openai_responses

WEB_SEARCH = {
    "type": "web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {"type": "search", "query": "q", "sources": [{"type": "url", "url": "https://a"}]},
}
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
CALL = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}


def _stream_result(items: list[dict[str, Any]]) -> ToolCallResultEvent:
    chunks: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        chunks += [
            {"type": "response.output_item.added", "output_index": i, "item": item},
            {"type": "response.output_item.done", "output_index": i, "item": item},
        ]
    chunks.append({"type": "response.completed", "response": {"id": "resp_1", "output": items}})
    events = list(openai_responses.decode_stream(chunks))
    (result,) = [e for e in events if isinstance(e, ToolCallResultEvent)]
    return result


@pytest.mark.parametrize("items", [[WEB_SEARCH], [CALL, OUTPUT]], ids=["hosted", "output"])
def test_a_stream_and_a_history_give_an_unnamed_result_one_id(items: list[dict[str, Any]]) -> None:
    streamed = _stream_result(items)
    history = openai_responses.decode_request({"model": "gpt-5", "input": items})
    (message,) = [m for m in history.messages if isinstance(m, ToolMessage)]
    assert message.tool_call_id == streamed.tool_call_id
    assert message.id == streamed.message_id
    assert message.id not in ("ws_1", "call_1")  # minted, not a vendor id reused


def test_a_result_the_vendor_names_keeps_its_id() -> None:
    named = {**OUTPUT, "id": "fco_1"}
    assert _stream_result([CALL, named]).message_id == "fco_1"
    history = openai_responses.decode_request({"model": "gpt-5", "input": [CALL, named]})
    assert [m.id for m in history.messages if isinstance(m, ToolMessage)] == ["fco_1"]
