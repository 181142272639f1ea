"""The CLI reads a translation's losses as values and reports each once on stderr.

``encode-request`` reads ``Encoded.losses``, ``encode`` its encoder's ``losses``; a loss
is one ``warning:`` line, never two (the translation warning inside and the CLI again).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    ImageInputContent,
    InputContentUrlSource,
    TextInputContent,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire import cli


def _run_input() -> str:
    """A question, a call, and its answer with an image (AG-UI 1.0 message shapes)."""
    image = ImageInputContent(source=InputContentUrlSource(value="https://example.com/c.png"))
    answer = [TextInputContent(text="chart"), image]
    call = ToolCall(id="call_1", function=FunctionCall(name="chart", arguments="{}"))
    messages = [
        UserMessage(id="u1", content="Draw it"),
        AssistantMessage(id="a1", tool_calls=[call]),
        ToolMessage(id="m1", tool_call_id="call_1", content=answer),
    ]
    shown = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages]
    empty = {"tools": [], "context": [], "state": None, "forwardedProps": None}
    return json.dumps({"threadId": "t", "runId": "r", "messages": shown, **empty})


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:")]


def test_encode_request_reports_each_loss_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "input.json"
    path.write_text(_run_input())
    # Chat Completions holds no image in a tool message: one part dropped
    args = ["encode-request", "--to", "openai_chat", "--model", "gpt-4.1", str(path)]
    assert cli.main(args) == 0
    captured = capsys.readouterr()
    [line] = _warnings(captured.err)
    assert "dropped image part" in line and "call_1" in line


def test_encode_reports_an_encoder_loss_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = {"type": "MESSAGES_SNAPSHOT", "messages": []}
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        snapshot,
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    # a Responses stream has no place for restated history (AG-UI §MESSAGES_SNAPSHOT)
    assert cli.main(["encode", "--to", "openai_responses", str(path)]) == 0
    captured = capsys.readouterr()
    [line] = _warnings(captured.err)
    assert "messages-snapshot-dropped" in line
    assert captured.out.startswith("event: ")
