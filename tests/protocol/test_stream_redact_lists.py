"""A list written first and asked once (``StreamRedactor.texts_of``): the texts are exactly
what ``feed`` gives event by event, written one by one, for the lists a vendor whose calls
stay open until the turn's end gives (a call's start and its first arguments a chunk, every
end at the finish), text and reasoning deltas between them, keys anywhere (whole, escaped,
split over two deltas, their beginning at a delta's end), marks and strings UTF-8 cannot
carry, lists cut anywhere; and the one search for a delta ending in a secret's beginning
answers as the exact look at each delta does."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from ag_ui.core import (
    BaseEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
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

from toolwire.protocol._event_json import FRAME_GAP
from toolwire.protocol.sse import event_json
from toolwire.protocol.stream_redact import _ENDED, StreamRedactor

KEY = "sk-live-4f9a2b7c1d8e6f30"
#: a key with characters JSON escapes and a regular expression reads as syntax
ODD_KEY = 'k"e\\y.*(+)?[x]'

_DELTAS = st.sampled_from(
    [
        '{"city":"Paris"}',
        f'{{"token":"{KEY}"}}',
        "ends with sk-li",  # a key's beginning at the end
        "sk-live-4f9a",  # ... and the rest of it in the next delta
        "2b7c1d8e6f30 done",
        "s",
        "",
        "nul \x00 inside",
        "sk\x00",
        'k"e\\y.*',  # the odd key's beginning, escaped in JSON
        "lone \ud800 surrogate",
        "é ünïcode",
        "%s %d",
    ]
)
_NAMES = st.sampled_from(["get_weather", f"leak_{KEY}", "naïve", "bad \udfff"])
_META = st.sampled_from([None, {"index": 1}, {"note": KEY}])
_IDS = st.sampled_from(["call_a", "call_b", f"id_{KEY}", "call \ud800"])


@st.composite
def _open_calls(draw: Any) -> list[BaseEvent]:
    """A turn as a vendor whose calls end at its finish gives it: text or reasoning deltas,
    then each call's start and first arguments (more arguments, some), then every end."""
    events: list[BaseEvent] = [RunStartedEvent(thread_id="t", run_id="r")]
    if draw(st.booleans()):
        events.append(ReasoningMessageStartEvent(message_id="r1", role="reasoning"))
        for delta in draw(st.lists(_DELTAS, max_size=3)):
            events.append(ReasoningMessageContentEvent(message_id="r1", delta=delta or "x"))
        events.append(ReasoningMessageEndEvent(message_id="r1"))
    if draw(st.booleans()):
        events.append(TextMessageStartEvent(message_id="m1", role="assistant"))
        for delta in draw(st.lists(_DELTAS, max_size=3)):
            events.append(TextMessageContentEvent(message_id="m1", delta=delta or "x"))
        events.append(TextMessageEndEvent(message_id="m1"))
    ids: list[str] = []
    for n in range(draw(st.integers(0, 5))):
        cid = f"{draw(_IDS)}_{n}"
        ids.append(cid)
        meta = draw(_META)
        parent = draw(st.sampled_from(["m1", None, f"m_{KEY}"]))
        events.append(
            ToolCallStartEvent(
                tool_call_id=cid,
                tool_call_name=draw(_NAMES),
                parent_message_id=parent,
                **({"metadata": meta} if meta is not None else {}),
            )
        )
        for delta in draw(st.lists(_DELTAS, min_size=1, max_size=3)):
            # (mostly its own call's; some continue a call opened before it)
            target = draw(st.sampled_from([cid, cid, *ids]))
            events.append(ToolCallArgsEvent(tool_call_id=target, delta=delta))
    events += [ToolCallEndEvent(tool_call_id=cid) for cid in ids]
    events.append(RunFinishedEvent(thread_id="t", run_id="r"))
    return events


def _one_by_one(keys: list[str], events: list[BaseEvent]) -> str:
    redactor = StreamRedactor(keys)
    return FRAME_GAP.join(event_json(e) for event in events for e in redactor.feed(event))


@settings(max_examples=400, deadline=None)
@given(_open_calls(), st.lists(st.integers(min_value=0), max_size=8), st.integers(0, 2))
def test_open_calls_written_as_lists_are_the_events_fed_one_by_one(
    events: list[BaseEvent], cuts: list[int], keyed: int
) -> None:
    keys = [[], [KEY], [KEY, ODD_KEY]][keyed]
    expected = _one_by_one(keys, events)
    redactor = StreamRedactor(keys)
    at = sorted({c % (len(events) + 1) for c in cuts} | {0, len(events)})
    texts = [text for a, b in pairwise(at) for text in redactor.texts_of(events[a:b])]
    assert FRAME_GAP.join(texts) == expected
    assert redactor.close() == []  # (a terminal event released what was held)
    sent = "".join(texts)
    for key in keys:
        assert key not in sent and json.dumps(key)[1:-1] not in sent


def test_a_start_and_its_arguments_are_one_text() -> None:
    start = ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", parent_message_id="m1")
    args = ToolCallArgsEvent(tool_call_id="c1", delta='{"a":1}')
    for event in (start, args):
        event_json(event)  # (the template is made of the forms writing each made)
    for keys in ([], [KEY]):
        texts = StreamRedactor(keys).texts_of([start, args])
        assert texts == [event_json(start) + FRAME_GAP + event_json(args)]


def test_a_delta_ending_in_a_key_s_beginning_is_held_back() -> None:
    """The list's one search finds it: the lane holds it until the next delta tells."""
    start = ToolCallStartEvent(tool_call_id="c1", tool_call_name="f")
    redactor = StreamRedactor([KEY])
    first = redactor.texts_of([start, ToolCallArgsEvent(tool_call_id="c1", delta="x sk-li")])
    assert FRAME_GAP.join(first) == FRAME_GAP.join(
        [event_json(start), event_json(ToolCallArgsEvent(tool_call_id="c1", delta="x "))]
    )
    rest = redactor.texts_of([ToolCallArgsEvent(tool_call_id="c1", delta=KEY[5:] + "!")])
    assert KEY[5:] not in "".join(rest) and "[REDACTED" in "".join(rest)


_TEXT = st.text(alphabet=st.sampled_from(list('sk-live4f9\x00"\\.*(ab é')), max_size=12)


@settings(max_examples=500, deadline=None)
@given(st.lists(_TEXT, max_size=6), st.sampled_from([[KEY], [ODD_KEY], [KEY, ODD_KEY, "live4"]]))
def test_the_one_search_finds_a_delta_ending_in_a_secret_s_beginning(
    deltas: list[str], keys: list[str]
) -> None:
    """No delta the exact look says may begin a secret is missed; where no delta holds the
    mark (nor a secret), the search says exactly what the looks say."""
    redactor = StreamRedactor(keys)
    found = redactor._begins(_ENDED.join(deltas) + _ENDED) is not None
    looks = any(redactor._may_begin(d) for d in deltas if d)
    if looks:
        assert found
    if not any(_ENDED in d for d in deltas) and not any(_ENDED in k for k in keys):
        assert found == looks
