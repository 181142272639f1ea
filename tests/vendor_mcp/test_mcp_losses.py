"""Same shape as encode_request (issue 10 point 2): ``encode_result`` / ``encode_tool`` /
``encode_call`` return their body with ``.losses`` and warn once per loss, at their own
top level (pointing at the caller), with a passed ``losses=`` list getting the same records."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from ag_ui.core import FileSource, FunctionCall, ImagePart, Tool, ToolCall, ToolMessage

from toolwire.adapters import mcp
from toolwire.losses import Loss, ToolwireWarning


def _warned(run: Callable[[], Any]) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = run()
    return value, [w for w in seen if issubclass(w.category, ToolwireWarning)]


CASES: dict[str, tuple[Callable[..., Any], Any, list[str]]] = {
    "result": (
        mcp.encode_result,
        ToolMessage(
            id="t1",
            tool_call_id="c1",
            content=[ImagePart(source=FileSource(value="file-1", provider="openai"))],
            metadata={"ui.colour": "red"},
        ),
        ["part-dropped", "metadata-dropped"],
    ),
    "tool": (
        mcp.encode_tool,
        Tool(name="t", description="d", parameters={"type": "object"}, metadata={"x": 1}),
        ["metadata-dropped"],
    ),
    "call": (
        mcp.encode_call,
        ToolCall(
            id="c1",
            function=FunctionCall(name="f", arguments="{}"),
            encrypted_value="sig",
        ),
        ["metadata-dropped"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_encoder_returns_its_losses_and_warns_once_per_loss(name: str) -> None:
    encode, value, kinds = CASES[name]
    given: list[Loss] = []
    body, seen = _warned(lambda: encode(value, losses=given))
    assert isinstance(body, dict)
    assert [loss.kind for loss in body.losses] == kinds
    assert given == body.losses
    assert [str(w.message) for w in seen] == [loss.message for loss in body.losses]
    assert all(w.filename == __file__ for w in seen)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_body_is_the_plain_wire_dict(name: str) -> None:
    encode, value, _ = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolwireWarning)
        body = encode(value)
    assert dict(body) == body and "losses" not in body
