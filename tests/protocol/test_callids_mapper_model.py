"""``IdMapper`` keeps an id sent as it is in one table only (issue 38: a stream of many
calls made two set entries a call); what it sends must still be what its rules say, for
any order of calls: a model of those rules, written here from the docstrings with a set
of every id held and a set of every id sent, gives the same ids and the same losses for
random sequences of calls, ids that conform and ids that do not, ids that equal another
call's stand-in, metadata giving a vendor's id back, and ids the request already holds."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.protocol.callids import VENDOR_ID_KEY, IdMapper, IdRule

RULES = [
    IdRule("nine", max_length=9, pattern="[a-zA-Z0-9]{9}", prefix=""),
    IdRule("short", max_length=12, pattern="[a-zA-Z0-9_-]+"),
]


class _Model:
    """The rules, plainly: a call id maps once; a vendor id given back when it conforms and
    no other call holds or was sent it; else the id when it conforms and no call was sent it;
    else the first
    stand-in (salt 0, 1, ...) that is neither held nor sent, with a loss."""

    def __init__(self, rule: IdRule, known: set[str]) -> None:
        self.rule = rule
        self.held = set(known)
        self.sent: set[str] = set()
        self.out: dict[str, str] = {}
        self.losses: list[tuple[str, str]] = []

    def __call__(self, cid: str, meta: Any) -> str:
        if cid in self.out:
            return self.out[cid]
        rule = self.rule
        out = None
        kept = meta.get(VENDOR_ID_KEY) if isinstance(meta, dict) else None
        if isinstance(kept, dict) and kept.get("vendor") == rule.target:
            given = kept.get("id")
            if (
                isinstance(given, str)
                and rule.why_not(given) is None
                and given not in self.sent
                and (given == cid or given not in self.held)
            ):
                out = given
        if out is None:
            if rule.why_not(cid) is None and cid not in self.sent:
                out = cid
            else:
                salt = 0
                out = rule.conforming(cid, salt)
                while out in self.held or out in self.sent or out == cid:
                    salt += 1
                    out = rule.conforming(cid, salt)
                self.losses.append((cid, out))
        self.held.add(cid)
        self.out[cid] = out
        self.sent.add(out)
        return out


def _pool(rule: IdRule) -> list[str]:
    """Ids that conform, ids that do not, and the stand-ins of some of those (so that a
    call's id can be another's stand-in)."""
    plain = ["abcdefgh1", "abcdefgh2", "Zz0000001"]
    odd = ["c1", "c-2", "a.long.id.0123456789", ""]
    minted = [rule.conforming(o, s) for o in odd for s in (0, 1)]
    return plain + odd + minted


def _meta(rule: IdRule, pool: list[str], pick: int) -> Any:
    if pick == 0:
        return None
    if pick == 1:
        return {}
    if pick == 2:
        return {"other": 1}
    vendor = rule.target if pick % 2 else "someone-else"
    return {VENDOR_ID_KEY: {"vendor": vendor, "id": pool[pick % len(pool)]}}


@settings(max_examples=400, deadline=None)
@given(
    st.integers(0, len(RULES) - 1),
    st.lists(st.tuples(st.integers(0, 20), st.integers(0, 9)), max_size=14),
    st.lists(st.integers(0, 20), max_size=3),
)
def test_the_mapper_sends_what_its_rules_say(
    which: int, calls: list[tuple[int, int]], known: list[int]
) -> None:
    rule = RULES[which]
    pool = _pool(rule)
    held = {pool[k % len(pool)] for k in known}
    mapper = IdMapper(rule, set(held))
    model = _Model(rule, held)
    for k, m in calls:
        cid = pool[k % len(pool)]
        meta = _meta(rule, pool, m)
        assert mapper(cid, meta) == model(cid, meta)
    assert [(loss.tool_call_id, loss.sent_as) for loss in mapper.losses] == model.losses
    assert all(rule.why_not(mapper(cid)) is None for cid in model.out)
    # two calls never share an id sent (a call whose own id an earlier call was sent as
    # gets a stand-in of its own)
    assert len({mapper(cid) for cid in model.out}) == len(model.out)


def test_a_call_whose_id_an_earlier_call_went_as_gets_its_own() -> None:
    rule = RULES[1]
    mapper = IdMapper(rule)
    first = mapper("a.b")  # rejected: a stand-in
    assert first != "a.b" and rule.why_not(first) is None
    second = mapper(first)  # conforms, but the first call went as it
    assert second not in {first, "a.b"} and rule.why_not(second) is None
    loss = mapper.losses[-1]
    assert (loss.tool_call_id, loss.sent_as) == (first, second)
    assert "already sent as this id" in loss.reason
