"""Our hand-built cassettes: each parsed by the real SDK (vcrpy replay), then by the decoder."""

from __future__ import annotations

import functools
import json
from typing import Any

import openai
import pytest
from _openai_chat_sdk import accumulate, from_completion
from _openai_chat_support import PROJECT_CASSETTES, summarize
from openai import OpenAI

from toolwire.adapters import openai_chat
from toolwire.errors import TruncatedStream, VendorStreamError
from toolwire.losses import PartsDroppedWarning
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run
from toolwire.testing import replay
from toolwire.testing.recording_cache import recording

FILES = sorted(PROJECT_CASSETTES.glob("*.yaml"))


def load(name: str) -> tuple[dict[str, Any], bytes]:
    ex = recording(PROJECT_CASSETTES / name)[0]
    return ex.request_body, ex.response_body


@functools.cache  # a client holds only settings; each new one costs a TLS context
def _client() -> OpenAI:
    return OpenAI(api_key="test-key")


def sdk(name: str) -> Any:
    """The SDK's own parse of the cassette (the request re-issued under vcrpy replay)."""
    body, _ = load(name)
    client = _client()
    with replay(str(PROJECT_CASSETTES / name)):
        if body.get("stream"):
            return list(client.chat.completions.create(**body))
        return client.chat.completions.create(**body)


def events_of(name: str) -> list[Any]:
    return list(openai_chat.decode_stream(openai_chat.sse_chunks(load(name)[1])))


def test_every_cassette_is_tested() -> None:
    assert {p.name for p in FILES} == set(EXPECT) | {
        "in_stream_error.yaml",
        "relocated_media.yaml",
        "n2_repeated_id.yaml",  # test_openai_chat_repeated_ids.py
    }


EXPECT = {
    "parallel_three_interleaved.yaml": 1,
    "two_choices.yaml": 2,
    "malformed_arguments.yaml": 1,
    "compat_repeated_ids.yaml": 1,
    "compat_index_reuse.yaml": 1,
    "compat_reasoning_content.yaml": 1,
    "legacy_function_call.yaml": 1,
    "refusal.yaml": 1,
    "truncated_before_finish.yaml": 1,
    "done_without_finish.yaml": 1,
}


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_sdk_parses_and_decoder_agrees(name: str) -> None:
    chunks = sdk(name)
    expected = accumulate(chunks)
    assert len(expected) == EXPECT[name]
    cid = chunks[0].id
    try:
        events = list(openai_chat.decode_stream(chunks))
    except TruncatedStream:
        assert any(c.finish_reason is None for c in expected.values())
        dec = openai_chat.Decoder()
        events = [e for c in chunks for e in dec.feed(c)]
    seen = summarize(events)
    for index, choice in expected.items():
        got = seen[cid if index == 0 else mint_id("msg", cid, "choice", index)]
        assert got.text == choice.text + choice.refusal
        assert [(n, a) for _, n, a in got.calls] == [(c.name, c.arguments) for c in choice.calls]
        ids = [c.id for c in choice.calls]
        if None not in ids:  # the legacy function_call carries no id: one is minted
            assert [i for i, _, _ in got.calls] == ids
    # identical events from SDK objects and from the raw bytes
    assert events == _decode_bytes_lenient(name)


def _decode_bytes_lenient(name: str) -> list[Any]:
    dec = openai_chat.Decoder()
    return [e for c in openai_chat.sse_chunks(load(name)[1]) for e in dec.feed(c)]


def recorded_chunks(name: str) -> list[dict[str, Any]]:
    """The cassette's SSE ``data:`` payloads, read with ``json.loads`` (no toolwire parsing)."""
    return [
        json.loads(line[5:])
        for line in load(name)[1].decode("utf-8").splitlines()
        if line.startswith("data:") and line[5:].strip() != "[DONE]"
    ]


def recorded_usage(name: str) -> tuple[str, dict[str, Any]]:
    """(model, usage) of the cassette's one usage chunk."""
    (chunk,) = [c for c in recorded_chunks(name) if c.get("usage")]
    return chunk["model"], chunk["usage"]


def test_interleaved_calls_stay_open_until_finish() -> None:
    name = "parallel_three_interleaved.yaml"
    events = events_of(name)
    kinds = [e.type.value for e in events]
    first_end = kinds.index("TOOL_CALL_END")
    assert "TOOL_CALL_ARGS" not in kinds[first_end:]  # nothing ends before the last fragment
    (choice,) = accumulate(sdk(name)).values()
    assert len(choice.calls) == 3
    starts = [e.tool_call_id for e in events if e.type.value == "TOOL_CALL_START"]
    ends = [e.tool_call_id for e in events if e.type.value == "TOOL_CALL_END"]
    assert starts == [c.id for c in choice.calls] and sorted(ends) == sorted(starts)


def test_usage_follows_openai_accounting() -> None:
    name = "parallel_three_interleaved.yaml"
    dec = openai_chat.Decoder()
    for c in openai_chat.sse_chunks(load(name)[1]):
        dec.feed(c)
    dec.close()
    (u,) = dec.usage
    model, usage = recorded_usage(name)
    # OpenAI counts cached tokens inside prompt_tokens: input is prompt_tokens as sent
    assert (u.input_tokens, u.cached_input_tokens, u.output_tokens, u.total_tokens) == (
        usage["prompt_tokens"],
        usage["prompt_tokens_details"]["cached_tokens"],
        usage["completion_tokens"],
        usage["total_tokens"],
    )
    assert u.cached_input_tokens  # the cassette does have a cache hit to check
    assert u.provider == "openai" and u.model == model
    assert u.cache_write_input_tokens is None  # not given: absent, never 0


def test_two_choices_are_two_messages() -> None:
    machine = StreamMachine()
    events = list(
        frame_run(
            openai_chat.Decoder(),
            openai_chat.sse_chunks(load("two_choices.yaml")[1]),
            thread_id="t",
            run_id="r",
            machine=machine,
        )
    )
    assert events[-1].type.value == "RUN_FINISHED"
    assistants = [m for m in machine.messages if m.role == "assistant"]
    # choice 0 (text + one call) first, then choice 1 (two calls), as the SDK reads them
    expected = accumulate(sdk("two_choices.yaml"))
    assert sorted(expected) == [0, 1]
    assert [[c.id for c in m.tool_calls or []] for m in assistants] == [
        [c.id for c in expected[i].calls] for i in (0, 1)
    ]
    assert [(c.function.name, c.function.arguments) for c in assistants[1].tool_calls] == [
        (c.name, c.arguments) for c in expected[1].calls
    ]
    assert expected[0].text and not expected[1].text
    assert assistants[0].content == expected[0].text and not assistants[1].content


def test_malformed_and_empty_arguments_pass_through() -> None:
    name = "malformed_arguments.yaml"
    chunks = sdk(name)
    (choice,) = accumulate(chunks).values()
    expected = [(c.id, c.name, c.arguments) for c in choice.calls]
    # the cassette holds one call whose text is not JSON and one with no text at all
    with pytest.raises(ValueError):
        json.loads(expected[0][2])
    assert [c[2] for c in expected[1:]] == [""]
    assert summarize(events_of(name))[chunks[0].id].calls == expected


@pytest.mark.parametrize("name", ["truncated_before_finish.yaml", "done_without_finish.yaml"])
def test_cut_streams_are_truncated_not_success(name: str) -> None:
    with pytest.raises(TruncatedStream, match="choice 0 ended without a finish_reason"):
        events_of(name)
    events = list(
        frame_run(
            openai_chat.Decoder(),
            openai_chat.sse_chunks(load(name)[1]),
            thread_id="t",
            run_id="r",
        )
    )
    assert events[-1].type.value == "RUN_ERROR" and events[-1].code == "truncated"


def test_in_stream_error_surfaces_like_the_sdk() -> None:
    with pytest.raises(openai.APIError, match="The server had an error"):
        sdk("in_stream_error.yaml")
    with pytest.raises(VendorStreamError) as info:
        events_of("in_stream_error.yaml")
    assert info.value.error_type == "server_error"
    assert info.value.message.startswith("The server had an error")
    assert info.value.retryable


def test_refusal_is_marked() -> None:
    events = events_of("refusal.yaml")
    contents = [e for e in events if e.type.value == "TEXT_MESSAGE_CONTENT"]
    assert contents and all(e.metadata == {"openai.refusal": True} for e in contents)


def test_whole_response_and_its_request() -> None:
    completion = sdk("relocated_media.yaml")
    expected = from_completion(completion)
    events = openai_chat.decode_response(completion)
    assert events == openai_chat.decode_response(completion.model_dump(mode="json"))
    assert summarize(events)[completion.id].text == expected[0].text
    body, _ = load("relocated_media.yaml")
    run = openai_chat.decode_request(body)
    user = run.messages[-1]
    kinds = [(p.type, p.source.type) for p in user.content]
    assert kinds == [
        ("image", "data"),
        ("image", "url"),
        ("document", "file"),
        ("document", "data"),
    ]
    assert user.content[1].metadata == {"openai.detail": "low"}
    assert user.content[2].source.provider == "openai"
    assert user.content[3].metadata == {"filename": "report.pdf"}
    again = openai_chat.encode_request(run, model="gpt-4o")
    assert again["messages"] == body["messages"]
    assert again["tools"] == body["tools"]


def test_reasoning_content_becomes_a_reasoning_item() -> None:
    chunks = sdk("compat_reasoning_content.yaml")
    expected = accumulate(chunks)[0]
    events = list(openai_chat.decode_stream(chunks))
    kinds = [e.type.value for e in events]
    assert kinds[:2] == ["REASONING_START", "REASONING_MESSAGE_START"]
    thought = "".join(e.delta for e in events if e.type.value == "REASONING_MESSAGE_CONTENT")
    assert thought == expected.reasoning
    # the reasoning item ends before the call starts
    assert kinds.index("REASONING_END") < kinds.index("TOOL_CALL_START")
    dec = openai_chat.Decoder()
    for c in chunks:
        dec.feed(c)
    _, usage = recorded_usage("compat_reasoning_content.yaml")
    assert dec.usage[0].reasoning_tokens == usage["completion_tokens_details"]["reasoning_tokens"]
    assert dec.usage[0].output_tokens == usage["completion_tokens"]


def _media_in_tool_results() -> tuple[Any, dict[str, Any]]:
    """The cassette's history with its relocated media put back into the tool results:
    images to the chart call, documents to the report call."""
    body, _ = load("relocated_media.yaml")
    run = openai_chat.decode_request(body)
    *history, moved = run.messages
    chart, report = history[3], history[4]
    images = [p for p in moved.content if p.type == "image"]
    documents = [p for p in moved.content if p.type == "document"]
    history[3] = chart.model_copy(update={"content": [*chart.content, *images]})
    history[4] = report.model_copy(update={"content": [*report.content, *documents]})
    return run.model_copy(update={"messages": history}), body


def test_tool_result_media_relocates_to_the_recorded_request() -> None:
    """Media of each source kind in tool results, relocated, gives the request the SDK sent."""
    run, body = _media_in_tool_results()
    losses: list[Any] = []
    # the recorded request carries no labels (test_relocated_media_labels.py has those)
    again = openai_chat.encode_request(
        run, model="gpt-4o", media="relocate", losses=losses, media_label=None
    )
    assert again["messages"] == body["messages"]
    assert losses == []


def test_tool_result_media_dropped_by_default() -> None:
    run, body = _media_in_tool_results()
    with pytest.warns(PartsDroppedWarning) as caught:
        again = openai_chat.encode_request(run, model="gpt-4o")
    assert again["messages"] == body["messages"][:-1]  # no user message after the results
    assert len(caught) == 4


def test_the_sdk_stream_helper_events_decode_like_the_chunks() -> None:
    """``client.chat.completions.stream()`` yields ChunkEvent & co: same events as the chunks."""
    from _openai_chat_sdk import client_for_body

    _, body = load("parallel_three_interleaved.yaml")
    with client_for_body(body).chat.completions.stream(model="gpt-4o", messages=[]) as stream:
        helper = list(stream)
    assert {e.type for e in helper} >= {"chunk", "content.delta"}
    assert list(openai_chat.decode_stream(helper)) == events_of("parallel_three_interleaved.yaml")


async def test_async_sdk_stream_decodes_like_the_sync_one() -> None:
    import httpx2
    from openai import AsyncOpenAI

    _, body = load("two_choices.yaml")

    async def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    transport = httpx2.MockTransport(handler)
    client = AsyncOpenAI(api_key="test-key", http_client=httpx2.AsyncClient(transport=transport))
    stream = await client.chat.completions.create(model="gpt-4o", messages=[], stream=True)
    events = [e async for e in openai_chat.adecode_stream(stream)]
    assert events == events_of("two_choices.yaml")
    await client.close()
