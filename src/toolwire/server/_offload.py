"""CPU-heavy steps of a run in worker threads, so one large input never freezes other streams.

Reading a ~1 MiB ``RunAgentInput``, matching it against recordings and converting it into a
vendor request take seconds of CPU; on the event loop every other run's stream would stop
meanwhile. Those steps run here, in at most ``max_encoding_threads`` worker threads at once
(per event loop: the limiter is made on the loop that first uses it). Context variables
travel with the call, so losses are still held and reported by the server.

A small request's steps run in place: on a busy event loop a hop to a thread and back costs
more than the step (the thread waits for the GIL, up to the interpreter's switch interval
of 5 ms, and its answer waits behind every ready task), and a run makes three of them before
its first event. The request's size (its body's bytes, :func:`weigh`) decides, per request.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

import anyio
import anyio.to_thread

from toolwire.server._config import DEFAULT_LIMITS

R = TypeVar("R")

#: inputs under this many bytes are worked on in place (see the module's docstring)
IN_PLACE_BELOW = 64 * 1024

#: the body size of the request this task serves (None: not known, every step offloaded)
_SIZE: ContextVar[int | None] = ContextVar("toolwire_request_size", default=None)


def weigh(size: int) -> None:
    """Record the current request's body size: its later steps run in place when it is small."""
    _SIZE.set(size)


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
        """``fn(*args, **kwargs)``: in place for a small request (:func:`weigh`), otherwise in a
        worker thread."""
        size = _SIZE.get()
        if size is not None and size < IN_PLACE_BELOW:
            return fn(*args, **kwargs)
        return await self.in_thread(fn, *args, **kwargs)

    async def in_thread(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        """``fn(*args, **kwargs)`` in a worker thread, whatever the request's size (work whose
        cost does not follow the input: loading a CA bundle)."""
        loop = asyncio.get_running_loop()
        limiter = self._limiters.get(loop)
        if limiter is None:
            limiter = self._limiters[loop] = anyio.CapacityLimiter(self.threads)
        call = functools.partial(fn, *args, **kwargs)
        return await anyio.to_thread.run_sync(call, limiter=limiter)


#: the server's worker threads for request work (create_app raises the count from its config)
OFFLOAD = Offload()

__all__ = ["IN_PLACE_BELOW", "OFFLOAD", "Offload", "weigh"]
