"""Content Anthropic delivers inside ``message_start`` (issue 36): decoded as if streamed.

With programmatic tool calling a response may be ``message_start`` whose ``message.content``
already holds the blocks (and ``stop_reason``), then ``message_stop``, with no
``content_block_*`` events. The SDK's accumulator starts from that message; so must we.
Every recording here is SSE bytes in the documented shape, parsed by the SDK first.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest
from _anthropic_sdk import sdk_accumulate_sse, sdk_parse_sse, sdk_sent_body, sse
from ag_ui.core import (
    BaseEvent,
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from anthropic.types import ContentBlock, RawMessageStartEvent
from anthropic.types.beta import BetaContentBlock
from losses_seen import content_losses
from pydantic import TypeAdapter

from toolwire.adapters.anthropic import Decoder, encode_request, sse_chunks
from toolwire.losses import ContentLossWarning
from toolwire.protocol import validate_stream
from toolwire.protocol.finish import VENDOR_PENDING_KEY
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run

USAGE = {"input_tokens": 40, "output_tokens": 12}

#: one programmatic-tool-calling turn: the code runs in Anthropic's container
#: (``server_tool_use`` code_execution, its result comes in the next response) and calls
#: the application's tool from there (``tool_use`` with ``caller``)
PTC_CONTENT: list[dict[str, Any]] = [
    {"type": "text", "text": "Let me query that from code.", "citations": None},
    {
        "type": "server_tool_use",
        "id": "srvtoolu_01Code",
        "name": "code_execution",
        "input": {"code": "rows = await query_db(sql='select 1')\nprint(rows)"},
    },
    {
        "type": "tool_use",
        "id": "toolu_01Query",
        "name": "query_db",
        "input": {"sql": "select 1"},
        "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_01Code"},
    },
]


def message(content: list[dict[str, Any]], stop_reason: str | None) -> dict[str, Any]:
    return {
        "id": "msg_01Start",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": USAGE,
        "container": {"id": "container_01", "expires_at": "2026-12-05T01:00:00Z"},
    }


def in_start(content: list[dict[str, Any]], stop_reason: str) -> bytes:
    """The whole turn inside message_start, then message_stop (the shape seen in traffic)."""
    chunks = [
        {"type": "message_start", "message": message(content, stop_reason)},
        {"type": "message_stop"},
    ]
    return sse(chunks)


def streamed(content: list[dict[str, Any]], stop_reason: str) -> bytes:
    """The same turn streamed the ordinary way: each block started and stopped."""
    chunks: list[dict[str, Any]] = [{"type": "message_start", "message": message([], None)}]
    for i, block in enumerate(content):
        chunks.append({"type": "content_block_start", "index": i, "content_block": block})
        chunks.append({"type": "content_block_stop", "index": i})
    chunks.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": USAGE,
        }
    )
    chunks.append({"type": "message_stop"})
    return sse(chunks)


def framed(chunks: Any, machine: StreamMachine | None = None) -> list[BaseEvent]:
    return list(frame_run(Decoder(), chunks, thread_id="t", run_id="r", machine=machine))


def dumped(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


# ---------------------------------------------------------------- programmatic tool calling


def test_the_sdk_reads_the_turn_from_message_start() -> None:
    body = in_start(PTC_CONTENT, "tool_use")
    raw = sdk_parse_sse(body)
    assert [type(e).__name__ for e in raw] == ["RawMessageStartEvent", "RawMessageStopEvent"]
    assert isinstance(raw[0], RawMessageStartEvent)
    assert [b.type for b in raw[0].message.content] == ["text", "server_tool_use", "tool_use"]
    final = sdk_accumulate_sse(body)
    assert final.stop_reason == "tool_use"
    assert [b.type for b in final.content] == ["text", "server_tool_use", "tool_use"]


@pytest.mark.parametrize("source", ["sdk", "bytes"])
def test_calls_in_message_start_are_asked_of_the_application(source: str) -> None:
    body = in_start(PTC_CONTENT, "tool_use")
    chunks = sdk_parse_sse(body) if source == "sdk" else sse_chunks(body)
    events = framed(chunks)
    validate_stream(events)
    starts = [e for e in events if isinstance(e, ToolCallStartEvent)]
    assert [(s.tool_call_id, s.tool_call_name) for s in starts] == [
        ("srvtoolu_01Code", "code_execution"),
        ("toolu_01Query", "query_db"),
    ]
    args = "".join(
        e.delta
        for e in events
        if e.type == EventType.TOOL_CALL_ARGS and e.tool_call_id == "toolu_01Query"
    )  # type: ignore[attr-defined]
    assert json.loads(args) == {"sql": "select 1"}
    text = "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)  # type: ignore[attr-defined]
    assert text == "Let me query that from code."
    end = events[-1]
    assert isinstance(end, RunFinishedEvent)
    # the application's call is pending; the code execution is Anthropic's to finish
    assert end.outcome is not None
    assert end.outcome.pending_tool_call_ids == ["toolu_01Query"]  # type: ignore[union-attr]
    assert end.metadata is not None
    assert end.metadata[VENDOR_PENDING_KEY] == ["srvtoolu_01Code"]
    assert end.metadata["anthropic.stop_reason"] == "tool_use"
    assert end.metadata["toolwire.finishReason"] == "tool_calls"
    assert end.usage is not None and end.usage[0].input_tokens == 40


def test_the_code_execution_result_of_the_next_response_answers_the_server_call() -> None:
    machine = StreamMachine()
    first = framed(sse_chunks(in_start(PTC_CONTENT, "tool_use")), machine)
    assert isinstance(first[-1], RunFinishedEvent)
    result_block = {
        "type": "code_execution_tool_result",
        "tool_use_id": "srvtoolu_01Code",
        "content": {
            "type": "code_execution_result",
            "stdout": "[(1,)]\n",
            "stderr": "",
            "return_code": 0,
            "content": [],
        },
    }
    second_content = [result_block, {"type": "text", "text": "The query returned 1."}]
    raw = sdk_parse_sse(in_start(second_content, "end_turn"))  # the SDK takes it too
    assert [b.type for b in raw[0].message.content] == ["code_execution_tool_result", "text"]
    second = list(frame_run(Decoder(), raw, thread_id="t", run_id="r2", machine=machine))
    results = [e for e in second if isinstance(e, ToolCallResultEvent)]
    assert [r.tool_call_id for r in results] == ["srvtoolu_01Code"]
    assert isinstance(second[-1], RunFinishedEvent)
    assert second[-1].outcome is not None
    assert second[-1].outcome.pending_tool_call_ids is None  # type: ignore[union-attr]
    assert VENDOR_PENDING_KEY not in (second[-1].metadata or {})


# ---------------------------------------------------------------- exactly as if streamed

EVERY_KIND: list[dict[str, Any]] = [
    {
        "type": "thinking",
        "thinking": "Two steps: search, then answer.",
        "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgx",
    },
    {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"},
    {"type": "text", "text": "Searching.", "citations": None},
    {
        "type": "server_tool_use",
        "id": "srvtoolu_01Web",
        "name": "web_search",
        "input": {"query": "toolwire"},
    },
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01Web",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://example.com/a",
                "title": "A",
                "encrypted_content": "EqgfCioIARgBIiQ3YTAw",
                "page_age": None,
            }
        ],
    },
    {"type": "text", "text": " Found it.", "citations": None},
    {"type": "tool_use", "id": "toolu_01Get", "name": "get_page", "input": {"n": 1}},
]


@pytest.mark.parametrize(
    "content,stop",
    [(PTC_CONTENT, "tool_use"), (EVERY_KIND, "tool_use"), (EVERY_KIND[:3], "max_tokens")],
    ids=["programmatic", "every-kind", "cut"],
)
def test_message_start_content_decodes_exactly_as_if_streamed(
    content: list[dict[str, Any]], stop: str
) -> None:
    whole, parts = in_start(content, stop), streamed(content, stop)
    # the SDK accumulates both to the same message
    a, b = sdk_accumulate_sse(whole), sdk_accumulate_sse(parts)
    assert a.model_dump(exclude={"usage"}) == b.model_dump(exclude={"usage"})
    for source in (sse_chunks, sdk_parse_sse):
        assert dumped(framed(source(whole))) == dumped(framed(source(parts)))


def test_blocks_streamed_after_message_start_content_follow_it() -> None:
    chunks = [
        {"type": "message_start", "message": message([EVERY_KIND[2]], None)},
        {"type": "content_block_start", "index": 1, "content_block": EVERY_KIND[6]},
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"n": 2}'},
        },
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": USAGE},
        {"type": "message_stop"},
    ]
    raw = sdk_parse_sse(sse(chunks))
    events = framed(raw)
    kinds = [e.type.value for e in events]
    assert kinds.index("TEXT_MESSAGE_END") < kinds.index("TOOL_CALL_START")
    end = events[-1]
    assert isinstance(end, RunFinishedEvent) and end.outcome is not None
    assert end.outcome.pending_tool_call_ids == ["toolu_01Get"]  # type: ignore[union-attr]


def test_a_whole_message_with_a_waiting_server_call_is_not_the_applications() -> None:
    msg = message(PTC_CONTENT, "tool_use")
    events = list(frame_run(Decoder(), [], thread_id="t", run_id="r", whole_response=msg))
    end = events[-1]
    assert isinstance(end, RunFinishedEvent) and end.outcome is not None
    assert end.outcome.pending_tool_call_ids == ["toolu_01Query"]  # type: ignore[union-attr]
    assert end.metadata is not None and end.metadata[VENDOR_PENDING_KEY] == ["srvtoolu_01Code"]


# ---------------------------------------------------------------- every SDK block type

#: a block of each type in the documented shape; a type the SDK declares and this table
#: lacks is fed as ``{"type": t}`` (and must still give an event or a loss)
SAMPLES: dict[str, dict[str, Any]] = {
    "text": {"type": "text", "text": "hi"},
    "thinking": EVERY_KIND[0],
    "redacted_thinking": EVERY_KIND[1],
    "tool_use": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
    "server_tool_use": EVERY_KIND[3],
    "web_search_tool_result": EVERY_KIND[4],
    "web_fetch_tool_result": {
        "type": "web_fetch_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "web_fetch_result",
            "url": "https://example.com/",
            "content": {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "page"},
            },
        },
    },
    "code_execution_tool_result": {
        "type": "code_execution_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "code_execution_result",
            "stdout": "1\n",
            "stderr": "",
            "return_code": 0,
            "content": [],
        },
    },
    "bash_code_execution_tool_result": {
        "type": "bash_code_execution_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "bash_code_execution_result",
            "stdout": "ok",
            "stderr": "",
            "return_code": 0,
            "content": [],
        },
    },
    "text_editor_code_execution_tool_result": {
        "type": "text_editor_code_execution_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {"type": "text_editor_code_execution_create_result", "is_file_update": False},
    },
    "tool_search_tool_result": {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": "f"}],
        },
    },
    "mcp_tool_use": {
        "type": "mcp_tool_use",
        "id": "mcptoolu_1",
        "name": "echo",
        "server_name": "srv",
        "input": {},
    },
    "mcp_tool_result": {
        "type": "mcp_tool_result",
        "tool_use_id": "mcptoolu_1",
        "is_error": False,
        "content": [{"type": "text", "text": "echo"}],
    },
    "container_upload": {"type": "container_upload", "file_id": "file_011C"},
}


def _members(union: Any) -> list[Any]:
    args = typing.get_args(union)
    if typing.get_origin(union) is typing.Annotated:
        args = typing.get_args(args[0])
    return list(args)


def _declared() -> list[tuple[str, Any]]:
    out: dict[str, Any] = {}
    for union in (ContentBlock, BetaContentBlock):
        for cls in _members(union):
            for tag in typing.get_args(cls.model_fields["type"].annotation):
                out.setdefault(tag, union)
    return sorted(out.items())


def test_the_sdk_declares_block_types_we_feed() -> None:
    declared = {tag for tag, _ in _declared()}
    assert {"text", "tool_use", "server_tool_use", "container_upload"} <= declared
    assert len(declared) >= 12


@pytest.mark.parametrize("btype,union", _declared(), ids=[t for t, _ in _declared()])
def test_every_declared_block_type_gives_an_event_or_a_loss(btype: str, union: Any) -> None:
    block = SAMPLES.get(btype, {"type": btype})
    if btype in SAMPLES:  # our sample is the SDK's shape
        assert TypeAdapter(union).validate_python(block).type == btype
    for where in ("start", "stream"):
        body = in_start([block], "end_turn") if where == "start" else streamed([block], "end_turn")
        d = Decoder()
        with content_losses() as lost:
            events = list(d.events(sse_chunks(body)))
        assert events or (d.losses and lost), f"{btype} ({where}) vanished without a word"
        if not events:
            assert btype in d.losses[0].reason


def test_a_block_type_this_version_does_not_know_is_announced() -> None:
    d = Decoder()
    with pytest.warns(ContentLossWarning, match="'hologram' block"):
        events = list(d.events(sse_chunks(in_start([{"type": "hologram"}], "end_turn"))))
    assert events == []
    assert [loss.kind for loss in d.losses] == ["block-dropped"]


def test_the_next_request_answers_the_application_call_and_resends_the_server_one() -> None:
    """Programmatic tool calling's second request: the turn as it came, the server call
    included though unanswered, then the application's tool_result (what the SDK sends)."""
    machine = StreamMachine()
    framed(sse_chunks(in_start(PTC_CONTENT, "tool_use")), machine)
    history = [
        UserMessage(id="u1", content="How many rows?"),
        *machine.messages,
        ToolMessage(id="tm1", tool_call_id="toolu_01Query", content="[(1,)]"),
    ]
    ri = RunAgentInput(
        thread_id="t", run_id="r2", messages=history, tools=[], context=[], state=None
    )
    body = encode_request(ri, model="claude-sonnet-4-6", max_tokens=256)
    assistant, answer = body["messages"][1], body["messages"][2]
    assert [b["type"] for b in assistant["content"]] == ["text", "server_tool_use", "tool_use"]
    assert assistant["content"][1]["id"] == "srvtoolu_01Code"
    assert assistant["content"][2]["caller"] == PTC_CONTENT[2]["caller"]
    assert answer["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_01Query", "content": "[(1,)]"}
    ]
    assert sdk_sent_body(dict(body))["messages"] == body["messages"]


CODE_RESULT = {
    "type": "code_execution_tool_result",
    "tool_use_id": "srvtoolu_01Code",
    "content": {
        "type": "code_execution_result",
        "stdout": "[(1,)]\n",
        "stderr": "",
        "return_code": 0,
        "content": [],
    },
}
#: the third request of a programmatic tool calling conversation, as the SDK sends it:
#: the code's result opens the assistant turn it came in (the second response)
THIRD: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 256,
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "How many rows?"}]},
        {
            "role": "assistant",
            "content": [{k: v for k, v in b.items() if v is not None} for b in PTC_CONTENT],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01Query", "content": "[(1,)]"}
            ],
        },
        {"role": "assistant", "content": [CODE_RESULT, {"type": "text", "text": "One row."}]},
        {"role": "user", "content": [{"type": "text", "text": "Thanks."}]},
    ],
}


def test_the_third_request_gives_the_code_result_back_where_it_came() -> None:
    machine = StreamMachine()
    framed(sse_chunks(in_start(PTC_CONTENT, "tool_use")), machine)
    first = [
        UserMessage(id="u1", content="How many rows?"),
        *machine.messages,
        ToolMessage(id="tm1", tool_call_id="toolu_01Query", content="[(1,)]"),
    ]
    second = dict(message([CODE_RESULT, {"type": "text", "text": "One row."}], "end_turn"))
    second["id"] = "msg_02Next"
    ri2 = RunAgentInput(
        thread_id="t", run_id="r2", messages=first, tools=[], context=[], state=None
    )
    list(
        frame_run(
            Decoder(),
            sse_chunks(
                sse([{"type": "message_start", "message": second}, {"type": "message_stop"}])
            ),
            thread_id="t",
            run_id="r2",
            run_input=ri2,
            machine=(thread := StreamMachine()),  # it takes the input's history first
        )
    )
    history = [*thread.messages, UserMessage(id="u2", content="Thanks.")]
    ri3 = RunAgentInput(
        thread_id="t", run_id="r3", messages=history, tools=[], context=[], state=None
    )
    body = encode_request(ri3, model="claude-sonnet-4-6", max_tokens=256)
    assert body["messages"] == THIRD["messages"]
    assert sdk_sent_body(dict(body))["messages"] == THIRD["messages"]


def test_the_third_request_survives_decode_and_encode() -> None:
    from toolwire.adapters.anthropic import decode_request

    ri = decode_request(THIRD)
    body = encode_request(ri, model="claude-sonnet-4-6", max_tokens=256)
    assert body["messages"] == THIRD["messages"]


def test_a_result_of_a_later_response_with_no_text_is_a_turn_of_its_own() -> None:
    from toolwire.adapters.anthropic import decode_request

    only_result = {
        **THIRD,
        "messages": [
            *THIRD["messages"][:3],
            {"role": "assistant", "content": [CODE_RESULT]},
            THIRD["messages"][4],
        ],
    }
    ri = decode_request(only_result)
    body = encode_request(ri, model="claude-sonnet-4-6", max_tokens=256)
    assert [(m["role"], [b["type"] for b in m["content"]]) for m in body["messages"]] == [
        ("user", ["text"]),
        ("assistant", ["text", "server_tool_use", "tool_use"]),
        ("user", ["tool_result"]),
        ("assistant", ["code_execution_tool_result"]),
        ("user", ["text"]),
    ]
