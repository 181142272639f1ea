"""Bedrock ConverseStream: toolwire's decode of the event-stream bytes next to botocore's own
parse of them, and peak memory at two stream lengths.

The streams have the shape Converse streams have (``messageStart``; text and reasoning blocks
opened by their first delta, tool-use blocks by ``contentBlockStart``; ``contentBlockStop``;
``messageStop``; ``metadata``), as AWS event-stream frames, grown to the asked number of
events. Shapes as the other vendors': ``tool`` (a reasoning block, then long tool inputs),
``text`` (one long text block), ``parallel`` (many short tool-use blocks).

Columns: ``sdk`` botocore's ``EventStream`` parse of the bytes (what boto3 yields);
``bytes`` toolwire's frame reader + decoder, bytes to AG-UI events (it replaces the SDK's
parse); ``on sdk`` toolwire's decoder over botocore's dicts (what it adds to the SDK's
parse: the 0.25x target). Run alone: ``python -m benchmarks.bench_bedrock``.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from typing import Any

VENDOR = "bedrock"
#: the model the request names (its rows are priced per stream, not per model)
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
SHAPES = ("tool", "text", "parallel")


def _chunks(shape: str, events: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]

    def delta(i: int, d: dict[str, Any]) -> dict[str, Any]:
        return {"contentBlockDelta": {"contentBlockIndex": i, "delta": d}}

    def use(i: int, pieces: int) -> list[dict[str, Any]]:
        start = {"toolUse": {"toolUseId": f"tooluse_{i:08d}", "name": "get_weather"}}
        block = [{"contentBlockStart": {"contentBlockIndex": i, "start": start}}]
        args = ['{"items": ['] + [f'{{"n": {k}, "s": "abcdefgh"}}, ' for k in range(pieces - 2)]
        args.append('"end"]}')
        block += [delta(i, {"toolUse": {"input": a}}) for a in args]
        return [*block, {"contentBlockStop": {"contentBlockIndex": i}}]

    budget = events - 3
    index = 0
    if shape == "tool":
        out += [delta(0, {"reasoningContent": {"text": f"step {k}. "}}) for k in range(50)]
        out += [delta(0, {"reasoningContent": {"signature": "EqQBCkYIBxgCKkA" * 8}})]
        out.append({"contentBlockStop": {"contentBlockIndex": 0}})
        index = 1
        while budget - len(out) > 3:
            out += use(index, min(2000, budget - len(out) - 2))
            index += 1
    elif shape == "text":
        out += [delta(0, {"text": f"word{k} "}) for k in range(budget - 10)]
        out.append({"contentBlockStop": {"contentBlockIndex": 0}})
        out += use(1, 5)
    elif shape == "parallel":
        while budget - len(out) > 8:
            out += use(index, 6)
            index += 1
    else:
        raise ValueError(shape)
    out.append({"messageStop": {"stopReason": "tool_use"}})
    usage = {"inputTokens": 900, "outputTokens": events, "totalTokens": 900 + events}
    out.append({"metadata": {"usage": usage, "metrics": {"latencyMs": 812}}})
    return out


def build(shape: str, events: int) -> bytes:
    """About ``events`` ConverseStream events as event-stream bytes."""
    from toolwire.adapters.bedrock import to_sse

    return to_sse(_chunks(shape, events))


def _pieces(body: bytes, size: int = 65536) -> Iterator[bytes]:
    for i in range(0, len(body), size):
        yield body[i : i + size]


def sdk_objects(body: bytes) -> list[Any]:
    """botocore's own parse of ``body``: its ``EventStream`` over the bytes in socket pieces."""
    import botocore.parsers
    import botocore.session
    from botocore.eventstream import EventStream

    class Raw:
        def stream(self) -> Iterator[bytes]:
            return _pieces(body)

        def close(self) -> None:
            pass

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("ConverseStream").output_shape.members["stream"]
    parser = botocore.parsers.EventStreamJSONParser()
    return list(EventStream(Raw(), shape, parser, "ConverseStream"))


#: the header block of an event frame: ``:message-type``, ``:event-type``, ``:content-type``
#: (string headers, type 7), as the stream's frames carry them
_HEAD = (":message-type", "event"), (":event-type", None), (":content-type", "application/json")
_LENGTHS = struct.Struct(">II").pack
_WORD = struct.Struct(">I").pack
_PRELUDE = struct.Struct(">III").unpack_from
_READ_WORD = struct.Struct(">I").unpack_from


def _header_block(event_type: str) -> bytes:
    out = b""
    for name, value in _HEAD:
        raw = (value or event_type).encode()
        out += bytes([len(name)]) + name.encode() + b"\x07" + len(raw).to_bytes(2, "big") + raw
    return out


def floor_frames(chunks: list[dict[str, Any]], write: Callable[[Any], str]) -> bytes:
    """The least a writer of these chunks as the AWS event stream does beyond their JSON
    (``write``: the suite's ``json.dumps`` or its compact encoder): each payload's text as
    UTF-8, its event type's header block (built once per type), the prelude's two lengths
    and CRC32, the frame's CRC32 (``struct`` + ``zlib``, both C), the frames joined. No
    check of anything: the encode row's floor (``floor.encode``) for a framing whose
    writing, unlike SSE's few bytes around each payload, is work of its own."""
    heads: dict[str, bytes] = {}
    frames: list[bytes] = []
    for chunk in chunks:
        ((name, payload),) = chunk.items()
        head = heads.get(name)
        if head is None:
            head = heads[name] = _header_block(name)
        body = write(payload).encode()
        prelude = _LENGTHS(len(head) + len(body) + 16, len(head))
        frame = prelude + _WORD(zlib.crc32(prelude)) + head + body
        frames.append(frame + _WORD(zlib.crc32(frame)))
    return b"".join(frames)


def _event_type(block: bytes) -> str | None:
    """The ``:event-type`` of a header block of string headers (the benchmark's frames);
    ``None`` when it names none."""
    at, found = 0, None
    while at < len(block):
        size = block[at]
        name = block[at + 1 : at + 1 + size]
        at += 1 + size
        if block[at] != 7:
            raise ValueError(f"a header of type {block[at]}: the floor reads string headers")
        length = int.from_bytes(block[at + 1 : at + 3], "big")
        if name == b":event-type":
            found = block[at + 3 : at + 3 + length].decode()
        at += 3 + length
    return found


def frames(body: bytes) -> tuple[list[str | None], list[bytes]]:
    """Each frame's event type and payload, cut as any reader of the event stream must: the
    prelude's two lengths and CRC32 read (``struct``), the frame copied once, the prelude's
    and the frame's CRC32 checked (``zlib``, C), its header block told apart (its bytes
    compared in place with the frame before's, else looked up among the blocks met, each
    distinct block read once: a payload does not say which event it is, its
    ``:event-type`` header does) and the payload sliced from it. Nothing else: no length
    bounded, no header but the event type read."""
    names: list[str | None] = []
    out: list[bytes] = []
    add, name_of = out.append, names.append
    prelude, word, crc32 = _PRELUDE, _READ_WORD, zlib.crc32
    starts = body.startswith
    known: dict[bytes, str | None] = {}
    at, size = 0, len(body)
    ends, block, name = -1, b"", None
    while at < size:
        total, hlen, crc = prelude(body, at)
        last = at + total - 4
        frame = body[at:last]
        if crc32(frame[:8]) != crc or crc32(frame) != word(body, last)[0]:
            raise ValueError(f"a frame at byte {at} fails its CRC32")
        hlen += 12
        if hlen != ends or not starts(block, at + 12):
            ends, block = hlen, frame[12:hlen]
            name = known.get(block, "")
            if name == "":
                name = known[block] = _event_type(block)
        name_of(name)
        add(frame[hlen:])
        at = last + 4
    return names, out


def frame_payloads(body: bytes) -> list[bytes]:
    """Each frame's payload, as :func:`frames` cuts it."""
    return frames(body)[1]


def floor_read_frames(body: bytes) -> int:
    """The least a reader of the event stream ``body`` does: its frames cut and told apart
    (:func:`frames`), then their payloads parsed 128 at a time as one JSON array (each
    batch decoded once), as the other framings' floor parses their texts. The read floor
    (``floor.read``, beside bytes -> events and bytes -> SSE) for a framing whose reading,
    unlike SSE's split on blank lines, is work of its own."""
    texts = frames(body)[1]
    n = 0
    for start in range(0, len(texts), 128):
        n += len(json.loads((b"[" + b",".join(texts[start : start + 128]) + b"]").decode()))
    return n


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _peak(body: bytes) -> int:
    from toolwire.adapters.bedrock import decode_stream, sse_chunks

    tracemalloc.start()
    try:
        for _ in decode_stream(sse_chunks(_pieces(body))):
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    from toolwire.adapters.bedrock import decode_stream, sse_chunks

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000, help="events per stream")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds (best of)")
    parser.add_argument("--quick", action="store_true", help="a short check that it runs")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    events, repeat = (300, 1) if args.quick else (args.events, args.repeat)
    print(f"Bedrock ConverseStream, {events} events per stream, best of {repeat}")
    head = ("shape", "sdk ms", "bytes ms", "bytes/sdk", "on sdk ms", "added")
    print("{:10} {:>8} {:>9} {:>9} {:>10} {:>7}".format(*head))
    for shape in SHAPES:
        body = build(shape, events)
        theirs = sdk_objects(body)
        sdk = _best(lambda b=body: sdk_objects(b), repeat)
        mine = _best(lambda b=body: list(decode_stream(sse_chunks(_pieces(b)))), repeat)
        on_sdk = _best(lambda t=theirs: list(decode_stream(t)), repeat)
        print(
            f"{shape:10} {sdk * 1e3:8.1f} {mine * 1e3:9.1f} {mine / sdk:9.2f} "
            f"{on_sdk * 1e3:10.1f} {on_sdk / sdk:6.2f}x"
        )
    short, long = (100, 400) if args.quick else (events // 4, events * 2)
    for n in (short, long):
        body = build("tool", n)
        peak = _peak(body) / 1e6
        print(f"peak memory, tool stream of {n} events ({len(body)} bytes): {peak:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
