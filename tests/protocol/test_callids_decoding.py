"""``CallIds`` (a decoder's AG-UI id per call) against a model that keeps every id it gave
in a set: ``CallIds`` keeps only its map and the ids it minted (issue 38: one table entry a
call), and must give the same ids, including when a vendor's id is one it minted."""

from __future__ import annotations

import random

import pytest

from toolwire.protocol.callids import VENDOR_ID_KEY, CallIds
from toolwire.protocol.ids import mint_id


class _Model:
    """The rule as the docstring states it, every given id in a set."""

    def __init__(self, vendor: str) -> None:
        self.vendor = vendor
        self.given: set[str] = set()
        self.calls: dict[str, list[str]] = {}
        self.answered: set[str] = set()

    def assign(self, vendor_id: str, known: frozenset[str]) -> str:
        mine = self.calls.setdefault(vendor_id, [])
        agui, n = vendor_id, len(mine)
        while agui in self.given or agui in known:
            agui = mint_id("call", self.vendor, vendor_id, n)
            n += 1
        self.given.add(agui)
        mine.append(agui)
        return agui

    def answer(self, vendor_id: str) -> str | None:
        for agui in self.calls.get(vendor_id, []):
            if agui not in self.answered:
                self.answered.add(agui)
                return agui
        return self.calls[vendor_id][-1] if self.calls.get(vendor_id) else None


@pytest.mark.parametrize("seed", range(40))
def test_call_ids_give_what_a_set_of_every_given_id_gives(seed: int) -> None:
    rng = random.Random(seed)
    ids, model = CallIds("v"), _Model("v")
    pool = [f"c{i}" for i in range(6)]
    known = frozenset(rng.sample(pool, 2)) if seed % 2 else frozenset()
    for _ in range(60):
        roll = rng.random()
        if roll < 0.6:
            vid = rng.choice(pool)
            got, want = ids.assign(vid, known), model.assign(vid, known)
            assert got == want
            if got != vid:
                pool.append(got)  # a vendor that later sends an id minted here
            assert ids.metadata(got, vid) == (
                {} if got == vid else {VENDOR_ID_KEY: {"vendor": "v", "id": vid}}
            )
        else:
            vid = rng.choice(pool)
            assert ids.answer(vid) == model.answer(vid)


def test_a_vendor_id_that_is_a_minted_id_gets_an_id_of_its_own() -> None:
    ids = CallIds("v")
    first = ids.assign("a")
    second = ids.assign("a")
    assert (first, second) == ("a", mint_id("call", "v", "a", 1))
    third = ids.assign(second)  # a vendor (or a replay) sends the minted id as its own
    assert third not in {first, second}
    assert ids.assign("b", known=frozenset({"b"})) == mint_id("call", "v", "b", 0)
    assert ids.assign("b") == "b"  # free now: no call was given it
    assert ids.assign("b") == mint_id("call", "v", "b", 2)
