"""``Paired.unanswered``: the calls left without a result, counted while pairing.

``settle_unanswered`` trusts the count to skip its search on the usual, fully answered
history, so the count must hold with duplicates, orphans and exempt calls, and after settling.
"""

from __future__ import annotations

import pytest
from ag_ui.core import AssistantMessage, FunctionCall, ToolCall, ToolMessage, UserMessage

from toolwire.errors import UnansweredToolCall
from toolwire.protocol.pairing import Paired, pair_history, settle_unanswered


def _call(cid: str) -> ToolCall:
    return ToolCall(id=cid, function=FunctionCall(name="f", arguments="{}"))


# c1 answered twice (one duplicate), c2 and c3 never answered, one orphan result
HISTORY = [
    UserMessage(id="u1", content="hi"),
    AssistantMessage(id="a1", tool_calls=[_call("c1"), _call("c2")]),
    ToolMessage(id="t1", tool_call_id="c1", content="one"),
    ToolMessage(id="t1b", tool_call_id="c1", content="one again"),
    ToolMessage(id="t9", tool_call_id="nobody", content="orphan"),
    AssistantMessage(id="a2", tool_calls=[_call("c3")]),
    UserMessage(id="u2", content="next"),
]


def _paired() -> Paired:
    return pair_history(HISTORY, target="x", allow_unanswered=True)


def test_the_count_is_the_calls_without_a_result_duplicates_and_orphans_aside() -> None:
    assert _paired().unanswered == 2  # c2 and c3


def test_a_fully_answered_history_counts_none() -> None:
    history = [
        AssistantMessage(id="a", tool_calls=[_call("k1"), _call("k2")]),
        ToolMessage(id="r2", tool_call_id="k2", content="2"),
        ToolMessage(id="r1", tool_call_id="k1", content="1"),
    ]
    paired = pair_history(history, target="x")
    assert paired.unanswered == 0
    settle_unanswered(paired, target="x")  # nothing to settle: no error


def test_the_count_still_raises_for_the_error_policy() -> None:
    with pytest.raises(UnansweredToolCall) as caught:
        settle_unanswered(_paired(), target="x")
    assert "c2" in str(caught.value) and "c3" in str(caught.value)


@pytest.mark.parametrize("policy", ["answer", "drop"])
def test_settling_leaves_no_call_unanswered(policy: str) -> None:
    paired = _paired()
    settle_unanswered(paired, target="x", policy=policy, text="failed")
    assert paired.unanswered == 0
    assert all(r is not None for t in paired.turns for r in t.results)


def test_an_exempt_call_stays_counted_after_settling() -> None:
    paired = _paired()
    settle_unanswered(paired, target="x", policy="drop", exempt=lambda c: c.id == "c3")
    assert paired.unanswered == 1
    assert [c.id for t in paired.turns for c in (getattr(t.message, "tool_calls", None) or [])] == [
        "c1",
        "c3",
    ]
