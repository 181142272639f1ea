"""Keep-alive bytes with no deadline set: the driver hands the reader's chunks on without a
wrapper then, and ``_Run.feed`` skips the reader's ticks (a piece that completed no chunk).
The run is the same as without them, sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _driver_support import CASES, Case, aclose_client, clean_reply, close_client, run_input
from ag_ui.core import BaseEvent

import toolwire
from toolwire.testing.fake_vendor import FakeVendor, Reply

#: the vendors whose bytes toolwire reads itself, in a framing that has keep-alive bytes
RAW = [c for c in CASES if c.reads_bytes and c.keep_alive is not None]


def _replies(case: Case) -> list[Reply]:
    """The recorded turn as it is, and the same turn after three keep-alive comments, each
    written on its own (so each is a piece of its own for the reader)."""
    plain = clean_reply(case)
    alive = Reply(
        status=plain.status,
        headers=plain.headers,
        chunks=[case.keep_alive or b""] * 3 + [b"".join(plain.chunks)],
        delay=0.05,
    )
    return [plain, alive]


def _run(case: Case, is_async: bool) -> list[list[dict[str, Any]]]:
    runs: list[list[BaseEvent]] = []
    with FakeVendor(_replies(case), timeout=60) as fv:
        for _ in range(2):
            if is_async:

                async def go() -> list[BaseEvent]:
                    client = case.client(fv.base_url, True)
                    try:
                        run = toolwire.arun(
                            client, run_input(case), model=case.model, **case.kwargs
                        )
                        return [e async for e in run]
                    finally:
                        await aclose_client(client)

                runs.append(asyncio.run(go()))
            else:
                client = case.client(fv.base_url, False)
                try:
                    runs.append(
                        list(toolwire.run(client, run_input(case), model=case.model, **case.kwargs))
                    )
                finally:
                    close_client(client)
        assert len(fv.requests) == 2
    return [[e.model_dump() for e in run] for run in runs]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("case", RAW, ids=[c.vendor for c in RAW])
def test_keep_alive_bytes_change_nothing_without_a_deadline(case: Case, is_async: bool) -> None:
    plain, alive = _run(case, is_async)
    assert plain[-1]["type"] == "RUN_FINISHED"
    assert alive == plain
