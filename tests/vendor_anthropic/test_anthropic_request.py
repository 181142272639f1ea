"""History <-> request body: pairing, fitting, errors, thinking, and what the SDK sends."""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

import pytest
from _anthropic_decode import framed
from _anthropic_norm import normalize
from _anthropic_sdk import CASSETTES, request_bodies, sdk_final_messages, sdk_sent_body
from ag_ui.core import (
    AssistantMessage,
    AudioPart,
    DataSource,
    DeveloperMessage,
    DocumentPart,
    FileSource,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
    VideoPart,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters.anthropic import decode_request, encode_request
from toolwire.errors import ToolwireError, UnansweredToolCall, VendorDataError
from toolwire.losses import ContentLossWarning, Loss, PartsDroppedWarning
from toolwire.protocol.machine import StreamMachine
from toolwire.testing.recording_cache import recording

MODEL = "claude-sonnet-4-6"
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    "AAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
)


def run_input(messages: list, tools: list | None = None) -> RunAgentInput:
    return RunAgentInput(thread_id="t", run_id="r", messages=messages, tools=tools or [])


def call(cid: str, name: str = "get_weather", args: str = '{"city":"Paris"}') -> ToolCall:
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=args))


def one_call_history(result: ToolMessage, args: str = '{"city":"Paris"}') -> RunAgentInput:
    return run_input(
        [
            UserMessage(id="u1", content="Weather?"),
            AssistantMessage(id="a1", tool_calls=[call("toolu_1", args=args)]),
            result,
        ]
    )


def result_block(body: dict) -> dict:
    (block,) = [b for b in body["messages"][-1]["content"] if b["type"] == "tool_result"]
    return block


# ---------------------------------------------------------------- decode_request


def test_media_request_decodes_to_parts_of_every_source_kind() -> None:
    (body,) = request_bodies(CASSETTES / "tool_result_media.yaml")
    recorded = body["messages"][2]["content"][0]["content"]
    ri = decode_request(body)
    tool = next(m for m in ri.messages if isinstance(m, ToolMessage))
    parts = tool.content
    assert isinstance(parts, list)
    assert parts[0].text == recorded[0]["text"]
    img_data, img_url, img_file = parts[1:4]
    assert isinstance(img_data, ImagePart) and isinstance(img_data.source, DataSource)
    assert img_data.source.value == recorded[1]["source"]["data"]
    assert img_data.source.mime_type == recorded[1]["source"]["media_type"]
    assert isinstance(img_url.source, UrlSource)
    assert img_url.source.value == recorded[2]["source"]["url"]
    assert isinstance(img_file.source, FileSource)
    assert img_file.source.value == recorded[3]["source"]["file_id"]
    assert img_file.source.provider == "anthropic"
    pdf, pdf_url, pdf_file, plain = parts[4:8]
    assert isinstance(pdf, DocumentPart) and pdf.source.mime_type == "application/pdf"
    assert pdf.metadata["title"] == recorded[4]["title"]
    assert (
        isinstance(pdf_url.source, UrlSource)
        and pdf_url.source.value == recorded[5]["source"]["url"]
    )
    assert isinstance(pdf_file.source, FileSource)
    assert isinstance(plain.source, DataSource) and plain.source.mime_type == "text/plain"
    assert base64.b64decode(plain.source.value).decode() == recorded[7]["source"]["data"]
    hits = parts[8:]
    assert [p.text for p in hits] == [b["text"] for b in recorded[8]["content"]]
    assert {p.metadata["url"] for p in hits} == {recorded[8]["source"]}
    assert {p.metadata["title"] for p in hits} == {recorded[8]["title"]}
    errored = [m for m in ri.messages if isinstance(m, ToolMessage)][1]
    assert errored.error == body["messages"][2]["content"][1]["content"][0]["text"]
    user = ri.messages[-1]
    assert isinstance(user, UserMessage)
    assert user.content[0].text == body["messages"][2]["content"][2]["text"]


def test_media_request_round_trips() -> None:
    (body,) = request_bodies(CASSETTES / "tool_result_media.yaml")
    again = encode_request(decode_request(body), model=body["model"])
    assert normalize(again) == normalize(body)
    # tool_result blocks first, the user's own text after them, in one user message
    last = again["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "tool_result", "text"]


def test_the_sdk_sends_our_body_unchanged() -> None:
    (body,) = request_bodies(CASSETTES / "tool_result_media.yaml")
    ours = encode_request(decode_request(body), model=MODEL)
    assert sdk_sent_body(ours) == ours


def test_decode_request_rejects_malformed_bodies_with_a_place() -> None:
    with pytest.raises(VendorDataError, match=r"request\.messages"):
        decode_request({"model": MODEL})
    with pytest.raises(VendorDataError, match=r"messages\[0\].role"):
        decode_request({"messages": [{"role": "robot", "content": "x"}]})
    with pytest.raises(VendorDataError, match=r"messages\[0\].content\[0\].tool_use_id"):
        decode_request({"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]})
    with pytest.raises(VendorDataError, match=r"content\[0\].input"):
        decode_request(
            {
                "messages": [
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "t", "name": "n", "input": "x"}],
                    }
                ]
            }
        )


def test_decode_request_ids_are_deterministic() -> None:
    (body,) = request_bodies(CASSETTES / "tool_result_media.yaml")
    a, b = decode_request(body), decode_request(body)
    assert [m.id for m in a.messages] == [m.id for m in b.messages]
    assert a.thread_id == b.thread_id and a.run_id == b.run_id


def test_redacted_and_signed_thinking_round_trip() -> None:
    body = {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "", "signature": "EqA1"},
                    {"type": "redacted_thinking", "data": "EmwK"},
                    {"type": "thinking", "thinking": "Then call.", "signature": "EqB2"},
                    {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {}},
                ],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9"}]},
        ],
    }
    ri = decode_request(body)
    reasoning = [m for m in ri.messages if isinstance(m, ReasoningMessage)]
    assert [r.encrypted_value for r in reasoning] == ["EqA1", "EmwK", "EqB2"]
    again = encode_request(ri, model=MODEL)
    assert again["messages"][1]["content"] == body["messages"][1]["content"]
    assert normalize(again) == normalize(body)
    # the empty result stays the documented empty form: no content, no empty text block
    assert again["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_9"}]


# ---------------------------------------------------------------- encode_request


def test_continuation_after_a_decoded_thinking_turn_matches_the_recorded_request() -> None:
    """Stream 1 decoded to history + the tool results = the request the client sent next."""
    path = CASSETTES / "thinking_tool_use_signature.yaml"
    (first,) = request_bodies(path)
    (second,) = request_bodies(CASSETTES / "thinking_tool_results_followup.yaml")
    machine = StreamMachine()
    framed(recording(path)[0], machine)
    recorded_results = second["messages"][2]["content"]
    history = [
        UserMessage(id="u1", content=first["messages"][0]["content"]),
        *machine.messages,
        ToolMessage(
            id="r1",
            tool_call_id=recorded_results[0]["tool_use_id"],
            content=recorded_results[0]["content"],
        ),
        ToolMessage(
            id="r2",
            tool_call_id=recorded_results[1]["tool_use_id"],
            content=[TextPart(text=recorded_results[1]["content"][0]["text"])],
        ),
    ]
    tools = [
        Tool(name=t["name"], description=t["description"], parameters=t["input_schema"])
        for t in first["tools"]
    ]
    body = encode_request(
        run_input(history, tools),
        model=second["model"],
        max_tokens=second["max_tokens"],
        thinking=second["thinking"],
        stream=True,
    )
    assert normalize(body) == normalize(second)
    assert body["tools"] == second["tools"]
    assert body["thinking"] == second["thinking"]
    # the thinking block (with the SDK-read signature) leads the assistant turn
    final = sdk_final_messages(path)[0]
    thinking = next(b for b in final.content if b.type == "thinking")
    assert body["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": thinking.thinking,
        "signature": thinking.signature,
    }


def test_results_are_regrouped_in_call_order_after_their_turn() -> None:
    ri = run_input(
        [
            UserMessage(id="u1", content="Two cities"),
            AssistantMessage(
                id="a1", content="On it.", tool_calls=[call("toolu_a"), call("toolu_b")]
            ),
            UserMessage(id="u2", content="hurry"),
            ToolMessage(id="t2", tool_call_id="toolu_b", content="B"),
            ToolMessage(id="t1", tool_call_id="toolu_a", content="A"),
        ]
    )
    body = encode_request(ri, model=MODEL)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    last = body["messages"][2]["content"]
    assert [b.get("tool_use_id") for b in last] == ["toolu_a", "toolu_b", None]
    assert last[2] == {"type": "text", "text": "hurry"}
    assert body["messages"][1]["content"][0] == {"type": "text", "text": "On it."}


def test_unanswered_call_is_refused() -> None:
    ri = run_input(
        [UserMessage(id="u1", content="x"), AssistantMessage(id="a1", tool_calls=[call("toolu_z")])]
    )
    with pytest.raises(UnansweredToolCall) as info:
        encode_request(ri, model=MODEL)
    assert info.value.tool_call_ids == ["toolu_z"]


def test_arguments_that_are_not_an_object_are_a_reported_loss() -> None:
    losses: list[Loss] = []
    ri = one_call_history(ToolMessage(id="t", tool_call_id="toolu_1", content="ok"), args="[1,2]")
    with pytest.warns(ContentLossWarning, match="arguments-not-object"):
        body = encode_request(ri, model=MODEL, losses=losses)
    (use,) = [b for b in body["messages"][1]["content"] if b["type"] == "tool_use"]
    assert use["input"] == {}  # nothing invented around the text
    assert [lost.kind for lost in losses] == ["arguments-not-object"]
    assert losses[0].tool_call_id == "toolu_1"


def test_empty_arguments_become_an_empty_object_silently() -> None:
    ri = one_call_history(ToolMessage(id="t", tool_call_id="toolu_1", content="ok"), args="")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = encode_request(ri, model=MODEL)
    assert body["messages"][1]["content"][0]["input"] == {}


def test_unsupported_parts_are_dropped_with_a_warning_and_a_loss() -> None:
    content = [
        TextPart(text="Recording attached"),
        AudioPart(source=DataSource(value="UklGRg==", mime_type="audio/wav")),
        VideoPart(source=UrlSource(value="https://example.com/v.mp4", mime_type="video/mp4")),
        ImagePart(source=FileSource(value="file-abc", provider="openai", mime_type="image/png")),
        DocumentPart(source=UrlSource(value="https://example.com/a.txt", mime_type="text/plain")),
        ImagePart(source=DataSource(value=PNG, mime_type="image/png")),
    ]
    losses: list[Loss] = []
    with pytest.warns(PartsDroppedWarning) as caught:
        body = encode_request(
            one_call_history(ToolMessage(id="t", tool_call_id="toolu_1", content=content)),
            model=MODEL,
            losses=losses,
        )
    assert len(caught) == 4
    assert [(lost.part_index, lost.part_kind) for lost in losses] == [
        (1, "audio"),
        (2, "video"),
        (3, "image"),
        (4, "document"),
    ]
    assert all(lost.tool_call_id == "toolu_1" for lost in losses)
    assert result_block(body)["content"] == [
        {"type": "text", "text": "Recording attached"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
    ]


def test_all_parts_dropped_is_the_empty_result_form() -> None:
    content = [AudioPart(source=DataSource(value="UklGRg==", mime_type="audio/wav"))]
    with pytest.warns(PartsDroppedWarning):
        body = encode_request(
            one_call_history(ToolMessage(id="t", tool_call_id="toolu_1", content=content)),
            model=MODEL,
        )
    assert result_block(body) == {"type": "tool_result", "tool_use_id": "toolu_1"}


def test_error_without_content_sends_the_error_text() -> None:
    body = encode_request(
        one_call_history(
            ToolMessage(id="t", tool_call_id="toolu_1", content="", error="city not found")
        ),
        model=MODEL,
    )
    assert result_block(body) == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "is_error": True,
        "content": "city not found",
    }


def test_error_with_content_keeps_both() -> None:
    body = encode_request(
        one_call_history(
            ToolMessage(id="t", tool_call_id="toolu_1", content="partial: 12C", error="timeout")
        ),
        model=MODEL,
    )
    block = result_block(body)
    assert block["is_error"] is True
    assert block["content"] == [
        {"type": "text", "text": "partial: 12C"},
        {"type": "text", "text": "timeout"},
    ]


def test_error_with_no_text_at_all_is_never_sent_empty() -> None:
    losses: list[Loss] = []
    with pytest.warns(ContentLossWarning):
        body = encode_request(
            one_call_history(ToolMessage(id="t", tool_call_id="toolu_1", content="", error="")),
            model=MODEL,
            losses=losses,
        )
    assert result_block(body) == {"type": "tool_result", "tool_use_id": "toolu_1"}
    assert losses[0].kind == "error-flag-dropped"


def test_system_and_developer_messages_become_the_system_prompt() -> None:
    ri = run_input(
        [
            SystemMessage(id="s", content="Be brief."),
            DeveloperMessage(id="d", content="Use metric units."),
            UserMessage(id="u", content="Weather?"),
        ]
    )
    body = encode_request(ri, model=MODEL)
    assert body["system"] == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": "Use metric units."},
    ]
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]}]


def test_reasoning_without_signature_is_dropped_with_a_loss() -> None:
    ri = run_input(
        [
            UserMessage(id="u", content="Hi"),
            ReasoningMessage(id="r", content="summary from another vendor"),
            AssistantMessage(id="a", content="Hello"),
        ]
    )
    with pytest.warns(ContentLossWarning, match="reasoning-dropped"):
        body = encode_request(ri, model=MODEL)
    assert body["messages"][1]["content"] == [{"type": "text", "text": "Hello"}]


def test_relocate_keeps_native_media_in_place() -> None:
    content = [ImagePart(source=DataSource(value=PNG, mime_type="image/png"))]
    body = encode_request(
        one_call_history(ToolMessage(id="t", tool_call_id="toolu_1", content=content)),
        model=MODEL,
        media="relocate",
    )
    assert result_block(body)["content"][0]["type"] == "image"
    assert len(body["messages"][-1]["content"]) == 1


def test_forwarded_props_are_ignored_unless_asked_for() -> None:
    ri = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u", content="x")],
        tools=[],
        forwarded_props={"anthropic": {"max_tokens": 99, "temperature": 0.2}},
    )
    assert "temperature" not in encode_request(ri, model=MODEL)
    full = encode_request(ri, model=MODEL, use_forwarded_props=True)
    assert full["temperature"] == 0.2 and full["max_tokens"] == 99


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def json_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (keys and list indexes), the value itself included."""
    out = [prefix]
    if isinstance(node, dict):
        for k in sorted(node):
            out += json_paths(node[k], (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += json_paths(v, (*prefix, i))
    return out


MEDIA_BODY = request_bodies(CASSETTES / "tool_result_media.yaml")[0]
MEDIA_PATHS = json_paths(MEDIA_BODY)


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(path=st.sampled_from(MEDIA_PATHS), value=JSON_VALUES)
def test_mangled_request_bodies_raise_only_toolwire_errors(
    path: tuple[Any, ...], value: Any
) -> None:
    """Any one place of a recorded body (every depth equally likely, down to a media block's
    source fields) replaced by any JSON value: a result or a ToolwireError, never a bare one."""
    root: Any = json.loads(json.dumps(MEDIA_BODY))
    if path:
        parent = root
        for k in path[:-1]:
            parent = parent[k]
        parent[path[-1]] = value
    else:
        root = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ri = decode_request(root)
            encode_request(ri, model=MODEL)
        except ToolwireError:
            pass


def test_empty_search_result_text_is_not_sent_as_an_empty_block() -> None:
    meta = {"anthropic.type": "search_result", "url": "https://e.com/a", "title": "A"}
    content = [TextPart(text="", metadata=meta), TextPart(text="snippet", metadata=meta)]
    body = encode_request(
        one_call_history(ToolMessage(id="t", tool_call_id="toolu_1", content=content)),
        model=MODEL,
    )
    assert result_block(body)["content"] == [
        {
            "type": "search_result",
            "source": "https://e.com/a",
            "title": "A",
            "content": [{"type": "text", "text": "snippet"}],
        }
    ]


def test_the_adapter_imports_without_the_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['anthropic'] = None\n"
        "from toolwire import adapters\n"
        "a = adapters.get('anthropic')\n"
        "evs = list(a.decode_stream([{'type': 'message_start', 'message': {'id': 'm'}},"
        " {'type': 'message_stop'}]))\n"
        "assert 'anthropic' not in [k for k, v in sys.modules.items() if v is not None]\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_signatures_are_marked_as_anthropics_and_foreign_ones_are_not_sent() -> None:
    from toolwire.protocol.signatures import issued_by

    path = CASSETTES / "thinking_tool_use_signature.yaml"
    machine = StreamMachine()
    framed(recording(path)[0], machine)
    (reasoning,) = [m for m in machine.messages if isinstance(m, ReasoningMessage)]
    assert issued_by(reasoning.metadata) == "anthropic"
    foreign = ReasoningMessage(
        id="r-openai",
        content="summary",
        encrypted_value="gAAAAB-openai-encrypted",
        metadata={"toolwire.encryptedBy": "openai"},
    )
    history = [
        UserMessage(id="u", content="Hi"),
        foreign,
        AssistantMessage(id="a", content="Hello"),
    ]
    losses: list[Loss] = []
    with pytest.warns(ContentLossWarning):
        body = encode_request(run_input(history), model=MODEL, losses=losses)
    assert body["messages"][1]["content"] == [{"type": "text", "text": "Hello"}]
    assert "encrypted-value-dropped" in [lost.kind for lost in losses]
    assert "gAAAAB" not in json.dumps(body)


def test_signed_thinking_with_empty_text_stays_a_thinking_block() -> None:
    chunks = [
        {"type": "message_start", "message": {"id": "msg_e", "model": "m"}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "EqSIG"},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "text", "text": "Hi"},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    ]
    from toolwire.adapters.anthropic import Decoder
    from toolwire.protocol.runs import frame_run

    machine = StreamMachine()
    list(frame_run(Decoder(), chunks, thread_id="t", run_id="r", machine=machine))
    history = [UserMessage(id="u", content="Hi"), *machine.messages]
    body = encode_request(run_input(history), model=MODEL)
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "", "signature": "EqSIG"},
        {"type": "text", "text": "Hi"},
    ]


def test_an_encrypted_value_on_a_tool_call_is_a_reported_loss() -> None:
    signed = ToolCall(
        id="toolu_1",
        function=FunctionCall(name="get_weather", arguments='{"city":"Paris"}'),
        encrypted_value="CiQB-gemini-thought-signature",
    )
    ri = run_input(
        [
            UserMessage(id="u1", content="Weather?"),
            AssistantMessage(id="a1", tool_calls=[signed]),
            ToolMessage(id="t", tool_call_id="toolu_1", content="sunny"),
        ]
    )
    losses: list[Loss] = []
    with pytest.warns(ContentLossWarning, match="encrypted-value-dropped"):
        body = encode_request(ri, model=MODEL, losses=losses)
    assert "CiQB" not in json.dumps(body)
    assert [(lost.kind, lost.tool_call_id) for lost in losses] == [
        ("encrypted-value-dropped", "toolu_1")
    ]


@pytest.mark.parametrize("name", ["thinking_tool_use_signature", "parallel_four_tool_use"])
def test_decoded_turn_goes_back_as_the_sdk_would_send_it(name: str) -> None:
    """The assistant turn we build from a decoded stream equals ``Message.to_param()`` of the
    SDK's own accumulation of that stream (what the SDK sends back on the next turn)."""
    path = CASSETTES / f"{name}.yaml"
    final = sdk_final_messages(path)[0]
    expected = [b.model_dump(exclude_none=True) for b in final.to_param()["content"]]
    machine = StreamMachine()
    framed(recording(path)[0], machine)
    history = [UserMessage(id="u", content="Go."), *machine.messages]
    for m in machine.messages:
        if isinstance(m, AssistantMessage):
            history += [
                ToolMessage(id=f"r{c.id}", tool_call_id=c.id, content="ok")
                for c in m.tool_calls or []
            ]
    body = encode_request(run_input(history), model=MODEL)
    assert body["messages"][1]["role"] == "assistant"
    assert body["messages"][1]["content"] == expected


def test_a_malformed_run_input_is_a_toolwire_error() -> None:
    from toolwire.errors import UnsupportedInput

    with pytest.raises(UnsupportedInput, match="messages"):
        encode_request(
            {"threadId": "t", "runId": "r", "messages": [{"role": "robot"}]}, model=MODEL
        )


def test_thinking_between_calls_keeps_its_signature_in_the_turn() -> None:
    """Interleaved thinking (thinking, call, thinking, call in one message): the history the
    stream machine assembles holds the second thinking block *after* the assistant message.
    It still goes back in that turn, with its signature, thinking blocks in their original
    order; AG-UI history has no place for its position among the calls, so it leads them."""
    from _anthropic_sdk import sdk_accumulate_sse

    from toolwire.adapters.anthropic import decode_stream, to_sse

    def start(i: int, block: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_start", "index": i, "content_block": block}

    def delta(i: int, d: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": i, "delta": d}

    def stop(i: int) -> dict[str, Any]:
        return {"type": "content_block_stop", "index": i}

    def thinking(i: int, text: str, sig: str) -> list[dict[str, Any]]:
        return [
            start(i, {"type": "thinking", "thinking": "", "signature": ""}),
            delta(i, {"type": "thinking_delta", "thinking": text}),
            delta(i, {"type": "signature_delta", "signature": sig}),
            stop(i),
        ]

    def tool_use(i: int, cid: str, args: str) -> list[dict[str, Any]]:
        block = {"type": "tool_use", "id": cid, "name": "get_weather", "input": {}}
        return [
            start(i, block),
            delta(i, {"type": "input_json_delta", "partial_json": args}),
            stop(i),
        ]

    chunks = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_il",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [],
                "usage": {"input_tokens": 9, "output_tokens": 1},
            },
        },
        *thinking(0, "Paris first.", "EsigA"),
        *tool_use(1, "toolu_p", '{"city":"Paris"}'),
        *thinking(2, "Now Tokyo.", "EsigB"),
        *tool_use(3, "toolu_t", '{"city":"Tokyo"}'),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    ]
    sent_back = sdk_accumulate_sse(to_sse(chunks)).to_param()["content"]
    expected = [b.model_dump(exclude_none=True) for b in sent_back]
    machine = StreamMachine(run_open=True)
    for ev in decode_stream(chunks):
        machine.feed(ev)
    history = [
        UserMessage(id="u", content="Weather in Paris, then Tokyo?"),
        *machine.messages,
        ToolMessage(id="rp", tool_call_id="toolu_p", content="18C"),
        ToolMessage(id="rt", tool_call_id="toolu_t", content="24C"),
    ]
    losses: list[Loss] = []
    body = encode_request(run_input(history), model=MODEL, losses=losses)
    assert [x.kind for x in losses] == []
    turn = body["messages"][1]["content"]
    assert [b for b in turn if b["type"] == "thinking"] == [
        b for b in expected if b["type"] == "thinking"
    ]
    assert [b for b in turn if b["type"] == "tool_use"] == [
        b for b in expected if b["type"] == "tool_use"
    ]
    assert [b["type"] for b in turn] == ["thinking", "thinking", "tool_use", "tool_use"]
    assert [b["tool_use_id"] for b in body["messages"][2]["content"]] == ["toolu_p", "toolu_t"]


def test_an_input_json_cannot_hold_is_a_vendor_data_error_naming_the_block() -> None:
    import math

    from toolwire.adapters import anthropic as adapter
    from toolwire.errors import VendorDataError

    block = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": math.nan}}
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [block],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    with pytest.raises(VendorDataError, match=r"anthropic: .*input: not JSON data"):
        adapter.decode_response(response)
    request = {"model": "m", "messages": [{"role": "assistant", "content": [block]}]}
    with pytest.raises(VendorDataError, match=r"anthropic: request.*not JSON data"):
        adapter.decode_request(request)
