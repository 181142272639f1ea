"""The chat-shaped request walk (toolwire.protocol.chat_request) takes a message by its class."""

from __future__ import annotations

import warnings

import pytest
from ag_ui.core import AssistantMessage, RunAgentInput, SystemMessage, UserMessage

from toolwire import adapters


class _MyUser(UserMessage):
    """An application's own subclass: still a user message."""


class _MySystem(SystemMessage):
    pass


def _run(*messages: object) -> RunAgentInput:
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=list(messages),  # type: ignore[arg-type]
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


@pytest.mark.parametrize("vendor", ["mistral", "cohere", "ollama"])
def test_a_subclassed_message_is_written_as_its_base_class(vendor: str) -> None:
    plain = _run(
        SystemMessage(id="s", content="be brief"),
        UserMessage(id="u", content="hi"),
        AssistantMessage(id="a", content="hello"),
    )
    mine = _run(
        _MySystem(id="s", content="be brief"),
        _MyUser(id="u", content="hi"),
        AssistantMessage(id="a", content="hello"),
    )
    assert type(mine.messages[1]) is _MyUser  # (the walk meets the subclass itself)
    encode = adapters.get(vendor).encode_request
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is lost either way
        expected = encode(plain, model="m")
        got = encode(mine, model="m")
    assert got == expected
    assert [m["role"] for m in got["messages"]] == ["system", "user", "assistant"]
