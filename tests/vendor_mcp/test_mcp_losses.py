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


STRIPPED: dict[str, tuple[Callable[[], Any], list[str]]] = {
    "result": (
        lambda: mcp.decode_result(
            {
                "content": [
                    {"type": "hologram"},
                    {"type": "resource", "resource": {"uri": "u", "text": "t", "colour": 1}},
                ]
            },
            tool_call_id="c1",
        ),
        ["result.content[0] of unknown content type", "result.content[1].resource.colour"],
    ),
    "tool": (
        lambda: mcp.decode_tool({"name": "t", "inputSchema": {"type": "object"}, "flavour": 1}),
        ["tool 't'.flavour"],
    ),
}


@pytest.mark.parametrize("name", sorted(STRIPPED))
def test_what_a_decoder_strips_is_warned_once_each_at_the_caller(name: str) -> None:
    decode, said = STRIPPED[name]
    _, seen = _warned(decode)
    assert len(seen) == len(said)
    for w, text in zip(seen, said, strict=True):
        assert text in str(w.message)
        assert w.filename == __file__  # not toolwire's own wrapper or helper
