"""Shared helpers of the openai_responses tests: paths, SDK replay, expected values.

Expected values are read from the recordings with a parser written here
(``data:`` lines, ``json.loads``), independent of the adapter under test.
"""

from __future__ import annotations

import functools
import inspect
import json
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent, EventType
from sdk_http import answering

from toolwire.recordings import Exchange
from toolwire.testing import replay
from toolwire.testing.calls import calls_from_events
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "conformance" / "cassettes" / "openai_responses"
OURS = ROOT / "cassettes" / "openai_responses"


def sse(events: list[dict[str, Any]]) -> bytes:
    """SSE as OpenAI writes it: ``event:`` + ``data:`` + a blank line, sequence numbers."""
    out = []
    for n, ev in enumerate(events):
        ev = {**ev, "sequence_number": n}
        out.append(f"event: {ev['type']}\ndata: {json.dumps(ev)}\n\n".encode())
    return b"".join(out)


def sdk_events(body: bytes) -> list[Any]:
    """SSE bytes as ``client.responses.create(stream=True)`` yields them (a mock transport
    serves them to the SDK)."""
    import openai

    c = openai.OpenAI(api_key="sk-test-not-a-key", max_retries=0, http_client=answering(body))
    return list(c.responses.create(model="gpt-5", input="hi", stream=True))


def response(status: str, output: list[Any], **extra: Any) -> dict[str, Any]:
    """A Response object as the stream's ``response.*`` events carry it (``extra`` adds
    fields or replaces these)."""
    return {
        "id": "resp_36",
        "object": "response",
        "created_at": 1760000000,
        "status": status,
        "model": "gpt-5",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        **extra,
    }


def exchanges(path: Path) -> list[Exchange]:
    return recording(path)


def payloads(body: bytes) -> list[dict[str, Any]]:
    """Each ``data:`` line of an SSE body, parsed (the recordings hold one line per event)."""
    out = []
    for line in body.decode("utf-8").splitlines():
        if line.startswith("data:"):
            out.append(json.loads(line[5:].strip()))
    return out


# one client for the session: it holds only settings (vcrpy answers every request), and
# each new one builds a TLS context from the CA bundle (about 20 ms of CPU)
@functools.cache
def client() -> Any:
    import openai

    return openai.OpenAI(api_key="sk-test-not-a-key", max_retries=0)


def create(c: Any, body: dict[str, Any]) -> Any:
    """Re-issue a recorded request body through ``client.responses.create``."""
    known = set(inspect.signature(c.responses.create).parameters)
    kw = {k: v for k, v in body.items() if k in known}
    extra = {k: v for k, v in body.items() if k not in known}
    if extra:
        kw["extra_body"] = extra
    return c.responses.create(**kw)


def sdk_results(path: Path) -> list[Any]:
    """Every recorded response as ``openai`` parses it: event lists, or ``Response`` objects."""
    out: list[Any] = []
    with replay(str(path), allow_playback_repeats=False):
        c = client()
        for ex in exchanges(path):
            body = ex.request_body if isinstance(ex.request_body, dict) else {}
            body = {"model": "gpt-5", "input": "replay", **body, "stream": ex.is_sse}
            res = create(c, body)
            out.append(list(res) if ex.is_sse else res)
    return out


def final_items(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The output items a recorded stream completed (``response.output_item.done``)."""
    done = [p for p in raw if p.get("type") == "response.output_item.done"]
    return [p["item"] for p in sorted(done, key=lambda p: p["output_index"])]


def recorded_calls(items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [
        (i["call_id"], i["name"], i["arguments"]) for i in items if i["type"] == "function_call"
    ]


def calls_match(decoded: list[tuple[str, str, str]], items: list[dict[str, Any]]) -> bool:
    """Decoded calls against every recorded call item with a ``call_id``, in order.

    A ``function_call`` must match id, name and argument text exactly; other call
    items (e.g. a client-run ``tool_search_call``) hold their arguments as an
    object, which the decoded argument text must parse back to.
    """
    want = [i for i in items if i["type"].endswith("_call") and "call_id" in i]
    if [d[0] for d in decoded] != [w["call_id"] for w in want]:
        return False
    for (_, name, args), w in zip(decoded, want, strict=True):
        if w["type"] == "function_call":
            if (name, args) != (w["name"], w["arguments"]):
                return False
        elif json.loads(args) != w["arguments"]:
            return False
    return True


def recorded_text(items: list[dict[str, Any]]) -> str:
    return "".join(
        p["text"]
        for i in items
        if i["type"] == "message"
        for p in i["content"]
        if p["type"] == "output_text"
    )


decoded_calls = calls_from_events


def decoded_text(events: list[BaseEvent]) -> str:
    return "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)  # type: ignore[attr-defined]


def dump(events: list[BaseEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def sdk_accepts(body: dict[str, Any]) -> None:
    """Validate a request body's ``input`` and ``tools`` against ``openai``'s own param types."""
    from openai.types.responses.response_input_param import ResponseInputParam
    from openai.types.responses.tool_param import ToolParam
    from pydantic import TypeAdapter

    TypeAdapter(ResponseInputParam).validate_python(body["input"])
    if "tools" in body:
        TypeAdapter(list[ToolParam]).validate_python(body["tools"])


def sent_requests(path: Path, bodies: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """Send bodies through the SDK against a cassette; return (results, the JSON bodies sent)."""
    sent: list[Any] = []

    def keep(request: Any) -> Any:
        sent.append(json.loads(request.body))
        return request

    out = []
    with replay(str(path), allow_playback_repeats=False, before_record_request=keep):
        c = client()
        for body in bodies:
            out.append(create(c, body))
    return out, sent
