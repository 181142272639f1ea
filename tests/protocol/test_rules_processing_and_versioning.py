"""AG-UI 1.0 §1.8 (versioning and downgrades) and §1.9 (the processing model)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _agui_builders import end, result, run_finished, run_started, start
from ag_ui.core import (
    PROTOCOL_VERSION,
    MessagesSnapshotEvent,
    RunStartedEvent,
    ToolCallResultEvent,
    ToolMessage,
)

from toolwire import PartsDroppedWarning, UnrecognizedMaterialWarning
from toolwire.errors import ProtocolViolation
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.downgrade import downgrade_event, downgrade_stream
from toolwire.protocol.events import parse_event
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run

IMAGE = {
    "type": "image",
    "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"},
}


# --- §1.9 processing ---------------------------------------------------------


def test_an_unknown_event_type_is_dropped_with_a_warning_naming_it() -> None:
    with pytest.warns(UnrecognizedMaterialWarning, match="HOLOGRAM"):
        assert parse_event({"type": "HOLOGRAM", "x": 1}) is None


def test_an_unknown_property_is_stripped_with_a_warning_naming_its_path() -> None:
    with pytest.warns(UnrecognizedMaterialWarning, match=r"TOOL_CALL_START\.colour"):
        ev = parse_event({**start("c1"), "colour": "red"})
    assert ev is not None
    assert "colour" not in ev.model_dump(by_alias=True)


def test_an_unknown_content_part_is_dropped_from_its_list() -> None:
    with pytest.warns(UnrecognizedMaterialWarning, match="hologram"):
        ev = parse_event(result("c1", [{"type": "hologram"}, {"type": "text", "text": "hi"}]))
    assert isinstance(ev, ToolCallResultEvent)
    assert [p.type for p in ev.content if not isinstance(p, str)] == ["text"]


def test_a_media_part_whose_source_kind_is_unknown_is_removed_whole() -> None:
    blob = {"type": "image", "source": {"type": "blob", "value": "x"}}
    with pytest.warns(UnrecognizedMaterialWarning, match="blob"):
        ev = parse_event(result("c1", [blob, {"type": "text", "text": "a"}]))
    assert isinstance(ev, ToolCallResultEvent) and isinstance(ev.content, list)
    assert len(ev.content) == 1


@pytest.mark.parametrize(
    "bad",
    [
        {**start("c1"), "toolCallId": 5},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": None},
        {**start("c1"), "timestamp": 1.5},
        result("c1", 42),
    ],
)
def test_a_malformed_known_value_is_fatal(bad: dict[str, Any]) -> None:
    with pytest.raises(ProtocolViolation) as info:
        parse_event(bad, 7)
    assert info.value.code in ("malformed-value", "null-optional-field")
    assert info.value.index == 7


def test_an_optional_field_without_value_must_be_omitted_not_null() -> None:
    with pytest.raises(ProtocolViolation) as info:
        parse_event({**start("c1"), "metadata": None})
    assert info.value.code == "null-optional-field"


def test_a_deprecated_null_is_converted_to_absent_with_a_warning() -> None:
    with pytest.warns(UnrecognizedMaterialWarning, match="parentMessageId"):
        ev = parse_event({**start("c1"), "parentMessageId": None})
    assert ev is not None and ev.model_dump(by_alias=True).get("parentMessageId") is None


def test_a_non_object_event_is_a_violation_not_a_type_error() -> None:
    for bad in (None, 3, "x", [1]):
        with pytest.raises(ProtocolViolation) as info:
            parse_event(bad)
        assert info.value.code == "malformed-event"


# --- §1.8 versioning ---------------------------------------------------------


class _Empty(BaseDecoder):
    def _feed(self, chunk: dict[str, Any]) -> list[Any]:
        return []


def test_a_producer_declares_the_version_its_stream_speaks() -> None:
    events = list(frame_run(_Empty(), [], thread_id="t", run_id="r"))
    assert isinstance(events[0], RunStartedEvent)
    assert events[0].protocol_version == PROTOCOL_VERSION == "1.0"


def test_a_downgrade_flattens_results_to_text_and_warns_naming_the_dropped_part() -> None:
    ev = ToolCallResultEvent.model_validate(
        result("c7", [{"type": "text", "text": "a"}, IMAGE, {"type": "text", "text": "b"}])
    )
    with pytest.warns(PartsDroppedWarning) as caught:
        out = list(downgrade_stream([ev]))
    assert out[0].content == "ab"  # type: ignore[attr-defined]
    text = str(caught[0].message)
    for needle in ("image", "image/png", "data source", "c7", "upgrade"):
        assert needle in text


def test_a_downgrade_must_not_put_a_placeholder_in_a_dropped_parts_place() -> None:
    ev = ToolCallResultEvent.model_validate(result("c1", [IMAGE]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, losses = downgrade_event(ev)
    assert out.content == ""  # type: ignore[attr-defined]
    assert len(losses) == 1


def test_a_downgrade_must_not_change_ids_order_or_outcome() -> None:
    events = [
        run_started(),
        start("c1"),
        end("c1"),
        result("c1", [{"type": "text", "text": "x"}, IMAGE], mid="t1"),
        run_finished(outcome={"type": "success"}),
    ]
    m = StreamMachine()
    parsed = [e for raw in events for e in m.feed(raw)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = list(downgrade_stream(parsed))
    before = [e.model_dump(by_alias=True) for e in parsed]
    after = [e.model_dump(by_alias=True) for e in out]
    assert [e["type"] for e in before] == [e["type"] for e in after]
    assert before[3]["messageId"] == after[3]["messageId"] == "t1"
    assert after[3]["content"] == "x"
    for b, a in zip(before, after, strict=True):
        if b["type"] != "TOOL_CALL_RESULT":
            assert a == b


def test_a_lossless_downgrade_may_be_silent() -> None:
    ev = ToolCallResultEvent.model_validate(result("c1", "plain"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = list(downgrade_stream([ev]))
    assert out == [ev]


def test_a_downgrade_flattens_tool_messages_in_snapshots() -> None:
    snap = MessagesSnapshotEvent(
        messages=[ToolMessage.model_validate({"id": "t1", "toolCallId": "c1", "content": [IMAGE]})]
    )
    with pytest.warns(PartsDroppedWarning, match="t1|c1"):
        (out,) = list(downgrade_stream([snap]))
    assert isinstance(out, MessagesSnapshotEvent)
    assert out.messages[0].content == ""


def test_a_legacy_binary_part_is_converted_to_the_media_part_it_stands_for() -> None:
    legacy = {"type": "binary", "mimeType": "image/png", "data": "iVBO", "filename": "a.png"}
    with pytest.warns(UnrecognizedMaterialWarning, match="legacy binary"):
        ev = parse_event(result("c1", [legacy, {"type": "binary", "mimeType": "x/y", "id": "f1"}]))
    assert isinstance(ev, ToolCallResultEvent) and isinstance(ev.content, list)
    assert [p.model_dump(by_alias=True) for p in ev.content] == [
        {
            "type": "image",
            "source": {"type": "data", "value": "iVBO", "mimeType": "image/png"},
            "metadata": {"filename": "a.png"},
        }
    ]


def test_unknown_parts_in_run_input_messages_are_stripped() -> None:
    raw = run_started(
        input={
            "threadId": "t1",
            "runId": "r1",
            "messages": [{"id": "u1", "role": "user", "content": [{"type": "hologram"}]}],
        }
    )
    with pytest.warns(UnrecognizedMaterialWarning, match="hologram"):
        ev = parse_event(raw)
    assert isinstance(ev, RunStartedEvent) and ev.input is not None
    assert ev.input.messages[0].content == []


def test_versions_compare_numerically_and_a_newer_declaration_proceeds_with_a_warning() -> None:
    from toolwire import VersionWarning
    from toolwire.protocol._versions import is_legacy_peer, parse_version

    assert parse_version("1.10") is not None and parse_version("1.10") > (1, 9)  # type: ignore[operator]
    assert parse_version("one") is None
    assert is_legacy_peer(None) and not is_legacy_peer("1.0")
    m = StreamMachine()
    with pytest.warns(VersionWarning, match="1.10"):
        m.feed(run_started(protocolVersion="1.10"))
    with pytest.warns(VersionWarning, match="cannot be read"):
        StreamMachine().feed(run_started(protocolVersion="v-next"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        StreamMachine().feed(run_started())
