"""Snapshot normalization and the event-level diff."""

from __future__ import annotations

import json
import uuid

from ag_ui.core import (
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)

from toolwire.testing.snapshots import describe_changes, read_snapshot, snapshot_text


def _run(run_id: str, city: str, ts: int, extra: bool = False) -> list[object]:
    thread = "thread-" + run_id
    ri = RunAgentInput(
        thread_id=thread,
        run_id=run_id,
        state={},
        messages=[],
        tools=[],
        context=[],
        forwarded_props={},
    )
    events: list[object] = [
        RunStartedEvent(thread_id=thread, run_id=run_id, input=ri, timestamp=ts),
        ToolCallStartEvent(tool_call_id="call_x", tool_call_name="get_weather", timestamp=ts + 1),
        ToolCallArgsEvent(tool_call_id="call_x", delta=json.dumps({"city": city})),
    ]
    if extra:
        events.append(TextMessageContentEvent(message_id="msg_1", delta="hi"))
    events.append(RunFinishedEvent(thread_id=thread, run_id=run_id, timestamp=ts + 2))
    return events


def test_fresh_run_ids_and_timestamps_give_identical_bytes() -> None:
    a = snapshot_text(_run(str(uuid.uuid4()), "Paris", 1000))
    b = snapshot_text(_run(str(uuid.uuid4()), "Paris", 99999))
    assert a == b
    events = read_snapshot(a)
    assert all("timestamp" not in e for e in events)
    assert events[0]["runId"] == "run-1" and events[0]["threadId"] == "thread-1"
    assert events[0]["input"]["runId"] == "run-1"
    assert events[-1]["runId"] == "run-1"
    # ids the vendor gave are kept
    assert events[1]["toolCallId"] == "call_x"
    # type first, the rest sorted
    line = a.splitlines()[1]
    assert line.startswith('{"type":"TOOL_CALL_START",')
    keys = list(json.loads(line))[1:]
    assert keys == sorted(keys)
    assert a.endswith("\n") and "\r" not in a


def test_diff_names_the_event_and_the_field() -> None:
    old = read_snapshot(snapshot_text(_run("r", "Paris", 1)))
    new = read_snapshot(snapshot_text(_run("r", "Lyon", 1)))
    assert describe_changes(old, new) == [
        "event 2: TOOL_CALL_ARGS for call_x: delta "
        '"{\\"city\\": \\"Paris\\"}" → "{\\"city\\": \\"Lyon\\"}"'
    ]


def test_an_inserted_event_is_one_change_not_every_later_event() -> None:
    old = read_snapshot(snapshot_text(_run("r", "Paris", 1)))
    new = read_snapshot(snapshot_text(_run("r", "Paris", 1, extra=True)))
    assert describe_changes(old, new) == ["event 3: + TEXT_MESSAGE_CONTENT for msg_1 (new)"]
    assert describe_changes(new, old) == [
        "event 3 (snapshot): - TEXT_MESSAGE_CONTENT for msg_1 (gone)"
    ]
