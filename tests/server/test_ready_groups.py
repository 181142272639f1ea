"""``ready_groups``: what is ready together goes out together, and nothing waits for later."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire.server._ready import ready_groups


async def _collect(source: AsyncIterator[Any], most: int = 512) -> list[list[Any]]:
    return [group async for group in ready_groups(source.__anext__, most)]


def test_items_ready_at_once_form_one_group_and_a_wait_closes_it() -> None:
    async def source() -> AsyncIterator[int]:
        for i in range(3):
            yield i
        await asyncio.sleep(0.01)  # the vendor's next piece
        yield 3
        yield 4
        await asyncio.sleep(0)
        yield 5

    assert asyncio.run(_collect(source())) == [[0, 1, 2], [3, 4], [5]]


def test_a_group_is_handed_on_before_the_source_waits() -> None:
    """The consumer gets the ready items while the source is still waiting: nothing ready is
    held back for an item that is not."""
    seen: list[str] = []

    async def main() -> None:
        gate = asyncio.Event()

        async def source() -> AsyncIterator[str]:
            yield "a"
            yield "b"
            seen.append("waiting")
            await gate.wait()
            yield "c"

        groups = ready_groups(source().__anext__)
        first = await groups.__anext__()
        seen.append(f"got {first}")
        gate_task = asyncio.get_running_loop().call_later(0.01, gate.set)
        second = await groups.__anext__()
        seen.append(f"got {second}")
        gate_task.cancel()
        with pytest.raises(StopAsyncIteration):
            await groups.__anext__()

    asyncio.run(main())
    assert seen == ["waiting", "got ['a', 'b']", "got ['c']"]


def test_a_failure_comes_after_the_items_before_it() -> None:
    async def source() -> AsyncIterator[int]:
        yield 1
        yield 2
        raise ValueError("the vendor broke")

    async def main() -> list[Any]:
        got: list[Any] = []
        groups = ready_groups(source().__anext__)
        try:
            async for group in groups:
                got.append(group)
        except ValueError as exc:
            got.append(str(exc))
        return got

    assert asyncio.run(main()) == [[1, 2], "the vendor broke"]


def test_a_failure_after_a_wait_is_raised_too() -> None:
    async def source() -> AsyncIterator[int]:
        yield 1
        await asyncio.sleep(0.001)
        raise KeyError("late")

    async def main() -> list[Any]:
        got: list[Any] = []
        try:
            async for group in ready_groups(source().__anext__):
                got.append(group)
        except KeyError as exc:
            got.append(exc.args[0])
        return got

    assert asyncio.run(main()) == [[1], "late"]


def test_a_cancellation_during_the_wait_reaches_the_source() -> None:
    """The wait is the source's own: cancelling the consumer's task cancels it there, and the
    source's clean-up runs."""
    events: list[str] = []

    async def source() -> AsyncIterator[int]:
        try:
            yield 1
            await asyncio.sleep(60)
            yield 2
        except asyncio.CancelledError:
            events.append("source cancelled")
            raise
        finally:
            events.append("source closed")

    async def consume() -> None:
        async for group in ready_groups(source().__anext__):
            events.append(f"group {group}")

    async def main() -> None:
        task = asyncio.create_task(consume())
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(main(), 10))
    assert events == ["group [1]", "source cancelled", "source closed"]


def test_a_group_is_bounded() -> None:
    async def source() -> AsyncIterator[int]:
        for i in range(10):
            yield i

    groups = asyncio.run(_collect(source(), most=4))
    assert groups == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_an_awaitable_that_is_not_a_coroutine_is_awaited_item_by_item() -> None:
    class Future:
        def __init__(self) -> None:
            self.left = 2

        def __anext__(self) -> Any:
            loop = asyncio.get_running_loop()
            fut = loop.create_future()
            if self.left:
                self.left -= 1
                fut.set_result(self.left)
            else:
                fut.set_exception(StopAsyncIteration())
            return fut

    async def main() -> list[list[int]]:
        return [g async for g in ready_groups(Future().__anext__)]

    assert asyncio.run(main()) == [[1, 0]]


def test_the_context_of_the_consumer_is_the_sources() -> None:
    """The source runs in the consumer's task and context (the server holds losses there)."""
    import contextvars

    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")

    async def source() -> AsyncIterator[str]:
        yield var.get()
        await asyncio.sleep(0)
        yield var.get()

    async def main() -> list[list[str]]:
        var.set("the consumer's")
        return [g async for g in ready_groups(source().__anext__)]

    assert asyncio.run(main()) == [["the consumer's"], ["the consumer's"]]


def test_the_response_writes_a_burst_once_and_holds_nothing_back() -> None:
    """``EventStreamResponse``: the events a provider gives at once go out in one body
    message, in order and each framed; the next burst only after the provider's wait, and the
    first burst was written before that wait ended."""
    from ag_ui.core import (
        RunAgentInput,
        RunFinishedEvent,
        RunStartedEvent,
        TextMessageContentEvent,
        TextMessageEndEvent,
        TextMessageStartEvent,
    )

    from toolwire.protocol.stream_redact import StreamRedactor
    from toolwire.server._streaming import EventStreamResponse, StreamHub

    run_input = RunAgentInput(
        thread_id="t", run_id="r", state=None, messages=[], tools=[], context=[],
        forwarded_props=None,
    )  # fmt: skip
    bodies: list[bytes] = []
    written_before_gate: list[int] = []

    async def main() -> None:
        gate = asyncio.Event()

        async def events() -> AsyncIterator[Any]:
            yield RunStartedEvent(thread_id="t", run_id="r")
            yield TextMessageStartEvent(message_id="m", role="assistant")
            yield TextMessageContentEvent(message_id="m", delta="hel")
            asyncio.get_running_loop().call_later(0.02, gate.set)
            await gate.wait()
            written_before_gate.append(len(bodies))
            yield TextMessageContentEvent(message_id="m", delta="lo")
            yield TextMessageEndEvent(message_id="m")
            yield RunFinishedEvent(thread_id="t", run_id="r")

        response = EventStreamResponse(
            events(), run_input=run_input, hub=StreamHub(), agent="a", redactor=StreamRedactor([])
        )
        never = asyncio.Event()

        async def receive() -> dict[str, Any]:
            await never.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                bodies.append(message["body"])

        await response({"type": "http"}, receive, send)

    asyncio.run(asyncio.wait_for(main(), 10))
    assert written_before_gate == [1]  # the first burst was out while the provider waited
    assert len(bodies) == 2
    frames = [b.decode().split("\n\n")[:-1] for b in bodies]
    kinds = [[json.loads(f.removeprefix("data: "))["type"] for f in group] for group in frames]
    assert kinds == [
        ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"],
        ["TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
    ]


def test_a_consumer_that_stops_while_the_source_waits_lets_it_clean_up() -> None:
    """The response stopped (a disconnect, a failed send) right after a group, while the
    source waits for the vendor: closing the groups cancels that wait, the source's clean-up
    runs, and the source can be closed afterwards (it is not left running)."""
    events: list[str] = []

    async def source() -> AsyncIterator[int]:
        try:
            yield 1
            await asyncio.sleep(60)
            yield 2
        except asyncio.CancelledError:
            events.append("source cancelled")
            raise
        finally:
            await asyncio.sleep(0)  # a clean-up that awaits (closing a vendor stream)
            events.append("source closed")

    async def main() -> None:
        src = source()
        groups = ready_groups(src.__anext__)
        assert await groups.__anext__() == [1]  # the source now waits
        await groups.aclose()
        await src.aclose()  # not "already running"
        events.append("done")

    asyncio.run(asyncio.wait_for(main(), 10))
    assert events == ["source cancelled", "source closed", "done"]


def test_a_failed_write_while_the_provider_waits_closes_its_stream() -> None:
    """``EventStreamResponse``: writing a burst fails (the client is gone) while the provider
    waits for its vendor; the provider's clean-up runs within the response's call."""
    from ag_ui.core import RunAgentInput, RunStartedEvent, TextMessageStartEvent

    from toolwire.protocol.stream_redact import StreamRedactor
    from toolwire.server._streaming import EventStreamResponse, StreamHub

    run_input = RunAgentInput(
        thread_id="t", run_id="r", state=None, messages=[], tools=[], context=[],
        forwarded_props=None,
    )  # fmt: skip
    cleaned: list[str] = []

    async def main() -> None:
        gone = asyncio.Event()

        async def events() -> AsyncIterator[Any]:
            try:
                yield RunStartedEvent(thread_id="t", run_id="r")
                yield TextMessageStartEvent(message_id="m", role="assistant")
                await asyncio.sleep(60)  # the vendor's next piece never comes
            finally:
                await asyncio.sleep(0)
                cleaned.append("provider closed")

        response = EventStreamResponse(
            events(), run_input=run_input, hub=StreamHub(), agent="a", redactor=StreamRedactor([])
        )

        async def receive() -> dict[str, Any]:
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message.get("body"):
                raise OSError("the client is gone")  # as uvicorn's write fails

        await response({"type": "http"}, receive, send)
        cleaned.append("response returned")

    asyncio.run(asyncio.wait_for(main(), 10))
    assert cleaned == ["provider closed", "response returned"]


def test_a_group_is_bounded_by_what_its_items_weigh() -> None:
    """Lists of events weigh their length: a group is handed on once it holds ``most``
    events, however few lists carry them (the bound on one write)."""

    async def source() -> AsyncIterator[list[int]]:
        for n in (3, 1, 4, 1, 5, 9, 2):
            yield list(range(n))

    async def main() -> list[list[list[int]]]:
        groups = ready_groups(source().__anext__, 5, weight=len)
        return [group async for group in groups]

    sizes = [[len(x) for x in group] for group in asyncio.run(main())]
    assert sizes == [[3, 1, 4], [1, 5], [9], [2]]
