"""Every ``google.genai.types.Part`` field the SDK declares: an event, a loss, or a modifier.

Gemini has no start event: each streamed chunk is a whole ``GenerateContentResponse`` and the
first one's parts are decoded like any other (checked below), so issue 36's "content in a
start event" needs nothing more here. What it does need: no part the model sends vanishes
without a word. Each chunk is parsed by the SDK (``GenerateContentResponse``) first.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from _gemini_sdk import sdk_parse_sse
from ag_ui.core import BaseEvent, RunFinishedEvent, ToolCallResultEvent
from google.genai import types
from losses_seen import content_losses

from toolwire.adapters.gemini import Decoder, sse_chunks
from toolwire.losses import ContentLossWarning
from toolwire.protocol.finish import VENDOR_PENDING_KEY
from toolwire.protocol.runs import frame_run


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


#: fields that qualify a part's content, each with a value in the documented shape; a part
#: of text carrying one still gives its text
MODIFIERS: dict[str, Any] = {
    "thought": False,
    "thought_signature": "c2lnbmF0dXJl",
    "media_resolution": {"level": "MEDIA_RESOLUTION_LOW"},
    "video_metadata": {"fps": 1.0},
    "part_metadata": {"k": "v"},
    "media_processing": "STATIC",
    "speech_metadata": {},
    "document_metadata": {},
    "spreadsheet_metadata": {},
    "audio_metadata": {},
}
#: fields that are content of their own, each with a value in the documented shape
#: (``code_execution_result`` and ``tool_response`` follow the call they answer)
CONTENT: dict[str, Any] = {
    "text": "hello",
    "function_call": {"id": "fc-1", "name": "f", "args": {"a": 1}},
    "function_response": {"id": "fc-1", "name": "f", "response": {"output": "ok"}},
    "inline_data": {"mimeType": "image/png", "data": "iVBORw0KGgo="},
    "file_data": {"fileUri": "gs://b/o.png", "mimeType": "image/png"},
    "executable_code": {"language": "PYTHON", "code": "print(1)"},
    "code_execution_result": {"outcome": "OUTCOME_OK", "output": "1\n"},
    "tool_call": {"id": "tc-1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"q": "x"}},
    "tool_response": {"id": "tc-1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"r": 1}},
    "audio_transcription": {"text": "spoken words"},
}
BEFORE = {
    "code_execution_result": {"executableCode": CONTENT["executable_code"]},
    "tool_response": {"toolCall": CONTENT["tool_call"]},
}


def chunk(parts: list[dict[str, Any]], finish: str | None = "STOP") -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    return {
        "candidates": [cand],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3, "totalTokenCount": 8},
        "modelVersion": "gemini-3-flash",
        "responseId": "resp-36",
    }


def sse(chunks: list[dict[str, Any]]) -> bytes:
    import json

    return b"".join(f"data: {json.dumps(c)}\r\n\r\n".encode() for c in chunks)


def test_every_sdk_part_field_is_sorted_into_content_or_modifier() -> None:
    declared = set(types.Part.model_fields)
    assert declared == set(MODIFIERS) | set(CONTENT), (
        "google-genai declares a Part field this test has not sorted: "
        f"{sorted(declared - set(MODIFIERS) - set(CONTENT))}"
    )


@pytest.mark.parametrize("name", sorted(CONTENT))
def test_every_content_field_gives_an_event_or_a_loss(name: str, tmp_path: Path) -> None:
    part = {camel(name): CONTENT[name]}
    parts = [BEFORE[name], part] if name in BEFORE else [part]
    body = sse([chunk(parts)])
    raw = sdk_parse_sse(tmp_path, body)
    assert getattr(raw[0].candidates[0].content.parts[-1], name) is not None  # the SDK reads it
    before = len(_events([BEFORE[name]])) - 2 if name in BEFORE else 0  # (less RUN_*)
    for source in (raw, sse_chunks(body)):
        d = Decoder()
        with content_losses() as lost:
            events = list(d.events(source))
        mine = events[before:]
        assert mine or (d.losses and lost), f"{name} vanished without a word"
        if not mine:
            assert camel(name) in d.losses[-1].reason or "media" in d.losses[-1].reason


@pytest.mark.parametrize("name", sorted(MODIFIERS))
def test_a_modifier_on_a_text_part_keeps_the_text(name: str) -> None:
    part = {"text": "hello", camel(name): MODIFIERS[name]}
    types.Part.model_validate(part)  # the SDK's shape
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContentLossWarning)
        events = list(Decoder().events(sse_chunks(sse([chunk([part])]))))
    text = "".join(getattr(e, "delta", "") for e in events if e.type.value.endswith("CONTENT"))
    assert text == "hello"


def test_a_part_of_a_kind_this_version_does_not_know_is_announced() -> None:
    d = Decoder()
    with pytest.warns(ContentLossWarning, match="hologram"):
        events = list(d.events(sse_chunks(sse([chunk([{"hologram": {"x": 1}}])]))))
    assert events == []
    assert [loss.kind for loss in d.losses] == ["model-part-dropped"]


def test_the_first_chunk_s_parts_are_decoded_like_any_other() -> None:
    first = chunk(
        [{"text": "Let me run it."}, {"executableCode": CONTENT["executable_code"]}], None
    )
    events = _events([], chunks=[first, chunk([{"text": " Done."}])])
    kinds = [e.type.value for e in events]
    assert kinds[1:3] == ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert "TOOL_CALL_START" in kinds


def test_code_gemini_runs_is_never_the_applications_pending_call() -> None:
    events = _events([{"executableCode": CONTENT["executable_code"]}])
    end = events[-1]
    assert isinstance(end, RunFinishedEvent) and end.outcome is not None
    assert end.outcome.pending_tool_call_ids is None  # type: ignore[union-attr]
    assert end.metadata is not None and len(end.metadata[VENDOR_PENDING_KEY]) == 1
    answered = _events(
        [BEFORE["code_execution_result"], {"codeExecutionResult": CONTENT["code_execution_result"]}]
    )
    assert [type(e) for e in answered if isinstance(e, ToolCallResultEvent)] == [
        ToolCallResultEvent
    ]
    assert VENDOR_PENDING_KEY not in (answered[-1].metadata or {})  # type: ignore[attr-defined]


def _events(
    parts: list[dict[str, Any]], chunks: list[dict[str, Any]] | None = None
) -> list[BaseEvent]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContentLossWarning)
        return list(
            frame_run(
                Decoder(), sse_chunks(sse(chunks or [chunk(parts)])), thread_id="t", run_id="r"
            )
        )


# ---------------------------------------------------------------- request histories too

USER_TURN = {"role": "user", "parts": [{"text": "go"}]}


def _said(contents: list[dict[str, Any]], system: Any = None) -> tuple[list[Any], list[Any]]:
    from toolwire.adapters.gemini import decode_request

    body: dict[str, Any] = {"contents": contents}
    if system is not None:
        body["systemInstruction"] = system
    with content_losses() as lost:
        ri = decode_request(body, thread_id="t", run_id="r")
    return [m.model_dump(exclude_none=True) for m in ri.messages], lost


def _plain(contents: list[dict[str, Any]]) -> list[Any]:
    return _said(contents)[0]


@pytest.mark.parametrize("name", sorted(CONTENT))
@pytest.mark.parametrize("role", ["model", "user"])
def test_every_content_field_in_a_request_is_a_message_or_a_loss(name: str, role: str) -> None:
    part = {camel(name): CONTENT[name]}
    if role == "model":
        before = [BEFORE[name]] if name in BEFORE else []
        turn = {"role": "model", "parts": [*before, part]}
        without = {"role": "model", "parts": before or [{"text": ""}]}
        contents = [USER_TURN, turn]
        if name == "function_response":
            return_turn = None
        else:
            return_turn = [USER_TURN, without]
    else:
        if name == "function_response":  # answers the model's call
            call = {"role": "model", "parts": [{"functionCall": CONTENT["function_call"]}]}
            contents = [USER_TURN, call, {"role": "user", "parts": [part]}]
            return_turn = [USER_TURN, call]
        else:
            contents = [{"role": "user", "parts": [{"text": "go"}, part]}]
            return_turn = [USER_TURN]
    types.Content.model_validate(contents[-1])  # the SDK's shape
    messages, lost = _said(contents)
    changed = return_turn is None or messages != _plain(return_turn)
    assert changed or lost, f"{name} in a {role} turn vanished without a word"


def test_a_system_instruction_part_that_is_not_text_is_announced() -> None:
    system = {"parts": [{"text": "Be brief."}, {"inlineData": CONTENT["inline_data"]}]}
    messages, lost = _said([USER_TURN], system)
    assert [m["content"] for m in messages if m["role"] == "system"] == ["Be brief."]
    assert any("systemInstruction.parts[1]" in str(w.message) for w in lost)


def test_a_signature_only_part_in_a_request_is_no_loss() -> None:
    turn = {"role": "model", "parts": [{"text": "hi"}, {"thoughtSignature": "c2ln"}]}
    messages, lost = _said([USER_TURN, turn])
    assert lost == []
    assert messages[-1]["encrypted_value"] == "c2ln"
