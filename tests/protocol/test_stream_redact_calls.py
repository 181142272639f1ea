"""Whole calls (a start, one arguments event, an end: what a vendor that sends calls whole
gives) written by ``StreamRedactor.texts_of``, a call that goes as it came as one text by
one template: the texts are exactly those ``feed`` gives event by event, for keys anywhere
in a call (its arguments, their end, its name, its metadata), lists cut anywhere and
other events between the calls."""

from __future__ import annotations

import json
from itertools import pairwise

from ag_ui.core import (
    BaseEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.protocol.sse import event_json
from toolwire.protocol.stream_redact import StreamRedactor

KEY = "sk-live-4f9a2b7c1d8e6f30"

#: what a call may hold: plain text, the key whole, its beginning at the end, escapes
_ARGS = st.sampled_from(
    [
        '{"city":"Paris"}',
        f'{{"token":"{KEY}"}}',
        '{"q":"ends with sk-li',
        '{"q":"quote \\" and é"}',
        "",
        '{"q":"%s %d"}',
    ]
)
_NAMES = st.sampled_from(["get_weather", f"leak_{KEY}", "naïve"])
_META = st.sampled_from([None, {"index": 0}, {"note": KEY}])


def _call(n: int, name: str, args: str, meta: object, parent: bool) -> list[BaseEvent]:
    cid = f"call_{n}"
    start = ToolCallStartEvent(
        tool_call_id=cid,
        tool_call_name=name,
        parent_message_id="m1" if parent else None,
        **({"metadata": meta} if meta is not None else {}),
    )
    return [
        start,
        ToolCallArgsEvent(tool_call_id=cid, delta=args),
        ToolCallEndEvent(tool_call_id=cid),
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_NAMES, _ARGS, _META, st.booleans(), st.booleans()), min_size=1, max_size=6),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
)
def test_whole_calls_written_together_are_the_frames_fed_one_by_one(
    calls: list[tuple[str, str, object, bool, bool]], cuts: list[int], keyed: bool
) -> None:
    events: list[BaseEvent] = [RunStartedEvent(thread_id="t", run_id="r")]
    for n, (name, args, meta, parent, text_between) in enumerate(calls):
        if text_between:
            events += [
                TextMessageStartEvent(message_id=f"t{n}"),
                TextMessageContentEvent(message_id=f"t{n}", delta="so sk-"),
                TextMessageEndEvent(message_id=f"t{n}"),
            ]
        events += _call(n, name, args, meta, parent)
    events.append(RunFinishedEvent(thread_id="t", run_id="r"))
    keys = [KEY] if keyed else []
    one = StreamRedactor(keys)
    expected = [event_json(e) for event in events for e in one.feed(event)]
    many = StreamRedactor(keys)
    at = sorted({c % (len(events) + 1) for c in cuts} | {0, len(events)})
    texts = [text for a, b in pairwise(at) for text in many.texts_of(events[a:b])]
    assert "\n\ndata: ".join(texts) == "\n\ndata: ".join(expected)
    sent = "".join(texts)
    for key in keys:
        assert key not in sent and json.dumps(key)[1:-1] not in sent


def test_a_plain_whole_call_is_one_text() -> None:
    events = _call(0, "get_weather", '{"city":"Paris"}', {"index": 0}, True)
    # the template is made of the classes' forms, which writing an event of each makes (in
    # a fresh process the first call is written event by event: the same bytes)
    for event in events:
        event_json(event)
    for keys in ([], [KEY]):
        texts = StreamRedactor(keys).texts_of(events)
        assert texts == ["\n\ndata: ".join(event_json(e) for e in events)]
