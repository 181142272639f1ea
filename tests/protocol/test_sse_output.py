"""The SSE output side writes exactly what the reference serializers write.

``event_json`` / ``encode_agui_sse`` against ag_ui's own serialization (``model_dump_json``,
``ag_ui.encoder.EventEncoder``): every AG-UI event class with generated field values, and every
event of the runs decoded from the recorded cassettes. ``frame_sse`` against ``json.dumps``.
"""

from __future__ import annotations

import functools
import inspect
import json
import types
import typing
import warnings
from enum import Enum
from pathlib import Path
from typing import Any

import ag_ui.core
import pytest
from ag_ui.core import (
    BaseEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import PydanticSerializationError

from toolwire import adapters
from toolwire.protocol import _event_json
from toolwire.protocol._event_json import event_json
from toolwire.protocol.runs import frame_run
from toolwire.protocol.sse import encode_agui_event, encode_agui_sse, frame_sse
from toolwire.recordings import load_recording

EVENT_CLASSES = sorted(
    (
        cls
        for cls in vars(ag_ui.core).values()
        if inspect.isclass(cls) and issubclass(cls, BaseEvent) and cls is not BaseEvent
    ),
    key=lambda cls: cls.__name__,
)
CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
#: every code point a JSON string can hold, control characters and U+2028 included
texts = st.text(st.characters(exclude_categories=["Cs"]))
timestamps = st.integers(-(2**53) + 1, 2**53 - 1)


def _strategy(annotation: Any, name: str) -> st.SearchStrategy[Any]:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _strategy(args[0], name)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        inner = st.one_of([_strategy(a, name) for a in options])
        return st.none() | inner if type(None) in args else inner
    if origin is typing.Literal:
        return st.sampled_from(args)
    if annotation is str:
        return texts
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return timestamps if name == "timestamp" else st.integers()
    if annotation is Any or origin is dict:
        return json_values if annotation is Any else st.dictionaries(st.text(), json_values)
    if origin is list:
        return st.just([])
    if inspect.isclass(annotation) and issubclass(annotation, Enum):
        return st.sampled_from(list(annotation))
    return st.nothing()  # a nested model: that field is left at its default / None


@functools.cache  # built once per class: drawing from a new strategy validates it again
def _events(cls: type[BaseEvent]) -> st.SearchStrategy[BaseEvent]:
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in cls.model_fields.items():
        strategy = _strategy(info.annotation, name)
        if not info.is_required():
            strategy = st.just(info.default) | strategy
        fields[name] = strategy
    extras = st.dictionaries(st.sampled_from(["extraThing", "x_vendor"]), json_values, max_size=1)
    return st.builds(lambda kw, extra: cls(**kw, **extra), st.fixed_dictionaries(fields), extras)


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda cls: cls.__name__)
@settings(max_examples=3 * settings.default.max_examples // 5)  # 60 under the ci profile
@given(data=st.data())
def test_every_event_class_serializes_as_pydantic_does(cls: type[BaseEvent], data: Any) -> None:
    event = data.draw(_events(cls))
    assert event_json(event) == event.model_dump_json(by_alias=True)
    assert encode_agui_event(event) == EventEncoder().encode(event)


@settings(max_examples=2 * settings.default.max_examples)
@given(st.lists(st.tuples(texts, texts), max_size=20))
def test_delta_streams_frame_as_ag_ui_encoder_does(pairs: list[tuple[str, str]]) -> None:
    events: list[BaseEvent] = []
    for a, b in pairs:
        events.append(ToolCallArgsEvent(tool_call_id=a, delta=b))
        events.append(TextMessageContentEvent(message_id=b, delta=a))
    expected = "".join(EventEncoder().encode(e) for e in events).encode("utf-8")
    assert encode_agui_sse(events) == expected


def test_a_lone_surrogate_raises_pydantics_own_error() -> None:
    event = TextMessageContentEvent(message_id="m", delta="a\ud800b")
    with pytest.raises(PydanticSerializationError):
        event.model_dump_json(by_alias=True)
    with pytest.raises(PydanticSerializationError):
        event_json(event)


class _Uncomparable(dict[str, int]):
    """A value whose comparison with anything raises, as an array's truth value does."""

    def __eq__(self, other: object) -> bool:
        raise ValueError("the truth value of an array is ambiguous")

    __hash__ = None  # type: ignore[assignment]


def test_a_value_whose_comparison_raises_is_written_as_pydantic_writes_it() -> None:
    # the short form tells an unset field by comparing with None: a value that cannot be
    # compared sends the event the field-by-field way, never out as the value's own error
    event = ToolCallArgsEvent(tool_call_id="c", delta="{}", raw_event=_Uncomparable(a=1))
    assert event_json(event) == event.model_dump_json(by_alias=True)
    assert '"rawEvent":{"a":1}' in event_json(event)


def test_a_subclass_from_outside_ag_ui_is_left_to_pydantic() -> None:
    class Stamped(ToolCallArgsEvent):
        note: str = "kept"

    event = Stamped(tool_call_id="c", delta="{}")
    assert event_json(event) == event.model_dump_json(by_alias=True)
    assert '"note":"kept"' in event_json(event)


#: events of one class in several forms, one after another: a call's start with and without
#: its parent message, a timestamp, metadata, an owner; values not strings among them
_start_forms = st.builds(
    lambda call_id, name, parent, stamp, meta, owner: ToolCallStartEvent(
        tool_call_id=call_id,
        tool_call_name=name,
        parent_message_id=parent,
        timestamp=stamp,
        metadata=meta,
        subagent_run_id=owner,
    ),
    texts,
    texts,
    st.none() | texts,
    st.none() | timestamps,
    st.none() | st.dictionaries(st.text(), json_values, max_size=2),
    st.none() | texts,
)
_end_forms = st.builds(
    lambda call_id, stamp, raw: ToolCallEndEvent(
        tool_call_id=call_id, timestamp=stamp, raw_event=raw
    ),
    texts,
    st.none() | timestamps,
    st.none() | json_values,
)


@settings(max_examples=2 * settings.default.max_examples)
@given(st.lists(_start_forms | _end_forms, max_size=12))
def test_events_changing_form_are_written_as_pydantic_writes_them(
    events: list[BaseEvent],
) -> None:
    # each class's form that matched last is tried first: a stream that changes form (and
    # back) is still written field for field as pydantic writes it
    for event in events:
        assert event_json(event) == event.model_dump_json(by_alias=True)
    expected = "".join(EventEncoder().encode(e) for e in events).encode("utf-8")
    assert encode_agui_sse(events) == expected


def test_a_start_with_its_parent_takes_a_written_form() -> None:
    # (not the walk: the form with the parent written; same text as pydantic's)
    event = ToolCallStartEvent(tool_call_id="c1", tool_call_name="f", parent_message_id="m\u00e9")
    assert event_json(event) == event.model_dump_json(by_alias=True)
    forms = _event_json._SHORT[ToolCallStartEvent]
    assert any(form[3].endswith('"parentMessageId":%s}') for form in forms)
    bare = ToolCallStartEvent(tool_call_id="c2", tool_call_name="f")
    assert event_json(bare) == '{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"f"}'
    assert event_json(event) == event.model_dump_json(by_alias=True)


def test_a_start_with_its_parent_and_metadata_takes_a_written_form() -> None:
    # a whole call's start (Ollama's, Mistral's): two optional fields written, one of them
    # an object, by a form (not the walk); a float in it is left to the walk, as pydantic
    # spells some floats otherwise
    meta = {"toolwire.index": 3, "toolwire.vendorId": "call_\u00e9", "nested": [True, None]}
    event = ToolCallStartEvent(
        tool_call_id="c1", tool_call_name="f", parent_message_id="m1", metadata=meta
    )
    assert event_json(event) == event.model_dump_json(by_alias=True)
    forms = _event_json._SHORT[ToolCallStartEvent]
    assert forms[0][3].endswith('"parentMessageId":%s}') and '"metadata":%s' in forms[0][3]
    floats = event.model_copy(update={"metadata": {"x": 1.5e300, "y": 0.1}})
    assert event_json(floats) == floats.model_dump_json(by_alias=True)


def _recorded_runs() -> list[tuple[str, list[BaseEvent]]]:
    runs = []
    for vendor in adapters.model_names():
        adapter = adapters.get(vendor)
        for path in sorted((CASSETTES / vendor).glob("*.yaml")):
            for n, ex in enumerate(load_recording(path.read_bytes(), path.name)):
                if not ex.is_sse:
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    events = list(
                        frame_run(
                            adapter.Decoder(),
                            adapter.sse_chunks(ex.response_body),
                            thread_id="t",
                            run_id=f"r{n}",
                        )
                    )
                runs.append((f"{vendor}/{path.name}#{n}", events))
    return runs


def test_every_recorded_run_frames_as_ag_ui_encoder_does() -> None:
    runs = _recorded_runs()
    assert len(runs) >= 30, "the cassettes hold the streamed exchanges"
    kinds = set()
    for name, events in runs:
        expected = "".join(EventEncoder().encode(e) for e in events).encode("utf-8")
        assert encode_agui_sse(events) == expected, name
        kinds.update(type(e).__name__ for e in events)
    assert {"ToolCallArgsEvent", "TextMessageContentEvent", "RunFinishedEvent"} <= kinds


@settings(max_examples=2 * settings.default.max_examples)
@given(
    st.lists(st.dictionaries(st.text(), json_values, max_size=4), max_size=6),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.none() | st.just("[DONE]"),
)
def test_frame_sse_is_json_dumps_framed(
    payloads: list[dict[str, Any]], line_end: str, named: bool, done: str | None
) -> None:
    def event_of(payload: dict[str, Any]) -> str | None:
        return f"e{len(payload)}" if len(payload) % 2 else None

    expected = ""
    for payload in payloads:
        name = event_of(payload) if named else None
        if name:
            expected += f"event: {name}{line_end}"
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        expected += f"data: {text}{line_end}{line_end}"
    if done is not None:
        expected += f"data: {done}{line_end}{line_end}"
    got = frame_sse(payloads, event_of=event_of if named else None, line_end=line_end, done=done)
    assert got == expected.encode("utf-8")
