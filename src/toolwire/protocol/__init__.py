"""Pure AG-UI logic shared by every adapter: no vendor knowledge, no I/O.

``__all__`` is the user API: checking a stream (``validate_stream``, ``StreamMachine``,
``parse_event``), framing a vendor turn as a run (``frame_run``, ``aframe_run``,
``RunFramer``), the metadata keys decoded events carry, AG-UI SSE in and out, legacy
peers, limits and redaction.

The adapter-author toolkit (``BaseDecoder``, ``BaseEncoder``, ``Fields``, the SSE framing
of vendor streams, ids, arguments, fitting, pairing, part helpers, the surface binders)
is reached through its documented modules, ``toolwire.protocol.decoding``,
``.encoding``, ``.fields``, ``.surface`` and the rest (docs/architecture.md lists them).
"""

from toolwire.protocol.callids import VENDOR_ID_KEY
from toolwire.protocol.downgrade import downgrade_event, downgrade_stream
from toolwire.protocol.events import parse_event
from toolwire.protocol.finish import FINISH_REASON_KEY, FINISH_REASONS
from toolwire.protocol.limits import Limits, configure, limits
from toolwire.protocol.machine import (
    RESULT_ERROR_KEY,
    VIOLATION_CODES,
    StreamMachine,
    validate_stream,
)
from toolwire.protocol.redact import redact
from toolwire.protocol.runs import RunFramer, VendorTurn, aframe_run, frame_run, frame_runs
from toolwire.protocol.sse import SSEEvent, SSEParser, encode_agui_sse, parse_sse

__all__ = [
    "FINISH_REASONS",
    "FINISH_REASON_KEY",
    "RESULT_ERROR_KEY",
    "VENDOR_ID_KEY",
    "VIOLATION_CODES",
    "Limits",
    "RunFramer",
    "SSEEvent",
    "SSEParser",
    "StreamMachine",
    "VendorTurn",
    "aframe_run",
    "configure",
    "downgrade_event",
    "downgrade_stream",
    "encode_agui_sse",
    "frame_run",
    "frame_runs",
    "limits",
    "parse_event",
    "parse_sse",
    "redact",
    "validate_stream",
]
