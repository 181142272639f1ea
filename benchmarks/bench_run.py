"""Benchmark (not a test): ``toolwire.run`` next to a bare SDK call on a loopback server.

Run: ``.venv/bin/python benchmarks/bench_run.py [--events N] [--repeat R] [--quick]``

For each model vendor, one long streamed turn (text deltas, then a tool call whose
arguments arrive in many fragments) is made by the adapter's own encoder, served by
``FakeVendor`` on 127.0.0.1 and read three ways, interleaved, medians of R:

* ``sdk``: the bare SDK call, every stream event materialised as the SDK's object
  (``messages.create(stream=True)``, ``chat.completions.create``, ``responses.create``,
  ``models.generate_content_stream``);
* ``bytes``: the SDK's streaming-response API read to the end (``with_streaming_response``
  + ``iter_bytes``): the I/O floor, nothing parsed (google-genai has no public form of it);
* ``run``: ``toolwire.run`` to AG-UI events, checked, framed.

Printed as ratios: ``run / sdk`` (what the driver costs over a bare SDK call: below 1 it is
cheaper than the SDK's own parse) and ``run / bytes`` (over the floor).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import anthropic
import openai
from ag_ui.core import (
    BaseEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from google import genai

import toolwire
from toolwire import adapters
from toolwire.testing.fake_vendor import FakeVendor, Reply

KEY = "bench-key-not-a-secret"
MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai_chat": "gpt-4.1",
    "openai_responses": "gpt-4.1",
    "gemini": "gemini-3-pro-preview",
}
RUN_INPUT = {
    "threadId": "bench-thread",
    "runId": "bench-run",
    "protocolVersion": "1.0",
    "state": None,
    "messages": [{"id": "u1", "role": "user", "content": "Weather in Oslo?"}],
    "tools": [
        {
            "name": "get_weather",
            "description": "Weather.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ],
    "context": [],
    "forwardedProps": {},
}
PIECE = 16 * 1024


def turn(events: int) -> list[BaseEvent]:
    """A bare AG-UI turn of about ``events`` events: a fifth text, the rest call arguments."""
    text = max(1, events // 5)
    args = max(1, events - text)
    out: list[BaseEvent] = [TextMessageStartEvent(message_id="m1", role="assistant")]
    out += [TextMessageContentEvent(message_id="m1", delta=f"word{i} ") for i in range(text)]
    out.append(TextMessageEndEvent(message_id="m1"))
    out.append(ToolCallStartEvent(tool_call_id="call_1", tool_call_name="get_weather"))
    out.append(ToolCallArgsEvent(tool_call_id="call_1", delta='{"items": ['))
    out += [ToolCallArgsEvent(tool_call_id="call_1", delta=f'"v{i}", ') for i in range(args)]
    out.append(ToolCallArgsEvent(tool_call_id="call_1", delta='"end"]}'))
    out.append(ToolCallEndEvent(tool_call_id="call_1"))
    return out


def body_for(vendor: str, events: int) -> bytes:
    adapter = adapters.get(vendor)
    data: bytes = adapter.FRAMING.write(list(adapter.encode_stream(turn(events))))
    return data


def _reply(body: bytes) -> Reply:
    chunks = [body[i : i + PIECE] for i in range(0, len(body), PIECE)]
    return Reply(headers={"content-type": "text/event-stream"}, chunks=chunks)


def _client(vendor: str, base_url: str) -> Any:
    if vendor == "anthropic":
        return anthropic.Anthropic(api_key=KEY, base_url=base_url, max_retries=0)
    if vendor.startswith("openai"):
        return openai.OpenAI(api_key=KEY, base_url=base_url + "/v1", max_retries=0)
    return genai.Client(api_key=KEY, http_options={"base_url": base_url})


def _sdk(vendor: str, client: Any) -> int:
    body = adapters.get(vendor).encode_request(RUN_INPUT, model=MODELS[vendor])
    if vendor == "anthropic":
        stream = client.messages.create(**body, stream=True)
    elif vendor == "openai_chat":
        stream = client.chat.completions.create(**body, stream=True)
    elif vendor == "openai_responses":
        stream = client.responses.create(**body, stream=True)
    else:
        stream = client.models.generate_content_stream(**body)
    return sum(1 for _ in stream)


def _bytes(vendor: str, client: Any) -> int:
    body = adapters.get(vendor).encode_request(RUN_INPUT, model=MODELS[vendor])
    if vendor == "anthropic":
        resource: Any = client.messages
    elif vendor == "openai_chat":
        resource = client.chat.completions
    else:
        resource = client.responses
    with resource.with_streaming_response.create(**body, stream=True) as response:
        return sum(len(piece) for piece in response.iter_bytes())


def _run(vendor: str, client: Any) -> int:
    kw = {"api": "responses"} if vendor == "openai_responses" else {}
    return sum(1 for _ in toolwire.run(client, RUN_INPUT, model=MODELS[vendor], **kw))


WAYS: dict[str, Callable[[str, Any], int]] = {"sdk": _sdk, "bytes": _bytes, "run": _run}


def measure(vendor: str, events: int, repeat: int) -> dict[str, float]:
    ways = [w for w in WAYS if not (w == "bytes" and vendor == "gemini")]
    reply = _reply(body_for(vendor, events))
    times: dict[str, list[float]] = {w: [] for w in ways}
    with FakeVendor([reply] * (len(ways) * (repeat + 1)), timeout=600) as fv:
        client = _client(vendor, fv.base_url)
        for n in range(repeat + 1):  # the first round warms up and is not counted
            for way in ways:
                began = time.perf_counter()
                WAYS[way](vendor, client)
                if n:
                    times[way].append(time.perf_counter() - began)
    return {w: statistics.median(t) for w, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5000, help="events per turn")
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds (medians)")
    parser.add_argument("--quick", action="store_true", help="a short check that it runs")
    args = parser.parse_args(argv)
    events, repeat = (200, 1) if args.quick else (args.events, args.repeat)
    warnings.simplefilter("ignore")
    print(f"toolwire.run over a loopback FakeVendor: {events}-event turns, medians of {repeat}")
    print(
        f"{'vendor':18} {'sdk ms':>9} {'bytes ms':>9} {'run ms':>9} {'run/sdk':>8} {'run/bytes':>9}"
    )
    for vendor in MODELS:
        t = measure(vendor, events, repeat)
        floor = t.get("bytes")
        print(
            f"{vendor:18} {t['sdk'] * 1e3:9.1f} "
            f"{(floor or 0) * 1e3:9.1f} {t['run'] * 1e3:9.1f} "
            f"{t['run'] / t['sdk']:8.2f} "
            + (f"{t['run'] / floor:9.2f}" if floor else f"{'n/a':>9}")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
