"""The id mechanisms every adapter shares (toolwire.protocol.callids), on their own."""

from __future__ import annotations

import re

from toolwire.protocol.callids import VENDOR_ID_KEY, CallIds, IdMapper, IdRule


def test_a_repeated_vendor_id_gets_a_minted_deterministic_id() -> None:
    a, b = CallIds("v"), CallIds("v")
    assert [a.assign("x"), a.assign("x"), a.assign("y")] == [b.assign("x"), b.assign("x"), "y"]
    ids = CallIds("v")
    first, second, third = ids.assign("x"), ids.assign("x"), ids.assign("x")
    assert first == "x" and len({first, second, third}) == 3
    assert ids.metadata(first, "x") == {}
    assert ids.metadata(second, "x") == {VENDOR_ID_KEY: {"vendor": "v", "id": "x"}}


def test_an_id_the_thread_already_holds_is_not_reused() -> None:
    ids = CallIds("v")
    assert ids.assign("call_0", known={"call_0"}) != "call_0"


def test_results_answer_the_first_call_still_open_in_order() -> None:
    ids = CallIds("v")
    calls = [ids.assign("x"), ids.assign("x")]
    assert [ids.answer("x"), ids.answer("x")] == calls
    assert ids.answer("x") == calls[-1]  # a third answer: the last call (pairing reports it)
    assert ids.answer("never") is None


def test_a_rule_names_what_is_wrong_and_mints_within_it() -> None:
    rule = IdRule("t", max_length=12, pattern=r"[a-z_0-9]+")
    assert rule.why_not("ok_id") is None
    assert "more than the 12" in (rule.why_not("x" * 13) or "")
    assert "does not match" in (rule.why_not("a.b") or "")
    assert rule.why_not("") == "the id is empty"
    minted = rule.conforming("a.b")
    assert re.fullmatch(r"call_[0-9a-f]{7}", minted) and rule.why_not(minted) is None


def test_the_mapper_gives_the_vendor_id_back_only_when_no_other_call_holds_it() -> None:
    rule = IdRule("v", max_length=40)
    meta = {VENDOR_ID_KEY: {"vendor": "v", "id": "orig"}}
    assert IdMapper(rule, {"minted"})("minted", meta) == "orig"
    taken = IdMapper(rule, {"orig", "minted"})
    assert taken("orig") == "orig" and taken("minted", meta) == "minted"
    other = IdMapper(IdRule("w"), {"minted"})
    assert other("minted", meta) == "minted"  # another vendor's id is not given to it
    mapper = IdMapper(rule)
    assert mapper("y" * 41) == mapper("y" * 41) and mapper.take_losses()[0].sent_as
    assert mapper.take_losses() == []


def test_a_remembered_stand_in_already_held_by_the_request_is_minted_again() -> None:
    # the rule remembers "a.b"'s first stand-in from an earlier request; in this one a call
    # already holds that very id, so "a.b" must get another, and its loss must say which
    rule = IdRule("t", max_length=12, pattern=r"[a-z_0-9]+")
    first = IdMapper(rule, {"a.b"})("a.b")
    again = IdMapper(rule, {"a.b"})
    assert again("a.b") == first and again.take_losses()[0].sent_as == first
    crowded = IdMapper(rule, {"a.b", first})
    other = crowded("a.b")
    assert other != first and rule.why_not(other) is None and crowded(first) == first
    [loss] = crowded.take_losses()
    assert loss.kind == "call-id-remapped" and loss.sent_as == other and "a.b" == loss.tool_call_id
    assert repr(other) in loss.reason and "more than" not in loss.reason
