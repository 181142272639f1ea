"""What the real ``openai`` SDK reads from a body: the reference the decoder is checked against.

Nothing here uses toolwire's decoder; calls and text are accumulated from the
SDK's own parsed objects, the way an SDK user would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from sdk_http import answering


@dataclass
class SdkCall:
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass
class SdkChoice:
    text: str = ""
    refusal: str = ""
    reasoning: str = ""  # a compatible server's reasoning_content (an extra field to the SDK)
    calls: list[SdkCall] = field(default_factory=list)
    finish_reason: str | None = None


def client_for_body(body: bytes, content_type: str = "text/event-stream") -> OpenAI:
    """An SDK client whose every request is answered with ``body`` (no network)."""

    return OpenAI(api_key="test-key", http_client=answering(body, content_type))


def stream_body(body: bytes) -> list[ChatCompletionChunk]:
    """The chunks the SDK parses from an SSE body."""
    client = client_for_body(body)
    stream = client.chat.completions.create(model="m", messages=[], stream=True)
    return list(stream)


def accumulate(chunks: list[ChatCompletionChunk]) -> dict[int, SdkChoice]:
    """Per choice: text, refusal and calls, keyed by ``(choice, tool index)``; a new id on
    an index in use starts a new call (compatible servers that reuse index 0)."""
    out: dict[int, SdkChoice] = {}
    slots: dict[tuple[int, int], SdkCall] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            acc = out.setdefault(choice.index, SdkChoice())
            delta = choice.delta
            acc.text += delta.content or ""
            acc.refusal += delta.refusal or ""
            acc.reasoning += (delta.model_extra or {}).get("reasoning_content") or ""
            for tc in delta.tool_calls or []:
                key = (choice.index, tc.index)
                call = slots.get(key)
                if call is None or (tc.id and call.id and tc.id != call.id):
                    call = SdkCall()
                    slots[key] = call
                    acc.calls.append(call)
                call.id = call.id or tc.id
                if tc.function is not None:
                    call.name = call.name or tc.function.name
                    call.arguments += tc.function.arguments or ""
            if delta.function_call is not None:
                key = (choice.index, -1)
                if key not in slots:
                    slots[key] = SdkCall()
                    acc.calls.append(slots[key])
                slots[key].name = slots[key].name or delta.function_call.name
                slots[key].arguments += delta.function_call.arguments or ""
            if choice.finish_reason:
                acc.finish_reason = choice.finish_reason
    return out


def from_completion(completion: ChatCompletion) -> dict[int, SdkChoice]:
    """The same summary for a whole (non-streamed) completion."""
    out: dict[int, SdkChoice] = {}
    for choice in completion.choices:
        msg = choice.message
        acc = SdkChoice(text=msg.content or "", refusal=msg.refusal or "")
        for tc in msg.tool_calls or []:
            fn: Any = getattr(tc, "function", None)
            acc.calls.append(SdkCall(tc.id, fn.name, fn.arguments))
        acc.finish_reason = choice.finish_reason
        out[choice.index] = acc
    return out
