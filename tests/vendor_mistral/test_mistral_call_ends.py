"""A Mistral finish ends every open call of its choice: ``events()`` makes those end
events as they are read (issue 38: a list of them all was most of a long turn's peak
memory), and must give what ``feed`` gives, in the same places, errors included."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import BaseEvent, ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent

from toolwire.adapters.mistral import Decoder
from toolwire.errors import VendorStreamError


def _chunk(*choices: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": "cmpl-1", "model": "mistral-large-latest", "choices": list(choices), **extra}


def _call(cid: str, index: int | None = None, args: str = '{"a": 1}') -> dict[str, Any]:
    out: dict[str, Any] = {"id": cid, "function": {"name": "f", "arguments": args}}
    if index is not None:
        out["index"] = index
    return out


def _choice(index: int, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    return {"index": index, "delta": delta, "finish_reason": finish}


def _fed(chunks: list[dict[str, Any]]) -> list[BaseEvent]:
    d = Decoder()
    out: list[BaseEvent] = []
    for c in chunks:
        out += d.feed(c)
    return out + d.close()


TWO_CHOICES = [
    _chunk(_choice(0, role="assistant", content=""), _choice(1, content="")),
    _chunk(_choice(0, tool_calls=[_call("aaaaaaaa1", 0), _call("aaaaaaaa2", 1)])),
    _chunk(_choice(1, tool_calls=[_call("bbbbbbbb1", 0)])),
    _chunk(_choice(0, tool_calls=[_call("aaaaaaaa3", 2)])),
    # choice 0 finishes (its three ends), then choice 1's text in the same chunk
    _chunk(_choice(0, "tool_calls"), _choice(1, content="after")),
    _chunk(_choice(1, "tool_calls"), usage={"prompt_tokens": 1, "completion_tokens": 2}),
]


def test_events_give_what_feed_gives_the_ends_in_their_places() -> None:
    want = _fed(TWO_CHOICES)
    assert list(Decoder().events(TWO_CHOICES)) == want
    kinds = [type(e).__name__ for e in want]
    at = kinds.index("TextMessageStartEvent")  # choice 1's text comes after choice 0's ends
    assert kinds[at - 3 : at] == ["ToolCallEndEvent"] * 3
    ends = [e.tool_call_id for e in want if isinstance(e, ToolCallEndEvent)]
    assert ends == ["aaaaaaaa1", "aaaaaaaa2", "aaaaaaaa3", "bbbbbbbb1"]


def test_a_finish_with_error_raises_before_any_of_its_ends() -> None:
    chunks = [
        _chunk(_choice(0, role="assistant", content="")),
        _chunk(_choice(0, tool_calls=[_call("aaaaaaaa1", 0)])),
        _chunk(_choice(0, "error")),
    ]
    seen: list[BaseEvent] = []
    with pytest.raises(VendorStreamError):
        for ev in Decoder().events(chunks):
            seen.append(ev)
    assert not any(isinstance(e, ToolCallEndEvent) for e in seen)
    assert [type(e) for e in seen][-2:] == [ToolCallStartEvent, ToolCallArgsEvent]


def test_a_continuation_goes_to_the_last_open_call_at_its_index() -> None:
    calls = [_call(f"cccccccc{i}", i % 3, "{") for i in range(6)]  # indices 0 1 2 0 1 2
    more = {"function": {"arguments": "}"}}
    chunks = [
        _chunk(_choice(0, role="assistant", content="")),
        _chunk(_choice(0, tool_calls=calls)),
        _chunk(_choice(0, tool_calls=[{**more, "index": 1}])),  # cccccccc4
        _chunk(_choice(0, tool_calls=[{**more, "index": 7}])),  # no such index: the last
        _chunk(_choice(0, tool_calls=[_call("cccccccc6", 1, "{")])),
        _chunk(_choice(0, tool_calls=[{**more, "index": 1}])),  # now cccccccc6
        _chunk(_choice(0, tool_calls=[more])),  # no index: the last
        _chunk(_choice(0, "tool_calls")),
    ]
    for events in (_fed(chunks), list(Decoder().events(chunks))):
        got = [(e.tool_call_id, e.delta) for e in events if isinstance(e, ToolCallArgsEvent)]
        assert got[6:] == [
            ("cccccccc4", "}"),
            ("cccccccc5", "}"),
            ("cccccccc6", "{"),
            ("cccccccc6", "}"),
            ("cccccccc6", "}"),
        ]
