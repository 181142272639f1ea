"""A consumer that stops early: the SDK response is closed (the server sees the client
go), and with on_cancel="finish" the run still ends properly, cancelled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _driver_support import CASE_IDS, CASES, Case, check_run, clean_reply, comparable, offline
from _driver_support import run_input as make_input
from ag_ui.core import EventType, RunFinishedCancelledOutcome

import toolwire
from toolwire.testing.fake_vendor import FakeVendor, Reply

params = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
TURN = (
    EventType.TEXT_MESSAGE_CONTENT,
    EventType.TOOL_CALL_ARGS,
    EventType.REASONING_MESSAGE_CONTENT,
)


def _slow(case: Case) -> Reply:
    reply = clean_reply(case)
    # the first half (holding the turn's first content) at once, then each chunk a second
    # apart (two seconds and more in all): the consumer stops long before the end, and the
    # server notices that while it waits to write the next chunk
    eager = len(reply.chunks) // 2
    assert len(reply.chunks) - eager >= 2
    return Reply(status=200, headers=reply.headers, chunks=reply.chunks, delay=1.0, eager=eager)


def _served_to_a_closed_client(fv: FakeVendor, total: int) -> None:
    assert fv.wait_idle(10)
    [seen] = fv.requests
    assert seen.outcome == "client_gone", seen.outcome
    assert seen.chunks_sent < total


def _stopped(case: Case, stop: str, **kw: Any) -> list[Any]:
    """A sync run read until the turn's first content, then ``close()``d or ``cancel()``led
    (and read on); the server must see the client go."""
    reply = _slow(case)
    got: list[Any] = []
    with FakeVendor([reply], timeout=30) as fv:
        client = case.client(fv.base_url, False)
        events = toolwire.run(client, make_input(case), model=case.model, **case.kwargs, **kw)
        for ev in events:
            got.append(ev)
            if ev.type in TURN:
                if stop == "close":
                    break
                events.cancel()
        events.close()
        _served_to_a_closed_client(fv, len(reply.chunks))
    return got


@params
def test_closing_the_sync_iterator_closes_the_sdk_response(case: Case) -> None:
    got = _stopped(case, "close")
    assert got[-1].type in TURN


async def _astopped(case: Case, how: str, **kw: Any) -> list[Any]:
    """An async run stopped at the turn's first content by ``aclose()``, by cancelling
    its task, by ``cancel()``, or by a timeout mid-stream; the server must see the
    client go."""
    reply = _slow(case)
    got: list[Any] = []
    with FakeVendor([reply], timeout=30) as fv:
        client = case.client(fv.base_url, True)
        events = toolwire.arun(client, make_input(case), model=case.model, **case.kwargs, **kw)

        async def consume() -> None:
            async for ev in events:
                got.append(ev)
                if ev.type in TURN and how in ("aclose", "cancel"):
                    if how == "aclose":
                        break
                    events.cancel()

        if how == "timeout":
            task = asyncio.create_task(consume())
            while not fv.requests:  # the deadline runs from the request on
                await asyncio.sleep(0.01)
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(task, 0.5)  # the stream takes 2 s and more
        elif how == "task":
            task = asyncio.create_task(consume())
            while not any(ev.type in TURN for ev in got):
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task  # the cancellation goes on (after the run's end, with "finish")
        else:
            await consume()
        await events.aclose()
        await asyncio.to_thread(_served_to_a_closed_client, fv, len(reply.chunks))
    return got


@params
async def test_acloseing_the_async_iterator_closes_the_sdk_response(case: Case) -> None:
    got = await _astopped(case, "aclose")
    assert got[-1].type in TURN


@params
async def test_cancelling_the_task_closes_the_sdk_response(case: Case) -> None:
    got = await _astopped(case, "task")
    assert got[-1].type not in (EventType.RUN_FINISHED, EventType.RUN_ERROR)


@params
def test_cancel_with_on_cancel_finish_ends_the_run_cancelled(case: Case, tmp_path: Path) -> None:
    got = _stopped(case, "cancel", on_cancel="finish")
    check_run(got, tmp_path)
    assert isinstance(got[-1].outcome, RunFinishedCancelledOutcome)
    # what came before the cancel is the start of the real turn, nothing else
    whole = comparable(offline(case, case.clean))
    cut = [ev for ev in comparable(got)[:-1] if not ev["type"].endswith("_END")]
    assert cut == [ev for ev in whole if not ev["type"].endswith("_END")][: len(cut)]


@params
def test_cancel_with_on_cancel_close_just_ends(case: Case) -> None:
    got = _stopped(case, "cancel")
    assert got[-1].type in TURN  # nothing after the cancel


@params
async def test_cancelling_with_on_cancel_finish_sends_the_end_then_is_cancelled(
    case: Case, tmp_path: Path
) -> None:
    got = await _astopped(case, "task", on_cancel="finish")
    check_run(got, tmp_path)
    assert isinstance(got[-1].outcome, RunFinishedCancelledOutcome)
    assert any(ev.type in TURN for ev in got[:-1])


@params
async def test_a_timeout_with_on_cancel_finish_sends_the_end_then_times_out(
    case: Case, tmp_path: Path
) -> None:
    got = await _astopped(case, "timeout", on_cancel="finish")
    check_run(got, tmp_path)
    assert isinstance(got[-1].outcome, RunFinishedCancelledOutcome)


@params
async def test_async_cancel_with_on_cancel_finish_ends_the_run_cancelled(
    case: Case, tmp_path: Path
) -> None:
    got = await _astopped(case, "cancel", on_cancel="finish")
    check_run(got, tmp_path)
    assert isinstance(got[-1].outcome, RunFinishedCancelledOutcome)
