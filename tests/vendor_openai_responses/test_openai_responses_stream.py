"""Stream-level properties: any split of the bytes, encode round trips, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from _openai_responses_support import (
    CORPUS,
    OURS,
    client,
    decoded_calls,
    dump,
    exchanges,
    final_items,
    payloads,
    recorded_calls,
)
from ag_ui.core import (
    EventType,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.adapters import openai_responses as a
from toolwire.errors import ToolwireError, TruncatedStream, VendorDataError
from toolwire.losses import ContentLossWarning
from toolwire.protocol import SSEParser
from toolwire.testing import replay

GOOD = ["reasoning_parallel_calls", "web_search_sources", "image_generation", "hosted_tools"]
BODIES = {name: exchanges(OURS / f"{name}.yaml")[0].response_body for name in GOOD}


def _decode_bytes(pieces: list[bytes]) -> list[dict[str, Any]]:
    parser = SSEParser()
    d = a.Decoder()
    out = []
    for piece in pieces:
        for ev in parser.feed(piece):
            out += d.feed(json.loads(ev.data))
    for ev in parser.close():
        out += d.feed(json.loads(ev.data))
    out += d.close()
    return dump(out)


@settings(
    max_examples=3 * settings.default.max_examples // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(name=st.sampled_from(GOOD), data=st.data())
def test_any_split_of_the_bytes_gives_the_same_events(name: str, data: Any) -> None:
    body = BODIES[name]
    cuts = sorted(data.draw(st.sets(st.integers(1, len(body) - 1), max_size=40)))
    pieces = [body[i:j] for i, j in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert _decode_bytes(pieces) == dump(list(a.decode_stream(a.sse_chunks(body))))


# ------------------------------------------------------------ encode round trip


def _sdk_parse(body: bytes, tmp_path: Path) -> list[Any]:
    """``openai`` parsing our SSE bytes, served from a throwaway cassette."""
    doc = {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://api.openai.com/v1/responses",
                    "body": None,
                    "headers": {},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["text/event-stream; charset=utf-8"]},
                    "body": {"string": body.decode("utf-8")},
                },
            }
        ],
    }
    path = tmp_path / "encoded.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with replay(str(path), match="path"):
        return list(client().responses.create(model="gpt-5", input="x", stream=True))


def _coalesce(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join consecutive argument deltas of one call (a hosted item carries its text whole)."""
    out: list[dict[str, Any]] = []
    for e in events:
        if (
            out
            and e["type"] == "TOOL_CALL_ARGS"
            and out[-1]["type"] == "TOOL_CALL_ARGS"
            and out[-1]["toolCallId"] == e["toolCallId"]
        ):
            out[-1] = {**out[-1], "delta": out[-1]["delta"] + e["delta"]}
        else:
            out.append(e)
    return out


def _streams() -> list[tuple[str, bytes]]:
    out = [(n, b) for n, b in BODIES.items()]
    if CORPUS.is_dir():
        for path in sorted(CORPUS.glob("*.yaml")):
            for n, ex in enumerate(exchanges(path)):
                if ex.is_sse:
                    out.append((f"{path.stem[:40]}#{n}", ex.response_body))
    return out


def _text_then_call() -> list[Any]:
    """An assistant message's text, then a call it makes."""
    return [
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageContentEvent(message_id="m1", delta="hi"),
        TextMessageEndEvent(message_id="m1"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", parent_message_id="m1"),
        ToolCallArgsEvent(tool_call_id="c1", delta="{}"),
        ToolCallEndEvent(tool_call_id="c1"),
    ]


@pytest.mark.parametrize("name,body", _streams(), ids=lambda x: x if isinstance(x, str) else "")
def test_encode_then_sdk_then_decode_gives_the_events_back(
    name: str, body: bytes, tmp_path: Path
) -> None:
    d = a.Decoder()
    events = [e for c in a.sse_chunks(body) for e in d.feed(c)] + d.close()
    chunks = list(a.encode_stream(events, response_id=d.response_id))
    wire = a.to_sse(chunks)
    sdk = _sdk_parse(wire, tmp_path)
    assert [e.type for e in sdk] == [c["type"] for c in chunks]
    final = sdk[-1].response
    assert final.status == "completed"
    sdk_calls = [
        (i.call_id, i.name, i.arguments) for i in final.output if i.type == "function_call"
    ]
    # the function calls the recording itself completed (its output_item.done items)
    assert sdk_calls == recorded_calls(final_items(payloads(body)))
    again = list(a.decode_stream(sdk))
    assert _coalesce(dump(again)) == _coalesce(dump(events))


def test_usage_and_outcome_cross_in_the_run_events() -> None:
    usage = TokenUsage(
        provider="openai",
        model="gpt-5",
        input_tokens=10,
        output_tokens=5,
        total_tokens=15,
        cached_input_tokens=4,
        reasoning_tokens=2,
        cache_write_input_tokens=1,
    )
    events = [
        RunStartedEvent(thread_id="t", run_id="r"),
        *_text_then_call(),
        RunFinishedEvent(thread_id="t", run_id="r", usage=[usage]),
    ]
    chunks = list(a.encode_stream(events, model="gpt-5"))
    d = a.Decoder()
    turn = [e for c in chunks for e in d.feed(c)] + d.close()
    assert d.usage == [usage]
    assert dump(turn)[0]["messageId"] == "m1"
    assert decoded_calls(turn) == [("c1", "f", "{}")]
    # the outcome: framed again, the run finishes with the unanswered call pending
    from toolwire.protocol import frame_run

    again = list(frame_run(a.Decoder(), chunks, thread_id="t", run_id="r2"))
    assert again[-1].type == EventType.RUN_FINISHED
    assert again[-1].outcome.pending_tool_call_ids == ["c1"]
    assert again[-1].usage == [usage]


def test_a_result_of_an_application_tool_is_written_as_an_output_item() -> None:
    events = [
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", parent_message_id="m"),
        ToolCallEndEvent(tool_call_id="c1"),
        ToolCallResultEvent(message_id="res1", tool_call_id="c1", content="42"),
    ]
    chunks = list(a.encode_stream(events))
    items = [c["item"] for c in chunks if c["type"] == "response.output_item.done"]
    assert items[1] == {
        "id": "res1",
        "type": "function_call_output",
        "call_id": "c1",
        "output": "42",
        "status": "completed",
    }
    assert dump(list(a.decode_stream(chunks)))[-1] == {
        "type": "TOOL_CALL_RESULT",
        "messageId": "res1",
        "toolCallId": "c1",
        "content": "42",
        "role": "tool",
        "metadata": {"openai.output_item": items[1]},
    }


# ------------------------------------------------------------------- bad input


def _added_call(**item: Any) -> dict[str, Any]:
    base = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "f",
        "arguments": "",
    }
    return {"type": "response.output_item.added", "output_index": 0, "item": {**base, **item}}


@pytest.mark.parametrize(
    "chunks,where",
    [
        ([5], "chunk 0"),
        ([{"no_type": 1}], "chunk 0.type"),
        ([{"type": "response.output_item.added", "output_index": 0}], "chunk 0.item"),
        ([_added_call(call_id=None)], "chunk 0 item.call_id"),
        (
            [
                _added_call(),
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_1",
                    "output_index": 0,
                    "delta": 3,
                },
            ],
            "chunk 1.delta",
        ),
        (
            [
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_9",
                    "output_index": 9,
                    "delta": "x",
                }
            ],
            "chunk 0: output_index",
        ),
        (
            [{"type": "response.output_text.delta", "output_index": "0", "delta": "x"}],
            "chunk 0.output_index",
        ),
    ],
)
def test_malformed_chunks_name_where_and_what(chunks: list[Any], where: str) -> None:
    d = a.Decoder()
    with pytest.raises(VendorDataError) as info:
        for c in chunks:
            d.feed(c)
    assert info.value.where == where
    assert isinstance(info.value, ToolwireError)


def test_unknown_events_are_skipped_unknown_items_announced_and_the_end_still_needed() -> None:
    d = a.Decoder()
    assert d.feed({"type": "response.brand_new_event", "whatever": 1}) == []
    with pytest.warns(ContentLossWarning) as seen:
        added = d.feed(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {"type": "brand_new_item", "id": "x"},
            }
        )
    assert added == []
    assert [str(w.message) for w in seen] == [
        "toolwire: item-dropped for AG-UI: chunk 1 item: "
        "a Responses 'brand_new_item' item has no AG-UI event"
    ]
    with pytest.raises(TruncatedStream):
        d.close()


def test_bad_sse_payload_is_reported() -> None:
    with pytest.raises(VendorDataError):
        list(a.sse_chunks(b"event: x\ndata: {not json\n\n"))


async def test_async_decode_gives_the_same_events() -> None:
    body = BODIES["hosted_tools"]

    async def chunks() -> Any:
        for c in a.sse_chunks(body):
            yield c

    got = [e async for e in a.adecode_stream(chunks())]
    assert dump(got) == dump(list(a.decode_stream(a.sse_chunks(body))))


def test_crlf_line_ends_decode_the_same() -> None:
    body = BODIES["reasoning_parallel_calls"]
    crlf = body.replace(b"\n", b"\r\n")
    assert dump(list(a.decode_stream(a.sse_chunks(crlf)))) == dump(
        list(a.decode_stream(a.sse_chunks(body)))
    )


def test_a_whole_response_still_in_progress_is_not_success() -> None:
    with pytest.raises(TruncatedStream):
        a.decode_response({"id": "resp_bg", "status": "in_progress", "output": []})


def test_the_adapter_works_without_the_openai_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['openai'] = None\n"
        "from toolwire.adapters import openai_responses as a\n"
        "import pathlib\n"
        f"body = pathlib.Path({str(OURS / 'image_generation.yaml')!r}).read_bytes()\n"
        "from toolwire.recordings import load_recording\n"
        "ex = load_recording(body, 'x.yaml')[0]\n"
        "print(len(list(a.decode_stream(a.sse_chunks(ex.response_body)))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "4"  # START, ARGS, END, RESULT


@pytest.mark.parametrize(
    "code,message,last,error_type,vendor_message",
    [
        (
            "incomplete",
            "openai_responses: incomplete: max_output_tokens",
            "response.incomplete",
            "incomplete",
            "max_output_tokens",
        ),
        ("server_error", "boom", "response.failed", "server_error", "boom"),
    ],
)
def test_run_error_becomes_a_failed_or_incomplete_response(
    code: str, message: str, last: str, error_type: str, vendor_message: str
) -> None:
    from ag_ui.core import RunErrorEvent

    from toolwire.errors import VendorStreamError

    events = [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageContentEvent(message_id="m1", delta="partial"),
        RunErrorEvent(message=message, code=code),
    ]
    chunks = list(a.encode_stream(events))
    assert chunks[-1]["type"] == last
    with pytest.raises(VendorStreamError) as info:
        list(a.decode_stream(chunks))
    assert (info.value.error_type, info.value.message) == (error_type, vendor_message)


def test_chunk_events_as_dicts_are_expanded_and_checked() -> None:
    from toolwire.errors import ProtocolViolation

    events = [
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": '{"a":'},
        {"type": "TOOL_CALL_CHUNK", "delta": "1}"},
    ]
    chunks = list(a.encode_stream(events))
    (item,) = [c["item"] for c in chunks if c["type"] == "response.output_item.done"]
    assert (item["call_id"], item["name"], item["arguments"]) == ("c1", "f", '{"a":1}')
    assert chunks[-1]["type"] == "response.completed"
    with pytest.raises(ProtocolViolation):
        list(a.encode_stream([{"type": "TOOL_CALL_ARGS", "toolCallId": "nope", "delta": "x"}]))


def test_a_failed_built_in_call_says_so_in_its_content_too() -> None:
    # docs/decisions.md: the error rides in metadata, and the content carries the error
    # text when there is nothing else, so a consumer that ignores metadata sees the failure.
    # The error shapes are openai's own (``McpToolCallError``), checked by ``Response``.
    from openai.types.responses import Response

    from toolwire.protocol import RESULT_ERROR_KEY, StreamMachine, frame_run

    def mcp(ident: str, error: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": ident,
            "type": "mcp_call",
            "status": "failed",
            "name": "lookup",
            "server_label": "crm",
            "arguments": "{}",
            "output": None,
            "error": error,
        }

    tool_error = {
        "type": "mcp_tool_execution_error",
        "content": [{"type": "text", "text": "no customer 7"}],
    }
    http_error = {"type": "http_error", "code": 503, "message": "crm is down"}
    ws = {
        "id": "ws_9",
        "type": "web_search_call",
        "status": "failed",
        "action": {"type": "search", "query": "crm status"},
    }
    response = Response.model_validate(
        {
            "id": "resp_9",
            "object": "response",
            "created_at": 0,
            "model": "gpt-5",
            "status": "completed",
            "output": [mcp("mcp_1", tool_error), mcp("mcp_2", http_error), ws],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )
    events = a.decode_response(response)
    results = {e.tool_call_id: e for e in events if e.type == EventType.TOOL_CALL_RESULT}
    assert results["mcp_1"].content == "no customer 7"
    assert results["mcp_2"].content == "crm is down"
    for r in results.values():
        assert r.content and r.content == r.metadata[RESULT_ERROR_KEY]
    body = response.model_dump(mode="json")
    stream = [
        {"type": f"response.output_item.{step}", "output_index": i, "item": item}
        for i, item in enumerate(body["output"])
        for step in ("added", "done")
    ] + [{"type": "response.completed", "response": body}]
    machine = StreamMachine()
    list(frame_run(a.Decoder(), stream, thread_id="t", run_id="r", machine=machine))
    (tool,) = [m for m in machine.messages if m.role == "tool" and m.tool_call_id == "mcp_2"]
    assert (tool.content, tool.error) == ("crm is down", "crm is down")


def test_a_cancelled_response_ends_the_run_cancelled_not_truncated() -> None:
    # ``Response.status`` ``cancelled`` (openai's own type; a background response that
    # ``responses.cancel`` stopped) is the AG-UI cancelled outcome, with what it produced.
    from openai.types.responses import Response

    from toolwire.protocol import frame_run

    response = Response.model_validate(
        {
            "id": "resp_c",
            "object": "response",
            "created_at": 0,
            "model": "gpt-5",
            "status": "cancelled",
            "output": [
                {
                    "id": "msg_c",
                    "type": "message",
                    "role": "assistant",
                    "status": "incomplete",
                    "content": [{"type": "output_text", "text": "Work", "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 5,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": 1,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 6,
            },
        }
    )
    d = a.Decoder()
    events = d.feed_response(response) + d.close()
    assert d.cancelled
    assert "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT) == "Work"
    assert d.usage[0].total_tokens == 6
    body = response.model_dump(mode="json")
    run = list(frame_run(a.Decoder(), [], whole_response=body, thread_id="t", run_id="r"))
    assert run[-1].type == EventType.RUN_FINISHED
    assert run[-1].outcome.type == "cancelled"


@pytest.mark.parametrize("framed", [True, False])
def test_sequence_numbers_count_up_from_zero_in_a_bare_turn_too(framed: bool) -> None:
    """A bare turn (no RUN_STARTED) starts its response before its first item: the events
    are numbered 0, 1, 2, ... in the order they are sent, response.created first."""
    turn: list[Any] = _text_then_call()
    if framed:
        run = {"thread_id": "t", "run_id": "r"}
        turn = [RunStartedEvent(**run), *turn, RunFinishedEvent(**run)]
    events = list(a.encode_stream(turn))
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert [e["type"] for e in events[:2]] == ["response.created", "response.in_progress"]
