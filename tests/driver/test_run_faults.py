"""toolwire.run / arun over the real SDK clients against FakeVendor replaying our cassettes,
with faults injected: each run is checked event by event against the offline decode of
the same recorded bytes, validated as `toolwire validate` does, and the HTTP attempts
the server saw are counted."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from _driver_support import (
    CASE_IDS,
    CASES,
    Case,
    broken_reply,
    check_run,
    clean_reply,
    comparable,
    error_before_first_delta,
    error_reply,
    no_secret,
    offline,
    recorded_error_type,
    run_case,
    run_input,
    split_half,
)
from ag_ui.core import BaseEvent, EventType

import toolwire
from toolwire.testing.fake_vendor import FakeVendor, Reply


def _collect(case: Case, fv: FakeVendor, is_async: bool, **kw: Any) -> list[BaseEvent]:
    return run_case(case, fv, run_input(case), is_async, **kw)


def _run(case: Case, replies: list[Reply], is_async: bool, **kw: Any) -> tuple[list[Any], Any]:
    with FakeVendor(replies, timeout=30) as fv:
        events = _collect(case, fv, is_async, **kw)
    return events, fv


def _same_as_clean(case: Case, events: list[Any], fv: Any, tmp_path: Path, attempts: int) -> None:
    """A valid run equal to the offline decode of the clean recording, after ``attempts``."""
    check_run(events, tmp_path)
    assert comparable(events) == comparable(offline(case, case.clean))
    assert len(fv.requests) == attempts


params = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
modes = pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])


@params
@modes
def test_a_clean_turn_is_the_offline_decode_of_the_same_bytes(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    events, fv = _run(case, [clean_reply(case)], is_async)
    _same_as_clean(case, events, fv, tmp_path, 1)
    finished = events[-1]
    assert finished.type == EventType.RUN_FINISHED
    calls = [ev.tool_call_id for ev in events if ev.type == EventType.TOOL_CALL_START]
    assert calls and finished.outcome.pending_tool_call_ids == calls
    started = events[0]
    assert started.protocol_version and started.input.thread_id == "thread-1"
    sent = json.loads(fv.requests[0].body)
    if case.path_says is None:
        assert sent["model"] == case.model and sent["stream"] is True
    else:  # the model and the streaming call in the URL (Gemini, Bedrock)
        model, streams = case.path_says(case.model)
        path = unquote(fv.requests[0].path)
        assert model in path and streams in path
    assert fv.requests[0].outcome == "complete"


@params
@modes
def test_429_with_retry_after_then_200_is_retried_once(
    case: Case, is_async: bool, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    replies = [error_reply(case, 429, **{"retry-after-ms": "40"}), clean_reply(case)]
    with caplog.at_level(logging.INFO, logger="toolwire.driver"):
        events, fv = _run(case, replies, is_async)
    _same_as_clean(case, events, fv, tmp_path, 2)
    waits = [r.getMessage() for r in caplog.records if "retrying in" in r.getMessage()]
    assert len(waits) == 1 and waits[0].endswith("retrying in 0.040s")


@params
@modes
def test_529_twice_then_200_takes_three_attempts(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    overloaded = error_reply(case, 529, "overloaded_error", "Overloaded")
    replies = [overloaded, overloaded]
    events, fv = _run(case, [*replies, clean_reply(case)], is_async)
    _same_as_clean(case, events, fv, tmp_path, 3)


@params
@modes
def test_529_more_often_than_the_policy_allows_is_run_error(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    policy = toolwire.RetryPolicy(attempts=2, initial_backoff=0.01, max_backoff=0.02)
    replies = [error_reply(case, 529, "overloaded_error", "Overloaded")] * 2
    events, fv = _run(case, replies, is_async, retry=policy)
    check_run(events, tmp_path)
    assert [ev.type for ev in events] == [EventType.RUN_STARTED, EventType.RUN_ERROR]
    err = events[-1]
    assert err.code == case.code_of("overloaded_error", 529) and err.message == "Overloaded"
    assert err.metadata["toolwire.httpStatus"] == 529
    assert err.metadata["toolwire.retryable"] is True
    assert err.metadata["toolwire.attempts"] == 2
    assert len(fv.requests) == 2


@params
@modes
def test_an_in_stream_error_before_the_first_delta_is_retried(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    events, fv = _run(case, [error_before_first_delta(case), clean_reply(case)], is_async)
    if case.stream_error_retryable:
        _same_as_clean(case, events, fv, tmp_path, 2)
        return
    # an error the vendor does not call transient is the run's end, nothing retried
    check_run(events, tmp_path)
    assert [ev.type for ev in events] == [EventType.RUN_STARTED, EventType.RUN_ERROR]
    assert events[-1].code == recorded_error_type(case)
    assert events[-1].metadata["toolwire.retryable"] is False
    assert len(fv.requests) == 1


@params
@modes
def test_an_in_stream_error_after_the_first_delta_is_run_error_not_retried(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    # a second reply is there for a retry that must not happen
    events, fv = _run(case, [broken_reply(case), clean_reply(case)], is_async)
    check_run(events, tmp_path)
    expected = offline(case, case.broken)
    assert expected[-1].type == EventType.RUN_ERROR  # the same bytes without SDK or HTTP
    assert comparable(events) == comparable(expected)
    assert events[-1].code == recorded_error_type(case)  # what the recording itself says
    # whether the vendor would allow another attempt (an overloaded / server error would)
    assert events[-1].metadata["toolwire.retryable"] is case.stream_error_retryable
    assert events[-1].metadata["toolwire.attempts"] == 1
    assert len(fv.requests) == 1


@params
@modes
def test_a_connection_reset_mid_stream_is_run_error_after_what_was_sent(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    reply = clean_reply(case)
    cut = split_half(reply)
    cut_reply = Reply(status=200, headers=reply.headers, chunks=reply.chunks, reset_after=cut)
    events, fv = _run(case, [cut_reply, clean_reply(case)], is_async)
    check_run(events, tmp_path)
    assert events[-1].type == EventType.RUN_ERROR
    assert events[-1].code == "connection_error"
    assert events[-1].metadata["toolwire.attempts"] == 1
    whole = comparable(offline(case, case.clean))
    sent = comparable(events)[:-1]
    assert sent and sent == whole[: len(sent)]  # a prefix of the turn, nothing invented
    assert len(fv.requests) == 1 and fv.requests[0].outcome == "reset"


@params
@modes
def test_a_reset_before_any_byte_of_the_body_is_retried(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    reply = clean_reply(case)
    cut_reply = Reply(status=200, headers=reply.headers, chunks=reply.chunks, reset_after=0)
    events, fv = _run(case, [cut_reply, clean_reply(case)], is_async)
    _same_as_clean(case, events, fv, tmp_path, 2)


@params
@modes
def test_400_is_run_error_with_the_vendors_type_and_message(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    events, fv = _run(case, [error_reply(case, 400), clean_reply(case)], is_async)
    check_run(events, tmp_path)
    assert [ev.type for ev in events] == [EventType.RUN_STARTED, EventType.RUN_ERROR]
    err = events[-1]
    assert err.code == case.error_code
    assert err.message == case.error_message
    assert err.metadata["toolwire.httpStatus"] == 400
    assert err.metadata["toolwire.retryable"] is False
    assert err.metadata["toolwire.vendor"] == case.vendor
    assert len(fv.requests) == 1
    no_secret(events, case.key)


@params
@modes
def test_a_401_echoing_the_key_never_puts_it_in_the_run(
    case: Case, is_async: bool, tmp_path: Path
) -> None:
    echo = f"Incorrect API key provided: {case.key}. Bearer {case.key}"
    events, fv = _run(case, [error_reply(case, 401, message=echo)], is_async)
    check_run(events, tmp_path)
    assert events[-1].type == EventType.RUN_ERROR
    assert "[REDACTED]" in events[-1].message
    no_secret(events, case.key)
    assert any(case.key in v for v in fv.requests[0].headers.values())  # it was sent, though


@params
@modes
def test_a_slow_trickle_gives_the_same_run(case: Case, is_async: bool, tmp_path: Path) -> None:
    events, fv = _run(case, [clean_reply(case, delay=0.01)], is_async)
    _same_as_clean(case, events, fv, tmp_path, 1)
    assert fv.requests[0].outcome == "complete"


@params
def test_the_sdk_retries_are_off_and_the_client_is_not_changed(case: Case) -> None:
    # a 503 the SDK itself would retry (twice, by default): toolwire's policy says once
    with FakeVendor([error_reply(case, 503), clean_reply(case)]) as fv:
        client = case.client(fv.base_url, False)
        before = getattr(client, "max_retries", None)
        events = _collect_client(case, client)
    assert events[-1].type == EventType.RUN_ERROR
    assert len(fv.requests) == 1  # the SDK did not retry on its own
    assert getattr(client, "max_retries", None) == before


def _collect_client(case: Case, client: Any) -> list[BaseEvent]:
    ri = run_input(case)
    once = toolwire.RetryPolicy(attempts=1)
    return list(toolwire.run(client, ri, model=case.model, retry=once, **case.kwargs))
