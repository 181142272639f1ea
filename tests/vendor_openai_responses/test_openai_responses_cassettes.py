"""Hand-built cassettes (cassettes/openai_responses): the cases the corpus lacks.

Each file is parsed by ``openai``'s SDK (vcrpy replay) and decoded from the
SDK's objects and from the raw payloads; expected values come from the
recording itself.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from _openai_responses_support import (
    OURS,
    decoded_calls,
    dump,
    exchanges,
    final_items,
    payloads,
    recorded_calls,
    sdk_accepts,
    sdk_results,
    sent_requests,
)
from ag_ui.core import (
    DataSource,
    DocumentPart,
    EventType,
    FileSource,
    ImagePart,
    ReasoningMessage,
    RunAgentInput,
    TextPart,
    ToolMessage,
    UrlSource,
)

from toolwire.adapters import openai_responses as a
from toolwire.errors import TruncatedStream, VendorStreamError
from toolwire.losses import ContentLossWarning
from toolwire.protocol import StreamMachine, frame_run

STREAMS = sorted(p for p in OURS.glob("*.yaml") if p.name != "tool_output_media.yaml")


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_sdk_parses_every_event(path) -> None:  # type: ignore[no-untyped-def]
    (ex,) = exchanges(path)
    (events,) = sdk_results(path)
    raw = payloads(ex.response_body)
    assert [e.type for e in events] == [p["type"] for p in raw]
    assert [e.sequence_number for e in events] == list(range(len(raw)))


def _decode(path: Any) -> tuple[list[Any], list[dict[str, Any]], Any]:
    """Decode a one-interaction stream from SDK objects; check dicts give the same."""
    (ex,) = exchanges(path)
    (sdk,) = sdk_results(path)
    raw = payloads(ex.response_body)
    d1, d2 = a.Decoder(), a.Decoder()
    from_sdk = [e for c in sdk for e in d1.feed(c)] + d1.close()
    from_raw = [e for c in raw for e in d2.feed(c)] + d2.close()
    assert dump(from_sdk) == dump(from_raw)
    assert d1.usage == d2.usage
    return from_raw, raw, d2


def _history(path: Any) -> Any:
    (ex,) = exchanges(path)
    machine = StreamMachine()
    run = list(
        frame_run(
            a.Decoder(), payloads(ex.response_body), thread_id="t", run_id="r", machine=machine
        )
    )
    machine.close()
    return run, machine


def test_reasoning_and_interleaved_parallel_calls() -> None:
    path = OURS / "reasoning_parallel_calls.yaml"
    events, raw, dec = _decode(path)
    items = final_items(raw)
    assert decoded_calls(events) == recorded_calls(items)
    # malformed and empty argument text pass through as they are
    assert [c[2] for c in decoded_calls(events)][1:] == ['{"city":"Tokyo"', ""]
    ids = {i["id"]: i["call_id"] for i in items if i["type"] == "function_call"}
    arg_order = [ids[p["item_id"]] for p in raw if p["type"].endswith("arguments.delta")]
    assert [e.tool_call_id for e in events if e.type == EventType.TOOL_CALL_ARGS] == arg_order
    done_order = [
        ids[p["item"]["id"]]
        for p in raw
        if p["type"] == "response.output_item.done" and p["item"]["type"] == "function_call"
    ]
    assert [e.tool_call_id for e in events if e.type == EventType.TOOL_CALL_END] == done_order
    assert len({e.parent_message_id for e in events if e.type == EventType.TOOL_CALL_START}) == 1
    # reasoning: one message per summary part; the encrypted content of the done item
    rs = items[0]
    summaries = [s["text"] for s in rs["summary"]]
    texts: dict[str, str] = {}
    for e in events:
        if e.type == EventType.REASONING_MESSAGE_CONTENT:
            texts[e.message_id] = texts.get(e.message_id, "") + e.delta
    assert list(texts.values()) == summaries
    (enc,) = [e for e in events if e.type == EventType.REASONING_ENCRYPTED_VALUE]
    assert enc.encrypted_value == rs["encrypted_content"] != raw[2]["item"]["encrypted_content"]
    # usage from the terminal event
    usage = raw[-1]["response"]["usage"]
    (u,) = dec.usage
    assert (u.provider, u.input_tokens, u.output_tokens, u.total_tokens) == (
        "openai",
        usage["input_tokens"],
        usage["output_tokens"],
        usage["total_tokens"],
    )
    assert u.cached_input_tokens == usage["input_tokens_details"]["cached_tokens"]
    assert u.reasoning_tokens == usage["output_tokens_details"]["reasoning_tokens"]
    assert u.cache_write_input_tokens is None


def test_reasoning_and_calls_go_back_in_the_next_request() -> None:
    path = OURS / "reasoning_parallel_calls.yaml"
    run, machine = _history(path)
    assert run[-1].type == EventType.RUN_FINISHED
    items = final_items(payloads(exchanges(path)[0].response_body))
    history = machine.messages
    answers = [
        ToolMessage(id=f"t{n}", tool_call_id=c[0], content=f"{n}C")
        for n, c in enumerate(recorded_calls(items))
    ]
    body = a.encode_request(
        RunAgentInput(thread_id="t", run_id="r2", messages=[*history, *answers]), model="gpt-5"
    )
    sdk_accepts(body)
    sent = body["input"]
    assert sent[0] == {k: items[0][k] for k in ("type", "id", "summary", "encrypted_content")}
    calls = [i for i in sent if i["type"] == "function_call"]
    assert [(i["id"], i["call_id"], i["name"], i["arguments"]) for i in calls] == [
        (i["id"], i["call_id"], i["name"], i["arguments"]) for i in items[1:]
    ]
    outs = [i for i in sent if i["type"] == "function_call_output"]
    assert [(o["call_id"], o["output"]) for o in outs] == [
        (c[0], f"{n}C") for n, c in enumerate(recorded_calls(items))
    ]
    assert sent.index(calls[-1]) < sent.index(outs[0])


def test_web_search_with_sources() -> None:
    path = OURS / "web_search_sources.yaml"
    events, raw, _ = _decode(path)
    ws, msg = final_items(raw)
    (start,) = [e for e in events if e.type == EventType.TOOL_CALL_START]
    assert (start.tool_call_id, start.tool_call_name) == (ws["id"], "web_search")
    args = "".join(e.delta for e in events if e.type == EventType.TOOL_CALL_ARGS)
    assert json.loads(args) == ws["action"]
    (result,) = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    (part,) = result.content
    urls = [s["url"] for s in ws["action"]["sources"]]
    assert isinstance(part, TextPart) and part.text.split("\n") == urls
    assert part.metadata["openai.sources"] == ws["action"]["sources"]
    (end,) = [e for e in events if e.type == EventType.TEXT_MESSAGE_END]
    assert end.metadata["openai.annotations"] == msg["content"][0]["annotations"]
    _, machine = _history(path)
    body = a.encode_request(
        RunAgentInput(thread_id="t", run_id="r", messages=machine.messages), model="gpt-5"
    )
    sdk_accepts(body)
    assert body["input"][0] == ws  # the built-in call goes back whole
    assert body["input"][1]["content"][0]["annotations"] == msg["content"][0]["annotations"]


def test_image_generation_result_is_an_image_part() -> None:
    path = OURS / "image_generation.yaml"
    events, raw, _ = _decode(path)
    (item,) = final_items(raw)
    (result,) = [e for e in events if e.type == EventType.TOOL_CALL_RESULT]
    (part,) = result.content
    assert isinstance(part, ImagePart) and isinstance(part.source, DataSource)
    assert (part.source.value, part.source.mime_type) == (item["result"], "image/png")
    (end,) = [e for e in events if e.type == EventType.TOOL_CALL_END]
    assert "result" not in end.metadata["openai.item"]  # held once, in the part
    _, machine = _history(path)
    body = a.encode_request(
        RunAgentInput(thread_id="t", run_id="r", messages=machine.messages), model="gpt-5"
    )
    sdk_accepts(body)
    assert body["input"] == [item]


def test_hosted_and_client_run_tools() -> None:
    path = OURS / "hosted_tools.yaml"
    events, raw, _ = _decode(path)
    ci, fs, mcp, custom, computer = final_items(raw)
    results = {e.tool_call_id: e for e in events if e.type == EventType.TOOL_CALL_RESULT}
    logs, image = results[ci["id"]].content
    assert logs.text == ci["outputs"][0]["logs"]
    assert f"data:{image.source.mime_type};base64,{image.source.value}" == ci["outputs"][1]["url"]
    assert results[ci["id"]].metadata["openai.container_id"] == ci["container_id"]
    (hit,) = results[fs["id"]].content
    assert hit.text == fs["results"][0]["text"]
    assert hit.metadata["filename"] == fs["results"][0]["filename"]
    assert results[mcp["id"]].content[0].text == mcp["output"]
    calls = {c[0]: c for c in decoded_calls(events)}
    assert calls[mcp["id"]][1:] == (mcp["name"], mcp["arguments"])
    assert calls[custom["call_id"]][1:] == (custom["name"], custom["input"])
    assert json.loads(calls[computer["call_id"]][2]) == computer["action"]
    # the application answers custom and computer calls: they stay pending
    run, _ = _history(path)
    assert run[-1].outcome.pending_tool_call_ids == [custom["call_id"], computer["call_id"]]


def test_incomplete_is_an_error_with_its_reason() -> None:
    path = OURS / "incomplete.yaml"
    (ex,) = exchanges(path)
    raw = payloads(ex.response_body)
    with pytest.raises(VendorStreamError) as info:
        list(a.decode_stream(raw))
    reason = raw[-1]["response"]["incomplete_details"]["reason"]
    assert (info.value.error_type, info.value.message) == ("incomplete", reason)
    run, _ = _history(path)
    assert [e.type for e in run][-1] == EventType.RUN_ERROR
    recorded = raw[-1]["response"]["usage"]["output_tokens"]
    assert run[-1].code == "incomplete" and run[-1].usage[0].output_tokens == recorded
    assert EventType.RUN_FINISHED not in [e.type for e in run]


@pytest.mark.parametrize(
    "name,code,retryable",
    [("error_event.yaml", "server_error", True), ("failed.yaml", "rate_limit_exceeded", True)],
)
def test_in_stream_errors(name: str, code: str, retryable: bool) -> None:
    (ex,) = exchanges(OURS / name)
    raw = payloads(ex.response_body)
    last = raw[-1]
    message = last.get("message") or last["response"]["error"]["message"]
    with pytest.raises(VendorStreamError) as info:
        list(a.decode_stream(raw))
    assert (info.value.error_type, info.value.message, info.value.retryable) == (
        code,
        message,
        retryable,
    )
    run, _ = _history(OURS / name)
    assert run[-1].type == EventType.RUN_ERROR and run[-1].code == code


def test_truncated_stream_is_never_success() -> None:
    (ex,) = exchanges(OURS / "truncated.yaml")
    raw = payloads(ex.response_body)
    d = a.Decoder()
    events = [e for c in raw for e in d.feed(c)]
    assert [e.type for e in events] == [EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS]
    with pytest.raises(TruncatedStream):
        d.close()
    run, _ = _history(OURS / "truncated.yaml")
    assert run[-1].type == EventType.RUN_ERROR and run[-1].code == "truncated"


def test_tool_output_with_images_and_pdfs_round_trips_through_the_sdk() -> None:
    path = OURS / "tool_output_media.yaml"
    (ex,) = exchanges(path)
    recorded = ex.request_body
    run_input = a.decode_request(recorded)
    tool = next(m for m in run_input.messages if isinstance(m, ToolMessage))
    kinds = [(type(p).__name__, type(getattr(p, "source", None)).__name__) for p in tool.content]
    assert kinds == [
        ("TextPart", "NoneType"),
        ("ImagePart", "DataSource"),
        ("ImagePart", "UrlSource"),
        ("ImagePart", "FileSource"),
        ("DocumentPart", "DataSource"),
        ("DocumentPart", "UrlSource"),
        ("DocumentPart", "FileSource"),
    ]
    out = recorded["input"][2]["output"]
    assert tool.content[4].source.mime_type == "application/pdf"
    assert tool.content[4].metadata == {"filename": out[4]["filename"]}
    assert tool.content[3].source.provider == "openai"
    body = a.encode_request(run_input, model=recorded["model"])
    sdk_accepts(body)
    assert body["input"] == recorded["input"] and body["tools"] == recorded["tools"]
    (response,), sent = sent_requests(path, [body])
    assert sent and all(s == recorded for s in sent)  # vcrpy looks at the request more than once
    text = "".join(
        e.delta for e in a.decode_response(response) if e.type == EventType.TEXT_MESSAGE_CONTENT
    )
    assert text == ex.response_json()["output"][0]["content"][0]["text"]


def test_every_source_kind_is_written_the_documented_way() -> None:
    parts = [
        ImagePart(source=UrlSource(value="https://x/y.png")),
        ImagePart(source=FileSource(value="file-1", provider="openai")),
        DocumentPart(
            source=DataSource(value="JVBE", mime_type="application/pdf"),
            metadata={"filename": "a.pdf"},
        ),
        DocumentPart(source=UrlSource(value="https://x/a.pdf", mime_type="application/pdf")),
        DocumentPart(source=FileSource(value="file-2", provider="openai")),
    ]
    from toolwire.adapters.openai_responses.parts import to_vendor_part

    assert [to_vendor_part(p) for p in parts] == [
        {"type": "input_image", "image_url": "https://x/y.png"},
        {"type": "input_image", "file_id": "file-1"},
        {
            "type": "input_file",
            "file_data": "data:application/pdf;base64,JVBE",
            "filename": "a.pdf",
        },
        {"type": "input_file", "file_url": "https://x/a.pdf"},
        {"type": "input_file", "file_id": "file-2"},
    ]


def test_reasoning_history_keeps_encrypted_value() -> None:
    path = OURS / "reasoning_parallel_calls.yaml"
    _, machine = _history(path)
    (rs,) = [
        i
        for i in final_items(payloads(exchanges(path)[0].response_body))
        if i["type"] == "reasoning"
    ]
    reasoning = [m for m in machine.messages if isinstance(m, ReasoningMessage)]
    # one message per summary part, all of the one item; its encrypted content on the first
    assert [m.content for m in reasoning] == [s["text"] for s in rs["summary"]]
    assert [m.metadata["openai.item_id"] for m in reasoning] == [rs["id"]] * len(rs["summary"])
    assert reasoning[0].encrypted_value == rs["encrypted_content"]


def test_application_answers_to_custom_and_computer_calls_take_their_own_item_types() -> None:
    path = OURS / "hosted_tools.yaml"
    _, machine = _history(path)
    items = final_items(payloads(exchanges(path)[0].response_body))
    custom, computer = items[3], items[4]
    shot = ImagePart(source=DataSource(value="iVBO", mime_type="image/png"))
    answers = [
        ToolMessage(id="a1", tool_call_id=custom["call_id"], content="1 row"),
        ToolMessage(id="a2", tool_call_id=computer["call_id"], content=[shot]),
    ]
    run = RunAgentInput(thread_id="t", run_id="r", messages=[*machine.messages, *answers])
    body = a.encode_request(run, model="computer-use-preview")
    sdk_accepts(body)
    sent = body["input"]
    assert {k: sent[-4][k] for k in ("type", "id", "call_id", "name", "input")} == {
        k: custom[k] for k in ("type", "id", "call_id", "name", "input")
    }
    assert sent[-3] == computer
    assert sent[-2] == {
        "type": "custom_tool_call_output",
        "call_id": custom["call_id"],
        "output": "1 row",
    }
    assert sent[-1] == {
        "type": "computer_call_output",
        "call_id": computer["call_id"],
        "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBO"},
    }


BUILT_IN = [
    ("web_search_sources.yaml", "web_search_call"),
    ("hosted_tools.yaml", "file_search_call"),
    ("hosted_tools.yaml", "code_interpreter_call"),
    ("image_generation.yaml", "image_generation_call"),
    ("hosted_tools.yaml", "mcp_call"),
]


@pytest.mark.parametrize(("name", "kind"), BUILT_IN, ids=[k for _, k in BUILT_IN])
def test_a_built_in_tool_item_is_a_call_with_its_result_and_goes_back_as_the_same_item(
    name: str, kind: str
) -> None:
    path = OURS / name
    events, raw, d = _decode(path)
    (item,) = [i for i in final_items(raw) if i["type"] == kind]
    # decode: a call (id = the item id) and, for it, a TOOL_CALL_RESULT with parts
    starts = [e for e in events if e.type == EventType.TOOL_CALL_START]
    assert item["id"] in [e.tool_call_id for e in starts]
    (result,) = [
        e for e in events if e.type == EventType.TOOL_CALL_RESULT and e.tool_call_id == item["id"]
    ]
    assert isinstance(result.content, list) and result.content
    # the stream direction: encoding the events writes the same output item
    chunks = a.encode_stream(events, response_id=d.response_id)
    done = [c["item"] for c in chunks if c["type"] == "response.output_item.done"]
    assert [i for i in done if i.get("id") == item["id"]] == [item]
    # the request direction: the history resends the item whole, and reads back the same
    _, machine = _history(path)
    ri = RunAgentInput(
        thread_id="t", run_id="r", messages=machine.messages, tools=[], context=[], state=None
    )
    # the recording ends with client calls still pending: the API takes none unanswered
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = a.encode_request(ri, model="gpt-5", unanswered="drop")
    # each call left pending is dropped with a warning, and nothing else is lost
    assert [loss.kind for loss in body.losses] == ["unanswered-call-dropped"] * len(caught)
    assert all(issubclass(w.category, ContentLossWarning) for w in caught)
    sdk_accepts(body)
    assert [i for i in body["input"] if i.get("id") == item["id"]] == [item]
    again = a.encode_request(a.decode_request(body), model="gpt-5")
    assert [i for i in again["input"] if i.get("id") == item["id"]] == [item]
