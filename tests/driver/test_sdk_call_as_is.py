"""A Stainless-style SDK's call is handed the conversation in ``extra_body``
(``clients.sent_as_is``), so the SDK does not walk a long history on the server's event
loop. What reaches the wire must be byte for byte what the plain call sends: these tests
send the same request both ways through the vendor's real SDK (an in-memory transport
captures the body) and compare, for a history with every kind of message and part."""

from __future__ import annotations

import json
import warnings
from operator import attrgetter
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    DeveloperMessage,
    FunctionCall,
    ImageInputContent,
    InputContentDataSource,
    RunAgentInput,
    SystemMessage,
    TextInputContent,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from sdk_http import recording

from toolwire import adapters, clients

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmM"
    "IQAAAABJRU5ErkJggg=="
)
VENDORS = {
    "anthropic": "claude-sonnet-4-5",
    "openai_chat": "gpt-4o",
    "openai_responses": "gpt-4.1",
}


def _history() -> RunAgentInput:
    image = ImageInputContent(
        source=InputContentDataSource(value=PNG, mime_type="image/png"),
    )
    calls = [
        ToolCall(id="call_a", function=FunctionCall(name="chart", arguments='{"q": "é"}')),
        ToolCall(id="call_b", function=FunctionCall(name="photo", arguments="{}")),
    ]
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[
            SystemMessage(id="s", content="Be brief."),
            DeveloperMessage(id="d", content="Use the tools."),
            UserMessage(id="u", content=[TextInputContent(text="Show me ☃"), image]),
            AssistantMessage(id="a", content="Looking.", tool_calls=calls),
            ToolMessage(id="r1", tool_call_id="call_a", content="the chart"),
            ToolMessage(id="r2", tool_call_id="call_b", content="a photo"),
            UserMessage(id="u2", content="And now?"),
        ],
        tools=[Tool(name=n, description=n, parameters=schema) for n in ("chart", "photo")],
        context=[],
        state=None,
        forwarded_props=None,
    )


def _body(vendor: str) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return adapters.get(vendor).encode_request(_history(), model=VENDORS[vendor])


def _sent(vendor: str, kwargs: dict[str, Any]) -> bytes:
    """The request body the vendor's SDK sends for ``kwargs`` (its streamed call)."""
    seen: list[bytes] = []
    client_of = adapters.client(vendor)
    sync_class = client_of.sdk_client_class().__name__.removeprefix("Async")
    sdk = __import__(client_of.sdk)
    client = getattr(sdk, sync_class)(api_key="test-key-000", http_client=recording(seen, 200, {}))
    create = attrgetter(client_of.resource)(client).with_streaming_response.create
    with create(**kwargs):
        pass
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_the_conversation_in_extra_body_sends_the_same_bytes(vendor: str) -> None:
    client_of = adapters.client(vendor)
    kwargs = client_of.stream_kwargs(_body(vendor))
    given = clients.sent_as_is(kwargs, client_of.conversation_keys)
    moved = [k for k in client_of.conversation_keys if given.get(k) == [] and kwargs[k]]
    assert moved, "the history's conversation was not handed over as it is"
    plain = _sent(vendor, kwargs)
    assert _sent(vendor, given) == plain
    sent = json.loads(plain)
    for key in moved:  # the conversation itself went out, not the empty stand-in
        assert sent[key] == kwargs[key]


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_a_callers_extra_body_still_has_the_last_word(vendor: str) -> None:
    client_of = adapters.client(vendor)
    kwargs = client_of.stream_kwargs(_body(vendor))
    key = client_of.conversation_keys[-1]
    kwargs["extra_body"] = {key: kwargs[key][:1], "custom": 1}
    plain = _sent(vendor, kwargs)
    given = clients.sent_as_is(kwargs, client_of.conversation_keys)
    assert _sent(vendor, given) == plain
    assert json.loads(plain)[key] == kwargs[key][:1]
    assert json.loads(plain)["custom"] == 1


def test_nothing_to_move_leaves_the_arguments_as_they_are() -> None:
    kwargs = {"model": "m", "messages": [], "system": "text", "stream": True}
    assert clients.sent_as_is(kwargs, ("system", "messages")) is kwargs
