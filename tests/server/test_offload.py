"""The server's offload: a small request's steps run in place, a large one's in a thread."""

from __future__ import annotations

import asyncio
import threading

from toolwire.server._offload import IN_PLACE_BELOW, Offload, weigh


def _where(size: int | None) -> str:
    async def main() -> str:
        if size is not None:
            weigh(size)
        loop_thread = threading.get_ident()
        ran = await Offload(2).run(threading.get_ident)
        return "in place" if ran == loop_thread else "in a thread"

    return asyncio.run(main())


def test_a_small_request_runs_in_place() -> None:
    assert _where(1000) == "in place"
    assert _where(IN_PLACE_BELOW - 1) == "in place"


def test_a_large_request_runs_in_a_thread() -> None:
    assert _where(IN_PLACE_BELOW) == "in a thread"


def test_an_unweighed_request_runs_in_a_thread() -> None:
    assert _where(None) == "in a thread"


def test_in_thread_ignores_the_size() -> None:
    async def main() -> bool:
        weigh(10)
        return await Offload(2).in_thread(threading.get_ident) != threading.get_ident()

    assert asyncio.run(main())


def test_the_size_is_the_requests_own() -> None:
    """Each request is its own task: one's size does not leak into another's."""

    async def main() -> list[bool]:
        async def request(size: int) -> bool:
            weigh(size)
            await asyncio.sleep(0.01)
            return await Offload(2).run(threading.get_ident) == threading.get_ident()

        return list(await asyncio.gather(request(10), request(1 << 20)))

    assert asyncio.run(main()) == [True, False]
