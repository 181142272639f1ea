"""NaN and Infinity in tool arguments never become invalid JSON (issue 35, item 8).

Python's JSON reader takes ``NaN``, ``Infinity`` and ``-Infinity``; JSON has no such
values (nor for a number past a double's range, which it reads as an infinity).
Argument text holding one is not a JSON object: every request writer and stream
encoder either carries the text as text or sends the call without it, with a loss naming
the call; a non-finite number anywhere else in a request body is a ``VendorDataError``
naming where. Nothing toolwire writes fails a strict JSON parser.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire import adapters
from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.testing.cli_run import run_cli

# (a number past a double's range reads as an infinity too: 1e999, -1E400)
BAD = [
    '{"x": NaN}',
    '{"x": Infinity}',
    '{"deep": [1, -Infinity]}',
    '{"x": 1e999}',
    '{"y": [-1E400]}',
]
MODELS = [n for n in adapters.NAMES]


def _strict(value: Any) -> str:
    return json.dumps(value, allow_nan=False)


def _strict_loads(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} written as JSON")

    return json.loads(text, parse_constant=refuse)


def _history(arguments: str) -> dict[str, Any]:
    return {
        "threadId": "t",
        "runId": "r",
        "messages": [
            {"id": "u1", "role": "user", "content": "go"},
            {
                "id": "a1",
                "role": "assistant",
                "toolCalls": [
                    {
                        "id": "call_nan_1",
                        "type": "function",
                        "function": {"name": "f", "arguments": arguments},
                    }
                ],
            },
            {"id": "r1", "role": "tool", "toolCallId": "call_nan_1", "content": "ok"},
        ],
        "tools": [{"name": "f", "description": "d", "parameters": {"type": "object"}}],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }


@pytest.mark.parametrize("arguments", BAD)
@pytest.mark.parametrize("vendor", MODELS)
def test_every_request_writer_writes_valid_json_and_names_the_call(
    vendor: str, arguments: str
) -> None:
    adapter = adapters.get(vendor)
    lost: list[Loss] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = adapter.encode_request(_history(arguments), model="m", losses=lost)
    text = _strict(body)  # raises on NaN/Infinity
    carried = json.dumps(arguments)[1:-1] in text  # the text itself, as a JSON string
    named = any(loss.tool_call_id == "call_nan_1" for loss in lost)
    unsent = any(loss.kind == "history-not-sent" for loss in lost)  # Dialogflow keeps its own
    assert carried or named or unsent, (vendor, lost)


@pytest.mark.parametrize("arguments", BAD)
@pytest.mark.parametrize("vendor", MODELS)
def test_every_stream_encoder_writes_valid_json(vendor: str, arguments: str) -> None:
    adapter = adapters.get(vendor)
    run = [
        RunStartedEvent(thread_id="t", run_id="r"),
        ToolCallStartEvent(tool_call_id="call_nan_1", tool_call_name="f"),
        ToolCallArgsEvent(tool_call_id="call_nan_1", delta=arguments),
        ToolCallEndEvent(tool_call_id="call_nan_1"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    encoder = adapter.Encoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = [c for ev in run for c in encoder.feed(ev)] + list(encoder.close())
    written = [_strict(chunk) for chunk in chunks]  # raises on NaN/Infinity
    # the argument text carried as text (a JSON string: nothing parsed, nothing lost), or the
    # call sent without it and a loss naming the call
    carried = any(json.dumps(arguments)[1:-1] in text for text in written)
    named = any(loss.tool_call_id == "call_nan_1" for loss in encoder.losses)
    assert carried or named, encoder.losses


@pytest.mark.parametrize("vendor", MODELS)
def test_a_non_finite_number_elsewhere_in_a_body_is_named(vendor: str) -> None:
    given = _history('{"x": 1}')
    given["tools"][0]["parameters"] = {"type": "object", "maximum": float("nan")}
    adapter = adapters.get(vendor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            body = adapter.encode_request(given, model="m")
        except VendorDataError as exc:
            assert "request body" in str(exc) and "NaN" in str(exc)
            return
    _strict(body)  # a vendor that sends no tool schema has nothing to refuse


@pytest.mark.parametrize("vendor", ["anthropic", "gemini"])
def test_the_cli_prints_valid_json_and_warns_about_the_call(vendor: str, tmp_path: Any) -> None:
    source = tmp_path / "input.json"
    source.write_text(json.dumps(_history(BAD[0])), "utf-8")
    done = run_cli("encode-request", "--to", vendor, "--model", "m", str(source))
    assert done.returncode == 0, done.stderr
    _strict_loads(done.stdout.decode("utf-8"))
    assert b"call_nan_1" in done.stderr
