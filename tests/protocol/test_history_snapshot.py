"""A snapshot in the middle of a message: the history the machine builds after it names only
calls its sequence check still knows (a message still streaming kept whole, not a call
the snapshot's replaced history took with it)."""

from __future__ import annotations

from typing import Any

from toolwire.protocol.events import parse_event
from toolwire.protocol.machine import StreamMachine


def _history(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    m = StreamMachine(history=True)
    for r in raw:
        list(m.feed(parse_event(r)))
    return [msg.model_dump(exclude_none=True) for msg in m.messages]


START = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
]


def _call(cid: str, *, ended: bool) -> list[dict[str, Any]]:
    out = [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": cid,
            "toolCallName": "f",
            "parentMessageId": "m1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": cid, "delta": '{"a":'},
    ]
    if ended:
        out.append({"type": "TOOL_CALL_END", "toolCallId": cid})
    return out


SNAPSHOT = {"type": "MESSAGES_SNAPSHOT", "messages": []}
REST = [
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
]


def test_a_call_ended_before_the_snapshot_leaves_the_open_message() -> None:
    # (this read of the history was a bare KeyError: the message still listed the call)
    got = _history([*START, *_call("c1", ended=True), SNAPSHOT, *REST])
    assert got == [{"id": "m1", "role": "assistant", "content": "hi"}]


def test_a_call_still_open_at_the_snapshot_stays_with_its_message() -> None:
    raw = [*START, *_call("c1", ended=True), *_call("c2", ended=False), SNAPSHOT]
    raw += [{"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": "1}"}]
    raw += [{"type": "TOOL_CALL_END", "toolCallId": "c2"}, *REST]
    (msg,) = _history(raw)
    assert [c["id"] for c in msg["tool_calls"]] == ["c2"]
    assert msg["tool_calls"][0]["function"]["arguments"] == '{"a":1}'
    assert msg["content"] == "hi"


def test_the_ended_call_is_forgotten_by_the_check_in_both_modes() -> None:
    # the same id again after the snapshot: neither mode refuses it (history or not, one check)
    raw = [*START, *_call("c1", ended=True), SNAPSHOT, *_call("c1", ended=True), *REST]
    for history in (False, True):
        m = StreamMachine(history=history)
        for r in raw:
            list(m.feed(parse_event(r)))
    assert [c["id"] for c in _history(raw)[0]["tool_calls"]] == ["c1"]
