"""What each vendor's own SDK parses out of a recording: the tool calls a run must carry.

The recording is served by FakeVendor and read by the vendor's async SDK with its own
stream helpers, so the expected calls are the SDK's parse, not toolwire's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolwire.testing.fake_vendor import FakeVendor, replies_from_cassette

Call = tuple[str | None, str, Any]  # id (None when the vendor gives none), name, arguments


async def _anthropic(base_url: str) -> list[Call]:
    import anthropic

    client = anthropic.AsyncAnthropic(api_key="k", base_url=base_url, max_retries=0)
    messages: Any = [{"role": "user", "content": "hi"}]
    async with client.messages.stream(model="m", max_tokens=64, messages=messages) as stream:
        final = await stream.get_final_message()
    return [(b.id, b.name, b.input) for b in final.content if b.type == "tool_use"]


async def _openai_responses(base_url: str) -> list[Call]:
    import openai

    client = openai.AsyncOpenAI(api_key="k", base_url=base_url, max_retries=0)
    stream = await client.responses.create(model="m", input="hi", stream=True)
    calls: list[Call] = []
    async for event in stream:
        if event.type == "response.completed":
            for item in event.response.output:
                if item.type == "function_call":
                    calls.append((item.call_id, item.name, json.loads(item.arguments)))
    return calls


async def _openai_chat(base_url: str) -> list[Call]:
    import openai

    client = openai.AsyncOpenAI(api_key="k", base_url=base_url, max_retries=0)
    messages: Any = [{"role": "user", "content": "hi"}]
    async with client.chat.completions.stream(model="m", messages=messages) as stream:
        final = await stream.get_final_completion()
    return [
        (c.id, c.function.name, json.loads(c.function.arguments))
        for c in final.choices[0].message.tool_calls or []
    ]


async def _gemini(base_url: str) -> list[Call]:
    from google import genai
    from google.genai import types

    client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=base_url))
    calls: list[Call] = []
    async for chunk in await client.aio.models.generate_content_stream(model="m", contents="hi"):
        calls.extend((fc.id, fc.name or "", fc.args) for fc in chunk.function_calls or [])
    return calls


async def _bedrock(base_url: str) -> list[Call]:
    import asyncio

    import boto3

    def parse() -> list[Call]:
        client = boto3.client(
            "bedrock-runtime",
            region_name="us-east-1",
            endpoint_url=base_url,
            aws_access_key_id="AKIAFAKEFAKEFAKEFAKE",
            aws_secret_access_key="fake",
        )
        messages: Any = [{"role": "user", "content": [{"text": "hi"}]}]
        response = client.converse_stream(modelId="m", messages=messages)
        calls: dict[int, list[Any]] = {}
        for event in response["stream"]:
            start = event.get("contentBlockStart", {})
            if "toolUse" in start.get("start", {}):
                use = start["start"]["toolUse"]
                calls[start["contentBlockIndex"]] = [use["toolUseId"], use["name"], ""]
            delta = event.get("contentBlockDelta", {})
            if "toolUse" in delta.get("delta", {}):
                calls[delta["contentBlockIndex"]][2] += delta["delta"]["toolUse"]["input"]
        return [(i, n, json.loads(a or "{}")) for i, n, a in calls.values()]

    return await asyncio.to_thread(parse)  # boto3 is sync


async def _ollama(base_url: str) -> list[Call]:
    import ollama

    client = ollama.AsyncClient(host=base_url)
    calls: list[Call] = []
    async for part in await client.chat(model="m", messages=[], stream=True):
        for c in part.message.tool_calls or []:  # (the SDK's model keeps no call id)
            calls.append((None, c.function.name, dict(c.function.arguments)))
    return calls


async def _mistral(base_url: str) -> list[Call]:
    from mistralai.client import Mistral

    client = Mistral(api_key="k", server_url=base_url)
    messages: Any = [{"role": "user", "content": "hi"}]
    calls: list[Call] = []
    async for event in await client.chat.stream_async(model="m", messages=messages):
        for choice in event.data.choices:
            for c in choice.delta.tool_calls or []:
                args = c.function.arguments
                calls.append(
                    (c.id, c.function.name, json.loads(args) if isinstance(args, str) else args)
                )
    return calls


async def _cohere(base_url: str) -> list[Call]:
    import cohere

    client = cohere.AsyncClientV2(api_key="k", base_url=base_url)
    messages: Any = [{"role": "user", "content": "hi"}]
    found: dict[int, list[Any]] = {}
    async for event in client.chat_stream(model="m", messages=messages):
        if event.type == "tool-call-start":
            tc = event.delta.message.tool_calls
            found[event.index] = [tc.id, tc.function.name, tc.function.arguments or ""]
        elif event.type == "tool-call-delta":
            found[event.index][2] += event.delta.message.tool_calls.function.arguments or ""
    return [(i, n, json.loads(a)) for i, n, a in (found[k] for k in sorted(found))]


_PARSERS = {
    "anthropic": _anthropic,
    "openai": _openai_responses,
    "openai_chat": _openai_chat,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "ollama": _ollama,
    "mistral": _mistral,
    "cohere": _cohere,
}


async def sdk_calls(provider: str, cassette: Path) -> list[Call]:
    """The tool calls of the cassette's first reply, as the provider's SDK parses them."""
    with FakeVendor(replies_from_cassette(cassette)[:1]) as vendor:
        return await _PARSERS[provider](vendor.base_url)
