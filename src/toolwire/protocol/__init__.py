"""Pure AG-UI logic shared by every adapter: no vendor knowledge, no I/O."""

from toolwire.protocol.arguments import (
    REPEATED_KEYS,
    dumps_compact,
    parse_arguments_object,
    repeated_keys,
    repeated_keys_reason,
)
from toolwire.protocol.callids import VENDOR_ID_KEY, CallIds, IdMapper, IdRule
from toolwire.protocol.decoding import (
    BaseDecoder,
    adecode_iter,
    as_dict,
    decode_iter,
    encode_iter,
    require,
)
from toolwire.protocol.downgrade import downgrade_event, downgrade_stream
from toolwire.protocol.events import parse_event
from toolwire.protocol.finish import FINISH_REASON_KEY, FINISH_REASONS, stated_finish_reason
from toolwire.protocol.fitting import Accepts, Fitted, PartRule, fit_content, flatten
from toolwire.protocol.ids import mint_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.jsontext import decode_utf8, load_json
from toolwire.protocol.limits import Limits, configure, limits
from toolwire.protocol.machine import (
    RESULT_ERROR_KEY,
    VIOLATION_CODES,
    StreamMachine,
    validate_stream,
)
from toolwire.protocol.pairing import Paired, Turn, pair_history, settle_unanswered
from toolwire.protocol.parts import media_part, parse_parts, text_of
from toolwire.protocol.redact import redact
from toolwire.protocol.runs import aframe_run, frame_run
from toolwire.protocol.sse import (
    SSEEvent,
    SSEParser,
    encode_agui_sse,
    frame_sse,
    iter_sse,
    parse_sse,
    sse_json_objects,
)

__all__ = [
    "FINISH_REASONS",
    "FINISH_REASON_KEY",
    "REPEATED_KEYS",
    "RESULT_ERROR_KEY",
    "VENDOR_ID_KEY",
    "VIOLATION_CODES",
    "Accepts",
    "BaseDecoder",
    "CallIds",
    "Fitted",
    "IdMapper",
    "IdRule",
    "Limits",
    "Paired",
    "PartRule",
    "SSEEvent",
    "SSEParser",
    "StreamMachine",
    "Turn",
    "adecode_iter",
    "aframe_run",
    "as_dict",
    "as_run_input",
    "configure",
    "decode_iter",
    "decode_utf8",
    "downgrade_event",
    "downgrade_stream",
    "dumps_compact",
    "encode_agui_sse",
    "encode_iter",
    "fit_content",
    "flatten",
    "frame_run",
    "frame_sse",
    "iter_sse",
    "limits",
    "load_json",
    "media_part",
    "mint_id",
    "pair_history",
    "parse_arguments_object",
    "parse_event",
    "parse_parts",
    "parse_sse",
    "redact",
    "repeated_keys",
    "repeated_keys_reason",
    "require",
    "settle_unanswered",
    "sse_json_objects",
    "stated_finish_reason",
    "text_of",
    "validate_stream",
]
