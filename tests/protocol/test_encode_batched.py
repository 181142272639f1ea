"""An encoder fed a list (``feed_many``, ``feed_into``, ``encode_stream`` of a list) gives
what ``feed`` of each event in turn gives: the same chunks, losses, warnings in the same
order, the same error (type, message, event index) with the same chunks before it. And the
whole-call way (``_whole_call``, ``_calls_opened``, ``_calls_ended``) gives what the
handlers give.

Every vendor's encoder is checked; Gemini, Mistral and Ollama take the checked loop with
the whole-call way, the others the base's loop of their ``_feed``.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
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

from toolwire import adapters
from toolwire.protocol.encoding import BaseEncoder, CheckedEncoder
from toolwire.protocol.events import parse_event

WHOLE = ["gemini", "mistral", "ollama"]
OTHERS = ["anthropic", "openai_chat", "openai_responses", "cohere", "bedrock"]


def _models(events: list[Any]) -> list[Any]:
    """Dict events as the ``ag_ui.core`` models the machine would make of them; one it
    would warn about or refuse (and anything not a dict) stays as it is."""
    out = []
    for ev in events:
        model = None
        if isinstance(ev, dict):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    model = parse_event(ev)
                except Exception:  # (a warning too): left for the encoder to meet
                    model = None
        out.append(ev if model is None else model)
    return out


def _mixed(events: list[Any]) -> list[Any]:
    """Every other event a model, the rest dicts (an encoder takes either)."""
    models = _models(events)
    return [models[i] if i % 2 else ev for i, ev in enumerate(events)]


ARGS = '{"city":"Oslo","days":[1,2],"units":"C"}'

#: runs and bare turns, plain and odd: each must encode alike however it is fed
STREAMS: dict[str, list[Any]] = {
    "whole calls": [
        run_started(),
        text_start("m1"),
        text("m1", "hi"),
        text_end("m1"),
        *[
            e
            for i in range(5)
            for e in (start(f"c{i}", parent="m1"), args(f"c{i}", ARGS), end(f"c{i}"))
        ],
        run_finished(),
    ],
    "calls left open until the end": [
        run_started(),
        *[e for i in range(4) for e in (start(f"call{i}", parent="m1"), args(f"call{i}", ARGS))],
        *[end(f"call{i}") for i in range(4)],
        run_finished(),
    ],
    "odd calls": [
        run_started(),
        start("a"),
        args("a", '{"x":1,'),
        args("a", '"y":2}'),  # two deltas
        end("a"),
        start("b"),
        end("b"),  # no arguments
        start("c"),
        args("c", ""),
        end("c"),
        start("d"),
        args("d", '{"k":1,"k":2}'),  # a repeated key: a loss
        end("d"),
        start("e"),
        args("e", "[1,2]"),  # not an object: a loss where the vendor takes objects
        end("e"),
        start("f"),
        args("f", '{"n":NaN}'),
        end("f"),
        start("g"),
        args("g", ' {"a":{"b":1}} '),
        end("g"),
        start("h"),
        args("h", '{"s":"\\ud83d"}'),  # a lone surrogate, escaped
        end("h"),
        start("i", metadata={"x": 1}),
        args("i", '{"a":1}', metadata={"y": 2}),
        end("i", metadata={"z": 3}),
        start("a-long-id-no-vendor-takes-as-it-is-0123456789"),
        args("a-long-id-no-vendor-takes-as-it-is-0123456789", "{}"),
        end("a-long-id-no-vendor-takes-as-it-is-0123456789"),
        run_finished(),
    ],
    "interleaved calls and a reopening": [
        run_started(),
        start("p"),
        start("q"),
        args("p", '{"a":1}'),
        args("q", '{"b":2}'),
        end("q"),
        end("p"),
        start("p"),
        args("p", '{"c":3}'),
        end("p"),
        run_finished(),
    ],
    "losses between calls": [
        run_started(),
        start("a"),
        args("a", '{"k":1,"k":2}'),
        end("a"),
        result("a", "done"),
        {"type": "MESSAGES_SNAPSHOT", "messages": []},
        text_start("u1", role="user"),
        text("u1", "hello"),
        text_end("u1"),
        start("b"),
        args("b", "not json"),
        end("b"),
        run_finished(),
    ],
    "chunks and unknown material": [
        run_started(),
        chunk(toolCallId="k1", toolCallName="f", delta='{"a":'),
        chunk(delta="1}"),
        start("x"),
        args("x", '{"b":2}'),
        end("x"),
        {"type": "SOMETHING_NEW", "foo": 1},
        {"type": "TOOL_CALL_START", "toolCallId": "y", "toolCallName": "g", "extra": 1},
        args("y", '{"c":3}'),
        end("y"),
        run_finished(),
    ],
    "a bare turn": [
        start("a"),
        args("a", '{"x":1}'),
        end("a"),
        text_start("m"),
        text("m", "t"),
        text_end("m"),
        start("b"),
        args("b", '{"y":2}'),
    ],
    "an error run": [
        run_started(),
        start("a"),
        args("a", '{"x":1}'),
        end("a"),
        start("b"),
        args("b", '{"y":2}'),
        run_error("it broke"),
    ],
    # bad sequences: the error, and the chunks before it, must be the same
    "arguments for a call never opened": [
        run_started(),
        start("a"),
        args("a", '{"x":1}'),
        end("a"),
        start("b"),
        args("b", "{}"),
        args("zz", "{}"),
        end("b"),
        run_finished(),
    ],
    "an end for a call never opened": [
        run_started(),
        start("a"),
        args("a", '{"x":1}'),
        end("other"),
        run_finished(),
    ],
    "a start opened twice": [
        run_started(),
        start("a"),
        start("a"),
        run_finished(),
    ],
    "a run open at its finish": [
        run_started(),
        start("a"),
        args("a", '{"x":1}'),
        run_finished(),
    ],
    "cut before its end": [
        run_started(),
        start("a"),
        args("a", '{"x":1}'),
        end("a"),
    ],
    "nothing before the run": [
        start("a"),
        args("a", "{}"),
        end("a"),
        run_started(),
    ],
    "not an event": [
        run_started(),
        start("a"),
        args("a", "{}"),
        ["not", "an", "event"],
        end("a"),
        run_finished(),
    ],
    "a null field": [
        run_started(),
        start("a"),
        args("a", "{}"),
        {"type": "TOOL_CALL_END", "toolCallId": "a", "parentMessageId": None},
        run_finished(),
    ],
}


@dataclass
class Outcome:
    chunks: list[Any]
    losses: list[Any]
    warned: list[tuple[type[Warning], str]]
    error: tuple[type[BaseException], str, Any] | None


def _encoder(vendor: str) -> BaseEncoder:
    encoder = adapters.get(vendor).Encoder()
    assert isinstance(encoder, BaseEncoder)
    return encoder


def _outcome(run: Callable[[list[Any]], None]) -> Outcome:
    chunks: list[Any] = []
    error = None
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            run(chunks)
        except Exception as exc:  # the error is part of what must agree
            error = (type(exc), str(exc), getattr(exc, "index", None))
    warned = [(w.category, str(w.message)) for w in seen]
    return Outcome(chunks, [], warned, error)


def one_by_one(make: Callable[[], BaseEncoder], events: list[Any]) -> Outcome:
    encoder = make()

    def run(chunks: list[Any]) -> None:
        for ev in events:
            chunks += encoder.feed(ev)
        chunks += encoder.close()

    out = _outcome(run)
    out.losses = list(encoder.losses)
    return out


def in_lists(
    make: Callable[[], BaseEncoder], events: list[Any], cuts: Iterable[int], *, many: bool = False
) -> Outcome:
    """Fed with ``feed_into`` (``many``: ``feed_many``, whose chunks come back only when it
    returns) in the lists the cuts make."""
    encoder = make()
    bounds = [0, *sorted(set(cuts)), len(events)]

    def run(chunks: list[Any]) -> None:
        for a, b in pairwise(bounds):
            if many:
                chunks += encoder.feed_many(events[a:b])
            else:
                encoder.feed_into(events[a:b], chunks)
        chunks += encoder.close()

    out = _outcome(run)
    out.losses = list(encoder.losses)
    return out


def streamed(vendor: str, events: Any) -> Outcome:
    """``encode_stream`` (a list: fed in slices; any other iterable: an event at a time),
    the chunks it yields before an error counted."""

    def run(chunks: list[Any]) -> None:
        for c in adapters.get(vendor).encode_stream(events):
            chunks.append(c)

    return _outcome(run)


def _same(a: Outcome, b: Outcome, *, losses: bool = True) -> None:
    assert a.error == b.error
    assert a.chunks == b.chunks
    assert a.warned == b.warned
    if losses:
        assert a.losses == b.losses


def _cut_sets(n: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    sets = [[], list(range(1, n)), [n // 2]]
    sets += [rng.sample(range(1, n), k=min(n - 1, rng.randint(1, 4))) for _ in range(6) if n > 1]
    return sets


FORMS = {"models": _models, "dicts": lambda evs: list(evs), "mixed": _mixed}


@pytest.mark.parametrize("vendor", WHOLE + OTHERS)
@pytest.mark.parametrize("name", sorted(STREAMS))
@pytest.mark.parametrize("form", sorted(FORMS))
def test_lists_cut_anywhere_encode_as_events_one_by_one(vendor: str, name: str, form: str) -> None:
    events = FORMS[form](STREAMS[name])
    make = lambda: _encoder(vendor)  # noqa: E731
    alone = one_by_one(make, events)
    for cuts in _cut_sets(len(events), seed=len(name)):
        _same(alone, in_lists(make, events, cuts))
        if alone.error is None:
            _same(alone, in_lists(make, events, cuts, many=True))


@pytest.mark.parametrize("vendor", WHOLE + OTHERS)
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_encode_stream_of_a_list_is_that_of_an_iterator(vendor: str, name: str) -> None:
    events = _models(STREAMS[name])
    alone = streamed(vendor, iter(events))
    _same(alone, streamed(vendor, events), losses=False)
    # and what feed of each event gives
    direct = one_by_one(lambda: _encoder(vendor), events)
    assert alone.chunks == direct.chunks
    assert alone.error == direct.error


def test_an_error_in_a_list_names_its_event_and_keeps_what_came_before() -> None:
    """The failing event is the seventh of a list fed at once; the whole call before it
    was written (in one step) and is handed on, the start held before it handled before
    the raise (Gemini holds every chunk until a message names its response)."""
    events = _models(STREAMS["arguments for a call never opened"])
    for vendor in WHOLE:
        got = in_lists(lambda v=vendor: _encoder(v), events, [])
        assert got.error is not None
        assert got.error[2] == 6  # args("zz") is event 6 of the stream
        assert "tool-call-not-open" in got.error[1]
        if vendor != "gemini":
            assert got.chunks  # the call "a" (and any announcement) came out before it
        assert got.chunks == one_by_one(lambda v=vendor: _encoder(v), events).chunks


def _plain(vendor: str) -> BaseEncoder:
    """The vendor's encoder without the whole-call way: each event to its handler."""
    cls = adapters.get(vendor).Encoder
    plain = type(
        "Plain",
        (cls,),
        {
            "_whole_call": CheckedEncoder._whole_call,
            "_calls_opened": CheckedEncoder._calls_opened,
            "_calls_ended": CheckedEncoder._calls_ended,
        },
    )
    encoder = plain()
    assert isinstance(encoder, BaseEncoder)
    return encoder


@pytest.mark.parametrize("vendor", WHOLE)
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_whole_call_way_writes_what_the_handlers_write(vendor: str, name: str) -> None:
    events = _models(STREAMS[name])
    handlers = in_lists(lambda: _plain(vendor), events, [])
    _same(handlers, in_lists(lambda: _encoder(vendor), events, []))
    _same(handlers, one_by_one(lambda: _encoder(vendor), events))


@pytest.mark.parametrize("vendor", WHOLE)
def test_the_whole_call_way_is_taken(vendor: str) -> None:
    """A list of whole calls goes through the vendor's one-step way (so the tests above
    compare two ways, not one with itself)."""
    cls = adapters.get(vendor).Encoder
    taken: list[str] = []

    def whole(self: Any, s: Any, a: Any, e: Any) -> Any:
        taken.append(s.tool_call_id)
        return cls._whole_call(self, s, a, e)

    def opened(self: Any, events: list[Any], at: int, stop: int, out: Any) -> Any:
        taken.extend(ev.tool_call_id for ev in events[at:stop:2])
        return cls._calls_opened(self, events, at, stop, out)

    spies: dict[str, Any] = {"_whole_call": whole}
    if cls._calls_opened is not CheckedEncoder._calls_opened:
        spies["_calls_opened"] = opened
    spy = type("Spy", (cls,), spies)
    encoder = spy()
    events = _models(STREAMS["whole calls"]) + _models(STREAMS["calls left open until the end"])[1:]
    events = [ev for ev in events if ev.type.value != "RUN_FINISHED"] + [events[-1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (Mistral remaps these ids: losses)
        encoder.feed_many(events)
    assert set(taken) >= {f"c{i}" for i in range(5)}


@pytest.mark.parametrize("vendor", WHOLE)
def test_random_runs_agree(vendor: str) -> None:
    """Runs made of random calls, deltas, texts and ids, some of them broken."""
    rng = random.Random(vendor)
    texts = [ARGS, "{}", "", '{"a":1,"a":2}', "[1]", "nope", '{"x":{"y":1}}', ' {"z":3}']
    for trial in range(40):
        events: list[Any] = [run_started()]
        open_calls: list[str] = []
        for k in range(rng.randint(1, 25)):
            roll = rng.random()
            if roll < 0.4 or not open_calls:
                cid = f"c{rng.randint(0, 6)}" if rng.random() < 0.3 else f"c{trial}-{k}"
                events.append(start(cid, parent="m"))
                open_calls.append(cid)
            elif roll < 0.75:
                events.append(args(rng.choice(open_calls), rng.choice(texts)))
            else:
                cid = open_calls.pop(rng.randrange(len(open_calls)))
                events.append(end(cid))
        if rng.random() < 0.7:
            events += [end(cid) for cid in open_calls]
        if rng.random() < 0.8:
            events.append(run_finished())
        models = _models(events)
        alone = one_by_one(lambda: _encoder(vendor), models)
        for cuts in _cut_sets(len(models), seed=trial):
            _same(alone, in_lists(lambda: _encoder(vendor), models, cuts))
        _same(alone, in_lists(lambda: _plain(vendor), models, []))


@pytest.mark.parametrize("vendor", WHOLE)
@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
def test_a_decoded_run_encodes_alike_in_lists(vendor: str, shape: str) -> None:
    """The runs the benchmarks encode (a vendor turn decoded and framed), fed in lists cut
    anywhere and whole (``encode_stream``, in its slices), as one event at a time."""
    from benchmarks import paths
    from benchmarks.suite import VENDORS as BENCHES

    adapter = adapters.get(vendor)
    run = list(paths.run(adapter, paths.read(adapter, BENCHES[vendor].build(shape, 600))))
    alone = one_by_one(lambda: _encoder(vendor), run)
    assert alone.error is None and alone.chunks
    for cuts in _cut_sets(len(run), seed=7):
        _same(alone, in_lists(lambda: _encoder(vendor), run, cuts))
    assert streamed(vendor, run).chunks == alone.chunks
    _same(alone, in_lists(lambda: _plain(vendor), run, []))
