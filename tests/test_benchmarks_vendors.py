"""The bench modules of Mistral, Cohere and Ollama: their bytes decode through the real SDK.

Each ``benchmarks/bench_<vendor>.py`` builds the vendor's wire bytes for the suite's shapes;
here the vendor's own SDK parses them (``sdk_objects``: mistralai's ``CompletionEvent``
stream, cohere's ``StreamedChatResponseV2`` events, ollama's ``ChatResponse`` per line) and
what the SDK saw (text, each call's name and arguments, the end of the turn) is compared
with what toolwire makes of the same bytes, so a stream the SDK reads differently, or not
at all, fails here and not in a benchmark table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    RunFinishedEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)
from benchmarks import bench_cohere, bench_mistral, bench_ollama, paths
from benchmarks.suite import SHAPES, VENDORS

from toolwire import adapters

EVENTS = 240


@dataclass
class Seen:
    """What a parse of one stream holds: text, thinking, calls (name, arguments as values)."""

    text: str = ""
    calls: list[tuple[str, Any]] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    most_calls_in_one_chunk: int = 0
    end: Any = None


def _mistral(objects: list[Any]) -> Seen:
    out = Seen()
    for event in objects:
        (choice,) = event.data.choices
        content = choice.delta.content
        if isinstance(content, str):
            out.text += content
        calls = choice.delta.tool_calls or []
        out.most_calls_in_one_chunk = max(out.most_calls_in_one_chunk, len(calls))
        for call in calls:
            out.ids.append(call.id)
            out.calls.append((call.function.name, json.loads(call.function.arguments)))
        out.end = (choice.finish_reason, event.data.usage is not None)
    return out


def _cohere(objects: list[Any]) -> Seen:
    out = Seen()
    names: dict[int, str] = {}
    args: dict[int, list[str]] = {}
    for event in objects:
        if event.type == "tool-call-start":
            call = event.delta.message.tool_calls
            out.ids.append(call.id)
            names[event.index] = call.function.name
            args[event.index] = [call.function.arguments or ""]
        elif event.type == "tool-call-delta":
            args[event.index].append(event.delta.message.tool_calls.function.arguments)
        elif event.type == "tool-call-end":
            out.calls.append((names[event.index], json.loads("".join(args[event.index]))))
        elif event.type == "content-delta":
            out.text += event.delta.message.content.text or ""
        elif event.type == "tool-plan-delta":
            out.text += event.delta.message.tool_plan
        out.end = (event.type, getattr(getattr(event, "delta", None), "finish_reason", None))
    out.most_calls_in_one_chunk = 1 if out.calls else 0
    return out


def _ollama(objects: list[Any]) -> Seen:
    out = Seen()
    for response in objects:
        out.text += response.message.content or ""
        calls = response.message.tool_calls or []
        out.most_calls_in_one_chunk = max(out.most_calls_in_one_chunk, len(calls))
        for call in calls:
            out.calls.append((call.function.name, dict(call.function.arguments)))
        out.end = (response.done, response.done_reason)
    return out


SDK_SEEN = {"mistral": _mistral, "cohere": _cohere, "ollama": _ollama}
MODULES = {"mistral": bench_mistral, "cohere": bench_cohere, "ollama": bench_ollama}
#: how each vendor ends a turn that calls tools, as its SDK reports it
ENDS = {
    "mistral": ("tool_calls", True),
    "cohere": ("message-end", "TOOL_CALL"),
    "ollama": (True, "stop"),
}


def _toolwire_seen(events: list[BaseEvent]) -> Seen:
    out = Seen()
    names: dict[str, str] = {}
    args: dict[str, list[str]] = {}
    for ev in events:
        if isinstance(ev, TextMessageContentEvent):
            out.text += ev.delta
        elif isinstance(ev, ToolCallStartEvent):
            names[ev.tool_call_id] = ev.tool_call_name
            args[ev.tool_call_id] = []
        elif isinstance(ev, ToolCallArgsEvent):
            args[ev.tool_call_id].append(ev.delta)
    out.calls = [(names[cid], json.loads("".join(args[cid]))) for cid in names]
    return out


def test_the_three_are_found_by_the_suite_from_the_registry() -> None:
    for vendor, module in MODULES.items():
        assert vendor in adapters.model_names()
        assert VENDORS[vendor] is module and module.VENDOR == vendor


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("vendor", sorted(MODULES))
def test_the_bytes_decode_through_the_real_sdk_as_toolwire_reads_them(
    vendor: str, shape: str
) -> None:
    module = MODULES[vendor]
    adapter = adapters.get(vendor)
    body = module.build(shape, EVENTS)
    objects = module.sdk_objects(body)
    chunks = list(paths.read(adapter, body))
    # the SDK yields one object per chunk of the framing ([DONE] is no chunk)
    assert len(objects) == len(chunks)
    # about the asked length: short of it by less than one call's events at most
    assert EVENTS - 8 <= len(chunks) <= EVENTS, len(chunks)
    theirs = SDK_SEEN[vendor](objects)
    run = list(paths.run(adapter, chunks))
    ours = _toolwire_seen(run)
    assert isinstance(run[-1], RunFinishedEvent)
    assert theirs.calls == ours.calls and theirs.calls
    assert theirs.text == ours.text
    assert theirs.end == ENDS[vendor]
    if shape == "text":
        assert len(theirs.calls) == 1 and theirs.text.count("word") > EVENTS // 2
    if shape == "parallel" and vendor != "cohere":  # Mistral and Ollama send calls whole
        assert theirs.most_calls_in_one_chunk == 3
    # toolwire over the SDK's objects reads the same turn as over the bytes
    sdk_run = list(paths.run(adapter, objects))
    assert _toolwire_seen(sdk_run).calls == ours.calls


def test_mistral_call_ids_have_mistrals_form() -> None:
    seen = _mistral(bench_mistral.sdk_objects(bench_mistral.build("parallel", EVENTS)))
    assert seen.ids and len(set(seen.ids)) == len(seen.ids)
    assert all(len(i) == 9 and i.isalnum() and i.isascii() for i in seen.ids)


def test_cohere_tool_stream_feeds_long_calls_by_argument_deltas() -> None:
    objects = bench_cohere.sdk_objects(bench_cohere.build("tool", EVENTS))
    deltas = sum(1 for ev in objects if ev.type == "tool-call-delta")
    starts = sum(1 for ev in objects if ev.type == "tool-call-start")
    assert starts >= 1 and deltas > EVENTS // 2


def test_ollama_arguments_are_objects_and_the_last_line_is_done() -> None:
    body = bench_ollama.build("tool", EVENTS)
    lines = body.decode().splitlines()
    assert json.loads(lines[-1])["done"] is True
    assert all(json.loads(line)["done"] is False for line in lines[:-1])
    calls = [c for line in lines for c in json.loads(line)["message"].get("tool_calls", [])]
    assert calls and all(isinstance(c["function"]["arguments"], dict) for c in calls)
    assert bench_ollama.ARGUMENTS_AS_OBJECTS is True
