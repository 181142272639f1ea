"""AG-UI 1.0 §1.2: the streaming pattern (triads, interleaving, chunked form, lanes).

One test per normative rule, named after it; quotes are from agui-1.0-rules.md.
"""

from __future__ import annotations

from typing import Any

import pytest
from _agui_builders import (
    args,
    chunk,
    end,
    result,
    run_finished,
    run_started,
    start,
    text,
    text_end,
    text_start,
)
from ag_ui.core import AssistantMessage

from toolwire.errors import ProtocolViolation
from toolwire.protocol.machine import StreamMachine


def feed(events: list[dict[str, Any]]) -> tuple[StreamMachine, list[dict[str, Any]]]:
    m = StreamMachine()
    out: list[dict[str, Any]] = []
    for e in events:
        out.extend(x.model_dump(by_alias=True, mode="json") for x in m.feed(e))
    return m, out


def violation(events: list[dict[str, Any]]) -> ProtocolViolation:
    with pytest.raises(ProtocolViolation) as info:
        feed(events)
    return info.value


# --- the triad ---------------------------------------------------------------


def test_must_not_open_an_item_whose_identifier_is_already_open() -> None:
    v = violation([run_started(), start("c1"), start("c1")])
    assert v.code == "tool-call-already-open"
    assert v.index == 2
    v = violation([run_started(), text_start("m1"), text_start("m1")])
    assert v.code == "message-already-open"


def test_must_not_send_content_or_end_for_an_identifier_that_is_not_open() -> None:
    assert violation([run_started(), args("c9", "{}")]).code == "tool-call-not-open"
    assert violation([run_started(), end("c9")]).code == "tool-call-not-open"
    assert violation([run_started(), text("m9", "x")]).code == "message-not-open"
    assert violation([run_started(), start("c1"), end("c1"), end("c1")]).code == (
        "tool-call-not-open"
    )


def test_every_item_opened_must_be_closed_before_the_run_finishes() -> None:
    v = violation([run_started(), start("c1"), run_finished()])
    assert v.code == "item-open-at-run-finished"
    assert "c1" in v.reason
    v = violation([run_started(), text_start("m1"), run_finished()])
    assert v.code == "item-open-at-run-finished"


def test_deltas_concatenate_in_arrival_order() -> None:
    m, _ = feed([run_started(), start("c1"), args("c1", '{"a"'), args("c1", ":"), args("c1", "1}")])
    msg = m.messages[0]
    assert isinstance(msg, AssistantMessage) and msg.tool_calls
    assert msg.tool_calls[0].function.arguments == '{"a":1}'


def test_a_tool_call_may_open_while_a_message_is_still_streaming() -> None:
    m, out = feed(
        [
            run_started(),
            text_start("m1"),
            text("m1", "Looking"),
            start("c1", parent="m1"),
            text("m1", " up"),
            args("c1", "{}"),
            text_end("m1"),
            end("c1"),
            run_finished(),
        ]
    )
    assert len(out) == 9
    msg = m.messages[0]
    assert isinstance(msg, AssistantMessage)
    assert msg.content == "Looking up"
    assert [c.id for c in msg.tool_calls or []] == ["c1"]


def test_standalone_events_may_appear_anywhere_within_an_open_run() -> None:
    _, out = feed(
        [
            run_started(),
            start("c1"),
            {"type": "RAW", "event": {"x": 1}},
            {"type": "CUSTOM", "name": "acme.note", "value": None},
            {
                "type": "REASONING_ENCRYPTED_VALUE",
                "subtype": "tool-call",
                "entityId": "c1",
                "encryptedValue": "sig",
            },
            {"type": "STATE_SNAPSHOT", "snapshot": {"k": 1}},
            end("c1"),
            run_finished(),
        ]
    )
    assert [e["type"] for e in out][-1] == "RUN_FINISHED"


# --- the chunked form --------------------------------------------------------


def test_a_consumer_must_expand_chunks_into_start_content_end() -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="c1", toolCallName="search", parentMessageId="m1", delta='{"q":'),
            chunk(delta='"x"}'),
            run_finished(),
        ]
    )
    assert [e["type"] for e in out] == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]
    assert out[1] == {
        "type": "TOOL_CALL_START",
        "toolCallId": "c1",
        "toolCallName": "search",
        "parentMessageId": "m1",
    }
    assert out[2]["delta"] + out[3]["delta"] == '{"q":"x"}'


def test_first_chunk_must_carry_tool_call_id() -> None:
    v = violation([run_started(), chunk(toolCallName="f", delta="{}")])
    assert v.code == "chunk-missing-tool-call-id"


def test_first_chunk_must_carry_tool_call_name() -> None:
    v = violation([run_started(), chunk(toolCallId="c1", delta="{}")])
    assert v.code == "chunk-missing-tool-call-name"


def test_a_conflicting_repeat_of_tool_call_name_is_fatal() -> None:
    v = violation(
        [run_started(), chunk(toolCallId="c1", toolCallName="f"), chunk(toolCallName="g")]
    )
    assert v.code == "chunk-conflicting-name"


def test_a_conflicting_repeat_of_parent_message_id_is_fatal() -> None:
    v = violation(
        [
            run_started(),
            chunk(toolCallId="c1", toolCallName="f", parentMessageId="m1"),
            chunk(toolCallId="c1", parentMessageId="m2"),
        ]
    )
    assert v.code == "chunk-conflicting-parent"


def test_a_continuation_may_repeat_a_field_with_the_same_value() -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="c1", toolCallName="f", parentMessageId="m1", delta="{"),
            chunk(toolCallId="c1", toolCallName="f", parentMessageId="m1", delta="}"),
            run_finished(),
        ]
    )
    assert [e["type"] for e in out].count("TOOL_CALL_START") == 1


def test_a_chunk_naming_another_identifier_opens_a_new_item_and_closes_the_previous() -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="c1", toolCallName="f", delta="{}"),
            chunk(toolCallId="c2", toolCallName="g", delta="{}"),
            run_finished(),
        ]
    )
    kinds = [(e["type"], e.get("toolCallId")) for e in out[1:-1]]
    assert kinds == [
        ("TOOL_CALL_START", "c1"),
        ("TOOL_CALL_ARGS", "c1"),
        ("TOOL_CALL_END", "c1"),
        ("TOOL_CALL_START", "c2"),
        ("TOOL_CALL_ARGS", "c2"),
        ("TOOL_CALL_END", "c2"),
    ]


def test_the_two_spellings_do_not_mix_within_one_item() -> None:
    v = violation([run_started(), chunk(toolCallId="c1", toolCallName="f"), args("c1", "{}")])
    assert v.code == "chunk-forms-mixed"


def test_any_tool_call_event_in_the_lane_closes_the_chunk_stream() -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="c1", toolCallName="f", delta="{}"),
            start("c2"),
            end("c2"),
            run_finished(),
        ]
    )
    types = [(e["type"], e.get("toolCallId")) for e in out]
    assert types.index(("TOOL_CALL_END", "c1")) < types.index(("TOOL_CALL_START", "c2"))


@pytest.mark.parametrize(
    "passthrough",
    [
        {"type": "RAW", "event": {}},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "x", "content": {}},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "tool-call",
            "entityId": "c1",
            "encryptedValue": "e",
        },
    ],
)
def test_raw_activity_and_encrypted_values_do_not_close_a_chunk_stream(
    passthrough: dict[str, Any],
) -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="c1", toolCallName="f", delta="{"),
            passthrough,
            chunk(delta="}"),
            run_finished(),
        ]
    )
    assert [e["type"] for e in out].count("TOOL_CALL_END") == 1
    assert [e["type"] for e in out][-2] == "TOOL_CALL_END"


def test_a_chunk_stream_open_at_run_finished_is_closed_not_an_error() -> None:
    _, out = feed([run_started(), chunk(toolCallId="c1", toolCallName="f"), run_finished()])
    assert [e["type"] for e in out] == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_END",
        "RUN_FINISHED",
    ]


def test_a_metadata_only_continuation_chunk_is_legal() -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="c1", toolCallName="f", delta="{}"),
            chunk(metadata={"acme.k": 1}),
            run_finished(),
        ]
    )
    metas = [e for e in out if e["type"] == "TOOL_CALL_ARGS" and e.get("metadata")]
    assert metas == [
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "", "metadata": {"acme.k": 1}}
    ]


def test_an_untagged_idless_continuation_with_several_subagent_lanes_is_ambiguous() -> None:
    v = violation(
        [
            run_started(),
            chunk(toolCallId="a", toolCallName="f", subagentRunId="s1"),
            chunk(toolCallId="b", toolCallName="f", subagentRunId="s2"),
            chunk(delta="{}"),
        ]
    )
    assert v.code == "chunk-ambiguous-lane"


def test_an_untagged_idless_continuation_continues_the_sole_open_stream() -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="a", toolCallName="f", subagentRunId="s1"),
            chunk(delta="{}"),
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
            run_finished(),
        ]
    )
    arg = [e for e in out if e["type"] == "TOOL_CALL_ARGS"]
    assert arg == [
        {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": "{}", "subagentRunId": "s1"}
    ]


def test_a_chunk_stream_must_not_outlive_its_owner() -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="a", toolCallName="f", subagentRunId="s1", delta="{}"),
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
            run_finished(),
        ]
    )
    types = [e["type"] for e in out]
    assert types.index("TOOL_CALL_END") < types.index("SUBAGENT_FINISHED")


def test_text_message_chunks_expand_too() -> None:
    _, out = feed(
        [
            run_started(),
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hel"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"},
            run_finished(),
        ]
    )
    assert [e["type"] for e in out[1:-1]] == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
    ]


def test_a_result_after_a_chunked_call_closes_it_first() -> None:
    _, out = feed(
        [
            run_started(),
            chunk(toolCallId="c1", toolCallName="f", delta="{}"),
            result("c1"),
            run_finished(),
        ]
    )
    types = [e["type"] for e in out]
    assert types.index("TOOL_CALL_END") < types.index("TOOL_CALL_RESULT")


def test_a_bare_turn_machine_needs_no_run_started_and_end_turn_closes_chunk_streams() -> None:
    m = StreamMachine(run_open=True)
    out = m.feed(chunk(toolCallId="c1", toolCallName="f", delta="{}"))
    assert [e.type.value for e in out] == ["TOOL_CALL_START", "TOOL_CALL_ARGS"]
    assert [e.type.value for e in m.end_turn()] == ["TOOL_CALL_END"]
    assert m.end_turn() == []
    assert m.pending_tool_call_ids == ["c1"]


def test_an_auto_machine_takes_a_bare_turn_or_a_framed_run() -> None:
    bare = StreamMachine(run_open="auto")
    bare.feed(start("c1"))
    assert bare.bare and [e.type.value for e in bare.end_turn()] == []
    framed = StreamMachine(run_open="auto")
    framed.feed(run_started())
    assert not framed.bare
    with pytest.raises(ProtocolViolation):
        framed.feed(run_started("r2"))  # still a real run: the lifecycle rules hold
