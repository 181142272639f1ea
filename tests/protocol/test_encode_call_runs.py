"""Mistral's encoder takes calls opened in a row and ends in a row as runs: each run is
checked by the machine in one step (``feed_opened``, ``feed_ends``) and written by one loop
(``_calls_opened``, ``_calls_ended``). For random streams, valid and hostile (an end for a
call never opened, an end given twice, an end after its run closed, an end of another
owner, ends among other events, ids Mistral rejects, so losses between the ends), cut into
lists anywhere, that gives what an encoder without those ways gives, each event checked
by ``feed`` and handed to its handler: the same chunks, losses, warnings in the same
order, the same error (type, message, event index) with the same chunks before it, also
when warnings are errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from _agui_builders import (
    args,
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

from toolwire.adapters.mistral import Encoder
from toolwire.losses import ToolwireWarning
from toolwire.protocol.encoding import CheckedEncoder
from toolwire.protocol.events import parse_event
from toolwire.protocol.machine import StreamMachine

#: Mistral's encoder with none of the short ways: every event checked by ``feed`` and given
#: to its handler
Plain = type(
    "Plain",
    (Encoder,),
    {
        "_whole_call": CheckedEncoder._whole_call,
        "_calls_opened": CheckedEncoder._calls_opened,
        "_calls_ended": CheckedEncoder._calls_ended,
    },
)

Outcome = tuple[list[Any], list[Any], list[tuple[Any, str]], Any]


def _outcome(make: Callable[[], Any], run: Callable[[Any, list[Any]], None], mode: str) -> Outcome:
    encoder = make()
    chunks: list[Any] = []
    error = None
    with warnings.catch_warnings(record=mode == "record") as seen:
        warnings.simplefilter("always" if mode == "record" else "error", ToolwireWarning)
        try:
            run(encoder, chunks)
        except Exception as exc:  # the error is part of what must agree
            error = (type(exc), str(exc), getattr(exc, "index", None))
    warned = [(w.category, str(w.message)) for w in seen or []]
    return (chunks, list(encoder.losses), warned, error)


def _general(events: list[Any], mode: str) -> Outcome:
    """Each event on its own (``feed_into`` of it: the chunks of an event whose warning is
    an error are kept, as a list's are)."""

    def run(encoder: Any, chunks: list[Any]) -> None:
        for ev in events:
            encoder.feed_into([ev], chunks)
        chunks += encoder.close()

    return _outcome(Plain, run, mode)


def _in_lists(events: list[Any], cuts: list[int], mode: str) -> Outcome:
    bounds = [0, *sorted(set(cuts)), len(events)]

    def run(encoder: Any, chunks: list[Any]) -> None:
        for a, b in pairwise(bounds):
            encoder.feed_into(events[a:b], chunks)
        chunks += encoder.close()

    return _outcome(Encoder, run, mode)


def _agree(events: list[Any], cuts: list[int]) -> Outcome:
    models = [parse_event(e) for e in events]
    for mode in ("record", "error"):
        general = _general(models, mode)
        assert _in_lists(models, cuts, mode) == general, mode
        assert _in_lists(models, [], mode) == general, mode
        assert _in_lists(models, list(range(1, len(models))), mode) == general, mode
    return _general(models, "record")


#: an id Mistral takes (nine letters and digits) and ids it does not (mapped: a loss each)
IDS = ["abcdefgh1", "abcdefgh2", "c1", "c2", "a-long-id-0123456789"]


def _opened(*cids: str, **kw: Any) -> list[dict[str, Any]]:
    return [e for cid in cids for e in (start(cid, **kw), args(cid, '{"a":1}'))]


CASES: dict[str, tuple[list[Any], str | None]] = {
    "calls opened, then ended": (
        [run_started(), *_opened(*IDS), *[end(c) for c in reversed(IDS)], run_finished()],
        None,
    ),
    "an end for a call never opened": (
        [run_started(), *_opened("c1", "c2"), end("c1"), end("zz"), end("c2"), run_finished()],
        "tool-call-not-open",
    ),
    "an end given twice": (
        [run_started(), *_opened("c1", "c2"), end("c1"), end("c2"), end("c1"), run_finished()],
        "tool-call-not-open",
    ),
    "an end after its run closed": (
        [run_started(), *_opened("c1", "c2"), run_error(), end("c1"), end("c2")],
        "event-after-run-closed",
    ),
    "an end in a new run after its run's error": (
        [run_started(), *_opened("c1"), run_error(), run_started(run="r2"), end("c1")],
        "tool-call-not-open",
    ),
    "an end of another owner": (
        [
            run_started(),
            *_opened("c1", "c2"),
            end("c1"),
            end("c2", subagentRunId="sub-2"),
            run_finished(),
        ],
        "owner-mismatch",
    ),
    "ends among other events": (
        [
            run_started(),
            text_start("m1"),
            text("m1", "hi"),
            *_opened("c1", "c2", parent="m1"),
            text_end("m1"),
            end("c1"),
            text_start("m2"),
            *_opened("abcdefgh1", parent="m2"),
            end("c2"),
            result("c1"),
            end("abcdefgh1"),
            text_end("m2"),
            run_finished(),
        ],
        None,
    ),
    "a call given more arguments after its run was opened": (
        [
            run_started(),
            *_opened("c1", "c2"),
            args("c1", " "),
            args("c1", ""),
            args("c2", ""),
            args("c2", "\n"),
            end("c2"),
            end("c1"),
            run_finished(),
        ],
        None,
    ),
    "calls opened with no arguments text": (
        [
            run_started(),
            start("c1"),
            args("c1", ""),
            start("c2"),
            args("c2", ""),
            args("c2", "{}"),
            end("c1"),
            end("c2"),
            run_finished(),
        ],
        None,
    ),
    "a call opened twice in a run": (
        [run_started(), *_opened("c1", "c2", "c1"), end("c1"), end("c2"), run_finished()],
        "tool-call-already-open",
    ),
    "arguments of another owner in a run, for a new message": (
        [
            run_started(),
            *_opened("c1"),
            start("c2", parent="m3"),
            args("c2", "{}", subagentRunId="sub-9"),
            end("c1"),
            end("c2"),
            run_finished(),
        ],
        "owner-mismatch",
    ),
    "a call opened between ends": (
        [
            run_started(),
            *_opened("c1", "c2"),
            end("c1"),
            *_opened("c3", "c4"),
            end("c2"),
            start("c5"),
            end("c3"),
            end("c4"),
            end("c5"),
            run_finished(),
        ],
        None,
    ),
    "a call reopened in a run": (
        [
            run_started(),
            *_opened("c1"),
            end("c1"),
            *_opened("c2", "c1"),
            end("c1"),
            end("c2"),
            run_finished(),
        ],
        None,
    ),
    "calls of two messages": (
        [
            run_started(),
            *_opened("c1", parent="m1"),
            *_opened("c2", parent="m2", metadata={"mistral.choice": 3}),
            end("c2"),
            end("c1"),
            run_finished(),
        ],
        None,
    ),
    "a bare turn": ([*_opened("c1", "a-long-id-0123456789"), end("c1")], None),
}


@pytest.mark.parametrize("name", CASES)
def test_each_case_encodes_alike_and_as_expected(name: str) -> None:
    events, code = CASES[name]
    got = _agree(events, [len(events) // 2])
    if code is None:
        assert got[3] is None
        assert got[0]  # (something was written)
    else:
        assert got[3] is not None
        assert code in got[3][1]


def test_losses_between_ends_are_warned_in_turn() -> None:
    """Each remapped id's warning comes after its own chunk and before the next end's
    (when warnings are errors, the first one stops the stream with only the chunks before
    it written)."""
    events = [parse_event(e) for e in (run_started(), *_opened(*IDS))]
    ends = [parse_event(end(c)) for c in IDS]
    encoder = Encoder()
    out: list[Any] = []
    encoder.feed_into(events, out)
    before = len(out)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolwireWarning)
        with pytest.raises(ToolwireWarning, match="c1"):
            encoder.feed_into(ends, out)
    sent = [c["choices"][0]["delta"]["tool_calls"][0]["id"] for c in out[before:]]
    assert sent == ["abcdefgh1", "abcdefgh2", sent[2]]
    assert sent[2] != "c1"


def test_the_run_ways_are_taken() -> None:
    """(so the tests above compare two ways): the opened calls and the ends of a list go
    to the machine's run steps and the encoder's loops, in runs of more than one."""
    opened: list[int] = []
    ended: list[int] = []

    class Spy(Encoder):
        def _calls_opened(self, events: list[Any], at: int, stop: int, out: Any) -> int:
            opened.append(stop - at)
            return super()._calls_opened(events, at, stop, out)

        def _calls_ended(self, ends: list[Any], at: int, out: Any) -> int:
            ended.append(len(ends) - at)
            return super()._calls_ended(ends, at, out)

    steps: list[str] = []
    feed_opened, feed_ends = StreamMachine.feed_opened, StreamMachine.feed_ends

    def spy_opened(self: StreamMachine, events: list[Any]) -> bool:
        steps.append(f"opened {len(events)}")
        return feed_opened(self, events)

    def spy_ends(self: StreamMachine, ends: list[Any]) -> bool:
        steps.append(f"ends {len(ends)}")
        return feed_ends(self, ends)

    names = ["abcdefgh1", "abcdefgh2", "abcdefgh3"]
    events = [run_started(), *_opened(*names), *[end(c) for c in names], run_finished()]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(StreamMachine, "feed_opened", spy_opened)
        mp.setattr(StreamMachine, "feed_ends", spy_ends)
        Spy().feed_many([parse_event(e) for e in events])
    assert steps == ["opened 6", "ends 3"]
    assert opened == [6]
    assert ended == [3]


_POOL: list[Any] = [
    text_start("m1"),
    text("m1", "x"),
    text_end("m1"),
    result("c1"),
    run_error(),
    run_finished(),
    run_started(run="r2"),
    end("zz"),
    end("c1", subagentRunId="sub-2"),
    args("c2", '{"more":1}'),
    start("c1", parent="m1"),
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, len(IDS) - 1), st.booleans()), max_size=8),
    st.permutations(range(8)),
    st.lists(st.integers(0, 300), max_size=4),
    st.lists(st.integers(0, 40), max_size=3),
)
def test_random_runs_encode_alike(
    calls: list[tuple[int, bool]], order: list[int], noise: list[int], cuts: list[int]
) -> None:
    """Calls opened in a row (ids repeated at random, some Mistral rejects) and ended later
    in any order, some twice, stray events and ends dropped in anywhere."""
    events: list[Any] = [run_started()]
    cids = []
    for n, (k, parented) in enumerate(calls):
        cid = IDS[k] if n % 2 else f"n{n}"
        events += [start(cid, parent="m0" if parented else None), args(cid, f'{{"n":{n}}}')]
        cids.append(cid)
    events += [end(cids[i]) for i in order if i < len(cids)]
    for i in noise:
        events.insert(i % (len(events) + 1), _POOL[i % len(_POOL)])
    events.append(run_finished())
    _agree(events, [c for c in cuts if c <= len(events)])
