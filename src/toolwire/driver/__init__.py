"""The run driver: ``toolwire.run`` / ``toolwire.arun`` over a vendor's SDK client.

I/O lives here only: the request, the response bytes, retries and cancellation. What
the bytes mean is the adapters' and ``toolwire.protocol``'s business. tenacity and
the vendor SDKs are imported when a run starts, never on import. The modules behind
this package (``_runner``, ``_vendors``, ``_policy``) are internal.
"""

from toolwire.driver._policy import DEFAULT_POLICY, RetryPolicy
from toolwire.driver._runner import (
    LOSSES_EVENT,
    AsyncRunEvents,
    RunEvents,
    arun,
    loss_record,
    run,
)

__all__ = [
    "DEFAULT_POLICY",
    "LOSSES_EVENT",
    "AsyncRunEvents",
    "RetryPolicy",
    "RunEvents",
    "arun",
    "loss_record",
    "run",
]
