"""A piece's events checked in one lazy pass (``PushReading.gather_checked``, the driver's
step for a run whose events go out as checked): the same steps, the same events, the same
error after them and the same state left (where the piece stopped, the chunks the decoder
read, the events the machine took) as ``gather`` with a sink that checks each chunk's
events in one go (``StreamMachine.feed_many``: a chunk one of whose events breaks a rule
sends none of them), for chunks whose events break the rules anywhere, chunks the decoder
refuses, and any number of events a step."""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import VendorDataError
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.pushed import Piece, PushReading


def _event(kind: str, n: int) -> BaseEvent:
    """An event of ``kind`` for item ``n`` (a few ids: repeats open, close and reopen, and
    break the rules wherever they land)."""
    cid, mid = f"c{n}", f"m{n}"
    if kind == "start":
        return ToolCallStartEvent(tool_call_id=cid, tool_call_name="f", parent_message_id="p")
    if kind == "args":
        return ToolCallArgsEvent(tool_call_id=cid, delta=f"{{{n}}}")
    if kind == "end":
        return ToolCallEndEvent(tool_call_id=cid)
    if kind == "text_start":
        return TextMessageStartEvent(message_id=mid, role="assistant")
    if kind == "text":
        return TextMessageContentEvent(message_id=mid, delta=f"t{n}")
    return TextMessageEndEvent(message_id=mid)


_KINDS = ["start", "args", "end", "text_start", "text", "text_end"]
#: a chunk: the events it gives, or ``None``: the decoder refuses it
_CHUNK = st.one_of(
    st.none(),
    st.lists(st.tuples(st.sampled_from(_KINDS), st.integers(0, 3)), max_size=4),
)


class _Scripted(BaseDecoder):
    """A decoder (with no delta form) whose chunk names the events it gives, or fails."""

    vendor = "scripted"

    def _feed(self, chunk: dict[str, Any]) -> list[BaseEvent]:
        if chunk["events"] is None:
            raise VendorDataError("scripted", f"chunk {self.chunk_index}", "refused")
        return [_event(kind, n) for kind, n in chunk["events"]]

    def _close(self) -> list[BaseEvent]:
        return []


class _Reader:
    """What a piece of plain chunk dicts asks of its reader (no form: no match to make)."""

    form = None


def _read(chunks: list[Any], most: int, lazy: bool) -> tuple[Any, ...]:
    """The pieces read as the driver reads them, a step at a time, until one fails."""
    machine = StreamMachine(history=False)
    machine.feed(RunStartedEvent(thread_id="t", run_id="r"))
    decoder = _Scripted()
    reading = PushReading(decoder)
    assert reading.form is None
    steps: list[list[str]] = []
    stops: list[int] = []
    error: str | None = None
    items = [{"events": c} for c in chunks]
    halves = [items[: len(items) // 2], items[len(items) // 2 :]]
    try:
        for part in halves:  # two pieces: the decoder and the machine go on between them
            piece = Piece(list(part), _Reader())  # type: ignore[arg-type]
            while piece.left:
                failed: list[Exception] = []
                if lazy:
                    got = reading.gather_checked(piece, machine.checked, most, failed)
                else:
                    got = reading.gather(piece, machine.feed_many, most, failed)
                steps.append([ev.model_dump_json() for ev in got])
                stops.append(piece.at)
                if failed:
                    raise failed[0]
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    return steps, stops, error, decoder.chunk_index, machine.index


@settings(max_examples=400, deadline=None)
@given(st.lists(_CHUNK, max_size=14), st.integers(1, 9))
def test_a_piece_checked_in_one_pass_is_checked_chunk_by_chunk(
    chunks: list[Any], most: int
) -> None:
    assert _read(chunks, most, lazy=True) == _read(chunks, most, lazy=False)


def test_a_chunk_breaking_a_rule_sends_none_of_its_events_and_reads_no_further() -> None:
    """Its first event passes, its second breaks a rule (arguments of a call never opened):
    the events of the chunks before it are sent, then the violation; the chunk after it is
    never read."""
    chunks = [
        [("start", 0), ("args", 0)],
        [("start", 1), ("args", 2)],
        [("start", 3)],
    ]
    steps, stops, error, read, taken = _read(chunks, 50, lazy=True)
    assert steps == [[_event("start", 0).model_dump_json(), _event("args", 0).model_dump_json()]]
    assert error is not None and error.startswith("ProtocolViolation")
    assert read == 1  # the decoder read chunks 0 and 1, not 2
    assert taken == 4  # RUN_STARTED, both events of chunk 0, the start of chunk 1
    assert stops == [1]  # (the first piece holds chunk 0; the second raises at once)


def test_a_step_ends_after_the_chunk_that_reached_most() -> None:
    chunks = [[("start", n), ("args", n)] for n in range(4)]
    steps, stops, error, *_ = _read(chunks, 3, lazy=True)
    assert error is None
    assert [len(s) for s in steps] == [4, 4]  # two pieces of two chunks, 4 >= 3 each
    assert stops == [2, 2]
