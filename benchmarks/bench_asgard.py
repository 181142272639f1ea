"""Decoding a long Asgard SSE stream: time against a plain parse of the same bytes, and peak memory.

Asgard has no Python SDK, so the baseline is what the platform's own clients do with the bytes
(the JS SDK's ``create-sse-observable`` and the Go client's streamer): split the SSE body into
``data:`` payloads and parse each as JSON. toolwire's decode adds the mapping to AG-UI on top.
Run: ``.venv/bin/python benchmarks/bench_asgard.py``. A benchmark, not a test.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

from toolwire.adapters import asgard

FACT_KEYS = list(dict.fromkeys(asgard.wire.FACT_KEY.values()))


def frame(et: str, key: str, payload: dict[str, Any], n: int) -> bytes:
    fact: dict[str, Any] = dict.fromkeys(FACT_KEYS)
    fact[key] = payload
    env = {
        "eventType": et,
        "requestId": "req-bench",
        "eventId": f"e{n}",
        "namespace": "ns",
        "botProviderName": "bot",
        "customChannelId": "chan",
        "fact": fact,
    }
    return b"data: " + json.dumps(env, separators=(",", ":")).encode() + b"\n\n"


def stream(frames: int) -> bytes:
    """A recorded-shape run: text deltas interleaved with tool calls (start + complete)."""
    out = [frame("asgard.run.init", "runInit", {}, 0)]
    n = 1
    seq = 0
    while n < frames - 1:
        mid = f"m{n}"
        msg = {
            "messageId": mid,
            "replyToCustomMessageId": "",
            "text": "",
            "payload": None,
            "isDebug": False,
            "idx": None,
            "template": None,
        }
        out.append(frame("asgard.message.start", "messageStart", {"message": msg}, n))
        for i in range(6):
            n += 1
            out.append(
                frame(
                    "asgard.message.delta",
                    "messageDelta",
                    {"message": dict(msg, text=f"word{i} ", idx=i)},
                    n,
                )
            )
        call = {
            "toolsetName": "crm",
            "toolName": "lookup",
            "parameter": {"q": f"item {seq}", "n": seq},
        }
        n += 1
        out.append(
            frame(
                "asgard.message.complete",
                "messageComplete",
                {"message": dict(msg, text="".join(f"word{i} " for i in range(6)))},
                n,
            )
        )
        n += 1
        out.append(
            frame(
                "asgard.tool_call.start",
                "toolCallStart",
                {"processId": "p", "callSeq": seq, "toolCall": call},
                n,
            )
        )
        n += 1
        out.append(
            frame(
                "asgard.tool_call.complete",
                "toolCallComplete",
                {
                    "processId": "p",
                    "callSeq": seq,
                    "toolCall": call,
                    "toolCallResult": {"rows": seq, "ok": True},
                },
                n,
            )
        )
        seq += 1
        n += 1
    out.append(frame("asgard.run.done", "runDone", {}, n))
    return b"".join(out)


def pieces(body: bytes, size: int = 4096) -> Iterator[bytes]:
    for i in range(0, len(body), size):
        yield body[i : i + size]


def baseline(body: bytes) -> int:
    """The platform clients' own work: split the SSE body and JSON-parse each data payload."""
    count = 0
    for block in body.split(b"\n\n"):
        for line in block.split(b"\n"):
            if line.startswith(b"data:"):
                json.loads(line[5:])
                count += 1
    return count


def toolwire_decode(body: bytes) -> int:
    """Incremental SSE parse of network-sized pieces, then the Asgard -> AG-UI decoder."""
    from toolwire.protocol import SSEParser

    parser = SSEParser()
    d = asgard.Decoder()
    count = 0
    for piece in pieces(body):
        for ev in parser.feed(piece):
            count += len(d.feed(json.loads(ev.data)))
    for ev in parser.close():
        count += len(d.feed(json.loads(ev.data)))
    return count + len(d.close())


def decode_only(frames: list[dict[str, Any]]) -> int:
    d = asgard.Decoder()
    count = 0
    for f in frames:
        count += len(d.feed(f))
    return count + len(d.close())


def best(fn: Any, arg: Any, repeat: int = 5) -> float:
    """Best of ``repeat`` runs, in CPU time of this process (steadier on a shared machine)."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn(arg)
        times.append(time.process_time() - t0)
    return min(times)


def peak(fn: Any, arg: Any) -> int:
    tracemalloc.start()
    fn(arg)
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


def main() -> None:
    for frames in (20_000, 40_000):
        body = stream(frames)
        parsed = list(asgard.sse_chunks(body))
        base = best(baseline, body)
        ours = best(toolwire_decode, body)
        mapping = best(decode_only, parsed)
        print(f"{frames} frames ({len(body) / 1e6:.1f} MB):")
        print(f"  baseline parse (split + json.loads):   {base * 1e3:8.1f} ms")
        print(f"  toolwire SSE parse + decode:          {ours * 1e3:8.1f} ms  ({ours / base:.2f}x)")
        print(
            f"  toolwire decode alone (parsed frames): {mapping * 1e3:8.1f} ms"
            f"  (adds {mapping / base:.2f}x of the baseline)"
        )
        print(
            f"  peak memory, decode from chunks:      {peak(toolwire_decode, body) / 1e6:8.2f} MB"
            f" (body itself {len(body) / 1e6:.1f} MB, held by the caller)"
        )


if __name__ == "__main__":
    main()
