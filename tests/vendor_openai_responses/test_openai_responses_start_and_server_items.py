"""Issue 36 for Responses: output in start events, server tools without call ids, every item.

* ``response.created`` / ``response.in_progress`` may already carry ``output`` items: they
  are read exactly as if streamed, and not read twice when the stream repeats them;
* a server-run ``tool_search_call`` (``execution: "server"``, ``call_id: null``) and its
  ``tool_search_output`` (``call_id: null``) are a call (the item id stands for the call id)
  and its result;
* every output item type the installed ``openai`` SDK declares gives an event or a loss.

Recordings are SSE bytes in the documented shape, parsed by the SDK (``httpx2`` mock
transport) before toolwire reads them.
"""

from __future__ import annotations

import typing
import warnings
from typing import Any

import pytest
from _openai_responses_support import response, sdk_events, sse
from ag_ui.core import (
    BaseEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    UserMessage,
)
from losses_seen import content_losses
from openai.types.responses import ResponseOutputItem, ResponseStreamEvent

from toolwire.adapters.openai_responses import (
    Decoder,
    decode_request,
    encode_request,
    encode_stream,
    sse_chunks,
    to_sse,
)
from toolwire.errors import UnsupportedInput
from toolwire.losses import ContentLossWarning
from toolwire.protocol import validate_stream
from toolwire.protocol.finish import VENDOR_PENDING_KEY
from toolwire.protocol.runs import frame_run

USAGE = {
    "input_tokens": 30,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 9,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 39,
}

MESSAGE = {
    "id": "msg_36",
    "type": "message",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Looking it up.", "annotations": []}],
}
CALL = {
    "id": "fc_36",
    "type": "function_call",
    "status": "completed",
    "call_id": "call_36",
    "name": "lookup",
    "arguments": '{"q":"x"}',
}


def framed(chunks: Any) -> list[BaseEvent]:
    return list(frame_run(Decoder(), chunks, thread_id="t", run_id="r"))


def dumped(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def streamed(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items the ordinary way: created (empty), added + done each, completed."""
    evs: list[dict[str, Any]] = [
        {"type": "response.created", "response": response("in_progress", [])}
    ]
    for i, item in enumerate(items):
        opened = {**item, "status": "in_progress"} if "status" in item else item
        evs.append({"type": "response.output_item.added", "output_index": i, "item": opened})
        evs.append({"type": "response.output_item.done", "output_index": i, "item": item})
    evs.append(
        {"type": "response.completed", "response": response("completed", items, usage=USAGE)}
    )
    return evs


# ---------------------------------------------------------------- output in start events


def test_output_in_created_and_in_progress_reads_as_if_streamed() -> None:
    start = [
        {"type": "response.created", "response": response("in_progress", [MESSAGE, CALL])},
        {"type": "response.in_progress", "response": response("in_progress", [MESSAGE, CALL])},
        {
            "type": "response.completed",
            "response": response("completed", [MESSAGE, CALL], usage=USAGE),
        },
    ]
    raw = sdk_events(sse(start))
    assert [type(e).__name__ for e in raw] == [
        "ResponseCreatedEvent",
        "ResponseInProgressEvent",
        "ResponseCompletedEvent",
    ]
    assert [o.type for o in raw[0].response.output] == ["message", "function_call"]
    ordinary = sdk_events(sse(streamed([MESSAGE, CALL])))
    got = framed(raw)
    validate_stream(got)
    assert dumped(got) == dumped(framed(ordinary))
    assert dumped(framed(sse_chunks(sse(start)))) == dumped(got)
    starts = [e for e in got if isinstance(e, ToolCallStartEvent)]
    assert [s.tool_call_id for s in starts] == ["call_36"]
    end = got[-1]
    assert isinstance(end, RunFinishedEvent) and end.outcome is not None
    assert end.outcome.pending_tool_call_ids == ["call_36"]  # type: ignore[union-attr]


def test_an_item_in_progress_in_created_goes_on_streaming() -> None:
    opened = {**CALL, "status": "in_progress", "arguments": ""}
    evs = [
        {"type": "response.created", "response": response("in_progress", [opened])},
        {"type": "response.output_item.added", "output_index": 0, "item": opened},
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 0,
            "item_id": "fc_36",
            "delta": '{"q":',
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 0,
            "item_id": "fc_36",
            "delta": '"x"}',
        },
        {"type": "response.output_item.done", "output_index": 0, "item": CALL},
        {"type": "response.completed", "response": response("completed", [CALL], usage=USAGE)},
    ]
    plain = [evs[0] | {"response": response("in_progress", [])}, *evs[1:]]
    raw = sdk_events(sse(evs))
    assert dumped(framed(raw)) == dumped(framed(sdk_events(sse(plain))))
    args = [e for e in framed(raw) if e.type.value == "TOOL_CALL_ARGS"]
    assert [a.delta for a in args] == ['{"q":', '"x"}']  # type: ignore[attr-defined]


# ---------------------------------------------------------------- server tool search

SEARCH_CALL = {
    "id": "tsc_36",
    "type": "tool_search_call",
    "call_id": None,
    "execution": "server",
    "status": "completed",
    "arguments": {"query": "weather tools"},
}
SEARCH_OUTPUT = {
    "id": "tso_36",
    "type": "tool_search_output",
    "call_id": None,
    "execution": "server",
    "status": "completed",
    "tools": [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        }
    ],
}


@pytest.mark.parametrize("source", ["sdk", "bytes"])
def test_a_server_tool_search_without_call_ids_is_a_call_and_its_result(source: str) -> None:
    body = sse(streamed([SEARCH_CALL, SEARCH_OUTPUT, MESSAGE]))
    raw = sdk_events(body)
    assert raw[1].item.type == "tool_search_call" and raw[1].item.call_id is None
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContentLossWarning)  # nothing is lost
        events = framed(raw if source == "sdk" else sse_chunks(body))
    validate_stream(events)
    starts = [e for e in events if isinstance(e, ToolCallStartEvent)]
    results = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert [(s.tool_call_id, s.tool_call_name) for s in starts] == [("tsc_36", "tool_search")]
    assert [r.tool_call_id for r in results] == ["tsc_36"]
    assert results[0].metadata is not None
    assert results[0].metadata["openai.output_item"]["tools"][0]["name"] == "get_weather"
    end = events[-1]
    assert isinstance(end, RunFinishedEvent) and end.outcome is not None
    assert end.outcome.pending_tool_call_ids is None  # type: ignore[union-attr]
    assert VENDOR_PENDING_KEY not in (end.metadata or {})


def test_a_server_tool_search_still_running_is_not_the_applications() -> None:
    events = framed(sdk_events(sse(streamed([SEARCH_CALL]))))
    end = events[-1]
    assert isinstance(end, RunFinishedEvent) and end.outcome is not None
    assert end.outcome.pending_tool_call_ids is None  # type: ignore[union-attr]
    assert end.metadata is not None and end.metadata[VENDOR_PENDING_KEY] == ["tsc_36"]


def test_the_server_tool_search_goes_back_in_the_next_request_as_it_came() -> None:
    items = [{"role": "user", "content": "weather?"}, SEARCH_CALL, SEARCH_OUTPUT]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContentLossWarning)
        ri = decode_request({"model": "gpt-5", "input": items})
        body = encode_request(ri, model="gpt-5")
    sent = [i for i in body["input"] if i.get("type") in ("tool_search_call", "tool_search_output")]
    assert sent == [SEARCH_CALL, SEARCH_OUTPUT]


def test_an_output_without_call_id_and_no_call_before_it_is_announced() -> None:
    d = Decoder()
    with pytest.warns(ContentLossWarning, match="follows no call"):
        events = d.feed_response(response("completed", [SEARCH_OUTPUT], usage=USAGE))
    assert not [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert [loss.kind for loss in d.losses] == ["item-dropped"]


# ---------------------------------------------------------------- every SDK item type

#: an item of each type in the documented shape; a type the SDK declares that this table
#: lacks is fed as ``{"type": t, "id": ...}`` (and must still give an event or a loss)
SAMPLES: dict[str, dict[str, Any]] = {
    "message": MESSAGE,
    "function_call": CALL,
    "function_call_output": {
        "id": "fco_1",
        "type": "function_call_output",
        "call_id": "call_36",
        "output": "ok",
        "status": "completed",
    },
    "custom_tool_call": {
        "id": "ctc_1",
        "type": "custom_tool_call",
        "call_id": "call_c1",
        "name": "grammar",
        "input": "x = 1",
    },
    "custom_tool_call_output": {
        "id": "ctco_1",
        "type": "custom_tool_call_output",
        "call_id": "call_c1",
        "status": "completed",
        "output": "ok",
    },
    "reasoning": {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "thinking"}],
        "encrypted_content": "gAAAA",
    },
    "web_search_call": {
        "id": "ws_1",
        "type": "web_search_call",
        "status": "completed",
        "action": {
            "type": "search",
            "query": "q",
            "sources": [{"type": "url", "url": "https://a"}],
        },
    },
    "file_search_call": {
        "id": "fs_1",
        "type": "file_search_call",
        "status": "completed",
        "queries": ["q"],
        "results": [{"file_id": "file-1", "filename": "a.txt", "score": 0.5, "text": "hit"}],
    },
    "code_interpreter_call": {
        "id": "ci_1",
        "type": "code_interpreter_call",
        "status": "completed",
        "code": "print(1)",
        "container_id": "cntr_1",
        "outputs": [{"type": "logs", "logs": "1"}],
    },
    "image_generation_call": {
        "id": "ig_1",
        "type": "image_generation_call",
        "status": "completed",
        "result": "iVBORw0KGgo=",
    },
    "computer_call": {
        "id": "cu_1",
        "type": "computer_call",
        "call_id": "call_cu1",
        "status": "completed",
        "pending_safety_checks": [],
        "action": {"type": "screenshot"},
    },
    "computer_call_output": {
        "id": "cuo_1",
        "type": "computer_call_output",
        "call_id": "call_cu1",
        "status": "completed",
        "output": {"type": "computer_screenshot", "image_url": "https://a/s.png"},
    },
    "local_shell_call": {
        "id": "ls_1",
        "type": "local_shell_call",
        "call_id": "call_ls1",
        "status": "completed",
        "action": {"type": "exec", "command": ["ls"], "env": {}},
    },
    "local_shell_call_output": {
        "id": "lso_1",
        "type": "local_shell_call_output",
        "output": "a.txt",
    },
    "shell_call": {
        "id": "sh_1",
        "type": "shell_call",
        "call_id": "call_sh1",
        "status": "completed",
        "action": {"commands": ["ls"], "timeout_ms": None, "max_output_length": None},
    },
    "shell_call_output": {
        "id": "sho_1",
        "type": "shell_call_output",
        "call_id": "call_sh1",
        "status": "completed",
        "output": [{"stdout": "a.txt", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
    },
    "apply_patch_call_output": {
        "id": "apo_1",
        "type": "apply_patch_call_output",
        "call_id": "call_ap1",
        "status": "completed",
        "output": "deleted",
    },
    "apply_patch_call": {
        "id": "ap_1",
        "type": "apply_patch_call",
        "call_id": "call_ap1",
        "status": "completed",
        "operation": {"type": "delete_file", "path": "a.txt"},
    },
    "mcp_call": {
        "id": "mcp_1",
        "type": "mcp_call",
        "name": "echo",
        "server_label": "srv",
        "arguments": "{}",
        "output": "echo",
    },
    "mcp_list_tools": {
        "id": "mcpl_1",
        "type": "mcp_list_tools",
        "server_label": "srv",
        "tools": [],
    },
    "mcp_approval_request": {
        "id": "mcpr_1",
        "type": "mcp_approval_request",
        "name": "echo",
        "server_label": "srv",
        "arguments": "{}",
    },
    "tool_search_call": SEARCH_CALL,
    "tool_search_output": SEARCH_OUTPUT,
    "program": {
        "id": "pg_1",
        "type": "program",
        "call_id": "call_pg1",
        "code": "print(lookup())",
        "fingerprint": "fp",
    },
    "program_output": {
        "id": "pgo_1",
        "type": "program_output",
        "call_id": "call_pg1",
        "result": "done",
        "status": "completed",
    },
    "compaction": {"id": "cmp_1", "type": "compaction", "encrypted_content": "gAAAA"},
}
#: what answers what: an output item is fed after the call it answers
CALL_OF = {
    "function_call_output": "function_call",
    "custom_tool_call_output": "custom_tool_call",
    "computer_call_output": "computer_call",
    "local_shell_call_output": "local_shell_call",
    "tool_search_output": "tool_search_call",
    "program_output": "program",
    "shell_call_output": "shell_call",
    "apply_patch_call_output": "apply_patch_call",
}


def _classes() -> dict[str, Any]:
    """Each output item type the SDK declares -> its model class."""
    union = ResponseOutputItem
    members = typing.get_args(union)
    if typing.get_origin(union) is typing.Annotated:
        members = typing.get_args(members[0])
    return {t: m for m in members for t in typing.get_args(m.model_fields["type"].annotation)}


def _declared() -> list[str]:
    return sorted(_classes())


def test_the_sdk_declares_the_item_types_we_feed() -> None:
    declared = set(_declared())
    assert {"message", "function_call", "tool_search_call", "mcp_list_tools"} <= declared
    assert len(declared) >= 20
    assert ResponseStreamEvent is not None


@pytest.mark.parametrize("kind", _declared())
def test_every_declared_item_type_gives_an_event_or_a_loss(kind: str) -> None:
    item = SAMPLES.get(kind, {"type": kind, "id": f"x_{kind}"})
    if kind in SAMPLES:  # our sample is the SDK's shape
        assert _classes()[kind].model_validate(item).type == kind
    before = [SAMPLES[CALL_OF[kind]]] if kind in CALL_OF else []
    for source in ("stream", "whole"):
        d = Decoder()
        with content_losses() as lost:
            if source == "stream":
                events = list(d.events(sse_chunks(sse(streamed([*before, item])))))
            else:
                events = d.feed_response(response("completed", [*before, item], usage=USAGE))
                events += d.close()
        skip = len(_items_events(before))
        mine = events[skip:]
        said = mine or d.interrupts or (d.losses and lost)
        assert said, f"{kind} ({source}) vanished without a word"
        if not mine and not d.interrupts:
            assert kind in d.losses[-1].reason


def _items_events(items: list[dict[str, Any]]) -> list[BaseEvent]:
    """The events the items before the one under test give on their own."""
    d = Decoder()
    out: list[BaseEvent] = []
    for i, item in enumerate(items):
        for kind in ("response.output_item.added", "response.output_item.done"):
            out += d.feed({"type": kind, "output_index": i, "item": item})
    return out


# ---------------------------------------------------------------- MCP approval requests


def test_an_mcp_approval_request_is_an_interrupt_the_application_answers() -> None:
    request = SAMPLES["mcp_approval_request"]
    raw = sdk_events(sse(streamed([request])))
    assert raw[1].item.type == "mcp_approval_request"
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContentLossWarning)
        events = framed(raw)
    validate_stream(events)
    end = events[-1]
    assert isinstance(end, RunFinishedEvent) and end.outcome is not None
    assert end.outcome.type == "interrupt"
    (asked,) = end.outcome.interrupts  # type: ignore[union-attr]
    assert (asked.id, asked.reason) == ("mcpr_1", "mcp_approval")
    assert asked.response_schema is not None and asked.response_schema["required"] == ["approve"]
    # written back as the same item, which the SDK parses, and decoded to the same interrupt
    out = to_sse(encode_stream(events))
    again = sdk_events(out)
    items = [e.item for e in again if e.type == "response.output_item.done"]
    assert [i.type for i in items] == ["mcp_approval_request"]
    assert items[0].model_dump(exclude_none=True) == request
    end_again = framed(again)[-1]
    assert isinstance(end_again, RunFinishedEvent)
    assert end_again.outcome == end.outcome


def test_the_answer_goes_back_as_an_mcp_approval_response() -> None:
    ri = RunAgentInput(
        thread_id="t",
        run_id="r2",
        messages=[UserMessage(id="u", content="echo hi")],
        tools=[],
        context=[],
        state=None,
        resume=[
            ResumeEntry(
                interrupt_id="mcpr_1", status="resolved", payload={"approve": True, "reason": "ok"}
            ),
            ResumeEntry(interrupt_id="mcpr_2", status="cancelled"),
        ],
    )
    body = encode_request(ri, model="gpt-5", previous_response_id="resp_36")
    answers = [i for i in body["input"] if i.get("type") == "mcp_approval_response"]
    assert answers == [
        {
            "type": "mcp_approval_response",
            "approval_request_id": "mcpr_1",
            "approve": True,
            "reason": "ok",
        },
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_2", "approve": False},
    ]
    back = decode_request(dict(body))
    assert [(e.interrupt_id, e.payload) for e in back.resume or []] == [
        ("mcpr_1", {"approve": True, "reason": "ok"}),
        ("mcpr_2", {"approve": False}),
    ]


def test_an_answer_without_approve_is_refused_by_name() -> None:
    ri = RunAgentInput(
        thread_id="t",
        run_id="r2",
        messages=[],
        tools=[],
        context=[],
        state=None,
        resume=[ResumeEntry(interrupt_id="mcpr_1", status="resolved", payload={"ok": 1})],
    )
    with pytest.raises(UnsupportedInput, match=r"mcpr_1.*payload\.approve must be true or false"):
        encode_request(ri, model="gpt-5")
