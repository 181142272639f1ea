"""Dialogflow recordings -> exchanges, one per AG-UI run.

Dialogflow has no SSE: its traffic is REST JSON (vcrpy cassettes) or gRPC
streams saved as JSON / JSONL. How a file becomes runs:

* a vcrpy cassette: each interaction is one run (its JSON response body);
* a JSON document, a JSON array or JSONL lines: a list of objects, grouped so
  that each group is one run:

  - consecutive streamed ``StreamingReactiveCompanionSuggestionsResponse``
    objects with the same ``textMessageId`` (one reactive query turn) are one
    run; a ``status`` response ends the turn;
  - consecutive bare ``ToolCallInfo`` / ``ToolCallSuggestion`` objects are one
    run, the ``toolCallInfo`` list of one suggestion (bare ``ToolCallInfo`` runs
    are handed to the decoder as one ``GeneratorSuggestion`` chunk
    ``{"toolCallInfo": [...]}``, so their calls share one assistant message);
  - every other object (``GenerateSuggestionsResponse``, ``AnalyzeContentResponse``,
    ...) is one run.

Every exchange returned holds its chunks as JSONL (one compact JSON object a
line, so a one-chunk body is also plain JSON); :func:`exchange_chunks` gives
them back, ready for ``frame_run(Decoder(), chunks)``.
"""

from __future__ import annotations

from typing import Any

from toolwire.errors import UnsupportedInput
from toolwire.protocol.jsontext import decode_utf8, dumps_safe, jsonl_lines, load_json
from toolwire.recordings import Exchange, jsonl_chunks
from toolwire.recordings import load_recording as load_generic

from .wire import MODEL_ROUTE, REACTIVE_KEYS, VENDOR, sse_chunks


def _kind(chunk: dict[str, Any]) -> str:
    if "toolCall" in chunk or "toolCallResult" in chunk:
        return "info"
    if isinstance(chunk.get("toolCallInfo"), dict) or "textUpdate" in chunk:
        return "info"
    if any(k in chunk for k in REACTIVE_KEYS):
        return "reactive"
    return "whole"


def group_chunks(objects: list[Any]) -> list[list[dict[str, Any]]]:
    """Split a recording's objects into runs (see the module docstring)."""
    groups: list[list[dict[str, Any]]] = []
    kind: str | None = None
    turn: str | None = None
    open_ = False
    for n, item in enumerate(objects):
        if not isinstance(item, dict):
            raise UnsupportedInput(f"object {n}: not a JSON object")
        k = _kind(item)
        tid = item.get("textMessageId") if k == "reactive" else None
        joins = (
            open_
            and k == kind
            and k != "whole"
            and (k == "info" or tid is None or turn is None or tid == turn)
        )
        if not joins:
            groups.append([])
            turn = None
        groups[-1].append(item)
        kind, open_ = k, k != "whole"
        if isinstance(tid, str):
            turn = tid
        if k == "reactive" and "status" in item:
            open_ = False
    return [_as_suggestion(g) for g in groups]


def _as_suggestion(group: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(group) > 1 and all("toolCall" in c or "toolCallResult" in c for c in group):
        return [{"toolCallInfo": group}]
    return group


def _objects(text: str, name: str) -> list[Any]:
    try:
        whole = load_json(text, VENDOR, name or "input")
    except ValueError:
        out: list[Any] = []
        for n, line in enumerate(jsonl_lines(text), 1):
            if not line.strip():
                continue
            try:
                value = load_json(line, VENDOR, f"{name or 'input'}: line {n}")
            except ValueError as exc:
                raise UnsupportedInput(f"{name or 'input'}: line {n}: not JSON: {exc}") from None
            out.extend(value if isinstance(value, list) else [value])
        return out
    return whole if isinstance(whole, list) else [whole]


def _jsonl(chunks: list[dict[str, Any]]) -> bytes:
    lines = [dumps_safe(c, separators=(",", ":")) for c in chunks]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _exchange(chunks: list[dict[str, Any]], base: Exchange | None = None) -> Exchange:
    ctype = "application/json" if len(chunks) == 1 else "application/jsonl"
    if base is None:
        return Exchange(response_body=_jsonl(chunks), content_type=ctype)
    return Exchange(
        response_body=_jsonl(chunks),
        content_type=ctype,
        status=base.status,
        method=base.method,
        uri=base.uri,
        request_body=base.request_body,
        headers=base.headers,
    )


def load_recording(data: bytes, name: str = "") -> list[Exchange]:
    """A Dialogflow recording (cassette, JSON, JSONL, or toolwire SSE) -> one exchange per run."""
    text = decode_utf8(data, VENDOR, name or "input")
    stripped = text.lstrip()
    low = name.lower()
    if low.endswith((".yaml", ".yml", ".sse")) or not stripped.startswith(("{", "[")):
        out: list[Exchange] = []
        for ex in load_generic(data, name):
            if not MODEL_ROUTE.admits(ex) or ex.is_sse or not ex.response_body.strip():
                out.append(ex)  # other traffic is passed on untouched (the caller skips it)
                continue
            body = decode_utf8(ex.response_body, VENDOR, ex.uri or "response body")
            for group in group_chunks(_objects(body, ex.uri)):
                out.append(_exchange(group, ex))
        return out
    return [_exchange(g) for g in group_chunks(_objects(text, name))]


def exchange_chunks(exchange: Exchange) -> list[dict[str, Any]]:
    """The decoder chunks of one exchange (SSE, JSON or JSONL body)."""
    if exchange.is_sse:
        return list(sse_chunks(exchange.response_body))
    body = decode_utf8(exchange.response_body, VENDOR, exchange.uri or "response body")
    try:
        whole = load_json(body, VENDOR, exchange.uri or "response body")
    except ValueError:
        values = jsonl_chunks(exchange.response_body)
    else:
        values = whole if isinstance(whole, list) else [whole]
    for n, v in enumerate(values):
        if not isinstance(v, dict):
            raise UnsupportedInput(f"{exchange.uri or 'recording'}: chunk {n} is not an object")
    return values


def is_model_exchange(exchange: Exchange) -> bool:
    """Whether a recorded call is a Dialogflow call with tool calls (:data:`MODEL_ROUTE`)."""
    return MODEL_ROUTE.admits(exchange)


__all__ = ["exchange_chunks", "group_chunks", "is_model_exchange", "load_recording"]
