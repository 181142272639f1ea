"""losses.held: a surface above a translation collects its announcements and warns once itself."""

from __future__ import annotations

import asyncio
import warnings

from toolwire.losses import ContentLossWarning, Loss, announce, held, unseen

A = Loss(kind="metadata-dropped", target="t", reason="a")
B = Loss(kind="metadata-dropped", target="t", reason="b")


def test_inside_held_nothing_is_warned_and_everything_is_collected() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with held() as outer:
            announce([A])
            with held() as inner:
                announce([B])
        announce([A])  # outside again: warned
    assert (outer, inner) == ([A], [B])
    assert [(w.category, str(w.message)) for w in seen] == [(ContentLossWarning, A.message)]


def test_unseen_is_what_was_announced_and_is_in_no_value() -> None:
    assert unseen([A, B, A], [A]) == [B, A]  # counted: one A is in the values, one is not
    assert unseen([A], [A, B]) == []


def test_held_is_per_task() -> None:
    # a context variable: a task running beside the held block still warns (catch_warnings
    # would have silenced it too, being process-wide)
    async def other(go: asyncio.Event) -> list[warnings.WarningMessage]:
        await go.wait()
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            announce([B])
        return seen

    async def main() -> tuple[list[Loss], list[warnings.WarningMessage]]:
        go = asyncio.Event()
        task = asyncio.create_task(other(go))  # started before the block: its own context
        with held() as mine:
            go.set()
            seen = await task
        return mine, seen

    mine, seen = asyncio.run(main())
    assert mine == []
    assert [str(w.message) for w in seen] == [B.message]
