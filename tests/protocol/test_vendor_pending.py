"""Calls the vendor answers itself are not the application's pending calls (issue 36).

``RUN_FINISHED.metadata["toolwire.vendorPending"]`` lists them; a stated
``pendingToolCallIds`` is then the stream's pending calls less those, each of which must be
pending. Without the key, the AG-UI rule holds as written (exactly the unanswered calls).
"""

from __future__ import annotations

from typing import Any

import pytest
from _agui_builders import end, result, run_finished, run_started, start
from ag_ui.core import BaseEvent, ToolCallEndEvent, ToolCallStartEvent

from toolwire.errors import ProtocolViolation
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.finish import VENDOR_PENDING_KEY, vendor_pending
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run

BASE = [
    run_started(),
    start("srv"),
    end("srv"),
    start("app"),
    end("app"),
    start("done"),
    end("done"),
    result("done"),
]


def finished(pending: list[str] | None, waiting: list[str] | None) -> dict[str, Any]:
    outcome: dict[str, Any] = {"type": "success"}
    if pending is not None:
        outcome["pendingToolCallIds"] = pending
    kw: dict[str, Any] = {"outcome": outcome}
    if waiting is not None:
        kw["metadata"] = {VENDOR_PENDING_KEY: waiting}
    return run_finished(**kw)


def feed(events: list[dict[str, Any]]) -> StreamMachine:
    m = StreamMachine()
    for e in events:
        m.feed(e)
    return m


@pytest.mark.parametrize(
    "pending,waiting",
    [(["app"], ["srv"]), (None, ["srv"]), (["srv", "app"], None), (None, None), (None, [])],
)
def test_a_consistent_statement_is_taken(pending: Any, waiting: Any) -> None:
    assert feed([*BASE, finished(pending, waiting)]).finished is not None


@pytest.mark.parametrize(
    "pending,waiting",
    [
        (["app"], None),  # without the key, the server call must be listed
        (["srv", "app"], ["srv"]),  # listed twice
        (["app"], ["done"]),  # answered: not the vendor's to answer any more
        (None, ["nope"]),  # never started
    ],
)
def test_an_inconsistent_statement_is_a_violation(pending: Any, waiting: Any) -> None:
    with pytest.raises(ProtocolViolation) as info:
        feed([*BASE, finished(pending, waiting)])
    assert info.value.code == "pending-tool-calls-mismatch"


def test_vendor_pending_reads_only_strings_of_a_list() -> None:
    assert vendor_pending({VENDOR_PENDING_KEY: ["a", 1, "b"]}) == ["a", "b"]
    assert vendor_pending({VENDOR_PENDING_KEY: "a"}) == []
    assert vendor_pending(None) == []


class _TwoCalls(BaseDecoder):
    """A decoder whose vendor runs the first call itself and leaves both unanswered."""

    vendor = "v"

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        self.vendor_calls.add("srv")
        return [
            ToolCallStartEvent(tool_call_id="srv", tool_call_name="s"),
            ToolCallEndEvent(tool_call_id="srv"),
            ToolCallStartEvent(tool_call_id="app", tool_call_name="a"),
            ToolCallEndEvent(tool_call_id="app"),
        ]


def test_the_run_framer_keeps_the_vendor_s_calls_out_of_the_pending_list() -> None:
    events = list(frame_run(_TwoCalls(), [{}], thread_id="t", run_id="r"))
    end_ = events[-1]
    assert end_.outcome.pending_tool_call_ids == ["app"]  # type: ignore[attr-defined]
    assert end_.metadata == {VENDOR_PENDING_KEY: ["srv"]}  # type: ignore[attr-defined]
