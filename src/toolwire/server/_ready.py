"""The items of an async iterator in groups of those ready at the same moment.

A vendor's body arrives in pieces, and every event of a piece is ready at once: written one
``send`` each, a 200-event turn costs the server (and the client reading it) 200 socket
writes where a few would carry the same frames at the same moments. :func:`ready_groups`
asks the iterator for its next item without letting it wait: an item it gives at once
joins the group; when it would wait (for the vendor's next piece), the group is handed on
first, then the wait happens as an ordinary ``await``. No item is held back for a later
one: a group goes out before anything waits.

Asking without waiting is done as the event loop asks a coroutine: ``send(None)`` once.
When the coroutine yields (it waits on a future), :class:`_Resumed` hands the consumer's
task that same future and goes on driving the coroutine, passing whatever the task sends or
throws (a cancellation) into it, so the wait is the coroutine's own, in the same task and
context.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")

#: the most items in one group (a bound on what one write carries)
GROUP_MAX = 512


class _Resumed:
    """Awaiting it finishes a coroutine that was started by one ``send(None)``, which yielded
    ``pending``."""

    __slots__ = ("coro", "pending")

    def __init__(self, coro: Coroutine[Any, Any, Any], pending: Any) -> None:
        self.coro = coro
        self.pending = pending

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, pending = self.coro, self.pending
        while True:
            try:
                sent = yield pending
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # a cancellation, thrown in by the task
                try:
                    pending = coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    pending = coro.send(sent)
                except StopIteration as done:
                    return done.value


async def _cancel(step: Coroutine[Any, Any, Any], pending: Any) -> None:
    """Cancel a started ``step`` waiting on ``pending`` and let it run its clean-up to the
    end; whatever it raises or returns then is the stopped consumer's no more."""
    try:
        again = step.throw(asyncio.CancelledError())
    except BaseException:  # it ended at once: cancelled, or with its own error or value
        return
    try:
        await _Resumed(step, again)
    except BaseException:  # the consumer has stopped: nothing is left to tell
        pass


async def ready_groups(
    following: Callable[[], Awaitable[T]],
    most: int = GROUP_MAX,
    weight: Callable[[T], int] | None = None,
) -> AsyncGenerator[list[T], None]:
    """Groups of ``following()``'s results (an ``__anext__``), each of the results that came
    without waiting, handed on before the next wait; ends at ``StopAsyncIteration``. An
    exception ``following()`` raises is raised after the group before it is handed on.
    A group is handed on once it holds ``most`` results, or weighs that much (``weight``:
    what one result counts for, a list of events its length)."""
    group: list[T] = []
    held = 0
    while True:
        step = following()
        if not isinstance(step, Coroutine):  # an awaitable of another kind: no asking ahead
            try:
                item = await step
            except StopAsyncIteration:
                break
            group.append(item)
        else:
            try:
                pending = step.send(None)
            except StopIteration as done:
                group.append(done.value)
            except StopAsyncIteration:
                break
            except BaseException:
                if group:  # what came before the failure goes out first
                    yield group
                raise
            else:
                if group:
                    try:
                        yield group
                    except BaseException:
                        # the consumer stopped (``aclose``, a failed send) while the source
                        # waits: its wait is cancelled as a task's would be, so it cleans
                        # up (its vendor stream closed) before this generator ends
                        await _cancel(step, pending)
                        raise
                    group = []
                    held = 0
                try:
                    item = await _Resumed(step, pending)
                except StopAsyncIteration:
                    break
                group.append(item)
        held += 1 if weight is None else weight(group[-1])
        if held >= most:
            yield group
            group = []
            held = 0
    if group:
        yield group


__all__ = ["GROUP_MAX", "ready_groups"]
