"""toolwire: tool calls and tool results between AG-UI 1.0 and model vendors, both ways."""

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from toolwire.driver import RetryPolicy, arun, run

__version__ = "0.1.0"

# The run driver is imported on first use, so ``import toolwire`` stays free of it.
_DRIVER = ("RetryPolicy", "arun", "run")


def __getattr__(name: str) -> Any:
    if name in _DRIVER:
        import toolwire.driver

        return getattr(toolwire.driver, name)
    raise AttributeError(f"module 'toolwire' has no attribute {name!r}")


__all__ = [
    "ContentLossWarning",
    "DuplicateToolCallId",
    "Loss",
    "PartsDroppedWarning",
    "ProtocolViolation",
    "RetryPolicy",
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
    "arun",
    "run",
]
