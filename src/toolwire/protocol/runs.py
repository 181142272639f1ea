"""Framing a decoded vendor turn as one complete AG-UI run.

``RUN_STARTED`` (with the protocol version this stream speaks), the turn's
events, then ``RUN_FINISHED`` with the outcome — cancelled or interrupt when
the decoder says so, else success with the calls left pending — and usage; or
``RUN_ERROR`` when decoding failed (a vendor error, a truncated stream). The
machine checks every event on the way out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
)

from toolwire.errors import ToolwireError, TruncatedStream, VendorStreamError
from toolwire.protocol.decoding import BaseDecoder
from toolwire.protocol.machine import StreamMachine


def error_code(exc: ToolwireError) -> str:
    """A stable ``RUN_ERROR.code`` for a decoding failure."""
    if isinstance(exc, VendorStreamError):
        return exc.error_type
    if isinstance(exc, TruncatedStream):
        return "truncated"
    return type(exc).__name__


def frame_run(
    decoder: BaseDecoder,
    chunks: Iterable[Any],
    *,
    thread_id: str,
    run_id: str,
    run_input: RunAgentInput | None = None,
    whole_response: Any = None,
    machine: StreamMachine | None = None,
) -> Iterator[BaseEvent]:
    """Yield one complete, verified AG-UI run for one vendor turn."""
    m = machine or StreamMachine()
    decoder.known_call_ids = decoder.known_call_ids | m.call_ids
    kw: dict[str, Any] = {"input": run_input} if run_input is not None else {}
    started = RunStartedEvent(
        thread_id=thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION, **kw
    )
    yield from m.feed(started)
    try:
        if whole_response is not None:
            for ev in decoder.feed_response(whole_response):
                yield from m.feed(ev)
        else:
            for chunk in chunks:
                for ev in decoder.feed(chunk):
                    yield from m.feed(ev)
        for ev in decoder.close():
            yield from m.feed(ev)
    except (VendorStreamError, TruncatedStream) as exc:
        err_kw: dict[str, Any] = {"usage": decoder.usage} if decoder.usage else {}
        if decoder.error_metadata:
            err_kw["metadata"] = dict(decoder.error_metadata)
        message = exc.message if isinstance(exc, VendorStreamError) else str(exc)
        yield from m.feed(RunErrorEvent(message=message, code=error_code(exc), **err_kw))
        return
    outcome: Any
    if decoder.cancelled:
        outcome = RunFinishedCancelledOutcome()
    elif decoder.interrupts:
        outcome = RunFinishedInterruptOutcome(interrupts=decoder.interrupts)
    else:
        pending = m.pending_tool_call_ids
        outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=pending or None)
    fin_kw: dict[str, Any] = {}
    if decoder.usage:
        fin_kw["usage"] = decoder.usage
    if decoder.result is not None:
        fin_kw["result"] = decoder.result
    if decoder.run_metadata:
        fin_kw["metadata"] = dict(decoder.run_metadata)
    yield from m.feed(
        RunFinishedEvent(thread_id=thread_id, run_id=run_id, outcome=outcome, **fin_kw)
    )


__all__ = ["error_code", "frame_run"]
