"""The agent's key never reaches the UI, however it is streamed (issue 35, item 5).

The OpenAI Chat SDK, pointed at FakeVendor, streams text that holds the configured key cut
over two deltas (and one character at a time): the UI gets the mask, never the key or a
piece of it. A one-character key (``OPENAI_API_KEY=e`` for a local server) changes nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _serve import asgi_client, events_of, run_input

from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.redact import MASK
from toolwire.server import create_app
from toolwire.testing.fake_vendor import FakeVendor, Reply

KEY_ENV = "TW_SECRET_TEST_KEY"
KEY = "sk-proj-Zq81kLm27xQw99bbN3"
HELLO = run_input([{"id": "u1", "role": "user", "content": "what is my key?"}])


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _reply(pieces: list[str], args: list[str] = ()) -> Reply:  # type: ignore[assignment]
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": p}) for p in pieces]
    if args:
        call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "save"}}
        chunks.append(
            _chunk({"tool_calls": [{**call, "function": {"name": "save", "arguments": ""}}]})
        )
        chunks += [
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": a}}]}) for a in args
        ]
    chunks += [_chunk({}, "tool_calls" if args else "stop"), b"data: [DONE]\n\n"]
    return Reply(chunks=chunks, headers={"content-type": "text/event-stream"})


async def _served(reply: Reply, key: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, key)
    with FakeVendor([reply]) as vendor:
        agent = {"provider": "openai_chat", "base_url": vendor.base_url, "key_env": KEY_ENV}
        async with asgi_client(create_app({"agents": [agent]})) as client:
            r = await client.post(
                "/agents/openai_chat", json=HELLO, headers={"content-type": "application/json"}
            )
    assert r.status_code == 200
    return r.text


def _valid(text: str) -> list[dict[str, Any]]:
    events = events_of(text)
    machine = StreamMachine()
    for e in events:
        machine.feed(e)
    machine.close()
    assert events[-1]["type"] == "RUN_FINISHED"
    return events


@pytest.mark.parametrize("cut", [3, 11, len(KEY) - 1])
async def test_a_key_split_over_two_deltas_never_reaches_the_ui(
    cut: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = f"Your key is {KEY}."
    at = said.index(KEY) + cut
    text = await _served(_reply([said[:at], said[at:]]), KEY, monkeypatch)
    events = _valid(text)
    shown = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert shown == f"Your key is {MASK}."
    assert KEY[:cut] + KEY[cut:] not in text and KEY[:cut] not in text.replace(MASK, "")


async def test_a_key_one_character_per_delta_and_in_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = json.dumps({"secret": KEY})
    text = await _served(_reply(list(f"k={KEY}"), [args[:14], args[14:]]), KEY, monkeypatch)
    events = _valid(text)
    shown = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert shown == f"k={MASK}"
    argument_text = "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert json.loads(argument_text) == {"secret": MASK}
    assert KEY not in text


@pytest.mark.parametrize("short", ["e", "x", "sk-1"])
async def test_a_one_character_key_corrupts_nothing(
    short: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pieces = ["The type expected here ", "is text; x marks the spot."]
    with_short = await _served(_reply(pieces), short, monkeypatch)
    with_long = await _served(_reply(pieces), KEY, monkeypatch)
    events = _valid(with_short)
    assert MASK not in with_short
    assert "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT") == "".join(
        pieces
    )
    assert [e["type"] for e in events] == [e["type"] for e in events_of(with_long)]
