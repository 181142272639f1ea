"""Each vendor SDK's own request types judge a request body toolwire encoded.

TypedDict params (Anthropic, OpenAI) are validated with pydantic and must come
back unchanged: a key the SDK's types do not know would be dropped and show up as
a difference. Gemini's pydantic models forbid unknown fields outright. The
Anthropic and both OpenAI bodies are also sent through the real client (to an httpx
mock transport, no network) and must reach the wire as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
from pydantic import TypeAdapter


def materialize(value: Any) -> Any:
    """Force pydantic's lazy ``Iterable`` validation and return plain data."""
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or isinstance(value, Iterator):
        return [materialize(v) for v in value]
    if type(value).__name__ == "ValidatorIterator":
        return [materialize(v) for v in value]
    return value


def _same(adapter: TypeAdapter[Any], value: Any) -> None:
    # the adapter must outlive the lazy iterators it returns (pydantic-core needs it)
    assert materialize(adapter.validate_python(value)) == value


def _sends_unchanged(client: Any, path: str, body: dict[str, Any], reply: dict[str, Any]) -> None:
    """``client(http_client)``'s ``path`` method (``"messages.create"``) puts ``body`` on
    the wire unchanged."""
    seen: list[bytes] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.read())
        return httpx2.Response(200, json=reply)

    method = client(httpx2.Client(transport=httpx2.MockTransport(handler)))
    for name in path.split("."):
        method = getattr(method, name)
    method(**body)
    assert json.loads(seen[0]) == body


def _openai(http_client: Any) -> Any:
    import openai

    return openai.OpenAI(api_key="test-key", max_retries=0, http_client=http_client)


def _anthropic(http_client: Any) -> Any:
    import anthropic

    return anthropic.Anthropic(api_key="sk-ant-test", max_retries=0, http_client=http_client)


#: the smallest reply each SDK parses (the request is what is checked)
_REPLIES: dict[str, dict[str, Any]] = {
    "anthropic": {
        "id": "msg_x",
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
    "openai_chat": {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "created": 1,
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}
        ],
    },
    "openai_responses": {
        "id": "resp_x",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    },
}


def _reply(target: str, body: dict[str, Any]) -> dict[str, Any]:
    return {**_REPLIES[target], "model": body["model"]}


def check_anthropic(body: dict[str, Any]) -> None:
    from anthropic.types import MessageParam, ToolParam

    _same(TypeAdapter(list[MessageParam]), body["messages"])
    _same(TypeAdapter(list[ToolParam]), body["tools"])
    _sends_unchanged(_anthropic, "messages.create", body, _reply("anthropic", body))


def check_openai_chat(body: dict[str, Any]) -> None:
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

    _same(TypeAdapter(list[ChatCompletionMessageParam]), body["messages"])
    _same(TypeAdapter(list[ChatCompletionToolParam]), body["tools"])
    _sends_unchanged(_openai, "chat.completions.create", body, _reply("openai_chat", body))


def check_openai_responses(body: dict[str, Any]) -> None:
    from openai.types.responses.response_input_param import ResponseInputParam
    from openai.types.responses.tool_param import ToolParam

    _same(TypeAdapter(ResponseInputParam), body["input"])
    _same(TypeAdapter(list[ToolParam]), body["tools"])
    _sends_unchanged(_openai, "responses.create", body, _reply("openai_responses", body))


def check_gemini(body: dict[str, Any]) -> None:
    """The body is ``generate_content`` keyword arguments; google-genai's models forbid
    unknown fields, so each validating is the SDK accepting it."""
    import inspect

    from google.genai import models, types

    params = set(inspect.signature(models.Models.generate_content).parameters) - {"self"}
    assert set(body) <= params
    for content in body["contents"]:
        types.Content.model_validate(content)
    types.GenerateContentConfig.model_validate(body["config"])


CHECKS = {
    "anthropic": check_anthropic,
    "openai_chat": check_openai_chat,
    "openai_responses": check_openai_responses,
    "gemini": check_gemini,
}
