"""toolwire: tool calls and tool results between AG-UI 1.0 and model vendors, both ways.

What a user needs first is here: ``toolwire.adapters.get(name)`` (one adapter, typed as
the contract), ``validate_stream`` and ``frame_run`` / ``aframe_run`` (an AG-UI stream
checked, a vendor turn framed as a run), ``run`` / ``arun`` with ``RetryPolicy`` (a run
over a vendor SDK client), the exceptions and ``Loss`` with its warnings. Everything
but the exceptions and losses is imported on first use, so ``import toolwire`` imports
no vendor SDK, no HTTP client, no tenacity and no server part.
"""

from importlib import import_module
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
    from toolwire import adapters
    from toolwire.driver import RetryPolicy, RunComposer, Tool, arun, file_part, media_part, run
    from toolwire.protocol import aframe_run, frame_run, validate_stream

__version__ = "0.1.0"

#: name -> the module it comes from, imported when the name is first read
_LAZY = {
    "adapters": "toolwire.adapters",
    "validate_stream": "toolwire.protocol",
    "frame_run": "toolwire.protocol",
    "aframe_run": "toolwire.protocol",
    "RetryPolicy": "toolwire.driver",
    "arun": "toolwire.driver",
    "run": "toolwire.driver",
    "RunComposer": "toolwire.driver",
    "Tool": "toolwire.driver",
    "media_part": "toolwire.driver",
    "file_part": "toolwire.driver",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'toolwire' has no attribute {name!r}")
    module = import_module(where)
    return module if where == f"toolwire.{name}" else getattr(module, name)


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ContentLossWarning",
    "DuplicateToolCallId",
    "Loss",
    "PartsDroppedWarning",
    "ProtocolViolation",
    "RetryPolicy",
    "RunComposer",
    "Tool",
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
    "adapters",
    "aframe_run",
    "arun",
    "file_part",
    "frame_run",
    "media_part",
    "run",
    "validate_stream",
]
