"""Keys masked across an AG-UI stream, never inside JSON syntax (issue 35, item 5)."""

from __future__ import annotations

import json
from itertools import pairwise

from ag_ui.core import (
    BaseEvent,
    EventType,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UserMessage,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.protocol import validate_stream
from toolwire.protocol.redact import MASK, MIN_SECRET_CHARS, redact
from toolwire.protocol.sse import event_json
from toolwire.protocol.stream_redact import StreamRedactor

KEY = "sk-live-4f9a2b7c1d8e6f30"


def _run(*middle: BaseEvent) -> list[BaseEvent]:
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        *middle,
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


def _text(msg: str, pieces: list[str]) -> list[BaseEvent]:
    return [
        TextMessageStartEvent(message_id=msg),
        *(TextMessageContentEvent(message_id=msg, delta=p) for p in pieces),
        TextMessageEndEvent(message_id=msg),
    ]


def _through(events: list[BaseEvent], secrets: list[str]) -> list[BaseEvent]:
    r = StreamRedactor(secrets)
    out = [e for event in events for e in r.feed(event)]
    return out + r.close()


def _joined(events: list[BaseEvent], kind: EventType) -> str:
    return "".join(e.delta for e in events if e.type == kind)  # type: ignore[attr-defined]


def _cuts(text: str) -> list[list[str]]:
    """``text`` in two pieces at every place, and one character at a time."""
    return [[text[:i], text[i:]] for i in range(1, len(text))] + [list(text)]


def test_a_key_split_over_text_deltas_is_masked_wherever_it_is_cut() -> None:
    said = f"your key is {KEY}, keep it"
    for pieces in _cuts(said):
        out = _through(_run(*_text("m1", pieces)), [KEY])
        validate_stream(out)  # still a valid stream: no empty delta, order kept
        assert _joined(out, EventType.TEXT_MESSAGE_CONTENT) == f"your key is {MASK}, keep it"
        sent = "".join(event_json(e) for e in out)
        assert KEY not in sent and KEY[:-1] not in sent and KEY[1:] not in sent


def test_a_key_split_over_argument_deltas_keeps_the_arguments_json() -> None:
    args = json.dumps({"note": f"token {KEY} here", "n": 1})
    for pieces in _cuts(args)[::5]:
        calls = [
            ToolCallStartEvent(tool_call_id="c1", tool_call_name="save"),
            *(ToolCallArgsEvent(tool_call_id="c1", delta=p) for p in pieces),
            ToolCallEndEvent(tool_call_id="c1"),
        ]
        out = _through(_run(*calls), [KEY])
        validate_stream(out)
        assert json.loads(_joined(out, EventType.TOOL_CALL_ARGS)) == {
            "note": f"token {MASK} here",
            "n": 1,
        }


def test_a_held_back_prefix_that_is_not_a_key_comes_out_in_order() -> None:
    # "sk-live-4f" could begin the key; the next delta says it does not
    pieces = ["a sk-live-4f", "ine day", " then sk-li"]  # the last is held until the END
    out = _through(_run(*_text("m1", pieces)), [KEY])
    validate_stream(out)
    assert _joined(out, EventType.TEXT_MESSAGE_CONTENT) == "a sk-live-4fine day then sk-li"
    end = next(i for i, e in enumerate(out) if e.type == EventType.TEXT_MESSAGE_END)
    assert out[end - 1].type == EventType.TEXT_MESSAGE_CONTENT  # released before its end


def test_held_text_is_released_when_the_run_ends_without_the_lane_ending() -> None:
    events = [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageChunkEvent(message_id="m1", delta="x sk-live"),
        RunErrorEvent(message="stopped"),
    ]
    out = _through(events, [KEY])
    assert [e.type for e in out][-2:] == [EventType.TEXT_MESSAGE_CHUNK, EventType.RUN_ERROR]
    assert _joined(out, EventType.TEXT_MESSAGE_CHUNK) == "x sk-live"


def test_a_key_in_any_field_of_any_event_is_masked() -> None:
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        state={"k": [KEY]},
        messages=[UserMessage(id="u", content=f"is {KEY} mine?")],
        tools=[],
        context=[],
        forwarded_props={},
    )
    events = [
        RunStartedEvent(thread_id="t", run_id="r", input=run_input),
        RunErrorEvent(message=f"401: Incorrect API key provided: {KEY}", code="auth"),
    ]
    out = _through(events, [KEY])
    sent = "".join(event_json(e) for e in out)
    assert KEY not in sent and sent.count(MASK) == 3
    assert json.loads(event_json(out[0]))["input"]["messages"][0]["content"] == f"is {MASK} mine?"


def test_a_value_too_short_to_be_a_secret_changes_nothing() -> None:
    events = _run(*_text("m1", ["type error: e", "x", "pected"]))
    for short in ["e", "x", "key", "a" * (MIN_SECRET_CHARS - 1)]:
        out = _through(events, [short])
        assert [event_json(e) for e in out] == [event_json(e) for e in events]
        assert redact("type error: expected", [short]) == "type error: expected"


def test_a_secret_that_looks_like_json_syntax_is_never_replaced_in_the_syntax() -> None:
    # the redactor edits string values, not the encoded JSON around them: the key is text
    # every content event's JSON holds, around its delta
    key = '","delta":"'
    assert key in event_json(TextMessageContentEvent(message_id="m1", delta="plain words"))
    assert len(key) >= MIN_SECRET_CHARS
    events = _run(*_text("m1", ["plain words"]))
    out = _through(events, [key])
    assert [event_json(e) for e in out] == [event_json(e) for e in events]


def test_frames_are_the_fed_events_with_their_json_text() -> None:
    # what the server sends: each event with its text (written once, by the mask's check)
    said = f"a sk-live-4f then {KEY}, and the key {KEY} again, sk-"
    for pieces in _cuts(said)[::3]:
        events = _run(*_text("m1", pieces))
        fed = _through(events, [KEY])
        r = StreamRedactor([KEY])
        framed = [pair for event in events for pair in r.frames(event)]
        assert [e for e, _ in framed] == fed
        assert [text for _, text in framed] == [event_json(e) for e in fed]
        assert KEY not in "".join(text for _, text in framed)


def test_the_longest_end_that_begins_any_secret_is_held() -> None:
    other = "tok-0123456789abcdef"
    # "tok-0123" begins the second secret, "sk-live-4" the first: the longer end is held
    for pieces, held in ((["x tok-0123"], "tok-0123"), (["sk-live-4"], "sk-live-4")):
        r = StreamRedactor([KEY, other])
        r.feed(TextMessageStartEvent(message_id="m1"))
        assert r.feed(TextMessageContentEvent(message_id="m1", delta=pieces[0])) in (
            [],
            [TextMessageContentEvent(message_id="m1", delta=pieces[0][: -len(held)])],
        )
        released = r.feed(TextMessageEndEvent(message_id="m1"))
        assert released[0] == TextMessageContentEvent(message_id="m1", delta=held)
    # only the last character may begin a secret ("t" of "tok-"): the rest goes now
    r = StreamRedactor([KEY, other])
    r.feed(TextMessageStartEvent(message_id="m1"))
    delta = TextMessageContentEvent(message_id="m1", delta="plain text, tok- is not it: t")
    assert r.feed(delta) == [delta.model_copy(update={"delta": delta.delta[:-1]})]


# -- the usual delta's short way (one search for a secret's first character in its tail)

_OTHER = "tok-0123456789abcdef0123"  # longer than KEY, another first character
_SAY = st.text(alphabet='abst-k 0123\u00e9"\\', max_size=30)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_SAY, min_size=1, max_size=4),
    st.sampled_from([[KEY], [_OTHER], [KEY, _OTHER]]),
    st.lists(st.integers(min_value=0), max_size=6),
    st.sampled_from(["text", "args"]),
)
def test_a_key_cut_anywhere_over_deltas_is_masked_in_every_frame(
    said: list[str], keys: list[str], cuts: list[int], lane: str
) -> None:
    """Keys put between any texts (which may end in a key's first characters, or hold
    them), the whole cut anywhere into deltas of a text message or a tool call's arguments:
    the frames sent hold no key, the deltas joined are the text with each key masked, the
    stream stays valid, and each frame is its event's JSON."""
    whole = ""
    for i, part in enumerate(said):
        whole += part + (keys[i % len(keys)] if i < len(said) - 1 or len(said) == 1 else "")
    points = sorted({c % (len(whole) + 1) for c in cuts} | {0, len(whole)})
    pieces = [whole[a:b] for a, b in pairwise(points) if b > a]
    if lane == "text":
        middle = _text("m1", pieces)
        kind = EventType.TEXT_MESSAGE_CONTENT
    else:
        middle = [
            ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
            *(ToolCallArgsEvent(tool_call_id="c1", delta=p) for p in pieces),
            ToolCallEndEvent(tool_call_id="c1"),
        ]
        kind = EventType.TOOL_CALL_ARGS
    r = StreamRedactor(keys)
    framed = [pair for event in _run(*middle) for pair in r.frames(event)]
    out = [e for e, _ in framed]
    validate_stream(out)
    sent = "".join(text for _, text in framed)
    for key in keys:
        assert key not in sent and json.dumps(key)[1:-1] not in sent
    assert _joined(out, kind) == redact(whole, keys, shapes=False)
    assert [text for _, text in framed] == [event_json(e) for e in out]


@settings(max_examples=30)
@given(st.randoms(use_true_random=False), st.integers(2, 60))
def test_many_open_calls_ended_late_release_each_held_tail_at_its_own_end(
    rnd: object, n: int
) -> None:
    """Calls whose ends all come late (as a decoder that ends calls at the finish sends
    them): each call's held tail (the start of the key, cut at the delta's end) goes out
    right before its own end, in whatever order the ends come, and nothing else is held."""
    import random

    assert isinstance(rnd, random.Random)
    calls = [f"c{i}" for i in range(n)]
    events: list[BaseEvent] = [RunStartedEvent(thread_id="t", run_id="r")]
    for cid in calls:
        events.append(ToolCallStartEvent(tool_call_id=cid, tool_call_name="f"))
        events.append(ToolCallArgsEvent(tool_call_id=cid, delta='{"a":"' + KEY[:5]))
    ends = calls[:]
    rnd.shuffle(ends)
    events += [ToolCallEndEvent(tool_call_id=cid) for cid in ends]
    events.append(RunFinishedEvent(thread_id="t", run_id="r"))
    redactor = StreamRedactor([KEY])
    sent: list[BaseEvent] = []
    for ev in events:
        sent.extend(redactor.feed(ev))
    sent.extend(redactor.close())
    validate_stream(sent)
    args = [e for e in sent if isinstance(e, ToolCallArgsEvent)]
    joined: dict[str, str] = {}
    for e in args:
        joined[e.tool_call_id] = joined.get(e.tool_call_id, "") + e.delta
    assert joined == {cid: '{"a":"' + KEY[:5] for cid in calls}  # nothing lost, nothing masked
    ended = [e.tool_call_id for e in sent if isinstance(e, ToolCallEndEvent)]
    assert ended == ends
    for end in (e for e in sent if isinstance(e, ToolCallEndEvent)):
        before = sent[sent.index(end) - 1]  # the held tail, released by its own end
        assert isinstance(before, ToolCallArgsEvent) and before.tool_call_id == end.tool_call_id
        assert before.delta == KEY[:5]


# -- a list of events at a time (what the server writes together: ``frames_of``)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_SAY, min_size=1, max_size=5),
    st.sampled_from([[KEY], [_OTHER], [KEY, _OTHER]]),
    st.lists(st.integers(min_value=0), max_size=8),
    st.lists(st.integers(min_value=0), max_size=6),
    st.booleans(),
)
def test_events_framed_a_list_at_a_time_are_those_fed_one_by_one(
    said: list[str], keys: list[str], cuts: list[int], lists: list[int], chunks: bool
) -> None:
    """Two lanes interleaved (a text message and a call's arguments, or their ``*_CHUNK``
    forms), keys cut anywhere over their deltas, the stream handed over in lists cut
    anywhere: ``frames_of`` gives exactly the events and texts that ``feed`` gives event by
    event (the general way), and no frame holds a key."""
    whole = ""
    for i, part in enumerate(said):
        whole += part + (keys[i % len(keys)] if i < len(said) - 1 or len(said) == 1 else "")
    points = sorted({c % (len(whole) + 1) for c in cuts} | {0, len(whole)})
    pieces = [whole[a:b] for a, b in pairwise(points) if b > a]
    middle: list[BaseEvent] = []
    if chunks:
        for n, p in enumerate(pieces):
            if n % 2:
                middle.append(TextMessageChunkEvent(message_id="m1", delta=p))
            else:
                middle.append(ToolCallChunkEvent(tool_call_id="c1", tool_call_name="f", delta=p))
    else:
        middle += [
            TextMessageStartEvent(message_id="m1"),
            ToolCallStartEvent(tool_call_id="c1", tool_call_name="f"),
        ]
        for n, p in enumerate(pieces):
            if n % 2:
                middle.append(TextMessageContentEvent(message_id="m1", delta=p))
            else:
                middle.append(ToolCallArgsEvent(tool_call_id="c1", delta=p))
        middle += [TextMessageEndEvent(message_id="m1"), ToolCallEndEvent(tool_call_id="c1")]
    events = _run(*middle)
    one = StreamRedactor(keys)
    expected = [(e, event_json(e)) for event in events for e in one.feed(event)]
    many = StreamRedactor(keys)
    at = sorted({c % (len(events) + 1) for c in lists} | {0, len(events)})
    framed = [pair for a, b in pairwise(at) for pair in many.frames_of(events[a:b])]
    assert framed == expected
    sent = "".join(text for _, text in framed)
    for key in keys:
        assert key not in sent and json.dumps(key)[1:-1] not in sent


def test_a_lane_is_kept_only_while_it_holds_text() -> None:
    # the usual delta keeps no lane; one whose end may begin the key does, until it tells
    r = StreamRedactor([KEY])
    r.frames_of([TextMessageStartEvent(message_id="m1")])
    r.frames_of([TextMessageContentEvent(message_id="m1", delta="plain")])
    assert not r._lanes
    assert r.frames_of([TextMessageContentEvent(message_id="m1", delta="then sk-li")]) == [
        (
            TextMessageContentEvent(message_id="m1", delta="then "),
            event_json(TextMessageContentEvent(message_id="m1", delta="then ")),
        )
    ]
    assert r._lanes
    out = r.frames_of([TextMessageContentEvent(message_id="m1", delta="ve! no key")])
    assert [e.delta for e, _ in out] == ["sk-live! no key"]  # type: ignore[attr-defined]
    assert not r._lanes
