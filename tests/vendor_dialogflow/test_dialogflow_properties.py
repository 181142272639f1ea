"""Properties (hypothesis): any split of the bytes, and any ToolCallInfo round trip."""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

from _dialogflow_helpers import CASSETTES, recording_objects
from ag_ui.core import BaseEvent
from google.cloud import dialogflow_v2 as df  # a dev dependency: never skipped
from hypothesis import given
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.protocol import frame_run

dialogflow = adapters.get("dialogflow")
# a streamed turn, then bare infos with non-ASCII text (splits may fall inside a character)
LINES = recording_objects(CASSETTES / "reactive_turn.jsonl") + recording_objects(
    CASSETTES / "tool_call_infos.json"
)
BODY = dialogflow.to_sse(LINES)


def _dump(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


WHOLE = _dump(list(dialogflow.decode_stream(dialogflow.sse_chunks(BODY))))


@given(st.lists(st.integers(min_value=0, max_value=len(BODY)), max_size=40))
def test_any_split_of_the_sse_bytes_gives_the_same_events(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    pieces = [BODY[a:b] for a, b in zip([0, *points], [*points, len(BODY)], strict=True)]
    events = list(dialogflow.decode_stream(dialogflow.sse_chunks(pieces)))
    assert _dump(events) == WHOLE


def test_the_sse_body_holds_the_recorded_lines() -> None:
    assert list(dialogflow.sse_chunks(BODY)) == LINES
    assert len(WHOLE) > 10
    assert "Zürich".encode() in BODY


# ----------------------------------------------------------------- round trip

_text = st.text(min_size=1, max_size=12)
_resource = _text.map(lambda s: f"projects/p/locations/global/tools/{s}")
_json_scalar = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
_json = st.recursive(
    _json_scalar,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_params = st.dictionaries(st.text(max_size=6), _json, max_size=4)
_time = st.sampled_from(
    ["2025-01-02T03:04:05Z", "2025-01-02T03:04:05.120Z", "2025-01-02T03:04:05.123456789Z"]
)
_source = st.sampled_from(["tool", "cesTool", "cesToolset", "cesApp"]).flatmap(
    lambda k: _resource.map(lambda v: {k: v})
)


@st.composite
def _info(draw: st.DrawFn, n: int) -> dict[str, Any]:
    """One ToolCallInfo in canonical proto3 JSON (defaults left out, enums by name)."""
    call: dict[str, Any] | None = None
    if draw(st.integers(0, 4)):
        call = {}
        if draw(st.booleans()):
            call.update(draw(_source))
        for key in ("toolDisplayName", "toolDisplayDetails", "action"):
            if draw(st.booleans()):
                call[key] = draw(_text)
        if draw(st.booleans()):
            call["inputParameters"] = draw(_params)
        if draw(st.booleans()):
            call["createTime"] = draw(_time)
        if draw(st.booleans()):
            call["answerRecord"] = f"projects/p/locations/global/answerRecords/{n}"
        if draw(st.booleans()):
            call["state"] = draw(st.sampled_from(["TRIGGERED", "NEEDS_CONFIRMATION"]))
    result: dict[str, Any] | None = None
    if call is None or draw(st.booleans()):
        result = {}
        if draw(st.booleans()):
            result.update(draw(_source))
        if draw(st.booleans()):
            result["action"] = draw(_text)
        if draw(st.booleans()):
            result["createTime"] = draw(_time)
        if draw(st.booleans()):  # a record names one call: never shared between infos
            result["answerRecord"] = f"projects/p/locations/global/answerRecords/{n}"
        kind = draw(st.sampled_from(["content", "rawContent", "error", "none"]))
        if kind == "content":
            result["content"] = draw(st.text(max_size=10))
        elif kind == "rawContent":
            result["rawContent"] = base64.b64encode(
                draw(st.binary(min_size=1, max_size=12))
            ).decode()
        elif kind == "error":
            err: dict[str, Any] = {}
            if draw(st.booleans()):
                err["message"] = draw(_text)
            if draw(st.booleans()):
                err["retryable"] = draw(st.booleans())
            result["error"] = err
    info: dict[str, Any] = {}
    if call is not None:
        info["toolCall"] = call
    if result is not None:
        info["toolCallResult"] = result
    return info


_infos = st.integers(1, 4).flatmap(lambda k: st.tuples(*[_info(i) for i in range(k)]).map(list))


@given(_infos)
def test_any_tool_call_info_list_decodes_and_encodes_back_unchanged(
    infos: list[dict[str, Any]],
) -> None:
    for info in infos:  # the strategy makes only what the SDK accepts
        df.GeneratorSuggestion.ToolCallInfo.from_json(json.dumps(info))
    events = list(
        frame_run(dialogflow.Decoder(), [{"toolCallInfo": infos}], thread_id="t", run_id="r")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing Dialogflow sent may be reported lost
        back = list(dialogflow.encode_stream(events))
    answered = [i for i in infos if "toolCallResult" in i]
    waiting = [i for i in infos if "toolCallResult" not in i]
    assert back == answered + waiting
