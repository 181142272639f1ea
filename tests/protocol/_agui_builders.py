"""Tiny builders for AG-UI event dicts (wire spelling), so rule tests read like the spec."""

from __future__ import annotations

from typing import Any


def run_started(run: str = "r1", thread: str = "t1", **kw: Any) -> dict[str, Any]:
    return {"type": "RUN_STARTED", "threadId": thread, "runId": run, "protocolVersion": "1.0", **kw}


def run_finished(run: str = "r1", thread: str = "t1", **kw: Any) -> dict[str, Any]:
    return {"type": "RUN_FINISHED", "threadId": thread, "runId": run, **kw}


def run_error(message: str = "boom") -> dict[str, Any]:
    return {"type": "RUN_ERROR", "message": message}


def start(cid: str, name: str = "f", parent: str | None = None, **kw: Any) -> dict[str, Any]:
    ev = {"type": "TOOL_CALL_START", "toolCallId": cid, "toolCallName": name, **kw}
    if parent is not None:
        ev["parentMessageId"] = parent
    return ev


def args(cid: str, delta: str, **kw: Any) -> dict[str, Any]:
    return {"type": "TOOL_CALL_ARGS", "toolCallId": cid, "delta": delta, **kw}


def end(cid: str, **kw: Any) -> dict[str, Any]:
    return {"type": "TOOL_CALL_END", "toolCallId": cid, **kw}


def chunk(**kw: Any) -> dict[str, Any]:
    return {"type": "TOOL_CALL_CHUNK", **kw}


def result(cid: str, content: Any = "ok", mid: str | None = None, **kw: Any) -> dict[str, Any]:
    return {
        "type": "TOOL_CALL_RESULT",
        "messageId": mid or f"tool-{cid}",
        "toolCallId": cid,
        "content": content,
        **kw,
    }


def text_start(mid: str, **kw: Any) -> dict[str, Any]:
    return {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant", **kw}


def text(mid: str, delta: str, **kw: Any) -> dict[str, Any]:
    return {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": delta, **kw}


def text_end(mid: str, **kw: Any) -> dict[str, Any]:
    return {"type": "TEXT_MESSAGE_END", "messageId": mid, **kw}
