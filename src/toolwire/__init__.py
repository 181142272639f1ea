"""toolwire: tool calls and tool results between AG-UI 1.0 and model vendors, both ways."""

from toolwire.errors import (
    DuplicateToolCallId,
    ProtocolViolation,
    ToolwireError,
    TruncatedStream,
    UnansweredToolCall,
    UnsupportedInput,
    VendorDataError,
    VendorStreamError,
)
from toolwire.losses import (
    ContentLossWarning,
    Loss,
    PartsDroppedWarning,
    ToolwireWarning,
    UnrecognizedMaterialWarning,
    VersionWarning,
)

__version__ = "0.1.0"

__all__ = [
    "ContentLossWarning",
    "DuplicateToolCallId",
    "Loss",
    "PartsDroppedWarning",
    "ProtocolViolation",
    "ToolwireError",
    "ToolwireWarning",
    "TruncatedStream",
    "UnansweredToolCall",
    "UnrecognizedMaterialWarning",
    "UnsupportedInput",
    "VendorDataError",
    "VendorStreamError",
    "VersionWarning",
    "__version__",
]
