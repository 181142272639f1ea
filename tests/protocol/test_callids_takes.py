"""``IdRule.takes``, the one call made for a rule that says whether it takes an id as it is,
agrees with ``why_not`` (the rule as documented) for every rule shape the adapters declare
and for random ids; and ``IdMapper`` gives the same ids whether a call's metadata is a plain
dict without the vendor-id key (not searched), a dict subclass, or holds the key."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.protocol.callids import VENDOR_ID_KEY, IdMapper, IdRule

RULES = [
    IdRule("any"),
    IdRule("long", max_length=5),
    IdRule("pattern", pattern=r"[a-z_]+"),
    IdRule("both", max_length=9, pattern="[a-zA-Z0-9]{9}", prefix=""),
    IdRule("classes", max_length=64, pattern=r"[a-zA-Z0-9_-]+"),
    IdRule("empty-ok pattern", pattern=r"[a-z]*"),
]
VENDORS = ["anthropic", "bedrock", "cohere", "gemini", "mistral", "ollama", "openai_chat"]
VENDORS += ["openai_responses"]


def _declared() -> list[IdRule]:
    out = []
    for vendor in VENDORS:
        wire = adapters.get(vendor).__name__ + ".wire"
        out.append(__import__(wire, fromlist=["CALL_ID_RULE"]).CALL_ID_RULE)
    return out


IDS = ["", "a", "abcde", "abcdef", "abcdefghi", "ABCdef123", "a_b", "a-b", "a.b", "é", "\n"]
IDS += ["x" * 64, "x" * 65, "toolu_01ABC", "call_00000001", "00000tn1e", "a\nb"]


@pytest.mark.parametrize("rule", RULES + _declared(), ids=lambda r: r.target)
def test_takes_is_why_not_saying_nothing(rule: IdRule) -> None:
    for call_id in IDS:
        assert bool(rule.takes(call_id)) == (rule.why_not(call_id) is None), call_id


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(RULES), st.text(max_size=12))
def test_takes_agrees_with_why_not_for_random_ids(rule: IdRule, call_id: str) -> None:
    assert bool(rule.takes(call_id)) == (rule.why_not(call_id) is None)


def test_an_id_taken_as_it_is_gets_no_verdict_entry_and_the_same_answer() -> None:
    rule = IdRule("t", max_length=12, pattern=r"[a-z_0-9]+")
    assert rule.verdict("abc") is None
    assert "abc" not in rule._verdicts
    stand_in = rule.verdict("a.b")
    assert stand_in is not None and stand_in[0] != "a.b" and rule.verdict("a.b") == stand_in


class _Meta(dict[str, Any]):
    """A dict subclass: searched for the vendor id as any mapping is."""


@pytest.mark.parametrize("make", [dict, _Meta])
def test_metadata_without_the_key_and_with_it_map_as_documented(make: Any) -> None:
    rule = IdRule("v", max_length=12)
    mapper = IdMapper(rule)
    assert mapper("plain", make({"other": 1})) == "plain"
    assert mapper("given", make({VENDOR_ID_KEY: {"vendor": "v", "id": "orig"}})) == "orig"
    assert mapper("given") == "orig"  # the same every time
    other = make({VENDOR_ID_KEY: {"vendor": "w", "id": "nope"}})
    assert mapper("elsewhere", other) == "elsewhere"
    # a stand-in for an id the rule rejects, the vendor's own id taken by another call
    assert mapper("x" * 13, make({VENDOR_ID_KEY: {"vendor": "v", "id": "orig"}})) != "orig"
    assert [loss.kind for loss in mapper.take_losses()] == ["call-id-remapped"]


@pytest.mark.parametrize("rule", RULES + _declared(), ids=lambda r: r.target)
def test_a_rule_still_pickles_and_copies(rule: IdRule) -> None:
    """(the server's worker processes are spawned: what crosses to them must pickle)"""
    again = pickle.loads(pickle.dumps(rule))
    assert again == rule
    for call_id in IDS:
        assert again.takes(call_id) == rule.takes(call_id)
    assert copy.deepcopy(rule) == rule
