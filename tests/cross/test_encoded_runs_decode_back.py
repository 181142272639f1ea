"""Whatever valid run an encoder writes, the same adapter reads back (issue 35, item 11).

An empty successful run encoded for OpenAI Chat was ``data: [DONE]`` alone, which the
decoder reads as truncated. Each streamed adapter's output of each small valid run, framed
through its SSE and read back, is a complete turn; a run that ended in ``RUN_ERROR`` reads
back as the vendor error it wrote. (Dialogflow's encoder writes ``ToolCallInfo`` records,
not a stream its decoder reads, so it is not in this round trip.)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    EventType,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from toolwire import adapters
from toolwire.errors import VendorStreamError
from toolwire.protocol import frame_run

STREAMED = [n for n in adapters.NAMES if n != "dialogflow"]


def _framed(*middle: BaseEvent) -> list[BaseEvent]:
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        *middle,
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


RUNS: dict[str, Callable[[], list[BaseEvent]]] = {
    "empty": lambda: _framed(),
    "empty-text-message": lambda: _framed(
        TextMessageStartEvent(message_id="m", role="assistant"), TextMessageEndEvent(message_id="m")
    ),
    "text": lambda: _framed(
        TextMessageStartEvent(message_id="m", role="assistant"),
        TextMessageContentEvent(message_id="m", delta="hello"),
        TextMessageEndEvent(message_id="m"),
    ),
    "call-without-arguments": lambda: _framed(
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
        ToolCallEndEvent(tool_call_id="c1"),
    ),
    "call": lambda: _framed(
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
        ToolCallArgsEvent(tool_call_id="c1", delta='{"a": 1}'),
        ToolCallEndEvent(tool_call_id="c1"),
    ),
    "step-only": lambda: _framed(StepStartedEvent(step_name="s"), StepFinishedEvent(step_name="s")),
    "state-only": lambda: _framed(StateSnapshotEvent(snapshot={"a": 1})),
    "custom-only": lambda: _framed(CustomEvent(name="x", value=1)),
}


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("vendor", STREAMED)
def test_every_valid_run_reads_back_complete(vendor: str, run: str) -> None:
    adapter = adapters.get(vendor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what a vendor cannot carry is a loss, not the point
        body = adapter.to_sse(list(adapter.encode_stream(RUNS[run]())))
        events = list(
            frame_run(adapter.Decoder(), adapter.sse_chunks(body), thread_id="t", run_id="r")
        )
    assert events[0].type == EventType.RUN_STARTED
    assert events[-1].type == EventType.RUN_FINISHED, events[-1]


@pytest.mark.parametrize("vendor", STREAMED)
def test_a_run_error_reads_back_as_the_vendor_error(vendor: str) -> None:
    adapter = adapters.get(vendor)
    run = [RunStartedEvent(thread_id="t", run_id="r"), RunErrorEvent(message="boom", code="x_err")]
    encoder = adapter.Encoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a code the wire cannot hold is a loss, asserted below
        chunks = [c for ev in run for c in encoder.feed(ev)] + list(encoder.close())
    body = adapter.to_sse(chunks)
    with pytest.raises(VendorStreamError) as info:
        list(adapter.decode_stream(list(adapter.sse_chunks(body))))
    assert "boom" in info.value.message
    if info.value.error_type != "x_err":  # the vendor's error has no type of ours to carry
        dropped = [loss for loss in encoder.losses if loss.kind == "error-code-dropped"]
        assert dropped and "'x_err'" in dropped[0].reason, encoder.losses
