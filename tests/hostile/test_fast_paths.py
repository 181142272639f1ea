"""The decoders' fast paths read what the general walk reads: the same events, losses and
errors, on every recording, on the benchmark's streams, and on mutated chunks.

Anthropic reads most deltas straight to events (``Decoder._quick_delta``, from an SDK object
or a chunk its own reader checked); OpenAI Chat reads a chunk of one plain delta without
walking it (``Decoder._one_delta``). Each is compared with the same decoder whose fast path
always declines.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _mutate import structural
from _samples import samples
from benchmarks.suite import VENDORS as BENCHES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.errors import ToolwireError
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.jsontext import CheckedObject, checked
from toolwire.protocol.limits import limits
from toolwire.protocol.runs import RunFramer

FAST = {"anthropic": "_quick_delta", "openai_chat": "_one_delta", "bedrock": "_fast_delta"}


def _outcome(vendor: str, chunks: list[Any], fast: bool, hits: list[int]) -> tuple[Any, ...]:
    """Every event (as JSON), every warning's text, or the error's type and text; ``hits``
    gets the number of chunks the fast path read."""
    decoder = adapters.get(vendor).Decoder()
    own = getattr(decoder, FAST[vendor])
    taken = [0]

    def counted(*args: Any) -> Any:
        out = own(*args)
        taken[0] += out is not None
        return out

    # declining always is the general walk
    setattr(decoder, FAST[vendor], counted if fast else (lambda *_: None))
    try:
        return _decoded(decoder, chunks)
    finally:
        hits.append(taken[0])


def _decoded(decoder: Any, chunks: list[Any]) -> tuple[Any, ...]:
    """The run as ``feed`` per chunk makes it (the driver's and the async paths' way;
    ``frame_run`` reads the decoder's ``events``, below)."""
    run = RunFramer(decoder, thread_id="t", run_id="r")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            events = run.start()
            for chunk in chunks:
                events += run.feed(chunk)
            events += run.finish()
        except ToolwireError as exc:
            return ("error", type(exc).__name__, str(exc))
    return ("run", [e.model_dump_json() for e in events], [str(w.message) for w in seen])


def _both(vendor: str, chunks: list[Any]) -> int:
    """Asserts the two readings agree; how many chunks the fast path read."""
    hits: list[int] = []
    general = _outcome(vendor, chunks, False, hits)
    assert _outcome(vendor, chunks, True, hits) == general
    return hits[-1]


@pytest.mark.parametrize("vendor", FAST)
def test_every_recording_reads_the_same(vendor: str) -> None:
    lists = samples(vendor).chunk_lists
    assert lists, f"{vendor}: no streamed recording"
    adapter = adapters.get(vendor)
    read = [_both(vendor, list(adapter.sse_chunks(adapter.to_sse(c)))) for c in lists]
    assert sum(read) > 0  # (as its reader yields them: the fast path took some)


def _bench_streams(vendor: str, shape: str) -> list[list[Any]]:
    """A benchmark stream of ``shape`` as toolwire's reader yields it, and as the SDK's
    own objects."""
    bench = BENCHES[vendor]
    body = bench.build(shape, 300)
    return [list(adapters.get(vendor).sse_chunks(body)), bench.sdk_objects(body)]


@pytest.mark.parametrize("vendor", FAST)
@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
def test_the_benchmark_streams_read_the_same(vendor: str, shape: str) -> None:
    assert all(_both(vendor, chunks) > 100 for chunks in _bench_streams(vendor, shape))


def _as_read(chunk: Any) -> Any:
    """A mutated chunk as toolwire's reader would hand it over: checked, then trusted."""
    if not isinstance(chunk, dict):
        return chunk
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return CheckedObject.made(checked(chunk, "test", "chunk"))
    except ToolwireError:
        return chunk


@pytest.mark.parametrize("vendor", FAST)
@settings(
    max_examples=max(10, settings().max_examples // 2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), trusted=st.booleans())
def test_mutated_chunks_read_the_same(vendor: str, data: st.DataObject, trusted: bool) -> None:
    chunks = data.draw(structural(samples(vendor).chunk_lists))
    items = chunks if isinstance(chunks, list) else [chunks]
    _both(vendor, [_as_read(c) for c in items] if trusted else items)


# ---------------------------------------------------------------- a decoder's own stream loop

#: the decoders that read a whole stream of chunk dicts in a loop of their own
#: (``Decoder.events``); Gemini's, OpenAI Responses', Cohere's, Mistral's and Ollama's loops
#: read only toolwire's own reader's fused chunks (``tests/protocol/test_fastpath.py``)
FUSED_ONLY = ["gemini", "openai_responses", "cohere", "mistral", "ollama"]
OWN_LOOP = [
    n for n in adapters.NAMES if "events" in vars(adapters.get(n).Decoder) and n not in FUSED_ONLY
]


def _streamed(vendor: str, chunks: list[Any], own: bool) -> tuple[Any, ...]:
    """The stream as ``decode_stream`` reads it (``Decoder.events``), or as the general walk
    reads it (``feed`` of each chunk, any fast path declining, then ``close``): every event
    as JSON, every warning's text, or the error's type and text and how far the events got.
    With ``own``, also how many chunks the loop read without ``feed``."""
    decoder = adapters.get(vendor).Decoder()
    fed = [0]
    feed = decoder.feed

    def counted(chunk: Any) -> Any:
        fed[0] += 1
        return feed(chunk)

    decoder.feed = counted  # type: ignore[method-assign]
    if own:
        stream = decoder.events(chunks)
    else:
        if vendor in FAST:
            setattr(decoder, FAST[vendor], lambda *_: None)
        stream = BaseDecoder.events(decoder, chunks)
    got: list[str] = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            got.extend(e.model_dump_json() for e in stream)
        except ToolwireError as exc:
            return ("error", type(exc).__name__, str(exc), got)
    inline = len(chunks) - fed[0] if own else 0
    return ("events", got, [str(w.message) for w in seen], decoder.chunk_index, inline)


def _loops_agree(vendor: str, chunks: list[Any]) -> int:
    """Asserts the two readings agree; how many chunks the own loop read without ``feed``."""
    own = _streamed(vendor, chunks, True)
    general = _streamed(vendor, chunks, False)
    if own[0] == "events":
        assert own[:4] == general[:4]
        return int(own[4])
    assert own == general
    return 0


def test_the_decoders_with_a_fast_path_have_their_own_loop() -> None:
    assert sorted(OWN_LOOP) == sorted(FAST)  # the tests below would check nothing otherwise


@pytest.mark.parametrize("vendor", adapters.NAMES)
def test_every_recording_streams_as_it_feeds(vendor: str) -> None:
    # for a decoder without a loop of its own this holds by construction; it is checked for
    # every adapter so that one given a loop later is checked the day it gets it
    lists = samples(vendor).chunk_lists
    adapter = adapters.get(vendor)
    read = [_loops_agree(vendor, list(adapter.sse_chunks(adapter.to_sse(c)))) for c in lists]
    read += [_loops_agree(vendor, c) for c in lists]  # the plain dicts a caller may hand in
    assert (sum(read) > 0) == (vendor in OWN_LOOP)


@pytest.mark.parametrize("vendor", OWN_LOOP)
@pytest.mark.parametrize("shape", ["tool", "text", "parallel"])
def test_the_benchmark_streams_stream_as_they_feed(vendor: str, shape: str) -> None:
    read, sdk = _bench_streams(vendor, shape)
    assert _loops_agree(vendor, read) > 100
    # Anthropic's loop also reads the SDK's objects; OpenAI Chat's hands them to feed
    inline = _loops_agree(vendor, sdk)
    assert inline > 100 if vendor in SDK_LOOP else inline == 0


#: the own loops that read SDK objects too, not only toolwire's checked dicts (boto3's
#: dicts, for Bedrock)
SDK_LOOP = ["anthropic", "bedrock"]


def _sdk_objects(vendor: str, chunks: list[Any]) -> list[Any]:
    """Stream events as the vendor's SDK builds them from the wire: unvalidated, so a
    mutated field reaches the decoder as it came (``construct_type``, the SDK's own)."""
    if vendor == "anthropic":
        from anthropic._models import construct_type as anthropic_construct
        from anthropic.types import RawMessageStreamEvent

        return [anthropic_construct(type_=RawMessageStreamEvent, value=c) for c in chunks]
    if vendor == "bedrock":  # boto3 yields plain dicts, unchecked
        return [dict(c) if isinstance(c, dict) else c for c in chunks]
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    assert vendor == "openai_chat", vendor
    return [construct_type(type_=ChatCompletionChunk, value=c) for c in chunks]


@pytest.mark.parametrize("vendor", OWN_LOOP)
@settings(
    max_examples=max(10, settings().max_examples // 2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), form=st.sampled_from(["dicts", "read", "sdk"]))
def test_mutated_chunks_stream_as_they_feed(vendor: str, data: st.DataObject, form: str) -> None:
    chunks = data.draw(structural(samples(vendor).chunk_lists))
    items = chunks if isinstance(chunks, list) else [chunks]
    if form == "read":
        items = [_as_read(c) for c in items]
    elif form == "sdk":
        items = _sdk_objects(vendor, items)
    _loops_agree(vendor, items)


def _anthropic_stream(deltas: list[dict[str, Any]], *, after_stop: bool = False) -> list[Any]:
    """A text block, a tool call and a thinking block open, ``deltas`` into them, all closed."""
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude",
            "usage": {"input_tokens": 1, "output_tokens": 0},
        },
    }
    blocks = [
        {"type": "text", "text": ""},
        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
        {"type": "thinking", "thinking": "", "signature": ""},
    ]
    opened = [
        {"type": "content_block_start", "index": i, "content_block": b}
        for i, b in enumerate(blocks)
    ]
    closed = [{"type": "content_block_stop", "index": i} for i in range(len(blocks))]
    end = [
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
        {"type": "message_stop"},
    ]
    if after_stop:
        return [start, *opened, *closed, *end, *deltas]
    return [start, *opened, *deltas, *closed, *end]


def _delta(index: Any, **delta: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


FORGED = {
    "clean": [
        _delta(0, type="text_delta", text="hi"),
        _delta(1, type="input_json_delta", partial_json='{"a":'),
        _delta(2, type="thinking_delta", thinking="so"),
    ],
    "signature": [_delta(2, type="signature_delta", signature="sig")],
    "empty text": [_delta(0, type="text_delta", text="")],
    "lone surrogate in text": [_delta(0, type="text_delta", text="a\ud800b")],
    "lone surrogate in arguments": [_delta(1, type="input_json_delta", partial_json="\udc00")],
    "lone surrogate in thinking": [_delta(2, type="thinking_delta", thinking="\ud83d")],
    "lone surrogate in a signature": [_delta(2, type="signature_delta", signature="\ud800")],
    "index a string": [_delta("0", type="text_delta", text="x")],
    "index a bool": [_delta(True, type="input_json_delta", partial_json="x")],
    "index a float": [_delta(0.0, type="text_delta", text="x")],
    "index negative": [_delta(-1, type="text_delta", text="x")],
    "index of no block": [_delta(7, type="text_delta", text="x")],
    "index missing": [
        {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "x"}}
    ],
    "delta missing": [{"type": "content_block_delta", "index": 0}],
    "delta not an object": [{"type": "content_block_delta", "index": 0, "delta": "text"}],
    "delta type missing": [_delta(0, text="x")],
    "delta type not a string": [_delta(0, type=["text_delta"], text="x")],
    "delta type unknown": [_delta(0, type="future_delta", text="x")],
    "delta of another block's kind": [_delta(0, type="input_json_delta", partial_json="x")],
    "text not a string": [_delta(0, type="text_delta", text=5)],
    "text missing": [_delta(1, type="input_json_delta")],
    "citations": [_delta(0, type="citations_delta", citation={"type": "char_location"})],
}


@pytest.mark.parametrize("form", ["sdk", "read", "dicts"])
@pytest.mark.parametrize("name", FORGED)
def test_forged_deltas_stream_as_they_feed(name: str, form: str) -> None:
    for chunks in (
        _anthropic_stream(FORGED[name]),
        _anthropic_stream(FORGED[name], after_stop=True),
        _anthropic_stream(FORGED[name])[1:],
    ):  # (the last: before message_start)
        items = _in_form("anthropic", chunks, form)
        _loops_agree("anthropic", items)
        _both("anthropic", items)  # and feed's own fast path, chunk by chunk


def _in_form(vendor: str, chunks: list[Any], form: str) -> list[Any]:
    """Chunks as the SDK's objects, as toolwire's reader hands them over, or as given."""
    if form == "sdk":
        return _sdk_objects(vendor, chunks)
    if form == "read":
        return [_as_read(c) for c in chunks]
    return chunks


def test_a_depth_cap_that_a_delta_breaks_sends_it_the_general_way() -> None:
    from dataclasses import asdict

    from toolwire.protocol.limits import configure

    # a text block's deltas, in a stream nested no deeper than they are
    texts = [_delta(0, type="text_delta", text=t) for t in ("a", "b", "c")]
    plain = [
        c
        for c in _anthropic_stream(texts)
        if c.get("index") in (None, 0) or c["type"] == "content_block_delta"
    ]
    plain[0]["message"] = {"id": "msg_1", "type": "message", "role": "assistant"}
    chunks = _sdk_objects("anthropic", plain)
    previous = configure(max_json_depth=2)
    try:
        # the deltas are read (the cap allows them), but not by the loop, which vouches for
        # a delta's dict only under a cap above its depth
        assert _streamed("anthropic", chunks, True)[0] == "events"
        assert _loops_agree("anthropic", chunks) == 0
    finally:
        configure(**asdict(previous))
    assert _loops_agree("anthropic", chunks) == 3


def _chat_chunk(delta: dict[str, Any], finish: str | None = None, **top: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [choice], **top}


def _chat_args(text: Any, slot: Any = 0) -> dict[str, Any]:
    return _chat_chunk({"tool_calls": [{"index": slot, "function": {"arguments": text}}]})


def _chat_stream(forged: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Text open, then a call open, ``forged`` chunks into both, the choice finished."""
    call = {"index": 0, "id": "call_1", "type": "function"}
    call["function"] = {"name": "f", "arguments": ""}
    return [
        _chat_chunk({"role": "assistant", "content": "Hi"}),
        _chat_chunk({"content": " there"}),
        _chat_chunk({"tool_calls": [call]}),
        *forged,
        _chat_chunk({}, "tool_calls"),
    ]


def _nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


CHAT_FORGED = {
    "clean": [_chat_args('{"a":'), _chat_chunk({"content": "more"})],
    "empty fragment": [_chat_args("")],
    "lone surrogate in arguments": [_chat_args("\udc00")],
    "lone surrogate in text": [_chat_chunk({"content": "a\ud800b"})],
    "escaped-looking text": [_chat_chunk({"content": "\\ud800"})],
    "arguments not a string": [_chat_args(5)],
    "arguments missing": [_chat_chunk({"tool_calls": [{"index": 0, "function": {}}]})],
    "slot a bool": [_chat_args("x", True)],
    "slot a string": [_chat_args("x", "0")],
    "slot of no call": [_chat_args("x", 4)],
    "a fragment with a name": [
        _chat_chunk({"tool_calls": [{"index": 0, "function": {"name": "g", "arguments": "x"}}]})
    ],
    "two fragments": [_chat_chunk({"tool_calls": [_chat_args("x")["choices"][0]["delta"]] * 2})],
    "text and a fragment": [_chat_chunk({"content": "t", "tool_calls": [{"index": 0}]})],
    "content not a string": [_chat_chunk({"content": ["t"]})],
    "a refusal": [_chat_chunk({"refusal": "no"})],
    "usage on a fragment": [{**_chat_args("x"), "usage": {"prompt_tokens": 1}}],
    "an error on a fragment": [{**_chat_args("x"), "error": {"message": "boom"}}],
    "nested past the cap": [{**_chat_args("x"), "extra": _nested(limits().max_json_depth + 5)}],
    "a second choice": [
        {**_chat_args("x"), "choices": [{"index": 1, "delta": {"content": "x"}}] * 2}
    ],
    "choice index a string": [
        {**_chat_args("x"), "choices": [{"index": "0", "delta": {"content": "x"}}]}
    ],
    "an empty finish": [_chat_chunk({"content": "x"}, "")],
}


@pytest.mark.parametrize("form", ["sdk", "read", "dicts"])
@pytest.mark.parametrize("name", CHAT_FORGED)
def test_forged_chat_chunks_stream_as_they_feed(name: str, form: str) -> None:
    for chunks in (_chat_stream(CHAT_FORGED[name]), _chat_stream(CHAT_FORGED[name])[2:]):
        # (the second: the fragments come before any choice is met)
        items = _in_form("openai_chat", chunks, form)
        _loops_agree("openai_chat", items)
        _both("openai_chat", items)  # and feed's own fast path, chunk by chunk


@pytest.mark.parametrize("vendor", ["anthropic", "openai_chat"])
def test_chunks_read_under_a_higher_cap_are_walked_again_under_a_lower_one(vendor: str) -> None:
    from dataclasses import asdict

    from toolwire.protocol.limits import configure

    # a delta chunk carrying a field nested past the lower cap, read under the default
    if vendor == "anthropic":
        deep = {**_delta(0, type="text_delta", text="x"), "extra": _nested(12)}
        chunks = _anthropic_stream([deep])
    else:
        chunks = _chat_stream([{**_chat_args("x"), "extra": _nested(12)}])
    read = [_as_read(c) for c in chunks]
    assert all(type(c) is CheckedObject and c.trusted() for c in read)
    previous = configure(max_json_depth=8)
    try:
        own = _streamed(vendor, read, True)
        assert own[0] == "error" and "nested" in own[2]  # the walk refuses it, as feed does
        _loops_agree(vendor, read)
    finally:
        configure(**asdict(previous))
