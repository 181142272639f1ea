"""Pure AG-UI logic shared by every adapter: no vendor knowledge, no I/O.

``__all__`` is the user API: checking a stream (``validate_stream``, ``StreamMachine``,
``parse_event``), framing a vendor turn as a run (``frame_run``, ``aframe_run``,
``RunFramer``), the metadata keys decoded events carry, AG-UI SSE in and out, legacy
peers, limits and redaction.

The adapter-author toolkit (``BaseDecoder``, ``BaseEncoder``, ``Fields``, the SSE framing
of vendor streams, ids, arguments, fitting, pairing, part helpers, the surface binders)
is reached through its documented modules, ``toolwire.protocol.decoding``,
``.encoding``, ``.fields``, ``.surface`` and the rest (docs/architecture.md lists them).
The names below the user API stay importable from here only until the adapters import
them from those modules; they are not part of the package's surface.
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
from toolwire.protocol.runs import RunFramer, aframe_run, frame_run
from toolwire.protocol.sse import SSEEvent, SSEParser, encode_agui_sse, parse_sse

# isort: split
# -- the adapter-author toolkit: import it from its module (see the docstring) -----------
from toolwire.protocol.arguments import REPEATED_KEYS as REPEATED_KEYS
from toolwire.protocol.arguments import dumps_compact as dumps_compact
from toolwire.protocol.arguments import parse_arguments_object as parse_arguments_object
from toolwire.protocol.arguments import repeated_keys as repeated_keys
from toolwire.protocol.arguments import repeated_keys_reason as repeated_keys_reason
from toolwire.protocol.callids import CallIds as CallIds
from toolwire.protocol.callids import IdMapper as IdMapper
from toolwire.protocol.callids import IdRule as IdRule
from toolwire.protocol.decoding import BaseDecoder as BaseDecoder
from toolwire.protocol.decoding import adecode_iter as adecode_iter
from toolwire.protocol.decoding import as_dict as as_dict
from toolwire.protocol.decoding import decode_iter as decode_iter
from toolwire.protocol.decoding import encode_iter as encode_iter
from toolwire.protocol.decoding import require as require
from toolwire.protocol.finish import stated_finish_reason as stated_finish_reason
from toolwire.protocol.fitting import Accepts as Accepts
from toolwire.protocol.fitting import Fitted as Fitted
from toolwire.protocol.fitting import PartRule as PartRule
from toolwire.protocol.fitting import fit_content as fit_content
from toolwire.protocol.fitting import flatten as flatten
from toolwire.protocol.ids import mint_id as mint_id
from toolwire.protocol.inputs import as_run_input as as_run_input
from toolwire.protocol.jsontext import decode_utf8 as decode_utf8
from toolwire.protocol.jsontext import load_json as load_json
from toolwire.protocol.pairing import Paired as Paired
from toolwire.protocol.pairing import Turn as Turn
from toolwire.protocol.pairing import pair_history as pair_history
from toolwire.protocol.pairing import settle_unanswered as settle_unanswered
from toolwire.protocol.parts import media_part as media_part
from toolwire.protocol.parts import parse_parts as parse_parts
from toolwire.protocol.parts import text_of as text_of
from toolwire.protocol.sse import frame_sse as frame_sse
from toolwire.protocol.sse import iter_sse as iter_sse
from toolwire.protocol.sse import sse_json_objects as sse_json_objects

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
    "aframe_run",
    "configure",
    "downgrade_event",
    "downgrade_stream",
    "encode_agui_sse",
    "frame_run",
    "limits",
    "parse_event",
    "parse_sse",
    "redact",
    "validate_stream",
]
