"""The toolwire paths the suite times, the same for every vendor adapter.

Decode: vendor bytes (read by the adapter's ``FRAMING``) or the SDK's own event objects ->
AG-UI events (the decoder's turn), or -> AG-UI SSE bytes (``frame_run`` makes the complete,
checked run; ``encode_agui_sse`` frames it). Encode: an AG-UI run -> the vendor's stream bytes
(``encode_stream`` + ``FRAMING.write``). The floors are ``json.loads`` of the vendor payloads
and ``json.dumps`` of the output payloads. Nothing here names a vendor: a new adapter's
``FRAMING`` (SSE, a JSON array, NDJSON, ...) is read and written the same way.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any

from ag_ui.core import BaseEvent

from toolwire.protocol import encode_agui_sse
from toolwire.protocol._compact_json import compact
from toolwire.protocol._makers import DIRECT_MAKERS, maker
from toolwire.protocol.machine import StreamMachine
from toolwire.protocol.runs import frame_run
from toolwire.protocol.sse import encode_agui_event, parse_sse

#: bytes per read when a path is fed the body in pieces, as a socket hands them over
PIECE = 1 << 16


def pieces(body: bytes) -> Iterator[bytes]:
    return (body[i : i + PIECE] for i in range(0, len(body), PIECE))


def payloads(adapter: ModuleType, body: bytes) -> list[str]:
    """The JSON text of every chunk of the stream (what the floor parses): each SSE event's
    ``data`` (``[DONE]`` left out) for an SSE framing; for any other framing, each chunk as
    ``FRAMING.read`` gives it, written compactly (the text a parser of that framing reads)."""
    if adapter.FRAMING.name == "sse":
        return [ev.data for ev in parse_sse(body) if ev.data != "[DONE]"]
    return [compact(dict(chunk)) for chunk in adapter.FRAMING.read(body)]


def read(adapter: ModuleType, body: bytes) -> Iterator[Any]:
    """The body's chunks as the adapter's ``FRAMING`` reads a whole body."""
    return adapter.FRAMING.read(body)  # type: ignore[no-any-return]


def loads_all(texts: list[str]) -> int:
    for text in texts:
        json.loads(text)
    return len(texts)


def dumps_one(value: Any) -> str:
    """One value's JSON text as the floors write it (``json.dumps``, compact, not ASCII)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def dumps_all(values: list[Any]) -> int:
    for value in values:
        json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return len(values)


def compact_all(values: list[Any]) -> int:
    """``dumps_all`` with the stdlib's C encoder built once, not per call: the least a
    writer of these payloads' JSON text can do."""
    for value in values:
        compact(value)
    return len(values)


def events(adapter: ModuleType, chunks: Iterable[Any]) -> int:
    """The decoder's turn, every event materialised and dropped."""
    n = 0
    for _ in adapter.decode_stream(chunks):
        n += 1
    return n


def run(adapter: ModuleType, chunks: Iterable[Any]) -> Iterator[BaseEvent]:
    """The complete, checked AG-UI run ``frame_run`` makes of a vendor turn."""
    return frame_run(adapter.Decoder(), chunks, thread_id="t-bench", run_id="r-bench")


def sse(adapter: ModuleType, chunks: Iterable[Any]) -> bytes:
    """The run as AG-UI SSE bytes."""
    return encode_agui_sse(run(adapter, chunks))


def streamed_chunks(adapter: ModuleType, body: bytes) -> Iterator[dict[str, Any]]:
    """The adapter's push reader (``FRAMING.reader()``, what the driver feeds an HTTP body
    to) over the body in socket-sized pieces."""
    reader = adapter.FRAMING.reader()
    for piece in pieces(body):
        yield from reader.feed(piece)
        if reader.done:
            break
    yield from reader.close()


def sse_streamed(adapter: ModuleType, body: bytes) -> int:
    """Bytes in pieces -> AG-UI SSE frames, each handed on (dropped) as it is made."""
    size = 0
    for ev in run(adapter, streamed_chunks(adapter, body)):
        size += len(encode_agui_event(ev))
    return size


def encode(adapter: ModuleType, run_events: list[BaseEvent]) -> bytes:
    """An AG-UI run -> the vendor's stream bytes (its ``FRAMING.write``)."""
    return bytes(adapter.FRAMING.write(adapter.encode_stream(run_events)))


def encoded_payloads(adapter: ModuleType, run_events: list[BaseEvent]) -> list[dict[str, Any]]:
    return list(adapter.encode_stream(run_events))


def argument_texts(run_events: list[BaseEvent]) -> list[str]:
    """Each call's whole argument text (its ``TOOL_CALL_ARGS`` deltas joined)."""
    texts: dict[str, list[str]] = {}
    for ev in run_events:
        if type(ev).__name__ == "ToolCallArgsEvent":
            texts.setdefault(ev.tool_call_id, []).append(ev.delta)  # type: ignore[attr-defined]
    return ["".join(parts) for parts in texts.values()]


def agui_payloads(run_events: list[BaseEvent]) -> list[Any]:
    """The AG-UI events as the JSON values the SSE frames carry (the output floor)."""
    return [ev.model_dump(mode="json", by_alias=True) for ev in run_events]


# -- what any implementation with toolwire's output must do at least (the floors beside the
# -- targets): bare stdlib and ag_ui steps, and one of toolwire's own, the sequence check its
# -- output must pass (toolwire writes checked runs of ag_ui.core events, by its rules)


def floor_read(adapter: ModuleType, body: bytes, texts: list[str]) -> Callable[[], int]:
    """The least reading of the body can do in the adapter's framing: :func:`split_loads` for
    SSE; for another framing, its chunks' texts parsed 128 at a time (the framing's own
    splitting left out, so a lower floor than that framing's reader can reach; a framing
    whose reading is work of its own brings its floor in its bench module instead:
    ``floor_read_frames``)."""
    if adapter.FRAMING.name == "sse":
        return lambda: split_loads(body)
    return lambda: batch_loads(texts)


def batch_loads(texts: list[str]) -> int:
    n = 0
    for start in range(0, len(texts), 128):
        n += len(json.loads("[" + ",".join(texts[start : start + 128]) + "]"))
    return n


def split_loads(body: bytes) -> int:
    """The least an SSE reading can do: decode the body once, split it on blank lines, take
    the ``data:`` lines, and parse them 128 at a time as one JSON array (``json.loads`` of
    each line is a third slower: the parser entered per line, each key made again; toolwire
    parses a batch too, with a proof of each text's bounds this floor leaves out). No
    checks, no line-end variants, no multi-line data."""
    texts: list[str] = []
    for block in body.decode("utf-8").split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data:"):
                data = line[5:].strip()
                if data != "[DONE]":
                    texts.append(data)
    return batch_loads(texts)


#: an event's maker and what it is called with
Spec = tuple[Callable[..., Any], tuple[Any, ...]]


def event_specs(events: list[BaseEvent]) -> list[Spec]:
    """Each event's maker and its fields, to build it again as cheaply as toolwire can: an
    event of a class with a direct maker (the deltas, a call's start and end) with no field
    but the maker's by that maker, any other by its class's validator
    (``protocol._makers``)."""
    makers = {cls: maker(cls) for cls in {type(ev) for ev in events}}
    specs: list[Spec] = []
    for ev in events:
        direct = DIRECT_MAKERS.get(type(ev))
        if direct is not None and ev.model_fields_set <= set(direct[1]):
            specs.append((direct[0], tuple(getattr(ev, k) for k in direct[1])))
        else:
            specs.append((makers[type(ev)], ({k: getattr(ev, k) for k in ev.model_fields_set},)))
    return specs


def build_events(specs: list[Spec]) -> int:
    """The AG-UI events built from their fields, as toolwire's hot paths build them: the
    delta events directly (the instance the validator would make), the others by
    ``ag_ui.core``'s own validators, called without ``BaseModel.__init__``'s frame. The
    output of every decode path, so a floor of each (the project takes its AG-UI types from
    ``ag_ui.core``)."""
    for make, args in specs:
        make(*args)
    return len(specs)


class send_each:
    """The least an ASGI server streaming each event as it is ready does per event: one
    ``await send(message)`` per frame (the frames already written; ``send`` does nothing),
    on one event loop kept across repetitions (``close`` ends it, once the group ran)."""

    def __init__(self, frames: list[bytes]) -> None:
        self.frames = frames
        self.loop = asyncio.new_event_loop()

    async def _each(self) -> int:
        async def send(message: dict[str, Any]) -> None:
            return None

        for body in self.frames:
            await send({"type": "http.response.body", "body": body, "more_body": True})
        return len(self.frames)

    def __call__(self) -> int:
        return self.loop.run_until_complete(self._each())

    def close(self) -> None:
        self.loop.close()


def sequence_check(events: list[BaseEvent]) -> int:
    """toolwire's check of the protocol's sequence rules alone (no history), as every
    encoder makes it of the events it is given: not a floor of the stdlib, but of
    following the rules."""
    machine = StreamMachine(history=False)
    n = 0
    for ev in events:
        n += len(machine.feed(ev))
    return n
