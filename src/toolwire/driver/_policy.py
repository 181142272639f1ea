"""How ``toolwire.run`` retries a vendor call: a small value object, no tenacity import here.

The policy only says *how much* to retry; *whether* a failure may be retried at all
is fixed by the driver: only before the first event of the model's turn was sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.errors import UnsupportedInput
from toolwire.failures import RETRY_STATUSES


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff and full jitter, honouring ``Retry-After``.

    ``attempts`` counts the first try (``RetryPolicy(attempts=1)`` never retries);
    ``max_elapsed`` bounds the whole retrying (no sleep starts that would end past it);
    a server's ``Retry-After``/``retry-after-ms`` is waited for, up to ``max_retry_after``.
    ``statuses`` are the retryable statuses below 500 (every 5xx is retryable).
    """

    attempts: int = 4
    initial_backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0
    max_elapsed: float = 120.0
    statuses: frozenset[int] = RETRY_STATUSES

    def __post_init__(self) -> None:
        if not isinstance(self.attempts, int) or self.attempts < 1:
            raise UnsupportedInput(
                f"RetryPolicy.attempts must be an int >= 1, not {self.attempts!r}"
            )
        for name in ("initial_backoff", "max_backoff", "max_retry_after", "max_elapsed"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or value < 0:
                raise UnsupportedInput(f"RetryPolicy.{name} must be a number >= 0, not {value!r}")

    def retryable_status(self, status: int) -> bool:
        return status >= 500 or status in self.statuses


#: The policy ``toolwire.run`` uses when given none.
DEFAULT_POLICY = RetryPolicy()

__all__ = ["DEFAULT_POLICY", "RETRY_STATUSES", "RetryPolicy"]
