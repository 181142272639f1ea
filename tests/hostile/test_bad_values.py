"""Class 5 of issue 12: bad bytes, lone surrogates, deep nesting and wrong types get a
``toolwire.errors`` exception naming where (or, for a surrogate, a repair with a warning)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from _mutate import DEEP
from _samples import TEXT_FRAMED, VENDORS, samples
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from test_fuzz_harness import MODEL, run_cli

from toolwire import ContentLossWarning, adapters
from toolwire.adapters import asgard, openai_responses
from toolwire.errors import ProtocolViolation, ToolwireError, VendorDataError
from toolwire.protocol.ids import mint_id
from toolwire.protocol.jsontext import load_json

DEEP_TEXT = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize("vendor", TEXT_FRAMED)
def test_invalid_utf8_in_a_body_names_the_byte(vendor: str) -> None:
    body = b'data: {"type": "x", "a": "\xff\xfe"}\n\n'
    with pytest.raises(VendorDataError, match=r"not UTF-8.*byte 26|byte 26.*not UTF-8"):
        list(adapters.get(vendor).sse_chunks(body))


@pytest.mark.parametrize(
    "argv",
    [
        ["validate"],
        ["decode", "--from", "anthropic"],
        ["encode", "--to", "gemini"],
        ["encode-request", "--to", "openai_chat", "--model", "gpt-4o"],
        ["decode-request", "--from", "anthropic"],
    ],
)
def test_every_cli_reader_refuses_invalid_utf8_on_one_line(argv: list[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"type": "RUN_STARTED", "threadId": "t\xff", "runId": "r"}\n')
    code, out, err = run_cli([*argv, str(path)])
    assert (code, out) == (1, ""), err
    assert err.count("\n") == 1 and "UTF-8" in err and "Traceback" not in err


#: one JSON text as a body in each framing (by the framing's name, never a vendor's)
FRAMED = {
    "sse": lambda text: f"event: x\ndata: {text}\n\n",
    "ndjson": lambda text: f"{text}\n",
    "json-array": lambda text: f"[{text}]",
}


@pytest.mark.parametrize("vendor", TEXT_FRAMED)
def test_deep_json_in_sse_data_is_a_vendor_data_error(vendor: str) -> None:
    framing = adapters.get(vendor).FRAMING
    with pytest.raises(VendorDataError, match="nested deeper"):
        list(framing.read(FRAMED[framing.name](DEEP_TEXT).encode()))


@pytest.mark.parametrize("vendor", VENDORS)
def test_deep_dicts_given_to_decoders_and_requests_are_toolwire_errors(vendor: str) -> None:
    adapter = adapters.get(vendor)
    chunk = dict(samples(vendor).chunk_lists[0][0], extra=DEEP)
    with pytest.raises(ToolwireError, match="nested deeper"):
        list(adapter.decode_stream([chunk]))
    request = dict(samples(vendor).requests[0], extra=DEEP)
    with pytest.raises(ToolwireError, match="nested deeper"):
        adapter.decode_request(request)
    run_input = dict(samples(vendor).inputs[0], state={"deep": DEEP})
    with pytest.raises(ToolwireError, match="nested deeper"):
        adapter.encode_request(run_input, model=MODEL[vendor])


def test_deep_json_to_the_cli_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(DEEP_TEXT + "\n")
    code, out, err = run_cli(["validate", str(path)])
    assert (code, out) == (1, "") and err.count("\n") == 1 and "nested" in err


def test_a_lone_surrogate_in_json_is_replaced_with_a_warning() -> None:
    with pytest.warns(ContentLossWarning, match="surrogate"):
        value = load_json('{"text": "cut emoji \\ud83d"}', "openai_chat", "chunk 3")
    assert value == {"text": "cut emoji \ufffd"}
    assert json.dumps(value, ensure_ascii=False).encode("utf-8")  # writable again


@pytest.mark.parametrize("vendor", TEXT_FRAMED)
def test_a_surrogate_in_a_caller_built_event_still_encodes(vendor: str) -> None:
    """A surrogate in a model the caller built never crashes the encoder: the wire holds
    valid UTF-8, with the ``\\ud83d`` escape or U+FFFD (then with a warning)."""
    run = [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m", role="assistant"),
        TextMessageContentEvent(message_id="m", delta="half \ud83d"),
        TextMessageEndEvent(message_id="m"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    adapter = adapters.get(vendor)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        body = adapter.to_sse(list(adapter.encode_stream(run)))
    text = body.decode("utf-8")  # valid UTF-8 on the wire
    if vendor not in ("dialogflow", "asgard"):  # those two carry no assistant text here
        if "half \ufffd" in text:
            assert any("surrogate" in str(w.message) for w in seen)
        else:
            assert "half \\ud83d" in text


def test_mint_id_takes_a_lone_surrogate() -> None:
    assert mint_id("call", "a\ud83d") == mint_id("call", "a\ud83d") != mint_id("call", "a")


def test_the_cli_decodes_a_surrogate_and_writes_utf8(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n'
        '{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n'
        '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x\\ud83d"}\n'
        '{"type":"TEXT_MESSAGE_END","messageId":"m"}\n'
        '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n'
    )
    code, out, err = run_cli(["encode", "--to", "openai_chat", str(path)])
    assert code == 0, err
    assert "x\ufffd" in out and "surrogate" in err


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("event", [5, "RUN_STARTED", None, object()])
def test_an_encoder_fed_a_non_event_says_so(vendor: str, event: object) -> None:
    with pytest.raises(ProtocolViolation, match="malformed-event"):
        list(adapters.get(vendor).encode_stream([event]))


@pytest.mark.parametrize("consents", ["yes", 5, {"toolCallId": "c"}])
def test_asgard_tool_call_consents_that_are_not_a_list(consents: object) -> None:
    with pytest.raises(VendorDataError, match="toolCallConsents"):
        asgard.decode_request({"customChannelId": "c", "toolCallConsents": consents})


@pytest.mark.parametrize(
    "item",
    [
        {"type": "file_search_call", "id": "fs", "status": "completed", "results": "hits"},
        {"type": "code_interpreter_call", "id": "ci", "status": "completed", "outputs": 5},
        {"type": "message", "id": "m", "role": "assistant", "status": "completed", "content": 7},
        {"type": "reasoning", "id": "rs", "summary": "thinking"},
    ],
)
def test_responses_items_with_wrong_field_types(item: dict[str, object]) -> None:
    chunks = [
        {"type": "response.created", "response": {"id": "resp", "status": "in_progress"}},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
    ]
    with pytest.raises(VendorDataError, match=r"expected a list"):
        list(openai_responses.decode_stream(chunks))


def test_web_search_sources_with_a_url_that_is_not_text() -> None:
    item = {
        "type": "web_search_call",
        "id": "ws",
        "status": "completed",
        "action": {"type": "search", "sources": [{"url": 5}, {"url": "https://a"}]},
    }
    chunks = [
        {"type": "response.created", "response": {"id": "resp", "status": "in_progress"}},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": "resp", "status": "completed"}},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        events = list(openai_responses.decode_stream(chunks))
    results = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert [r.content[0].text for r in results] == ["https://a"]


def test_a_json_error_reads_as_the_vendor_data_error_it_is() -> None:
    """The loader's error is also a ValueError (for readers that fall back on it), but a
    RUN_ERROR code names the public class."""
    from toolwire.protocol.runs import error_code

    with pytest.raises(VendorDataError) as exc:
        load_json("{oops", "gemini", "SSE event 0: data")
    assert isinstance(exc.value, ValueError)
    assert error_code(exc.value) == "VendorDataError"
