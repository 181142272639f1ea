"""AG-UI 1.0 §1.3 (tool calls), §1.4 (fatal sequence errors), §1.5 (runs and outcomes).

One test per normative rule, named after it.
"""

from __future__ import annotations

from typing import Any

import pytest
from _agui_builders import (
    args,
    end,
    result,
    run_error,
    run_finished,
    run_started,
    start,
    text,
    text_end,
    text_start,
)
from ag_ui.core import AssistantMessage, ToolMessage

from toolwire.errors import ProtocolViolation
from toolwire.protocol.machine import RESULT_ERROR_KEY, VIOLATION_CODES, StreamMachine


def feed(events: list[dict[str, Any]]) -> StreamMachine:
    m = StreamMachine()
    for e in events:
        m.feed(e)
    return m


def code_of(events: list[dict[str, Any]]) -> str:
    with pytest.raises(ProtocolViolation) as info:
        feed(events)
    assert info.value.code in VIOLATION_CODES
    return info.value.code


# --- §1.3 tool calls ---------------------------------------------------------


def test_a_closed_call_may_be_reopened_and_further_arguments_append() -> None:
    m = feed(
        [
            run_started(),
            start("c1", "f", parent="m1"),
            args("c1", '{"a":'),
            end("c1"),
            start("c1", "f", parent="m1"),
            args("c1", "1}"),
            end("c1"),
            run_finished(),
        ]
    )
    msg = m.messages[0]
    assert isinstance(msg, AssistantMessage) and msg.tool_calls
    assert len(msg.tool_calls) == 1
    assert msg.tool_calls[0].function.arguments == '{"a":1}'


def test_a_reopening_start_must_agree_with_the_call_it_reopens() -> None:
    assert (
        code_of([run_started(), start("c1", "f"), end("c1"), start("c1", "g")])
        == "tool-call-reopen-disagrees"
    )
    assert (
        code_of(
            [run_started(), start("c1", "f", parent="m1"), end("c1"), start("c1", "f", parent="m2")]
        )
        == "tool-call-reopen-disagrees"
    )


def test_a_result_does_not_reopen_the_call_it_answers() -> None:
    assert (
        code_of([run_started(), start("c1"), end("c1"), result("c1"), args("c1", "x")])
        == "tool-call-not-open"
    )


def test_a_result_is_a_tool_message_in_its_own_right() -> None:
    m = feed([run_started(), start("c1"), end("c1"), result("c1", "42", mid="t9"), run_finished()])
    tool = m.messages[-1]
    assert isinstance(tool, ToolMessage)
    assert (tool.id, tool.tool_call_id, tool.content) == ("t9", "c1", "42")


def test_a_result_error_carried_in_metadata_reaches_tool_message_error() -> None:
    m = feed(
        [
            run_started(),
            start("c1"),
            end("c1"),
            result("c1", "partial", metadata={RESULT_ERROR_KEY: "timed out"}),
            run_finished(),
        ]
    )
    tool = m.messages[-1]
    assert isinstance(tool, ToolMessage)
    assert tool.error == "timed out"
    assert tool.content == "partial"  # alongside content, not instead of it


def test_pending_tool_call_ids_are_the_calls_started_and_not_answered_in_order() -> None:
    m = feed(
        [
            run_started(),
            start("c3"),
            end("c3"),
            start("c1"),
            end("c1"),
            start("c2"),
            end("c2"),
            result("c1"),
        ]
    )
    assert m.pending_tool_call_ids == ["c3", "c2"]


def test_a_stated_pending_list_must_contain_exactly_the_unanswered_calls() -> None:
    base = [run_started(), start("c1"), end("c1"), start("c2"), end("c2"), result("c1")]
    ok = feed([*base, run_finished(outcome={"type": "success", "pendingToolCallIds": ["c2"]})])
    assert ok.finished is not None
    for wrong in (["c1", "c2"], ["c1"], ["c2", "c3"]):
        assert (
            code_of([*base, run_finished(outcome={"type": "success", "pendingToolCallIds": wrong})])
            == "pending-tool-calls-mismatch"
        )


def test_absence_of_the_pending_list_is_not_nothing_pending() -> None:
    m = feed([run_started(), start("c1"), end("c1"), run_finished()])
    assert m.pending_tool_call_ids == ["c1"]


def test_a_tool_call_belongs_to_the_message_that_carries_it() -> None:
    assert (
        code_of(
            [
                run_started(),
                text_start("m1", subagentRunId="sub-a"),
                start("c1", parent="m1", subagentRunId="sub-b"),
            ]
        )
        == "tool-call-owner-mismatch"
    )


def test_a_continuation_whose_tag_disagrees_with_its_start_is_rejected() -> None:
    assert (
        code_of(
            [run_started(), start("c1", subagentRunId="s1"), args("c1", "{}", subagentRunId="s2")]
        )
        == "owner-mismatch"
    )


@pytest.mark.parametrize(
    "continuation",
    [
        text("m1", "hi", subagentRunId="s2"),
        text_end("m1", subagentRunId="s2"),
        {
            "type": "REASONING_MESSAGE_CONTENT",
            "messageId": "r1",
            "delta": "so",
            "subagentRunId": "s2",
        },
        end("c1", subagentRunId="s2"),
    ],
    ids=["text content", "text end", "reasoning content", "tool call end"],
)
def test_every_continuation_whose_tag_disagrees_with_its_opener_is_rejected(
    continuation: dict[str, Any],
) -> None:
    opened = [
        run_started(),
        text_start("m1", subagentRunId="s1"),
        {"type": "REASONING_START", "messageId": "r1", "subagentRunId": "s1"},
        {
            "type": "REASONING_MESSAGE_START",
            "messageId": "r1",
            "role": "reasoning",
            "subagentRunId": "s1",
        },
        start("c1", subagentRunId="s1"),
    ]
    assert code_of([*opened, continuation]) == "owner-mismatch"
    # the same continuation tagged as its opener, or not tagged, is taken
    feed([*opened, {**continuation, "subagentRunId": "s1"}])
    feed([*opened, {k: v for k, v in continuation.items() if k != "subagentRunId"}])


def test_an_untagged_continuation_is_accepted() -> None:
    m = feed([run_started(), start("c1", subagentRunId="s1"), args("c1", "{}"), end("c1")])
    assert m.pending_tool_call_ids == ["c1"]


def test_encrypted_values_reach_the_tool_call_in_history() -> None:
    m = feed(
        [
            run_started(),
            start("c1", parent="m1"),
            end("c1"),
            {
                "type": "REASONING_ENCRYPTED_VALUE",
                "subtype": "tool-call",
                "entityId": "c1",
                "encryptedValue": "sig-1",
            },
            run_finished(),
        ]
    )
    msg = m.messages[0]
    assert isinstance(msg, AssistantMessage) and msg.tool_calls
    assert msg.tool_calls[0].encrypted_value == "sig-1"


def test_metadata_merges_key_by_key_last_write_wins_without_recursing() -> None:
    m = feed(
        [
            run_started(),
            start("c1", metadata={"a": 1, "n": {"x": 1}}),
            args("c1", "{}", metadata={"b": 2, "n": {"y": 2}}),
            end("c1", metadata={"a": 3}),
            run_finished(),
        ]
    )
    msg = m.messages[0]
    assert isinstance(msg, AssistantMessage) and msg.tool_calls
    assert msg.tool_calls[0].metadata == {"a": 3, "b": 2, "n": {"y": 2}}
    assert msg.metadata is None  # merged into the call, not the message


# --- §1.5 runs ---------------------------------------------------------------


def test_a_stream_must_begin_with_run_started_or_run_error() -> None:
    assert code_of([start("c1")]) == "event-before-run-started"
    feed([run_error()])  # RUN_ERROR may open a stream


def test_a_run_started_while_a_run_is_active_is_a_violation() -> None:
    assert code_of([run_started(), run_started("r2")]) == "run-already-started"


def test_run_error_ends_whatever_was_still_open() -> None:
    m = feed([run_started(), start("c1"), text_start("m1"), run_error()])
    assert m.error is not None


def test_nothing_but_run_started_may_follow_run_error() -> None:
    assert code_of([run_started(), run_error(), start("c1")]) == "event-after-run-closed"
    assert code_of([run_started(), run_error(), run_error()]) == "event-after-run-closed"
    feed([run_started(), run_error(), run_started("r2"), run_finished("r2")])


def test_a_producer_may_emit_run_error_after_run_finished() -> None:
    m = feed([run_started(), run_finished(), run_error()])
    assert m.error is not None


def test_a_consumer_must_reject_any_other_event_after_a_run_has_closed() -> None:
    assert code_of([run_started(), run_finished(), start("c1")]) == "event-after-run-closed"


def test_several_runs_may_follow_each_other_on_one_stream() -> None:
    m = feed(
        [
            run_started(),
            run_finished(),
            run_started("r2"),
            start("c1"),
            end("c1"),
            run_finished("r2"),
        ]
    )
    assert len(m.runs) == 2
    assert m.pending_tool_call_ids == ["c1"]


def test_a_truncated_stream_must_not_be_reported_as_success() -> None:
    m = feed([run_started(), start("c1"), end("c1")])
    with pytest.raises(ProtocolViolation) as info:
        m.close()
    assert info.value.code == "truncated"


def test_each_interrupt_id_must_be_unique_within_the_run() -> None:
    outcome = {
        "type": "interrupt",
        "interrupts": [{"id": "i1", "reason": "approve"}, {"id": "i1", "reason": "approve"}],
    }
    assert code_of([run_started(), run_finished(outcome=outcome)]) == "interrupt-id-duplicate"


def test_a_step_must_be_running_to_finish() -> None:
    assert code_of([run_started(), {"type": "STEP_FINISHED", "stepName": "s"}]) == "step-not-open"
    assert (
        code_of(
            [
                run_started(),
                {"type": "STEP_STARTED", "stepName": "s"},
                run_finished(),
            ]
        )
        == "item-open-at-run-finished"
    )


def test_every_announced_subagent_must_be_closed_before_the_run_finishes() -> None:
    started = {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "helper"}
    assert code_of([run_started(), started, run_finished()]) == "subagent-open-at-run-finished"
    assert code_of([run_started(), started, started]) == "subagent-reused"


def test_message_ids_are_unique_within_the_thread() -> None:
    assert (
        code_of(
            [
                run_started(),
                text_start("m1"),
                {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
                result("c1", mid="m1"),
            ]
        )
        == "duplicate-message-id"
    )


def test_a_cancelled_turn_ends_the_run_with_the_cancelled_outcome() -> None:
    from ag_ui.core import RunFinishedCancelledOutcome, RunFinishedEvent

    from toolwire.protocol.decoding import BaseDecoder
    from toolwire.protocol.runs import frame_run

    class Cancelling(BaseDecoder):
        def _feed(self, chunk: dict[str, Any]) -> list[Any]:
            self.cancelled = True
            return []

    events = list(frame_run(Cancelling(), [{}], thread_id="t", run_id="r"))
    assert isinstance(events[-1], RunFinishedEvent)
    assert isinstance(events[-1].outcome, RunFinishedCancelledOutcome)


def test_who_issued_an_encrypted_value_reaches_its_entity_and_gates_reuse() -> None:
    from toolwire.protocol.signatures import (
        ENCRYPTED_BY_KEY,
        encrypted_value_event,
        usable_encrypted,
    )

    m = StreamMachine()
    m.feed(run_started())
    m.feed(encrypted_value_event("tool-call", "c1", "sig", "anthropic"))  # before the call
    for e in (start("c1", parent="m1"), end("c1"), run_finished()):
        m.feed(e)
    msg = m.messages[0]
    assert isinstance(msg, AssistantMessage) and msg.tool_calls
    call = msg.tool_calls[0]
    assert call.encrypted_value == "sig"
    assert call.metadata == {ENCRYPTED_BY_KEY: "anthropic"}
    losses: list[Any] = []
    kw: dict[str, Any] = {"target": "gemini", "entity": "c1", "losses": losses}
    assert usable_encrypted("sig", call.metadata, "anthropic", **kw) == "sig"
    assert usable_encrypted("sig", None, "google", **kw) == "sig"  # unmarked: passed on
    assert usable_encrypted("sig", call.metadata, "google", **kw) is None
    assert [x.kind for x in losses] == ["encrypted-value-dropped"]


def test_histories_are_marked_and_foreign_values_stripped_with_a_loss() -> None:
    from ag_ui.core import FunctionCall, ReasoningMessage, ToolCall

    from toolwire.protocol.signatures import issued_by, mark_history, strip_foreign

    history = [
        ReasoningMessage(id="r1", content="think", encrypted_value="sig-r"),
        AssistantMessage(
            id="a1",
            tool_calls=[
                ToolCall(
                    id="c1",
                    function=FunctionCall(name="f", arguments="{}"),
                    encrypted_value="sig-c",
                )
            ],
        ),
    ]
    marked = mark_history(history, "anthropic")
    assert issued_by(marked[0].metadata) == "anthropic"  # type: ignore[union-attr]
    losses: list[Any] = []
    same = strip_foreign(marked, "anthropic", target="anthropic", losses=losses)
    assert same == marked and losses == []
    other = strip_foreign(marked, "google", target="gemini", losses=losses)
    assert other[0].encrypted_value is None  # type: ignore[union-attr]
    assert isinstance(other[1], AssistantMessage) and other[1].tool_calls
    assert other[1].tool_calls[0].encrypted_value is None
    assert len(losses) == 2
    assert history[0].encrypted_value == "sig-r"  # the caller's history is not changed


def test_how_the_vendor_ended_the_turn_rides_on_run_finished_metadata() -> None:
    from ag_ui.core import RunFinishedEvent

    from toolwire.protocol.decoding import BaseDecoder
    from toolwire.protocol.runs import frame_run

    class Stopping(BaseDecoder):
        def _feed(self, chunk: dict[str, Any]) -> list[Any]:
            self.run_metadata["acme.stop_reason"] = chunk["stop"]
            return []

    events = list(frame_run(Stopping(), [{"stop": "max_tokens"}], thread_id="t", run_id="r"))
    assert isinstance(events[-1], RunFinishedEvent)
    assert events[-1].metadata == {"acme.stop_reason": "max_tokens"}
