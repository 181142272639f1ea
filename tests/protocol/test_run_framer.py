"""One run framer: ``frame_run`` (with ids read from the first chunk), ``frame_runs`` for
several turns of one thread, and the pass-through machine that keeps no history.

The recordings are the repository's cassettes; the equality checks hold the framer
against the two callers that framed runs themselves (``cli.decode_runs``,
``asgard.decode_run``), so either can call it without a change in what it yields.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import EventType

from toolwire import adapters, cli
from toolwire.adapters import anthropic, asgard, dialogflow
from toolwire.errors import ToolwireError, UnsupportedInput
from toolwire.protocol import validate_stream
from toolwire.protocol.ids import mint_id
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import DECODING_FAILURES, RunFramer, VendorTurn, frame_run, frame_runs
from toolwire.recordings import exchange_turn, model_exchanges

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"


def _dump(events: Any) -> list[dict[str, Any]]:
    return [e.model_dump(by_alias=True, mode="json") for e in events]


def _cli_turns(adapter: Any, data: bytes, name: str, thread_id: str) -> list[VendorTurn]:
    """What ``cli.decode_runs`` frames, as turns: the recorded request is each run's input."""
    turns = []
    for n, ex in enumerate(model_exchanges(adapter, data, name)):
        run_id = mint_id("run", thread_id, n)
        run_input = cli._run_input(adapter, ex, thread_id, run_id)
        turns.append(exchange_turn(adapter, ex, run_id=run_id, run_input=run_input))
    return turns


_RECORDINGS = [
    *(("dialogflow", p.name) for p in sorted((CASSETTES / "dialogflow").glob("*.jsonl"))),
    *(("dialogflow", p.name) for p in sorted((CASSETTES / "dialogflow").glob("*.yaml"))),
    ("anthropic", "frontend_tool_conversation.yaml"),
    ("anthropic", "thinking_tool_results_followup.yaml"),
]


@pytest.mark.parametrize(("vendor", "name"), _RECORDINGS)
def test_frame_runs_yields_what_cli_decode_runs_yields(vendor: str, name: str) -> None:
    adapter = adapters.get(vendor)
    data = (CASSETTES / vendor / name).read_bytes()
    want = _dump(cli.decode_runs(adapter, data, name))
    thread_id = mint_id("thread", hashlib.sha256(data).hexdigest())
    got = _dump(frame_runs(_cli_turns(adapter, data, name, thread_id), thread_id=thread_id))
    assert got == want
    assert sum(e["type"] == "RUN_STARTED" for e in got) >= 1


def test_frame_runs_frames_each_turn_as_its_own_run_of_one_thread() -> None:
    def reply(n: int) -> VendorTurn:
        body = {
            "replyText": "Sure.",
            "message": {"name": f"projects/p/conversations/c/messages/{n}"},
        }
        return VendorTurn(dialogflow.Decoder(), [body])

    events = list(frame_runs([reply(1), reply(2)], thread_id="th"))
    machine = validate_stream(events)
    assert [r.run_id for r in machine.runs] == [mint_id("run", "th", 0), mint_id("run", "th", 1)]
    assert {r.thread_id for r in machine.runs} == {"th"}
    ids = [e.message_id for e in events if e.type is EventType.TEXT_MESSAGE_START]
    assert len(ids) == len(set(ids)) == 2


def _asgard_ids(frame: dict[str, Any]) -> tuple[str | None, str | None]:
    """Asgard names the thread and run in every frame (customChannelId, requestId)."""
    channel, request = frame.get("customChannelId"), frame.get("requestId")
    return (
        channel if isinstance(channel, str) and channel else None,
        request if isinstance(request, str) and request else None,
    )


def _asgard_bodies() -> list[tuple[str, bytes]]:
    out = []
    for path in sorted((CASSETTES / "asgard").glob("*.yaml")):
        for n, ex in enumerate(model_exchanges(asgard, path.read_bytes(), path.name)):
            out.append((f"{path.name}#{n}", ex.response_body))
    assert out
    return out


@pytest.mark.parametrize(("label", "body"), _asgard_bodies())
def test_frame_run_with_ids_from_the_first_frame_yields_what_asgard_decode_run_yields(
    label: str, body: bytes
) -> None:
    want = _dump(asgard.decode_run(asgard.sse_chunks(body)))
    got = _dump(frame_run(asgard.Decoder(), asgard.sse_chunks(body), ids_from=_asgard_ids))
    assert got == want, label
    first = next(asgard.sse_chunks(body))
    thread, run = _asgard_ids(first)
    if thread is not None:
        assert got[0]["threadId"] == thread
    if run is not None:
        assert got[0]["runId"] == run


def test_without_ids_from_both_ids_are_required() -> None:
    with pytest.raises(UnsupportedInput, match="thread_id and run_id"):
        list(frame_run(_Empty(), [], thread_id="t"))


def test_given_ids_win_over_the_first_chunk_and_a_missing_one_is_minted() -> None:
    frame = {"customChannelId": "ch", "requestId": "rq"}
    seen = list(frame_run(_Empty(), [frame], thread_id="mine", ids_from=_asgard_ids))
    assert (seen[0].thread_id, seen[0].run_id) == ("mine", "rq")
    bare = list(frame_run(_Empty(), [{}], ids_from=_asgard_ids))
    assert bare[0].thread_id == mint_id("thread", "")
    assert bare[0].run_id == mint_id("run", "")


class _Empty(anthropic.Decoder):
    """A decoder that takes any chunk and says nothing (the framing is under test)."""

    def _feed(self, chunk: Any) -> list[Any]:
        return []

    def close(self) -> list[Any]:
        return []


def _failing() -> Any:
    raise ConnectionError("dropped")
    yield  # pragma: no cover


def test_a_source_failing_at_its_first_chunk_still_ends_the_run_with_run_error() -> None:
    events = list(frame_run(_Empty(), _failing(), ids_from=_asgard_ids))
    assert [e.type for e in events] == [EventType.RUN_STARTED, EventType.RUN_ERROR]


def test_the_pass_through_framer_keeps_no_history_unless_asked() -> None:
    body = (CASSETTES / "dialogflow" / "reactive_turn.jsonl").read_bytes()
    chunks = [json.loads(line) for line in body.splitlines() if line.strip()]
    plain = RunFramer(dialogflow.Decoder(), thread_id="t", run_id="r")
    assert plain.machine.keeps_history is False
    with pytest.raises(ToolwireError, match="history=False"):
        plain.machine.messages  # noqa: B018
    kept = RunFramer(dialogflow.Decoder(), thread_id="t", run_id="r", history=True)
    events = kept.start()
    for c in chunks:
        events += kept.feed(c)
    events += kept.finish()
    assert kept.machine.messages == validate_stream(events).messages
    assert kept.machine.messages
    # a machine the caller passes is the one used, history and all
    own = StreamMachine()
    assert validate_stream(
        frame_run(dialogflow.Decoder(), chunks, thread_id="t", run_id="r", machine=own)
    )
    assert own.messages == kept.machine.messages


def _fed(decoder: Any, chunks: list[Any], failure: Exception | None) -> list[dict[str, Any]]:
    """The run ``RunFramer`` makes when fed chunk by chunk, ending as frame_run ends it."""
    run = RunFramer(decoder, thread_id="t", run_id="r")
    events = run.start()
    try:
        for chunk in chunks:
            events += run.feed(chunk)
        events += run.fail_reading(failure) if failure is not None else run.finish()
    except DECODING_FAILURES as exc:  # a vendor's in-stream error, a truncated stream
        events += run.fail(exc)
    return _dump(events)


def _cut_off(chunks: list[Any], at: int) -> Any:
    yield from chunks[:at]
    raise ConnectionResetError("peer reset")


@pytest.mark.parametrize("vendor", adapters.names())
def test_frame_run_reads_the_decoder_s_events_as_feeding_chunk_by_chunk_would(
    vendor: str,
) -> None:
    # frame_run reads the decoder's own loop (Decoder.events); a source that fails part way
    # still ends the run there, with what came before it sent, as feeding chunk by chunk does
    adapter = adapters.get(vendor)
    if vendor == "dialogflow":  # (its streams are JSON lines)
        streamed = [
            [json.loads(line) for line in p.read_bytes().splitlines() if line.strip()]
            for p in sorted((CASSETTES / "dialogflow").glob("*.jsonl"))
        ]
    else:
        streamed = [
            chunks
            for path in sorted((CASSETTES / vendor).glob("*.yaml"))
            for ex in model_exchanges(adapter, path.read_bytes(), path.name)
            if ex.is_sse and (chunks := list(adapter.sse_chunks(ex.response_body)))
        ]
    assert streamed
    for chunks in streamed:
        whole = _dump(frame_run(adapter.Decoder(), chunks, thread_id="t", run_id="r"))
        assert whole == _fed(adapter.Decoder(), chunks, None)
        at = len(chunks) // 2
        cut = _dump(frame_run(adapter.Decoder(), _cut_off(chunks, at), thread_id="t", run_id="r"))
        assert cut == _fed(adapter.Decoder(), chunks[:at], ConnectionResetError("peer reset"))
        assert cut[-1]["type"] == "RUN_ERROR"
