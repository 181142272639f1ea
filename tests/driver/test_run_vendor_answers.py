"""What a vendor says is never lost (issue 35, item 10).

An HTTP 200 whose body is the vendor's JSON error (not a stream) ends the run with that
error's type as ``RUN_ERROR.code`` and its message, not ``truncated``; a ``Retry-After``
that is not a number (``nan``, ``inf``) is ignored, and the run's retry goes on.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest
from _driver_support import (
    CASE_IDS,
    CASES,
    Case,
    aclose_client,
    cases,
    clean_reply,
    close_client,
    error_reply,
    recorded_error_type,
    run_input,
)
from ag_ui.core import BaseEvent, EventType

import toolwire
from toolwire.failures import retry_after
from toolwire.testing.fake_vendor import FakeVendor, Reply

FAST = toolwire.RetryPolicy(initial_backoff=0.01, max_backoff=0.05, max_retry_after=0.05)


def _events(case: Case, replies: list[Reply], is_async: bool) -> tuple[list[BaseEvent], int]:
    with FakeVendor(replies, timeout=30) as fv:
        if is_async:

            async def go() -> list[BaseEvent]:
                client = case.client(fv.base_url, True)
                try:
                    run = toolwire.arun(
                        client, run_input(case), model=case.model, retry=FAST, **case.kwargs
                    )
                    return [e async for e in run]
                finally:
                    await aclose_client(client)

            events = asyncio.run(go())
        else:
            client = case.client(fv.base_url, False)
            try:
                run = toolwire.run(
                    client, run_input(case), model=case.model, retry=FAST, **case.kwargs
                )
                events = list(run)
            finally:
                close_client(client)
        return events, len(fv.requests)


@pytest.mark.parametrize("case", cases("test_a_200_json_error_body_is_the_vendors_error"))
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_200_json_error_body_is_the_vendors_error(case: Case, is_async: bool) -> None:
    """The vendor's own error answer (its body as a 404 would carry it: Gemini's holds the
    code) served with status 200."""
    body, headers = case.error_answer(404, "not_found_error", "model: not found here")
    answer = Reply(
        status=200,
        headers={"content-type": "application/json", **headers},
        chunks=[json.dumps(body).encode()],
    )
    events, attempts = _events(case, [answer], is_async)
    last = events[-1]
    assert last.type == EventType.RUN_ERROR
    # the vendor's type; an answer that names none is an ``error``, as toolwire names
    # every vendor error without a type
    want = "not_found_error" if case.typed_errors else "error"
    assert last.code == want  # type: ignore[attr-defined]
    assert "model: not found here" in last.message  # type: ignore[attr-defined]
    assert attempts == 1


@pytest.mark.parametrize("case", cases("test_a_200_retryable_json_error_is_retried"))
def test_a_200_retryable_json_error_is_retried(case: Case) -> None:
    # the type the vendor's own recorded in-stream error has, and words that say the
    # server is busy (Ollama's errors name no type: its words tell)
    kind = recorded_error_type(case)
    body, headers = case.error_answer(503, kind, "overloaded: server busy")
    answer = Reply(
        status=200,
        headers={"content-type": "application/json", **headers},
        chunks=[json.dumps(body).encode()],
    )
    events, attempts = _events(case, [answer, clean_reply(case)], False)
    assert events[-1].type == EventType.RUN_FINISHED, events[-1]
    assert attempts == 2


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e400", "soon", ""])
def test_a_retry_after_that_is_not_a_number_is_ignored(value: str) -> None:
    assert retry_after({"retry-after": value}) is None
    assert retry_after({"retry-after-ms": value}) is None
    assert retry_after({"retry-after": "2"}) == 2.0  # a number still counts


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_429_with_retry_after_nan_is_retried(case: Case, is_async: bool) -> None:
    replies = [error_reply(case, 429, **{"retry-after": "nan"}), clean_reply(case)]
    events, attempts = _events(case, replies, is_async)
    assert events[-1].type == EventType.RUN_FINISHED, events[-1]
    assert attempts == 2


def test_retry_after_stays_finite() -> None:
    for raw in ("nan", "inf", "1e309", "Wed, 21 Oct 2015 07:28:00 GMT"):
        got: Any = retry_after({"retry-after": raw})
        assert got is None or math.isfinite(got)
