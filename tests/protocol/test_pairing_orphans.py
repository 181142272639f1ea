"""pair_history(keep_orphans=True): a result whose call is not in the history, kept where it stands.

For a target that holds a result alone (Dialogflow's ``ToolCallInfo{toolCallResult}``); every
other target drops such a result with a loss (test_capabilities_and_pairing.py).
"""

from __future__ import annotations

from ag_ui.core import AssistantMessage, FunctionCall, ToolCall, ToolMessage, UserMessage

from toolwire.protocol.callids import history_call_ids
from toolwire.protocol.pairing import pair_history


def _call(cid: str) -> ToolCall:
    return ToolCall(id=cid, function=FunctionCall(name="f", arguments="{}"))


HISTORY = [
    ToolMessage(id="t0", tool_call_id="gone", content="first orphan"),
    UserMessage(id="u1", content="hi"),
    AssistantMessage(id="a1", tool_calls=[_call("c1")]),
    ToolMessage(id="t1", tool_call_id="c1", content="one"),
    ToolMessage(id="t2", tool_call_id="gone2", content="second orphan"),
    ToolMessage(id="t3", tool_call_id="gone", content="a second answer to an orphan"),
    UserMessage(id="u2", content="next"),
    ToolMessage(id="t4", tool_call_id="gone3", content="trailing orphan"),
]


def test_kept_orphans_are_turns_of_their_own_where_they_stand() -> None:
    paired = pair_history(HISTORY, target="x", keep_orphans=True)
    assert [t.message.id for t in paired.turns] == ["t0", "u1", "a1", "t2", "u2", "t4"]
    assert [r.id if r else None for r in paired.turns[2].results] == ["t1"]
    assert all(t.results == [] for t in paired.turns if isinstance(t.message, ToolMessage))


def test_a_second_result_for_an_orphan_is_a_duplicate_loss_and_the_first_is_kept() -> None:
    paired = pair_history(HISTORY, target="x", keep_orphans=True)
    assert [(loss.kind, loss.tool_call_id) for loss in paired.losses] == [
        ("duplicate-result-dropped", "gone")
    ]
    assert paired.turns[0].message.content == "first orphan"


def test_without_keep_orphans_every_orphan_is_dropped_with_a_loss() -> None:
    paired = pair_history(HISTORY, target="x")
    assert [t.message.id for t in paired.turns] == ["u1", "a1", "u2"]
    assert [(loss.kind, loss.tool_call_id) for loss in paired.losses] == [
        ("orphan-result-dropped", "gone"),
        ("orphan-result-dropped", "gone2"),
        ("orphan-result-dropped", "gone"),
        ("orphan-result-dropped", "gone3"),
    ]


def test_the_call_ids_found_while_pairing_are_every_id_the_history_holds() -> None:
    """``Paired.call_ids`` stands in for a second pass (``history_call_ids``): the calls'
    ids and every result's, an orphan's or a second answer's too, kept or dropped."""
    expected = {"c1", "gone", "gone2", "gone3"}
    assert history_call_ids(HISTORY) == expected
    for keep in (True, False):
        assert pair_history(HISTORY, target="x", keep_orphans=keep).call_ids == expected
