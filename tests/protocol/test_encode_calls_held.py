"""The whole-call encoders (Gemini, Mistral, Ollama) hold a call's start and arguments back,
unchecked, until the next event shows whether the call is whole, then have the machine check
them in one step (``StreamMachine.feed_call``). For random streams, valid and hostile, cut
into lists anywhere, that gives what ``feed`` of each event in turn gives: the same chunks,
losses, warnings in the same order, the same error (type, message, event index) with the
same chunks before it; and ``encode_stream`` of the list gives the chunks of an iterator."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from _agui_builders import (
    args,
    chunk,
    end,
    result,
    run_error,
    run_finished,
    run_started,
    start,
    text,
    text_end,
    text_start,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.errors import LimitExceeded
from toolwire.protocol.events import parse_event
from toolwire.protocol.limits import configure, limits

WHOLE = ["gemini", "mistral", "ollama"]

ALPHABET: list[Any] = [
    run_started(),
    run_finished(),
    run_error(),
    text_start("m1"),
    text("m1", "hi"),
    text_end("m1"),
    text_start("u1", role="user"),
    text_end("u1"),
    start("c1"),
    start("c1", parent="m1"),
    start("c1", name="g"),
    start("c2", parent="u1"),
    start("c2", metadata={"k": 1}),
    start("c3", subagentRunId="sub-1"),
    start("abcdefghi"),
    start("a-long-id-no-vendor-takes-as-it-is-0123456789-0123456789-0123456789"),
    args("c1", '{"a":1}'),
    args("c1", '{"k":1,"k":2}'),
    args("c1", "[1]"),
    args("c2", "{}"),
    args("c2", '{"s":"\\ud83d"}'),
    args("c3", '{"b":2}', subagentRunId="sub-1"),
    args("c9", "{}"),
    args("abcdefghi", '{"x":[1,2]}'),
    args("a-long-id-no-vendor-takes-as-it-is-0123456789-0123456789-0123456789", "{}"),
    end("c1"),
    end("c2", metadata={"z": 3}),
    end("c3", subagentRunId="sub-2"),
    end("c9"),
    end("abcdefghi"),
    end("a-long-id-no-vendor-takes-as-it-is-0123456789-0123456789-0123456789"),
    result("c1"),
    chunk(toolCallId="k1", toolCallName="f", delta='{"a":'),
    chunk(delta="1}"),
    {"type": "TOOL_CALL_END", "toolCallId": "c1", "parentMessageId": None},
    {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "tool-call",
        "entityId": "c1",
        "encryptedValue": "c2ln",
    },
    ["not", "an", "event"],
]


def _model(ev: Any) -> Any:
    """The event as the model the machine would make of it, or as it is when it would
    warn about it or refuse it."""
    if not isinstance(ev, dict):
        return ev
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return parse_event(ev)
        except Exception:  # (a warning too): left for the encoder to meet
            return ev


MODELS = [_model(e) for e in ALPHABET]

Outcome = tuple[list[Any], list[Any], list[tuple[Any, str]], Any]


def _outcome(vendor: str, run: Callable[[Any, list[Any]], None]) -> Outcome:
    encoder = adapters.get(vendor).Encoder()
    chunks: list[Any] = []
    error = None
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            run(encoder, chunks)
        except Exception as exc:  # the error is part of what must agree
            error = (type(exc), str(exc), getattr(exc, "index", None))
    warned = [(w.category, str(w.message)) for w in seen]
    return (chunks, list(encoder.losses), warned, error)


def _one_by_one(vendor: str, events: list[Any]) -> Outcome:
    def run(encoder: Any, chunks: list[Any]) -> None:
        for ev in events:
            chunks += encoder.feed(ev)
        chunks += encoder.close()

    return _outcome(vendor, run)


def _in_lists(vendor: str, events: list[Any], cuts: list[int]) -> Outcome:
    bounds = [0, *sorted(set(cuts)), len(events)]

    def run(encoder: Any, chunks: list[Any]) -> None:
        for a, b in pairwise(bounds):
            encoder.feed_into(events[a:b], chunks)
        chunks += encoder.close()

    return _outcome(vendor, run)


def _streamed(vendor: str, events: Any) -> tuple[list[Any], Any]:
    chunks: list[Any] = []
    error = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for c in adapters.get(vendor).encode_stream(events):
                chunks.append(c)
        except Exception as exc:
            error = (type(exc), str(exc), getattr(exc, "index", None))
    return chunks, error


def _agree(vendor: str, events: list[Any], cuts: list[int]) -> Outcome:
    alone = _one_by_one(vendor, events)
    assert _in_lists(vendor, events, cuts) == alone
    assert _in_lists(vendor, events, []) == alone
    listed = _streamed(vendor, events)
    assert listed == _streamed(vendor, iter(events))
    assert listed == (alone[0], alone[3])
    return alone


@pytest.mark.parametrize("vendor", WHOLE)
@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, len(ALPHABET) - 1), max_size=14),
    st.lists(st.integers(0, 14), max_size=4),
    st.booleans(),
)
def test_random_streams_cut_anywhere_encode_alike(
    vendor: str, picks: list[int], cuts: list[int], as_dicts: bool
) -> None:
    pool = ALPHABET if as_dicts else MODELS
    events = [pool[i] for i in picks]
    _agree(vendor, events, [c for c in cuts if c <= len(events)])


@pytest.mark.parametrize("vendor", WHOLE)
@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.booleans()), max_size=8),
    st.lists(st.integers(0, 200), max_size=4),
    st.lists(st.integers(0, 40), max_size=3),
)
def test_runs_of_calls_with_noise_encode_alike(
    vendor: str, calls: list[tuple[int, bool]], noise: list[int], cuts: list[int]
) -> None:
    """Runs of calls, whole or ended later, ids repeated at random, other events dropped
    in anywhere: a held start meets every kind of next event."""
    events: list[Any] = [run_started(), text_start("m1"), text_end("m1")]
    later = []
    for n, (k, whole) in enumerate(calls):
        cid = f"c{k}" if n % 2 else f"n{n}"
        events += [start(cid, parent="m1"), args(cid, f'{{"n":{n}}}')]
        (events if whole else later).append(end(cid))
    events += later
    for i in noise:
        events.insert(i % (len(events) + 1), ALPHABET[i % len(ALPHABET)])
    events.append(run_finished())
    models = [_model(e) for e in events]
    _agree(vendor, models, [c for c in cuts if c <= len(models)])


@pytest.mark.parametrize("vendor", WHOLE)
def test_a_failing_call_hands_on_what_came_before(vendor: str) -> None:
    """A call failing at its start, its arguments or its end (checked in one step) gives
    the error of that event, and the chunks of the events before it, as feed does."""
    before = [run_started(), text_start("m1"), text("m1", "x"), text_end("m1")]
    before += [start("a", parent="m1"), args("a", '{"x":1}'), end("a")]
    before += [text_start("u1", role="user"), text_end("u1")]
    failing = {  # the call's events, and which of them fails (with what)
        "a start opened twice": ([start("b"), start("b"), args("b", "{}"), end("b")], 1),
        "a parent that is a user's": ([start("u", parent="u1"), args("u", "{}"), end("u")], 0),
        "arguments for another call": ([start("b"), args("zz", "{}"), end("b")], 1),
        "an end for another call": ([start("b"), args("b", '{"y":2}'), end("zz")], 2),
        # a start for a new message (a new choice: Mistral announces it), then the failure
        "arguments for another call, a new message": (
            [start("b", parent="m3"), args("zz", "{}"), end("b")],
            1,
        ),
        "an end for another call, a new message": (
            [start("b", parent="m3"), args("b", "{}"), end("zz")],
            2,
        ),
        "arguments past their cap": ([start("b", parent="m3"), args("b", "x" * 80), end("b")], 1),
        "arguments past their cap, no end": ([start("b", parent="m3"), args("b", "x" * 80)], 1),
        "arguments of another owner, no end": (
            [start("b", parent="m3"), args("b", "{}", subagentRunId="sub-9")],
            1,
        ),
    }
    previous = limits()
    configure(max_argument_chars=64)
    try:
        for name, (tail, at) in failing.items():
            events = [_model(e) for e in (*before, *tail, run_finished())]
            got = _agree(vendor, events, [])
            assert got[3] is not None, name
            if got[3][0] is not LimitExceeded:
                assert got[3][2] == len(before) + at, name
            if vendor == "mistral" and "m3" in str(tail[0]) and at:
                assert got[0], name  # the new choice was announced before the error
    finally:
        configure(max_argument_chars=previous.max_argument_chars)
