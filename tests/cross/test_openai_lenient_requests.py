"""Request shapes OpenAI documents beside the part lists (issue 36), both OpenAI adapters.

Chat's message ``content`` and Responses' ``input``, message ``content`` and
``function_call_output.output`` are "a string or a list" in the SDK's types: each loose body
is what ``openai`` itself sends, and says the same as its all-parts twin. The reads are the
shared ``Fields.several`` / ``text_or_several``, so one part object reads as a list of it.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from lenient import changed, said
from sdk_http import recording

from toolwire.adapters import openai_chat, openai_responses


def sent(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """The JSON body ``openai`` puts on the wire for the call (a mock transport answers)."""
    seen: list[bytes] = []
    http = recording(seen, 400, {"error": {"message": "stop here", "type": "x"}})
    c = openai.OpenAI(api_key="sk-test-not-a-key", max_retries=0, http_client=http)
    api = c.chat.completions if kind == "chat" else c.responses
    with pytest.raises(openai.BadRequestError):
        api.create(**body)
    out: dict[str, Any] = json.loads(seen[0])
    return out


CHAT: dict[str, Any] = {
    "model": "gpt-5",
    "messages": [
        {"role": "system", "content": [{"type": "text", "text": "Answer briefly."}]},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"c":"P"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "18C"}]},
    ],
}
RESPONSES: dict[str, Any] = {
    "model": "gpt-5",
    "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"c":"P"}',
        },
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [{"type": "input_text", "text": "18C"}],
        },
    ],
}

CASES = [
    ("chat", "messages.0.content", "Answer briefly.", True),
    ("chat", "messages.1.content", "Weather in Paris?", True),
    ("chat", "messages.3.content", "18C", True),
    ("chat", "messages.1.content", {"type": "text", "text": "Weather in Paris?"}, False),
    ("chat", "messages.3.content", {"type": "text", "text": "18C"}, False),
    ("responses", "input.0.content", "Weather in Paris?", True),
    ("responses", "input.2.output", "18C", True),
    ("responses", "input.0.content", {"type": "input_text", "text": "Weather in Paris?"}, False),
    ("responses", "input.2.output", {"type": "input_text", "text": "18C"}, False),
]


@pytest.mark.parametrize(
    "kind,path,value,documented", CASES, ids=[f"{k}-{p}-{type(v).__name__}" for k, p, v, _ in CASES]
)
def test_a_loose_body_says_what_its_canonical_twin_says(
    kind: str, path: str, value: Any, documented: bool
) -> None:
    canonical = CHAT if kind == "chat" else RESPONSES
    adapter = openai_chat if kind == "chat" else openai_responses
    body = changed(canonical, path, value)
    if documented:  # the SDK's own types take it, and send it unchanged
        assert sent(kind, body) == body
    assert said(adapter.decode_request, body) == said(adapter.decode_request, canonical)


def test_responses_input_as_text_is_one_user_message() -> None:
    body = {"model": "gpt-5", "input": "Weather in Paris?"}
    assert sent("responses", body) == body
    assert said(openai_responses.decode_request, body) == [("user", "Weather in Paris?", [], None)]


def test_the_encoders_write_the_canonical_shapes() -> None:
    ri = openai_chat.decode_request(
        changed(CHAT, "messages.3.content", {"type": "text", "text": "18C"})
    )
    chat = openai_chat.encode_request(ri, model="gpt-5")
    assert isinstance(chat["messages"][-1]["content"], (str, list))
    ri = openai_responses.decode_request(
        changed(RESPONSES, "input.2.output", {"type": "input_text", "text": "18C"})
    )
    resp = openai_responses.encode_request(ri, model="gpt-5")
    out = [i for i in resp["input"] if i.get("type") == "function_call_output"]
    assert isinstance(out[0]["output"], (str, list))
    assert not isinstance(out[0]["output"], dict)
