"""U+2028, U+2029, U+0085 (and the other characters ``str.splitlines`` splits at) are text,
not line ends, in every wire and JSONL reader (issue 35, item 9).

JSON may hold them raw in a string, and toolwire writes UTF-8 without escaping them; a
reader that split lines with ``str.splitlines`` cut such a line in two.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ag_ui.core import (
    EventType,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from toolwire import adapters
from toolwire.recordings import jsonl_chunks
from toolwire.testing.cli_run import run_cli

SEPARATORS = ["\u2028", "\u2029", "\x85", "\x1c", "\x1d", "\x1e", "\x0b", "\x0c"]
IDS = [f"U+{ord(s):04X}" for s in SEPARATORS]


def _said(sep: str) -> str:
    return f"first{sep}second {sep}third"


def _run(text: str) -> list[object]:
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m", role="assistant"),
        TextMessageContentEvent(message_id="m", delta=text),
        TextMessageEndEvent(message_id="m"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


def _text(events: list[object]) -> str:
    return "".join(
        e.delta  # type: ignore[attr-defined]
        for e in events
        if getattr(e, "type", None) == EventType.TEXT_MESSAGE_CONTENT
    )


# Dialogflow writes no stream of a bare text turn (its JSON Lines reader is tested below)
STREAMED = [n for n in adapters.NAMES if n != "dialogflow"]


@pytest.mark.parametrize("sep", SEPARATORS, ids=IDS)
@pytest.mark.parametrize("vendor", STREAMED)
def test_every_adapter_reads_its_own_output_back(vendor: str, sep: str) -> None:
    adapter = adapters.get(vendor)
    chunks = list(adapter.encode_stream(_run(_said(sep))))
    body = adapter.to_sse(chunks)
    again = list(adapter.sse_chunks(body))
    assert sep.encode("utf-8") in body or json.dumps(sep)[1:-1].encode() in body
    assert _text(list(adapter.decode_stream(again))) == _said(sep)


def _gemini_sse(sep: str) -> bytes:
    chunk = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": _said(sep)}]}, "finishReason": "STOP"}
        ],
        "modelVersion": "gemini-2.5-flash",
    }
    return f"data: {json.dumps(chunk, ensure_ascii=False)}\r\n\r\n".encode()


@pytest.mark.parametrize("sep", SEPARATORS, ids=IDS)
def test_gemini_whole_body_reading_keeps_a_raw_separator(sep: str) -> None:
    gemini = adapters.get("gemini")
    (chunk,) = list(gemini.sse_chunks(_gemini_sse(sep)))
    assert chunk["candidates"][0]["content"]["parts"][0]["text"] == _said(sep)
    array = json.dumps([json.loads(_gemini_sse(sep)[6:])], ensure_ascii=False).encode()
    (same,) = list(gemini.sse_chunks(array))  # the JSON-array stream, whole
    assert same == chunk


@pytest.mark.parametrize("sep", SEPARATORS, ids=IDS)
def test_cli_decode_then_validate_keep_the_text(sep: str, tmp_path: Path) -> None:
    capture = tmp_path / "turn.sse"
    capture.write_bytes(_gemini_sse(sep))
    decoded = run_cli("decode", "--from", "gemini", str(capture))
    assert decoded.returncode == 0, decoded.stderr
    events = tmp_path / "events.jsonl"
    events.write_bytes(decoded.stdout)
    assert decoded.stdout.count(b"\n") == len(decoded.stdout.split(b"\n")) - 1  # LF-ended lines
    checked = run_cli("validate", str(events))
    assert checked.returncode == 0, checked.stderr
    texts = [json.loads(line) for line in decoded.stdout.decode("utf-8").split("\n") if line]
    assert "".join(e.get("delta", "") for e in texts) == _said(sep)


@pytest.mark.parametrize("sep", SEPARATORS, ids=IDS)
def test_jsonl_recordings_and_dialogflow_captures_keep_the_line(sep: str) -> None:
    line = json.dumps({"text": _said(sep)}, ensure_ascii=False)
    body = f"{line}\r\n{line}\n".encode()
    assert jsonl_chunks(body) == [{"text": _said(sep)}] * 2
    from toolwire.adapters.dialogflow.recording import _objects

    assert _objects(f"{line}\n{line}\n", "capture.jsonl") == [{"text": _said(sep)}] * 2
