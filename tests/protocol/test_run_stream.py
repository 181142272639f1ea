"""``RunFramer.stream`` hands a turn's events on one by one, checked (``machine.checked``):
the events and the count ``feed`` gives chunk by chunk, reshaped when asked, and a
violation at the event that makes it, the events before it handed on."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import BaseEvent, ToolCallArgsEvent

from toolwire.adapters import gemini
from toolwire.errors import ProtocolViolation
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.runs import RunFramer

_CALL = (
    '{{"candidates": [{{"content": {{"role": "model", "parts": [{{"functionCall": '
    '{{"id": "{id}", "name": "f", "args": {{"a": 1}}}}}}]}}, "index": 0}}], '
    '"usageMetadata": {{"promptTokenCount": 3}}, "modelVersion": "g", "responseId": "r-1"}}'
)
_FINISH = '{"candidates": [{"finishReason": "STOP", "index": 0}]}'


def _body(ids: list[str]) -> bytes:
    chunks = [_CALL.format(id=i) for i in ids] + [_FINISH]
    return "".join(f"data: {c}\r\n\r\n" for c in chunks).encode()


def _upper(ev: BaseEvent) -> BaseEvent:
    if isinstance(ev, ToolCallArgsEvent):
        return ev.model_copy(update={"delta": ev.delta.upper()})
    return ev


def _by_feed(ids: list[str], reshape: Any) -> tuple[list[str], int]:
    framer = RunFramer(gemini.Decoder(), thread_id="t", run_id="r", reshape=reshape)
    framer.start()
    out: list[BaseEvent] = []
    for chunk in gemini.sse_chunks(_body(ids)):
        out += framer.feed(chunk)
    out += framer.feed_events(framer.decoder.close())
    return [e.model_dump_json() for e in out], framer.turn_events


@pytest.mark.parametrize("reshape", [None, _upper])
def test_a_stream_is_what_feed_gives(reshape: Any) -> None:
    ids = ["c1", "c2", "c3"]
    framer = RunFramer(gemini.Decoder(), thread_id="t", run_id="r", reshape=reshape)
    framer.start()
    seen: list[str] = []
    counts: list[int] = []
    for ev in framer.stream(gemini.sse_chunks(_body(ids))):
        seen.append(ev.model_dump_json())
        counts.append(framer.turn_events)  # (counted as each is handed on)
    assert (seen, framer.turn_events) == _by_feed(ids, reshape)
    assert counts == list(range(1, len(seen) + 1))
    assert ('\\"A\\":1' in seen[1]) is (reshape is not None)


class _Repeats(BaseDecoder):
    """A decoder that opens one call id twice: the second start is a violation."""

    vendor = "test"

    def _feed(self, chunk: Any) -> list[BaseEvent]:
        from toolwire.protocol._makers import call_start

        return [call_start("c1", "f", "m1")]

    def _close(self) -> list[BaseEvent]:
        return []


def test_a_violation_comes_at_its_event_after_the_ones_before() -> None:
    framer = RunFramer(_Repeats(), thread_id="t", run_id="r")
    framer.start()
    seen: list[BaseEvent] = []
    with pytest.raises(ProtocolViolation) as caught:
        for ev in framer.stream([{}, {}]):
            seen.append(ev)
    assert caught.value.code == "tool-call-already-open"
    assert caught.value.index == 2  # (RUN_STARTED is event 0)
    assert len(seen) == 1 and framer.turn_events == 1
