"""Replaying Anthropic traffic through Anthropic's own SDK (vcrpy, record_mode none)."""

from __future__ import annotations

import functools
import inspect
import json
import warnings
from pathlib import Path
from typing import Any

import anthropic
import yaml
from sdk_http import answering, recording

from toolwire.testing import replay

REPO = Path(__file__).resolve().parents[2]
CASSETTES = REPO / "cassettes" / "anthropic"
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "conformance" / "cassettes" / "anthropic"

_CREATE = set(inspect.signature(anthropic.resources.Messages.create).parameters) - {"self"}


# one client for the session: it holds only settings (vcrpy answers every request), and
# each new one builds a TLS context from the CA bundle (about 20 ms of CPU)
@functools.cache
def client() -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="sk-ant-test", max_retries=0)


def request_bodies(path: Path) -> list[dict[str, Any]]:
    """The recorded request bodies of a cassette, in file order (parsed_body aware)."""
    # PyYAML's own safe loading, by libyaml (the pure-Python parser is ~10x slower)
    doc = yaml.load(path.read_text("utf-8"), Loader=yaml.CSafeLoader)
    out = []
    for inter in doc["interactions"]:
        req = inter["request"]
        if "parsed_body" in req:
            out.append(req["parsed_body"])
        else:
            body = req["body"]
            body = body["string"] if isinstance(body, dict) else body
            out.append(json.loads(body))
    return out


def _kwargs(body: dict[str, Any]) -> dict[str, Any]:
    kw = {k: v for k, v in body.items() if k in _CREATE}
    extra = {k: v for k, v in body.items() if k not in _CREATE}
    if extra:
        kw["extra_body"] = extra
    return kw


def sdk_responses(path: Path) -> list[Any]:
    """Each interaction replayed through the SDK: a list of raw stream events, or a Message.

    An in-stream error surfaces as the SDK's exception object at the end of the list.
    """
    out: list[Any] = []
    c = client()
    with replay(str(path), match="path"), warnings.catch_warnings():
        # recorded model names the SDK now calls deprecated: not our concern here
        warnings.simplefilter("ignore", DeprecationWarning)
        for body in request_bodies(path):
            api = c.beta.messages if "mcp_servers" in body else c.messages
            kw = _kwargs(body)
            if body.get("stream"):
                events: list[Any] = []
                try:
                    for ev in api.create(**kw):
                        events.append(ev)
                except anthropic.APIStatusError as exc:
                    events.append(exc)
                out.append(events)
            else:
                out.append(api.create(**kw))
    return out


def sdk_final_messages(path: Path) -> list[Any]:
    """Each streamed interaction accumulated by the SDK's ``messages.stream`` helper."""
    out: list[Any] = []
    c = client()
    with replay(str(path), match="path"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for body in request_bodies(path):
            kw = _kwargs({k: v for k, v in body.items() if k != "stream"})
            with c.messages.stream(**kw) as s:
                out.append(s.get_final_message())
    return out


def sse(chunks: list[dict[str, Any]]) -> bytes:
    """SSE as Anthropic writes it: a named event, one JSON data line, a blank line."""
    return b"".join(f"event: {c['type']}\ndata: {json.dumps(c)}\n\n".encode() for c in chunks)


def sdk_parse_sse(body: bytes) -> list[Any]:
    """SSE bytes (e.g. our encoder's output) parsed by the SDK: the raw stream events."""

    c = anthropic.Anthropic(api_key="sk-ant-test", max_retries=0, http_client=answering(body))
    return list(
        c.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=16,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
        )
    )


def sdk_accumulate_sse(body: bytes) -> Any:
    """SSE bytes accumulated into a Message by the SDK's ``messages.stream`` helper."""

    c = anthropic.Anthropic(api_key="sk-ant-test", max_retries=0, http_client=answering(body))
    with c.messages.stream(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
    ) as s:
        return s.get_final_message()


def sdk_sent_body(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The JSON body the SDK puts on the wire for ``messages.create(**kwargs)``."""
    seen: list[bytes] = []
    answer = {
        "id": "msg_x",
        "type": "message",
        "role": "assistant",
        "model": kwargs["model"],
        "content": [],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    http = recording(seen, 200, answer)
    c = anthropic.Anthropic(api_key="sk-ant-test", max_retries=0, http_client=http)
    c.messages.create(**_kwargs(kwargs))
    result: dict[str, Any] = json.loads(seen[0])
    return result
