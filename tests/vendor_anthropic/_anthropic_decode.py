"""Running the decoder the ways the tests need (events, plus the error that ended it)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ag_ui.core import BaseEvent

from toolwire.adapters.anthropic import Decoder, sse_chunks
from toolwire.errors import ToolwireError
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run
from toolwire.recordings import Exchange
from toolwire.testing.calls import calls_from_events


def run(chunks: Iterable[Any]) -> tuple[list[BaseEvent], Decoder, ToolwireError | None]:
    """Feed every chunk then close; the error (if any) is returned, not raised."""
    d = Decoder()
    out: list[BaseEvent] = []
    try:
        for c in chunks:
            out.extend(d.feed(c))
        out.extend(d.close())
    except ToolwireError as exc:
        return out, d, exc
    return out, d, None


def run_exchange(ex: Exchange) -> tuple[list[BaseEvent], Decoder, ToolwireError | None]:
    if ex.is_sse:
        return run(sse_chunks(ex.response_body))
    d = Decoder()
    try:
        evs = d.feed_response(json.loads(ex.response_body)) + d.close()
    except ToolwireError as exc:
        return [], d, exc
    return evs, d, None


def dump(events: Iterable[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def framed(ex: Exchange, machine: StreamMachine | None = None) -> list[BaseEvent]:
    """One exchange as a complete AG-UI run, every event checked by the stream machine."""
    m = machine or StreamMachine()
    if ex.is_sse:
        evs = list(
            frame_run(Decoder(), sse_chunks(ex.response_body), thread_id="t", run_id="r", machine=m)
        )
    else:
        evs = list(
            frame_run(
                Decoder(),
                [],
                thread_id="t",
                run_id="r",
                whole_response=json.loads(ex.response_body),
                machine=m,
            )
        )
    return evs


# (id, name, argument text) per tool call, in start order
calls = calls_from_events


def text(events: Iterable[BaseEvent]) -> str:
    return "".join(e.delta for e in events if e.type.value == "TEXT_MESSAGE_CONTENT")  # type: ignore[attr-defined]


def sdk_calls(raw: list[Any]) -> list[tuple[str, str, str]]:
    """(id, name, concatenated partial_json) per tool block, read from the SDK's own events."""
    order: list[int] = []
    meta: dict[int, tuple[str, str]] = {}
    args: dict[int, list[str]] = {}
    for ev in raw:
        if getattr(ev, "type", None) == "content_block_start":
            b = ev.content_block
            if b.type in ("tool_use", "server_tool_use", "mcp_tool_use"):
                order.append(ev.index)
                meta[ev.index] = (b.id, b.name)
                args[ev.index] = []
        elif (
            getattr(ev, "type", None) == "content_block_delta"
            and ev.delta.type == "input_json_delta"
        ):
            args[ev.index].append(ev.delta.partial_json)
    return [(meta[i][0], meta[i][1], "".join(args[i])) for i in order]


def sdk_text(raw: list[Any]) -> str:
    return "".join(
        ev.delta.text
        for ev in raw
        if getattr(ev, "type", None) == "content_block_delta" and ev.delta.type == "text_delta"
    )


def args_object(text: str) -> Any:
    """Argument text as the object Anthropic meant: an empty text is an empty input."""
    return json.loads(text) if text else {}
