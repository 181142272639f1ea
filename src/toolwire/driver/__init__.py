"""The run driver: ``toolwire.run`` / ``toolwire.arun`` over a vendor's SDK client.

I/O lives here only: the request, the response bytes, retries and cancellation. What
the bytes mean is the adapters' and ``toolwire.protocol``'s business. tenacity and
the vendor SDKs are imported when a run starts, never on import. The modules behind
this package (``_runner``, ``_vendors``, ``_policy``, ``_tool_loop``) are internal;
``_compose`` holds the run composer, ``_tools`` what a backend tool is.
"""

from toolwire.driver._compose import RunComposer, TurnCall
from toolwire.driver._policy import DEFAULT_POLICY, RetryPolicy
from toolwire.driver._runner import (
    LOSSES_EVENT,
    AsyncRunEvents,
    RunEvents,
    arun,
    loss_record,
    run,
)
from toolwire.driver._tools import Tool, file_part, media_part

__all__ = [
    "DEFAULT_POLICY",
    "LOSSES_EVENT",
    "AsyncRunEvents",
    "RetryPolicy",
    "RunComposer",
    "RunEvents",
    "Tool",
    "TurnCall",
    "arun",
    "file_part",
    "loss_record",
    "media_part",
    "run",
]
