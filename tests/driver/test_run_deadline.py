"""The run deadline: a vendor that trickles keep-alive bytes forever cannot hold a run
(issue 35, the overall run deadline). ``deadline=`` seconds after it starts, the run ends
with ``RUN_ERROR`` code ``deadline``, sync and async."""

from __future__ import annotations

import asyncio
import time

import pytest
from _driver_support import (
    CASE_IDS,
    CASES,
    Case,
    aclose_client,
    clean_reply,
    close_client,
    run_input,
)
from ag_ui.core import BaseEvent, EventType

import toolwire
from toolwire.errors import UnsupportedInput
from toolwire.testing.fake_vendor import FakeVendor, Reply

DEADLINE = 1.0


def _trickle(case: Case) -> Reply:
    """The recorded head of the turn, then keep-alive bytes every 0.1 s for a minute (the
    case's: an SSE comment, a blank line); a framing with none (the AWS event stream)
    gets the rest of the recorded body itself, a byte every 0.1 s (minutes of it)."""
    reply = clean_reply(case)
    head = reply.chunks[:1]
    if case.keep_alive is not None:
        rest = [case.keep_alive] * 600
    else:
        tail = b"".join(reply.chunks[1:])
        assert len(tail) >= 600, "too short a recording to trickle for a minute"
        rest = [tail[i : i + 1] for i in range(len(tail))]
    return Reply(
        status=200, headers=reply.headers, chunks=[*head, *rest], delay=0.1, eager=len(head)
    )


def _events(case: Case, is_async: bool) -> tuple[list[BaseEvent], float]:
    started = time.monotonic()
    with FakeVendor([_trickle(case)], timeout=90) as fv:
        if is_async:

            async def go() -> list[BaseEvent]:
                client = case.client(fv.base_url, True)
                try:
                    run = toolwire.arun(
                        client, run_input(case), model=case.model, deadline=DEADLINE, **case.kwargs
                    )
                    return [e async for e in run]
                finally:
                    await aclose_client(client)

            events = asyncio.run(go())
        else:
            client = case.client(fv.base_url, False)
            try:
                run = toolwire.run(
                    client, run_input(case), model=case.model, deadline=DEADLINE, **case.kwargs
                )
                events = list(run)
            finally:
                close_client(client)
        took = time.monotonic() - started
    return events, took


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_an_endless_trickle_meets_the_deadline_async(case: Case) -> None:
    events, took = _events(case, True)
    assert events[-1].type == EventType.RUN_ERROR
    assert events[-1].code == "deadline"  # type: ignore[attr-defined]
    assert took < 20


RAW = [c for c in CASES if c.reads_bytes]  # toolwire reads these SDKs' bytes itself


@pytest.mark.parametrize("case", RAW, ids=[c.vendor for c in RAW])
def test_an_endless_trickle_meets_the_deadline_sync(case: Case) -> None:
    events, took = _events(case, False)
    assert events[-1].type == EventType.RUN_ERROR
    assert events[-1].code == "deadline"  # type: ignore[attr-defined]
    assert "1 s" in events[-1].message  # type: ignore[attr-defined]
    assert took < 20


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "10", True])
def test_a_bad_deadline_is_refused(bad: object) -> None:
    case = CASES[0]
    client = case.client("http://127.0.0.1:9", False)
    try:
        with pytest.raises(UnsupportedInput, match="deadline"):
            toolwire.run(client, run_input(case), model=case.model, deadline=bad)  # type: ignore[arg-type]
    finally:
        close_client(client)
