"""Dangling calls (issue 11.5): a call with no result before the conversation goes on.

The four model adapters agree: ``unanswered="error"`` (default) raises, ``"drop"``
removes the call, ``"answer"`` answers it as failed with the caller's text; every option
gives a request that keeps the target's documented pairing rules (``check_request``) and
reports each call as a loss. The CLI's ``encode-request --unanswered`` does the same.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    RunAgentInput,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from vendor_rules import MODELS, check_request

from toolwire import adapters, cli
from toolwire.errors import UnansweredToolCall, UnsupportedInput

TARGETS = MODELS
TEXT = "The user did not confirm; the call was not run."


def _call(cid: str, name: str = "delete_file") -> ToolCall:
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments='{"path": "/tmp/x"}'))


def _history(trailing: bool = False) -> RunAgentInput:
    """A confirmation the user ignored (call_ask), beside a call that was answered."""
    messages: list[Any] = [
        UserMessage(id="u0", content="Clean up, and check the weather."),
        AssistantMessage(id="a0", tool_calls=[_call("call_ask"), _call("call_ok", "weather")]),
        ToolMessage(id="r0", tool_call_id="call_ok", content="sunny"),
    ]
    if trailing:  # a cancelled run: the history ends on the pending call
        messages = [messages[0], AssistantMessage(id="a1", tool_calls=[_call("call_ask")])]
    else:
        messages.append(UserMessage(id="u1", content="Never mind, thanks."))
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=messages,
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def _encode(target: str, ri: RunAgentInput, **kw: Any) -> tuple[dict[str, Any], list[Any]]:
    losses: list[Any] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapters.get(target).encode_request(ri, model=TARGETS[target], losses=losses, **kw)
    return body, losses


@pytest.mark.parametrize("trailing", [False, True], ids=["mid", "trailing"])
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_error_is_the_default(target: str, trailing: bool) -> None:
    with pytest.raises(UnansweredToolCall, match="call_ask"):
        _encode(target, _history(trailing))


@pytest.mark.parametrize("trailing", [False, True], ids=["mid", "trailing"])
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_drop_removes_the_call_and_says_so(target: str, trailing: bool) -> None:
    body, losses = _encode(target, _history(trailing), unanswered="drop")
    answered = check_request(target, body)
    assert "call_ask" not in json.dumps(body)
    assert [x.tool_call_id for x in losses if x.kind == "unanswered-call-dropped"] == ["call_ask"]
    if not trailing:
        assert len(answered) == 1  # the answered call stays, with its result


@pytest.mark.parametrize("trailing", [False, True], ids=["mid", "trailing"])
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_answer_gives_the_callers_text_as_a_failure(target: str, trailing: bool) -> None:
    body, losses = _encode(target, _history(trailing), unanswered="answer", unanswered_text=TEXT)
    answered = check_request(target, body)
    assert len(answered) == (1 if trailing else 2)
    assert TEXT in json.dumps(body)
    assert [x.tool_call_id for x in losses if x.kind == "unanswered-call-answered"] == ["call_ask"]
    if target == "anthropic":  # is_error needs content: the caller's text is it
        results = [
            b
            for m in body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result" and b["tool_use_id"] == "call_ask"
        ]
        assert results == [
            {"type": "tool_result", "tool_use_id": "call_ask", "is_error": True, "content": TEXT}
        ]


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_answer_needs_the_callers_text_and_a_known_policy(target: str) -> None:
    with pytest.raises(UnsupportedInput, match="unanswered_text"):
        _encode(target, _history(), unanswered="answer")
    with pytest.raises(UnsupportedInput, match="unanswered must be one of"):
        _encode(target, _history(), unanswered="ignore")


# --------------------------------------------------------------------- CLI


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_the_cli_takes_the_same_choice(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "input.json"
    path.write_text(_history().model_dump_json(by_alias=True))
    base = ["encode-request", "--to", target, "--model", TARGETS[target], str(path)]
    code, out, err = _cli(base, capsys)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "call_ask" in err
    code, out, err = _cli([*base, "--unanswered", "drop"], capsys)
    assert code == 0 and "call_ask" not in out and "unanswered-call-dropped" in err
    check_request(target, json.loads(out))
    code, out, err = _cli([*base, "--unanswered", "answer", "--unanswered-text", TEXT], capsys)
    assert code == 0 and TEXT in out
    assert len(check_request(target, json.loads(out))) == 2
    code, out, err = _cli([*base, "--unanswered", "answer"], capsys)
    assert code == 1 and out == "" and "unanswered_text" in err
