"""Losses as values, warned once at the surface (issue 10 point 2): the stream encoder and
encode_request each give exactly one warning per loss, and the same record in ``.losses``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ag_ui.core import (
    EventType,
    ReasoningMessage,
    RunAgentInput,
    UserMessage,
)

from toolwire.adapters import openai_chat
from toolwire.losses import ToolwireWarning


def _warned(run: Callable[[], Any]) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = run()
    return value, [w for w in seen if issubclass(w.category, ToolwireWarning)]


def test_the_encoder_warns_once_per_loss_and_keeps_the_record() -> None:
    enc = openai_chat.Encoder()
    events: list[dict[str, Any]] = [
        {"type": EventType.RUN_STARTED.value, "threadId": "t", "runId": "r"},
        {"type": EventType.REASONING_START.value, "messageId": "rs1"},
        {"type": EventType.REASONING_MESSAGE_START.value, "messageId": "rs1", "role": "reasoning"},
        {"type": EventType.REASONING_MESSAGE_CONTENT.value, "messageId": "rs1", "delta": "hm"},
        {"type": EventType.REASONING_MESSAGE_END.value, "messageId": "rs1"},
        {"type": EventType.REASONING_END.value, "messageId": "rs1"},
        {"type": EventType.RUN_FINISHED.value, "threadId": "t", "runId": "r"},
    ]

    _, seen = _warned(lambda: ([enc.feed(ev) for ev in events], enc.close()))
    assert [loss.kind for loss in enc.losses] == ["reasoning-dropped"]
    assert [str(w.message) for w in seen] == [loss.message for loss in enc.losses]
    assert seen[0].filename == __file__  # pointed at the caller, not inside toolwire


def test_encode_request_warns_once_per_loss_and_returns_the_record() -> None:
    run = RunAgentInput(
        thread_id="t",
        run_id="r",
        state=None,
        messages=[
            UserMessage(id="u", content="hi"),
            ReasoningMessage(id="rs", content="thinking"),
        ],
        tools=[],
        context=[],
        forwarded_props=None,
    )
    given: list[Any] = []
    body, seen = _warned(lambda: openai_chat.encode_request(run, model="gpt-4o", losses=given))
    assert [loss.kind for loss in body.losses] == ["reasoning-dropped"]
    assert given == body.losses
    assert [str(w.message) for w in seen] == [loss.message for loss in body.losses]
    assert body["messages"] == [{"role": "user", "content": "hi"}]
