"""The driver reads losses as values and warns once, at its caller; one verdict per failure.

The request's losses come from ``Encoded.losses`` and the turn's from ``Decoder.losses``;
each is warned about once (pointing at the test's own line, not inside toolwire), kept in
``losses=`` and forwarded. A failed attempt is classified once, however many of the
retry's hooks read it.
"""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Any

import pytest
from _driver_support import (
    CASES,
    answered_with_image,
    check_run,
    clean_reply,
    error_reply,
    run_input,
)
from ag_ui.core import EventType

import toolwire
import toolwire.driver._runner as runner
from toolwire.driver import LOSSES_EVENT, loss_record
from toolwire.failures import classify
from toolwire.losses import ToolwireWarning
from toolwire.testing.fake_vendor import FakeVendor, Reply

_BY_VENDOR = {c.vendor: c for c in CASES}
ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES = (
    _BY_VENDOR[v] for v in ("anthropic", "openai_chat", "openai_responses")
)


def _ours(seen: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in seen if issubclass(w.category, ToolwireWarning)]


def test_a_request_loss_is_warned_once_at_the_callers_line() -> None:
    case = OPENAI_CHAT  # Chat Completions takes no image in a tool message
    lost: list[Any] = []
    with FakeVendor([clean_reply(case)]) as fv, warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        client = case.client(fv.base_url, False)
        events = list(
            toolwire.run(client, answered_with_image(case), model=case.model, losses=lost)
        )
    assert events[-1].type == EventType.RUN_FINISHED
    ours = _ours(seen)
    assert [x.kind for x in lost] == ["part-dropped"]
    assert [str(w.message) for w in ours] == [lost[0].message]
    assert {w.filename for w in ours} == {__file__}  # the caller's line, not toolwire's


def _after_terminal(case: Any) -> Reply:
    """The recorded Responses turn with one more event after ``response.completed``."""
    reply = clean_reply(case)
    extra = (
        b"event: response.output_text.delta\n"
        b'data: {"type":"response.output_text.delta","item_id":"msg_x","output_index":9,'
        b'"content_index":0,"delta":"late","sequence_number":9999}\n\n'
    )
    return Reply(status=reply.status, headers=reply.headers, chunks=[*reply.chunks, extra])


def test_a_decoder_loss_is_kept_forwarded_and_warned_once(tmp_path: Path) -> None:
    case = OPENAI_RESPONSES  # its decoder drops (with a loss) what follows the terminal event
    lost: list[Any] = []
    with FakeVendor([_after_terminal(case)]) as fv, warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        client = case.client(fv.base_url, False)
        kw = {"losses": lost, "forward_losses": True, **case.kwargs}  # api="responses"
        events = list(toolwire.run(client, run_input(case), model=case.model, **kw))
    check_run(events, tmp_path)
    assert [x.kind for x in lost] == ["material-after-end"]
    ours = _ours(seen)
    assert [str(w.message) for w in ours] == [lost[0].message]
    assert {w.filename for w in ours} == {__file__}
    custom = events[-2]
    assert custom.type == EventType.CUSTOM and custom.name == LOSSES_EVENT
    assert custom.value == [loss_record(x) for x in lost]


def test_a_failed_attempt_is_classified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    case = ANTHROPIC
    calls: list[BaseException] = []

    def counting(exc: BaseException, *args: Any) -> Any:
        calls.append(exc)
        return classify(exc, *args)

    monkeypatch.setattr(runner, "classify", counting)
    policy = toolwire.RetryPolicy(attempts=2, initial_backoff=0.01, max_backoff=0.02)
    replies = [error_reply(case, 503), error_reply(case, 503)]
    with FakeVendor(replies) as fv:
        client = case.client(fv.base_url, False)
        events = list(toolwire.run(client, run_input(case), model=case.model, retry=policy))
    assert events[-1].type == EventType.RUN_ERROR and len(fv.requests) == 2
    assert events[-1].metadata["toolwire.attempts"] == 2
    # retry test, wait, log line and RUN_ERROR read one verdict per failed attempt
    assert len(calls) == 2 and calls[0] is not calls[1]


def test_arun_takes_the_parameters_of_run() -> None:
    run_params = inspect.signature(toolwire.run).parameters
    assert inspect.signature(toolwire.arun).parameters == run_params
    assert inspect.signature(toolwire.arun).return_annotation == "AsyncRunEvents"
