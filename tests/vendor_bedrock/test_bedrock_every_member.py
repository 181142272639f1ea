"""Every member botocore's ``bedrock-runtime`` model declares for a ConverseStream event, a
content block start, a delta, a whole ``converse`` content block and a server tool's result
piece: each gives an AG-UI event, raises the vendor's error, or is announced as a loss.

The member lists are read from botocore's service model, so a member AWS adds later fails
the sorting test until it is given a sample here (issue 36: nothing dropped without a word).
"""

from __future__ import annotations

from typing import Any

import botocore.session
import pytest
from ag_ui.core import BaseEvent
from losses_seen import content_losses

from toolwire.adapters.bedrock import Decoder
from toolwire.errors import VendorStreamError

_MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")


def declared(shape: str) -> set[str]:
    return set(_MODEL.shape_for(shape).members)


STREAM = set(_MODEL.operation_model("ConverseStream").output_shape.members["stream"].members)

START: dict[str, Any] = {
    "toolUse": {"toolUseId": "tu-1", "name": "f"},
    "toolResult": {"toolUseId": "tu-1", "type": "web_search_result", "status": "success"},
    "image": {"format": "png"},
}
#: each delta with the start that opens its block (``None``: the delta opens it)
DELTA: dict[str, tuple[dict[str, Any] | None, Any]] = {
    "text": (None, "hello"),
    "toolUse": ({"toolUse": START["toolUse"]}, {"input": '{"a":1}'}),
    "toolResult": ({"toolResult": START["toolResult"]}, [{"text": "found"}]),
    "reasoningContent": (None, {"text": "thinking"}),
    "citation": (None, {"title": "doc", "location": {"documentChar": {"start": 0, "end": 1}}}),
    "image": (None, {"source": {"bytes": "iVBORw0KGgo="}}),
}
BLOCK: dict[str, Any] = {
    "text": "hello",
    "image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}},
    "document": {"format": "txt", "name": "d", "source": {"text": "x"}},
    "video": {"format": "mp4", "source": {"s3Location": {"uri": "s3://b/v.mp4"}}},
    "audio": {"format": "mp3", "source": {"bytes": "AAAA"}},
    "toolUse": {"toolUseId": "tu-1", "name": "f", "input": {"a": 1}},
    "toolResult": {"toolUseId": "tu-0", "content": [{"text": "r"}], "status": "success"},
    "guardContent": {"text": {"text": "guarded"}},
    "cachePoint": {"type": "default"},
    "reasoningContent": {"reasoningText": {"text": "thinking", "signature": "c2ln"}},
    "citationsContent": {"content": [{"text": "cited"}], "citations": []},
    "searchResult": {"source": "s", "title": "t", "content": [{"text": "x"}]},
    "toolAddition": {"name": "f"},
    "toolRemoval": {"name": "f"},
}
RESULT_PIECE: dict[str, Any] = {
    "json": {"hits": 1},
    "text": "found",
    "image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}},
    "document": {"format": "txt", "name": "d", "source": {"text": "x"}},
    "video": {"format": "mp4", "source": {"s3Location": {"uri": "s3://b/v.mp4"}}},
    "searchResult": {"source": "s", "title": "t", "content": [{"text": "x"}]},
}
REASONING: dict[str, Any] = {
    "reasoningText": {"text": "thinking", "signature": "c2ln"},
    "redactedContent": "cmVkYWN0ZWQ=",
}
STRUCTURE = {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop"}
STRUCTURE |= {"messageStop", "metadata"}


def test_every_declared_member_has_a_sample_here() -> None:
    assert declared("ContentBlockStart") == set(START)
    assert declared("ContentBlockDelta") == set(DELTA)
    assert declared("ContentBlock") == set(BLOCK)
    assert declared("ToolResultContentBlock") == set(RESULT_PIECE)
    assert declared("ReasoningContentBlock") == set(REASONING)
    assert {m for m in STREAM if not m.endswith("Exception")} == STRUCTURE


def _stream(middle: list[dict[str, Any]]) -> tuple[list[BaseEvent], Decoder, list[Any]]:
    d = Decoder()
    events: list[BaseEvent] = []
    with content_losses() as lost:
        for ev in [{"messageStart": {"role": "assistant"}}, *middle]:
            events += d.feed(ev)
        events += d.feed({"messageStop": {"stopReason": "end_turn"}})
        events += d.close()
    return events, d, lost


def _said(events: list[BaseEvent], d: Decoder, lost: list[Any], what: str) -> None:
    assert events or (d.losses and lost), f"{what} vanished without a word"
    if not events:
        assert what in d.losses[-1].reason and len(lost) == len(d.losses)


@pytest.mark.parametrize("name", sorted(START))
def test_every_block_start_gives_an_event_or_a_loss(name: str) -> None:
    at = {"contentBlockIndex": 0}
    events, d, lost = _stream(
        [{"contentBlockStart": {**at, "start": {name: START[name]}}}, {"contentBlockStop": at}]
    )
    _said(events, d, lost, repr(name))


@pytest.mark.parametrize("name", sorted(DELTA))
def test_every_delta_gives_an_event_or_a_loss(name: str) -> None:
    at = {"contentBlockIndex": 0}
    start, value = DELTA[name]
    opening = [{"contentBlockStart": {**at, "start": start}}] if start else []
    before = [e.model_dump() for e in _stream([*opening, {"contentBlockStop": at}])[0]]
    events, d, lost = _stream(
        [*opening, {"contentBlockDelta": {**at, "delta": {name: value}}}, {"contentBlockStop": at}]
    )
    changed = [e.model_dump() for e in events] != before  # the delta made a difference
    _said(events if changed else [], d, lost, repr(name))


def test_an_unknown_delta_into_a_known_block_is_announced() -> None:
    at = {"contentBlockIndex": 0}
    _, d, lost = _stream(
        [
            {"contentBlockDelta": {**at, "delta": {"text": "hi"}}},
            {"contentBlockDelta": {**at, "delta": {"hologram": {}}}},
            {"contentBlockStop": at},
        ]
    )
    assert [loss.kind for loss in d.losses] == ["delta-dropped"] and len(lost) == 1
    assert "'hologram'" in d.losses[0].reason and "block 0" in d.losses[0].reason


def test_an_event_type_this_version_does_not_know_is_announced() -> None:
    events, d, lost = _stream([{"hologramEvent": {"x": 1}}])
    assert events == []
    assert [loss.kind for loss in d.losses] == ["event-dropped"] and len(lost) == 1
    assert "'hologramEvent'" in d.losses[0].reason


@pytest.mark.parametrize("name", sorted(m for m in STREAM if m.endswith("Exception")))
def test_every_exception_event_raises_the_vendors_error(name: str) -> None:
    d = Decoder()
    d.feed({"messageStart": {"role": "assistant"}})
    with pytest.raises(VendorStreamError, match=name):
        d.feed({name: {"message": "boom"}})


def _whole(content: list[dict[str, Any]]) -> tuple[list[BaseEvent], Decoder, list[Any]]:
    d = Decoder()
    response = {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "end_turn",
    }
    with content_losses() as lost:
        events = d.feed_response(response) + d.close()
    return events, d, lost


@pytest.mark.parametrize("name", sorted(BLOCK))
def test_every_whole_response_block_gives_an_event_or_a_loss(name: str) -> None:
    events, d, lost = _whole([{name: BLOCK[name]}])
    _said(events, d, lost, repr(name))


@pytest.mark.parametrize("name", sorted(REASONING))
def test_every_whole_reasoning_block_gives_an_event(name: str) -> None:
    events, d, lost = _whole([{"reasoningContent": {name: REASONING[name]}}])
    assert events and not d.losses and not lost


def test_an_empty_whole_reasoning_block_is_announced() -> None:
    events, d, lost = _whole([{"reasoningContent": {}}])
    assert events == [] and [loss.kind for loss in d.losses] == ["block-dropped"]
    assert len(lost) == 1


@pytest.mark.parametrize("name", sorted(RESULT_PIECE))
def test_every_result_piece_gives_content_or_a_loss(name: str) -> None:
    result = {"toolUseId": "tu-0", "content": [{name: RESULT_PIECE[name]}], "status": "success"}
    events, d, lost = _whole([{"toolResult": result}])
    (res,) = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    if name in ("json", "text"):
        assert res.content and not d.losses  # type: ignore[attr-defined]
    else:
        assert res.content == "" and [loss.kind for loss in d.losses] == ["result-part-dropped"]  # type: ignore[attr-defined]
        assert repr(name) in d.losses[0].reason and len(lost) == 1


# ---------------------------------------------------------------- request histories too


@pytest.mark.parametrize("name", sorted(BLOCK))
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_every_block_in_a_request_is_a_message_or_a_loss(name: str, role: str) -> None:
    from toolwire.adapters.bedrock import decode_request

    messages: list[dict[str, Any]] = [{"role": role, "content": [{name: BLOCK[name]}]}]
    if name == "toolResult":  # answers a call the assistant made before it
        call = {**BLOCK["toolUse"], "toolUseId": "tu-0"}
        messages = [{"role": "assistant", "content": [{"toolUse": call}]}, messages[0]]
    with content_losses() as lost:
        ri = decode_request({"modelId": "m", "messages": messages}, thread_id="t", run_id="r")
    kept = [m.model_dump(exclude_none=True) for m in ri.messages]
    said = [m for m in kept if m.get("content") not in ("", None) or m.get("tool_calls")]
    assert said or lost, f"a {role}'s {name} block vanished without a word"
    if not said:
        assert repr(name) in str(lost[0].message)


METADATA: dict[str, Any] = {
    "usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5},
    "metrics": {"latencyMs": 10},
    "trace": {"guardrail": {}},
    "performanceConfig": {"latency": "optimized"},
    "serviceTier": {"type": "priority"},
}


def test_every_metadata_member_lands_on_the_run_streamed_and_whole() -> None:
    assert declared("ConverseStreamMetadataEvent") == set(METADATA)
    assert set(METADATA) <= set(_MODEL.operation_model("Converse").output_shape.members)
    streamed = Decoder()
    for ev in [
        {"messageStart": {"role": "assistant"}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]:
        streamed.feed(ev)
    streamed.feed({"metadata": METADATA})
    whole = Decoder()
    response = {"output": {"message": {"role": "assistant", "content": []}}}
    whole.feed_response({**response, "stopReason": "end_turn", **METADATA})
    for d in (streamed, whole):
        assert d.usage[0].input_tokens == 3
        assert d.run_metadata["bedrock.metrics"] == {"latencyMs": 10}
        assert d.run_metadata["bedrock.trace"] == {"guardrail": {}}
        assert d.run_metadata["bedrock.performance_config"] == {"latency": "optimized"}
        assert d.run_metadata["bedrock.service_tier"] == {"type": "priority"}
