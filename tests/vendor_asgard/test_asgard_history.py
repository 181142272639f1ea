"""ConversationToolCallMessage (the SDK's stored shape, seed 004) <-> AG-UI history."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import AssistantMessage, FunctionCall, ToolCall, ToolMessage, UserMessage

from toolwire.adapters import asgard
from toolwire.errors import VendorDataError
from toolwire.protocol.pairing import pair_history


def entry(pid: str, seq: int, name: str, **kw: Any) -> dict[str, Any]:
    """One ConversationToolCallMessage as the SDK stores it (types/channel.ts@bc928dd)."""
    e: dict[str, Any] = {
        "type": "tool-call",
        "messageId": f"{pid}-{seq}",
        "eventType": "asgard.tool_call.start",
        "processId": pid,
        "callSeq": seq,
        "toolName": name,
        "toolsetName": "crm",
        "parameter": {"q": seq},
        "isComplete": False,
        "time": "2026-11-29T20:00:00.000Z",
    }
    e.update(kw)
    if e["isComplete"]:
        e["eventType"] = "asgard.tool_call.complete"
    return e


CONVERSATION = [
    {"type": "user", "messageId": "u1", "text": "hi", "time": "2026-11-29T19:59:00.000Z"},
    {
        "type": "bot",
        "messageId": "b1",
        "eventType": "asgard.message.complete",
        "isTyping": False,
        "typingText": None,
        "message": {
            "messageId": "b1",
            "replyToCustomMessageId": "u1",
            "text": "Looking.",
            "payload": None,
            "isDebug": False,
            "idx": None,
            "template": None,
        },
        "time": "2026-11-29T20:00:00.000Z",
        "raw": "",
    },
    entry("p", 0, "pending_tool"),
    entry("p", 1, "ok_tool", isComplete=True, result={"rows": 3}),
    entry("p", 2, "failed_tool", isComplete=True, result={"message": "denied"}, isError=True),
    entry("p", 3, "legacy_tool", isComplete=True, result={"error": "old style"}),
    entry(
        "p",
        4,
        "flag_false",
        isComplete=True,
        result={"ok": True},
        isError=False,
        toolUseId="toolu_9",
    ),
]


def test_states_follow_the_seed_rule() -> None:
    msgs = asgard.from_conversation(CONVERSATION)
    assert isinstance(msgs[0], UserMessage) and msgs[0].content == "hi"
    assistant = msgs[1]
    assert isinstance(assistant, AssistantMessage)
    assert (
        assistant.id == "b1" and assistant.content == "Looking."
    )  # the group follows its bot message
    calls = assistant.tool_calls or []
    assert [c.id for c in calls] == ["p-0", "p-1", "p-2", "p-3", "p-4"]
    assert calls[0].function.arguments == '{"q":0}'
    tools = {m.tool_call_id: m for m in msgs if isinstance(m, ToolMessage)}
    assert "p-0" not in tools  # pending: isComplete false
    assert tools["p-1"].error is None and tools["p-1"].content == '{"rows":3}'
    assert tools["p-2"].error == "denied"  # isError
    assert tools["p-3"].error == "old style"  # legacy result.error
    assert tools["p-4"].error is None
    paired = pair_history(msgs, target="test")
    assert paired.turns[-1].unanswered == ["p-0"]


def test_tool_use_id_mode_and_malformed_entries() -> None:
    msgs = asgard.from_conversation(CONVERSATION, call_ids="tool_use_id")
    assert [c.id for c in msgs[1].tool_calls or []][-1] == "toolu_9"
    with pytest.raises(VendorDataError, match=r"conversation\[0\]\.isComplete"):
        asgard.from_conversation([{**entry("p", 0, "t"), "isComplete": "no"}])
    # numbers JSON cannot hold: a VendorDataError naming the field, not a bare ValueError
    with pytest.raises(VendorDataError, match=r"conversation\[0\]\.parameter"):
        asgard.from_conversation([entry("p", 0, "t", parameter={"q": float("inf")})])
    bad = entry("p", 0, "t", isComplete=True, result={"n": float("nan")})
    with pytest.raises(VendorDataError, match=r"conversation\[0\]\.result"):
        asgard.from_conversation([bad])


def test_round_trip_through_ag_ui_keeps_every_field_the_sdk_stores() -> None:
    back = asgard.to_conversation(asgard.from_conversation(CONVERSATION))
    calls_in = [e for e in CONVERSATION if e["type"] == "tool-call"]
    calls_out = [e for e in back if e["type"] == "tool-call"]
    keys = (
        "messageId",
        "eventType",
        "processId",
        "callSeq",
        "toolName",
        "toolsetName",
        "parameter",
        "isComplete",
        "time",
    )
    for a, b in zip(calls_in, calls_out, strict=True):
        assert {k: b[k] for k in keys} == {k: a[k] for k in keys}
        assert b.get("result") == a.get("result")
        state_in = bool(
            a["isComplete"] and (a.get("isError") or (a.get("result") or {}).get("error"))
        )
        state_out = bool(
            b["isComplete"] and (b.get("isError") or (b.get("result") or {}).get("error"))
        )
        assert state_in == state_out
    assert [e["messageId"] for e in back if e["type"] != "tool-call"] == ["u1", "b1"]


def test_foreign_history_gets_an_sdk_key_and_keeps_its_id_in_tool_use_id() -> None:
    history = [
        AssistantMessage(
            id="msg_1",
            tool_calls=[
                ToolCall(id="toolu_A", function=FunctionCall(name="f", arguments='{"x": 1}')),
                ToolCall(id="toolu_B", function=FunctionCall(name="g", arguments="")),
            ],
        ),
        ToolMessage(id="t1", tool_call_id="toolu_A", content="", error="boom"),
    ]
    out = asgard.to_conversation(history)
    a, b = out
    assert (a["messageId"], a["toolUseId"], a["parameter"]) == ("msg_1-0", "toolu_A", {"x": 1})
    assert a["isComplete"] and a["isError"] and a["result"] == "boom"
    assert not b["isComplete"] and b["parameter"] == {} and "result" not in b
    again = asgard.from_conversation(out, call_ids="tool_use_id")
    assert [c.id for c in again[0].tool_calls or []] == ["toolu_A", "toolu_B"]
    assert again[1].error == "boom"


def test_to_conversation_keeps_the_first_result_and_reports_what_it_drops() -> None:
    # decisions.md: a second result for one call is dropped with a loss and the first is kept;
    # a result whose call is not in the history is dropped with a loss
    history = [
        AssistantMessage(
            id="msg_1",
            tool_calls=[ToolCall(id="toolu_A", function=FunctionCall(name="f", arguments="{}"))],
        ),
        ToolMessage(id="t1", tool_call_id="toolu_A", content='{"n": 1}'),
        ToolMessage(id="t2", tool_call_id="toolu_A", content='{"n": 2}'),
        ToolMessage(id="t3", tool_call_id="toolu_gone", content="orphan"),
    ]
    losses: list[Any] = []
    with pytest.warns(Warning, match="(duplicate|orphan)-result-dropped") as caught:
        out = asgard.to_conversation(history, losses=losses)
    (entry_a,) = out
    assert entry_a["result"] == {"n": 1}
    assert sorted((loss.kind, loss.tool_call_id) for loss in losses) == [
        ("duplicate-result-dropped", "toolu_A"),
        ("orphan-result-dropped", "toolu_gone"),
    ]
    assert len(caught) == 2  # each loss warned once


def test_media_a_conversation_cannot_hold_is_a_loss_naming_its_kind_and_mime_type() -> None:
    # a conversation entry holds text (a user's files go by blobIds, a result is JSON): each
    # dropped part is one loss that says which part it was, like every other adapter's
    from ag_ui.core import DataSource, DocumentPart, ImagePart, TextPart

    png = ImagePart(source=DataSource(value="iVBORw0KGgo=", mime_type="image/png"))
    pdf = DocumentPart(source=DataSource(value="JVBERi0=", mime_type="application/pdf"))
    history = [
        UserMessage(id="u1", content=[TextPart(text="see "), png, TextPart(text="this")]),
        AssistantMessage(
            id="a1",
            tool_calls=[ToolCall(id="toolu_A", function=FunctionCall(name="f", arguments="{}"))],
        ),
        ToolMessage(id="t1", tool_call_id="toolu_A", content=[pdf, TextPart(text='{"n": 1}')]),
    ]
    losses: list[Any] = []
    with pytest.warns(Warning, match="part-dropped|image|document"):
        user, call = asgard.to_conversation(history, losses=losses)
    assert user["text"] == "see this"
    assert call["result"] == {"n": 1}
    assert [(x.kind, x.part_kind, x.mime_type, x.tool_call_id) for x in losses] == [
        ("part-dropped", "image", "image/png", None),
        ("part-dropped", "document", "application/pdf", "toolu_A"),
    ]
