"""A long conversation with media, for timing ``encode_request`` against ``json.dumps``.

1,000 messages in the shape a real thread has: a user turn with text and an image, an
assistant turn with two tool calls, two tool results (one text, one text + image), then an
assistant reply, repeated. Images are small inline PNGs (data source), so the request encoder
fits every result to the target (keep, relocate or drop) the way it would in production.

``history(n, media_heavy=True)`` puts an image in every tool result too (the first result of
each round carries text + image as well): the media-heavy case, three images per six messages.
"""

from __future__ import annotations

import base64

from ag_ui.core import (
    AssistantMessage,
    DataSource,
    FunctionCall,
    ImagePart,
    InputContent,
    Message,
    RunAgentInput,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()


def _image() -> ImagePart:
    return ImagePart(source=DataSource(value=PNG, mime_type="image/png"))


def history(messages: int = 1000, *, media_heavy: bool = False) -> RunAgentInput:
    """A ``RunAgentInput`` of ``messages`` messages (a multiple of 6 is one whole round);
    ``media_heavy``: every tool result carries an image."""
    out: list[Message] = []
    k = 0
    while len(out) < messages:
        a, b = f"call_{k}_a", f"call_{k}_b"
        out.append(UserMessage(id=f"u{k}", content=[TextPart(text=f"look at image {k}"), _image()]))
        calls = [
            ToolCall(id=a, function=FunctionCall(name="get_weather", arguments='{"city":"Paris"}')),
            ToolCall(id=b, function=FunctionCall(name="render", arguments=f'{{"n":{k}}}')),
        ]
        out.append(AssistantMessage(id=f"a{k}", tool_calls=calls))
        first: str | list[InputContent] = "18 degrees, sunny"
        if media_heavy:
            first = [TextPart(text="18 degrees, sunny"), _image()]
        out.append(ToolMessage(id=f"t{k}a", tool_call_id=a, content=first))
        out.append(
            ToolMessage(id=f"t{k}b", tool_call_id=b, content=[TextPart(text="rendered"), _image()])
        )
        out.append(AssistantMessage(id=f"r{k}", content=f"It is sunny in Paris ({k})."))
        out.append(UserMessage(id=f"v{k}", content="thanks, and tomorrow?"))
        k += 1
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    tools = [Tool(name=n, description=n, parameters=schema) for n in ("get_weather", "render")]
    return RunAgentInput(
        thread_id="t-bench",
        run_id="r-bench",
        messages=out[:messages],
        tools=tools,
        context=[],
        state=None,
        forwarded_props=None,
    )
