"""Re-chunking, encode round trips (through the real SDK), and bad input."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _openai_chat_sdk import accumulate, stream_body
from _openai_chat_support import PROJECT_CASSETTES, REFERENCE_STREAM, dumped, summarize
from ag_ui.core import (
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TokenUsage,
    ToolCallResultEvent,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from losses_seen import losses_are_an_outcome

from toolwire.adapters import openai_chat
from toolwire.errors import ProtocolViolation, ToolwireError, VendorDataError, VendorStreamError
from toolwire.losses import ContentLossWarning, held
from toolwire.testing.recording_cache import recording

STREAMS = {
    p.name: recording(p)[0].response_body
    for p in sorted(PROJECT_CASSETTES.glob("*.yaml"))
    if p.name not in ("relocated_media.yaml", "in_stream_error.yaml")
}
if REFERENCE_STREAM.is_file():
    STREAMS["reference.sse"] = REFERENCE_STREAM.read_bytes()


def decode_lenient(body: bytes | list[bytes]) -> list[Any]:
    """Events from the feed phase (close() may report truncation; that is checked elsewhere),
    then the losses announced on the way (a stream with material after [DONE] loses it: the
    same however it is cut)."""
    dec = openai_chat.Decoder()
    with held() as lost:
        events = [e for c in openai_chat.sse_chunks(body) for e in dec.feed(c)]
    return events + [str(x) for x in lost]


# ------------------------------------------------------------------ re-chunking


@settings(max_examples=3 * settings.default.max_examples // 5, deadline=None)
@given(name=st.sampled_from(sorted(STREAMS)), data=st.data())
def test_any_split_gives_identical_events(name: str, data: st.DataObject) -> None:
    body = STREAMS[name]
    cuts = sorted(data.draw(st.sets(st.integers(1, len(body) - 1), max_size=40)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert decode_lenient(pieces) == decode_lenient(body)


@settings(max_examples=3 * settings.default.max_examples // 10, deadline=None)
@given(st.sampled_from(["\n", "\r\n"]), st.integers(1, 7))
def test_crlf_and_small_pieces(line_end: str, size: int) -> None:
    body = STREAMS["parallel_three_interleaved.yaml"]
    text = body.decode().replace("\n", line_end).encode()
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    assert decode_lenient(pieces) == decode_lenient(body)


def test_reading_stops_at_done() -> None:
    body = STREAMS["refusal.yaml"] + b'data: {"error": {"message": "after done"}}\n\n'
    *events, loss = decode_lenient(body)
    assert events == decode_lenient(STREAMS["refusal.yaml"])
    assert "material-after-end" in loss and "1 SSE event(s) after [DONE]" in loss


# ---------------------------------------------------------------- encode round trip


def _sources() -> list[tuple[str, bytes]]:
    return [(n, b) for n, b in STREAMS.items() if "truncated" not in n and "done_without" not in n]


@pytest.mark.parametrize("name,body", _sources(), ids=[n for n, _ in _sources()])
def test_encode_round_trip(name: str, body: bytes) -> None:
    events = list(openai_chat.decode_stream(openai_chat.sse_chunks(body)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sse = openai_chat.to_sse(openai_chat.encode_stream(events, model="gpt-4o"))
    if name == "compat_reasoning_content.yaml":
        # OpenAI's own wire has no reasoning: dropped, and said so
        assert [w.category for w in caught] == [ContentLossWarning]
        events = [e for e in events if not e.type.value.startswith("REASONING")]
    else:
        assert caught == []
    assert sse.endswith(b"data: [DONE]\n\n")
    # the SDK reads our bytes back to the same calls, ids, names and argument text
    original = accumulate(stream_body(body))
    ours = accumulate(stream_body(sse))
    for index, choice in original.items():
        got = ours[index]
        have = [(c.id, c.name, c.arguments) for c in got.calls]
        want = [(c.id, c.name, c.arguments) for c in choice.calls]
        if name == "legacy_function_call.yaml":
            # a legacy function_call carries no id; it goes back as a tool_calls entry with the
            # id the decoder gave it, and the same name and argument text
            ((cid, *rest),) = have
            ((none, *recorded),) = want
            assert none is None and cid and rest == recorded
        else:
            assert have == want
        assert (got.text, got.refusal) == (choice.text, choice.refusal)
        assert got.reasoning == ""
    # and decoding our bytes gives exactly the events we encoded
    again = list(openai_chat.decode_stream(openai_chat.sse_chunks(sse)))
    if name == "compat_index_reuse.yaml":
        # OpenAI's own wire gives each call its own index and ends calls only at finish_reason,
        # so the early TOOL_CALL_END of a reused index is the one thing it cannot carry.
        assert summarize(again) == summarize(events)
    else:
        assert dumped(again) == dumped(events)


def _length_cut_stream() -> bytes:
    """Two choices; choice 0 stops at max_tokens in the middle of a call (finish "length")."""
    head = {"id": "chatcmpl-len", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    call = {"index": 0, "id": "call_len", "type": "function"}
    deltas = [
        (0, {"role": "assistant", "content": None}, None),
        (0, {"tool_calls": [{**call, "function": {"name": "f", "arguments": '{"a": '}}]}, None),
        (1, {"role": "assistant", "content": "Done."}, None),
        (0, {}, "length"),
        (1, {}, "content_filter"),
    ]
    chunks = [
        {**head, "choices": [{"index": i, "delta": d, "logprobs": None, "finish_reason": f}]}
        for i, d, f in deltas
    ]
    return openai_chat.to_sse(chunks)


@pytest.mark.parametrize(
    "name,body",
    [*_sources(), ("length_cut", _length_cut_stream())],
    ids=[*(n for n, _ in _sources()), "length_cut"],
)
def test_a_framed_run_encodes_back_to_the_recorded_finish_reasons(name: str, body: bytes) -> None:
    # frame_run puts each choice's finish_reason on RUN_FINISHED.metadata; the encoder sends
    # those back ("length" says the output was cut), not a guess from the calls.
    from toolwire.protocol.runs import frame_run

    dec = openai_chat.Decoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContentLossWarning)  # reasoning_content has no place
        framed = list(frame_run(dec, openai_chat.sse_chunks(body), thread_id="t", run_id="r"))
        sse = openai_chat.to_sse(openai_chat.encode_stream(framed, model="gpt-4o"))
    assert isinstance(framed[-1], RunFinishedEvent)
    original = {i: c.finish_reason for i, c in accumulate(stream_body(body)).items()}
    if name == "legacy_function_call.yaml":
        # the encoder writes the legacy call as a tool_calls entry; its finish says so
        original = {i: "tool_calls" for i in original}
    ours = {i: c.finish_reason for i, c in accumulate(stream_body(sse)).items()}
    assert ours == original


def test_a_later_choice_that_speaks_first_keeps_its_index_and_the_completion_id() -> None:
    # n=2: the choices' deltas interleave, and nothing makes choice 0 speak first
    head = {"id": "chatcmpl-n2late", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    call = {"index": 0, "id": "call_late", "type": "function"}
    deltas = [
        (0, {"role": "assistant", "content": ""}, None),
        (1, {"role": "assistant", "content": ""}, None),
        (1, {"tool_calls": [{**call, "function": {"name": "f", "arguments": "{}"}}]}, None),
        (0, {"content": "Choice zero."}, None),
        (1, {}, "tool_calls"),
        (0, {}, "stop"),
    ]
    body = openai_chat.to_sse(
        {**head, "choices": [{"index": i, "delta": d, "logprobs": None, "finish_reason": f}]}
        for i, d, f in deltas
    )
    events = list(openai_chat.decode_stream(openai_chat.sse_chunks(body)))
    sse = openai_chat.to_sse(openai_chat.encode_stream(events, model="m"))
    original, ours = stream_body(body), stream_body(sse)
    assert {c.id for c in ours} == {c.id for c in original} == {"chatcmpl-n2late"}
    want, got = accumulate(original), accumulate(ours)
    assert sorted(got) == sorted(want) == [0, 1]
    for index, choice in want.items():
        assert got[index].text == choice.text
        assert [(c.id, c.name, c.arguments) for c in got[index].calls] == [
            (c.id, c.name, c.arguments) for c in choice.calls
        ]
    again = list(openai_chat.decode_stream(openai_chat.sse_chunks(sse)))
    assert summarize(again) == summarize(events)


def test_encode_run_with_usage_result_and_error() -> None:
    events: list[Any] = [
        RunStartedEvent(thread_id="t", run_id="r1"),
        *openai_chat.decode_stream(openai_chat.sse_chunks(STREAMS["malformed_arguments.yaml"])),
        ToolCallResultEvent(message_id="tm", tool_call_id="call_tw_bad_2", content="Berlin"),
        RunFinishedEvent(
            thread_id="t",
            run_id="r1",
            usage=[TokenUsage(input_tokens=10, output_tokens=5, cached_input_tokens=4)],
        ),
    ]
    enc = openai_chat.Encoder(model="gpt-4o")
    with pytest.warns(ContentLossWarning, match="tool-result-dropped"):
        chunks = [c for e in events for c in enc.feed(e)] + enc.close()
    assert [loss.kind for loss in enc.losses] == ["tool-result-dropped"]
    parsed = stream_body(openai_chat.to_sse(chunks))
    assert parsed[-1].usage is not None
    assert (parsed[-1].usage.prompt_tokens, parsed[-1].usage.completion_tokens) == (10, 5)
    assert parsed[-1].usage.prompt_tokens_details.cached_tokens == 4
    assert accumulate(parsed)[0].finish_reason == "tool_calls"
    # a RUN_ERROR becomes the API's in-stream error object
    err = list(openai_chat.encode_stream([RunErrorEvent(message="boom", code="overloaded")]))
    with pytest.raises(VendorStreamError, match="overloaded: boom"):
        list(openai_chat.decode_stream(err))


def test_encoder_checks_the_stream() -> None:
    enc = openai_chat.Encoder()
    with pytest.raises(ProtocolViolation) as info:
        enc.feed({"type": "TOOL_CALL_ARGS", "toolCallId": "nope", "delta": "{}"})
    assert info.value.code == "tool-call-not-open"


# ------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "chunk,where",
    [
        ({"id": "c", "choices": "x"}, "chunk 0: choices"),
        ({"id": "c", "choices": [{"index": "0", "delta": {}}]}, "chunk 0: choices[0].index"),
        ({"id": "c", "choices": [{"index": 0, "delta": {"content": 5}}]}, "delta.content"),
        (
            {
                "id": "c",
                "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": 3}]}}],
            },
            "tool_calls[0].id",
        ),
        (
            {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": {"index": 0}}}]},
            "delta.tool_calls",
        ),
        ({"id": "c", "choices": [], "usage": {"prompt_tokens": -1}}, "usage.prompt_tokens"),
    ],
)
def test_malformed_chunks_name_place_and_field(chunk: dict[str, Any], where: str) -> None:
    with pytest.raises(VendorDataError) as info:
        list(openai_chat.decode_stream([chunk]))
    assert where in str(info.value)


def test_conflicting_name_on_a_continuation_is_an_error() -> None:
    def frag(name: str) -> dict[str, Any]:
        call = {"index": 0, "id": "call_1", "function": {"name": name, "arguments": ""}}
        return {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}

    with pytest.raises(VendorDataError, match=r"chunk 1: .*function\.name"):
        list(openai_chat.decode_stream([frag("a"), frag("b")]))


def test_a_call_that_never_gets_a_name_is_an_error() -> None:
    nameless = {"index": 0, "id": "call_1", "function": {"arguments": "{}"}}
    chunks = [
        {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [nameless]}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    with pytest.raises(VendorDataError, match=r"chunk 0: choices\[0\]\.delta\.tool_calls\[0\]"):
        list(openai_chat.decode_stream(chunks))
    whole = {"id": "c", "choices": [{"message": {"tool_calls": [nameless]}}]}
    with pytest.raises(VendorDataError, match=r"response\.choices\[0\]\.message\.tool_calls"):
        openai_chat.decode_response(whole)


def test_non_json_request_values_are_reported() -> None:
    with pytest.raises(VendorDataError, match="not JSON data"):
        openai_chat.decode_request({"messages": [{"role": "user", "content": "hi", "x": object()}]})


def test_not_json_sse_data_names_the_event() -> None:
    with pytest.raises(VendorDataError, match="SSE event 1"):
        list(openai_chat.sse_chunks(b'data: {"id":"c","choices":[]}\n\ndata: {oops\n\n'))


def test_unknown_chunks_are_skipped() -> None:
    unknown = {"object": "chat.completion.keepalive", "x": 1}
    body = STREAMS["refusal.yaml"]
    chunks = list(openai_chat.sse_chunks(body))
    mixed = [unknown, *chunks[:2], unknown, *chunks[2:]]
    assert dumped(list(openai_chat.decode_stream(mixed))) == dumped(
        list(openai_chat.decode_stream(chunks))
    )


def test_id_less_calls_get_stable_minted_ids() -> None:
    chunks = [
        {"id": "c9", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"name": "f", "arguments": "{}"}}]}}]},
        {"id": "c9", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]  # fmt: skip
    first = list(openai_chat.decode_stream(chunks))
    assert first == list(openai_chat.decode_stream(chunks))
    assert first[0].tool_call_id.startswith("call_")


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["id", "choices", "index", "delta", "tool_calls", "function", "name",
                 "arguments", "content", "finish_reason", "usage", "refusal", "type"]
            ),
            inner,
            max_size=4,
        ),
        max_leaves=12,
    )
)  # fmt: skip
def test_garbage_never_escapes_as_a_bare_error(chunk: Any) -> None:
    try:
        list(openai_chat.decode_stream([chunk]))
    except ToolwireError:
        pass


def test_async_decode_matches_sync() -> None:
    import asyncio

    chunks = list(openai_chat.sse_chunks(STREAMS["two_choices.yaml"]))

    async def run() -> list[Any]:
        async def gen() -> Any:
            for c in chunks:
                yield c

        return [e async for e in openai_chat.adecode_stream(gen())]

    assert asyncio.run(run()) == list(openai_chat.decode_stream(chunks))


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from(["", "x", "user", "tool"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(
            ["role", "content", "messages", "tool_calls", "tool_call_id", "id", "function",
             "name", "arguments", "type", "text", "image_url", "url", "file", "file_data",
             "choices", "message", "finish_reason", "tools", "index", "error"]
        ),
        inner,
        max_size=4,
    ),
    max_leaves=14,
)  # fmt: skip


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(_JSONISH)
def test_garbage_bodies_raise_only_toolwire_errors(value: Any) -> None:
    for fn in (openai_chat.decode_request, openai_chat.decode_response):
        try:
            with losses_are_an_outcome():
                fn(value)
        except ToolwireError:
            pass


def test_imports_and_decodes_without_the_sdk() -> None:
    """The adapter needs no openai package: run it where importing openai fails."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['openai'] = None\n"
        "from toolwire.adapters import openai_chat as oc\n"
        "chunks = [{'id': 'c', 'choices': [{'index': 0, 'delta': {'content': 'hi'},"
        " 'finish_reason': 'stop'}]}]\n"
        "print(len(list(oc.decode_stream(chunks))), sys.modules['openai'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "None"]


def test_to_sse_takes_sdk_objects_too() -> None:
    body = STREAMS["parallel_three_interleaved.yaml"]
    objects = stream_body(body)
    again = openai_chat.to_sse(objects)
    assert accumulate(stream_body(again)) == accumulate(objects)


@pytest.mark.parametrize(
    ("usage", "field"),
    [
        ({"prompt_tokens": 2**53}, "prompt_tokens"),
        ({"completion_tokens_details": {"reasoning_tokens": 2**60}}, "reasoning_tokens"),
    ],
)
def test_token_counts_past_what_usage_can_hold_are_a_vendor_data_error(
    usage: dict[str, Any], field: str
) -> None:
    # TokenUsage counts are JSON-safe integers (at most 2**53 - 1)
    with pytest.raises(VendorDataError, match=field):
        list(openai_chat.decode_stream([{"id": "c", "choices": [], "usage": usage}]))
