"""A vendor call id equal to one in the thread's history (issue 35, item 7).

The decoder knows the thread's call ids before its first chunk: the colliding call gets a
minted AG-UI id (the vendor's kept under ``toolwire.vendorId``) on the first attempt, the
run needs no retry, and ``frame_run`` with the same history frames the turn the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from _driver_support import (
    CASE_IDS,
    CASES,
    CASSETTES,
    Case,
    aclose_client,
    clean_reply,
    close_client,
    offline,
    run_input,
)
from ag_ui.core import BaseEvent, EventType, RunAgentInput

import toolwire
from toolwire import adapters
from toolwire.losses import ContentLossWarning
from toolwire.protocol import VENDOR_ID_KEY, frame_run
from toolwire.testing.fake_vendor import FakeVendor
from toolwire.testing.recording_cache import recording

FAST = toolwire.RetryPolicy(initial_backoff=0.01, max_backoff=0.05)


def _first_call_id(case: Case) -> str:
    starts = [e for e in offline(case, case.clean) if e.type == EventType.TOOL_CALL_START]
    assert starts, f"{case.clean} makes no call"
    return str(starts[0].tool_call_id)  # type: ignore[attr-defined]


def _with_history(case: Case, taken: str) -> dict[str, Any]:
    """The recorded input, after an earlier exchange whose call has the id ``taken``."""
    given = run_input(case)
    earlier = [
        {"id": "h-u", "role": "user", "content": "earlier question"},
        {
            "id": "h-a",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": taken,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"id": "h-r", "role": "tool", "toolCallId": taken, "content": "rain"},
    ]
    messages = list(given["messages"])
    # after the recorded instructions: a system message stays first, where every vendor
    # takes it (Converse only at the top)
    lead = 0
    while lead < len(messages) and messages[lead]["role"] in ("system", "developer"):
        lead += 1
    given["messages"] = messages[:lead] + earlier + messages[lead:]
    return given


def _check(events: list[BaseEvent], taken: str) -> None:
    assert events[-1].type == EventType.RUN_FINISHED, events[-1]
    starts = [e for e in events if e.type == EventType.TOOL_CALL_START]
    first = starts[0]
    assert first.tool_call_id != taken  # type: ignore[attr-defined]
    vendor_id = (first.metadata or {}).get(VENDOR_ID_KEY)  # type: ignore[attr-defined]
    assert vendor_id is not None and vendor_id["id"] == taken


def _unsigned(case: Case) -> contextlib.AbstractContextManager[object]:
    """The history's call carries no thought signature: Gemini 3 wants one, so its request
    announces the placeholder it sends instead; no other target loses anything."""
    if case.vendor == "gemini":
        return pytest.warns(ContentLossWarning, match="thought-signature-missing")
    return contextlib.nullcontext()


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_the_first_attempt_mints_the_colliding_id_apart(case: Case, is_async: bool) -> None:
    taken = _first_call_id(case)
    given = _with_history(case, taken)
    with FakeVendor([clean_reply(case), clean_reply(case)], timeout=30) as fv, _unsigned(case):
        if is_async:

            async def go() -> list[BaseEvent]:
                client = case.client(fv.base_url, True)
                try:
                    run = toolwire.arun(client, given, model=case.model, retry=FAST, **case.kwargs)
                    return [e async for e in run]
                finally:
                    await aclose_client(client)

            events = asyncio.run(go())
        else:
            client = case.client(fv.base_url, False)
            try:
                run = toolwire.run(client, given, model=case.model, retry=FAST, **case.kwargs)
                events = list(run)
            finally:
                close_client(client)
        attempts = len(fv.requests)
    _check(events, taken)
    assert attempts == 1  # no protocol violation, no retry


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_frame_run_with_the_history_frames_the_turn(case: Case) -> None:
    taken = _first_call_id(case)
    adapter = adapters.get(case.vendor)
    [exchange] = recording(CASSETTES / case.clean)
    chunks = list(adapter.sse_chunks(exchange.response_body))
    given = RunAgentInput.model_validate(_with_history(case, taken))
    events = list(frame_run(adapter.Decoder(), chunks, thread_id="t", run_id="r", run_input=given))
    _check(events, taken)
