"""CPU-heavy steps of a run in worker threads, so one large input never freezes other streams.

Reading a ~1 MiB ``RunAgentInput``, matching it against recordings and converting it into a
vendor request take seconds of CPU; on the event loop every other run's stream would stop
meanwhile. Those steps run here, in at most ``max_encoding_threads`` worker threads at once
(per event loop: the limiter is made on the loop that first uses it). Context variables
travel with the call, so losses are still held and reported by the server.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

import anyio
import anyio.to_thread

from toolwire.server._config import DEFAULT_LIMITS

R = TypeVar("R")


class Offload:
    """Run a function in a bounded pool of worker threads."""

    def __init__(self, threads: int = int(DEFAULT_LIMITS["max_encoding_threads"])) -> None:
        self.threads = threads
        self._limiters: WeakKeyDictionary[Any, anyio.CapacityLimiter] = WeakKeyDictionary()

    def at_least(self, threads: int) -> None:
        """Allow ``threads`` at once (an app's ``max_encoding_threads``; the largest wins)."""
        self.threads = max(self.threads, threads)
        for limiter in self._limiters.values():
            limiter.total_tokens = self.threads

    async def run(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        loop = asyncio.get_running_loop()
        limiter = self._limiters.get(loop)
        if limiter is None:
            limiter = self._limiters[loop] = anyio.CapacityLimiter(self.threads)
        call = functools.partial(fn, *args, **kwargs)
        return await anyio.to_thread.run_sync(call, limiter=limiter)


#: the server's worker threads for request work (create_app raises the count from its config)
OFFLOAD = Offload()

__all__ = ["OFFLOAD", "Offload"]
