"""Capability lookup (families, fallbacks, backends) and pairing calls with results."""

from __future__ import annotations

import pytest
from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.capabilities import accepts, family, provider_of
from toolwire.errors import UnansweredToolCall, UnsupportedInput
from toolwire.protocol.pairing import pair_history


def test_unknown_models_fall_back_to_their_family_default() -> None:
    assert family("gemini", "gemini-2.5-flash")["name"] == "gemini-2"
    assert family("gemini", "gemini-3-pro-preview")["name"] == "gemini-3"
    assert family("gemini", "gemini-9-ultra")["name"] == "gemini-3"
    assert family("openai_chat", "o3-mini")["name"] == "text-only"
    assert family("openai_chat", "some-future-model")["name"] == "vision"


def test_gemini_2_takes_no_media_in_function_responses_but_3_does() -> None:
    assert accepts("gemini", model="gemini-2.5-flash").rules == ()
    kinds = {r.kind for r in accepts("gemini", model="gemini-3-flash-preview").rules}
    assert kinds == {"image", "document"}


def test_openai_chat_tool_messages_are_text_only_and_user_messages_take_images() -> None:
    assert accepts("openai_chat", model="gpt-4o").rules == ()
    user = accepts("openai_chat", model="gpt-4o", place="user_message")
    assert "image" in {r.kind for r in user.rules}
    assert accepts("openai_chat", model="gpt-3.5-turbo", place="user_message").rules == ()


def test_providers_and_unknown_targets() -> None:
    assert provider_of("gemini") == "google"
    assert provider_of("openai_responses") == "openai"
    with pytest.raises(UnsupportedInput):
        accepts("nobody")


def _call(cid: str) -> ToolCall:
    return ToolCall(id=cid, function=FunctionCall(name="f", arguments="{}"))


def test_pairing_puts_results_in_call_order_under_their_call() -> None:
    history = [
        UserMessage(id="u1", content="hi"),
        AssistantMessage(id="a1", tool_calls=[_call("c1"), _call("c2")]),
        ToolMessage(id="t2", tool_call_id="c2", content="two"),
        UserMessage(id="u2", content="interjection"),
        ToolMessage(id="t1", tool_call_id="c1", content="one"),
        AssistantMessage(id="a2", content="done"),
    ]
    paired = pair_history(history, target="x")
    assert [t.message.id for t in paired.turns] == ["u1", "a1", "u2", "a2"]
    assert [r.id if r else None for r in paired.turns[1].results] == ["t1", "t2"]


def test_an_orphan_result_is_dropped_with_a_loss() -> None:
    paired = pair_history([ToolMessage(id="t9", tool_call_id="nope", content="x")], target="x")
    assert paired.turns == []
    assert paired.losses[0].kind == "orphan-result-dropped"
    assert paired.losses[0].tool_call_id == "nope"


def test_an_unanswered_call_before_the_conversation_continues_is_an_error() -> None:
    history = [
        AssistantMessage(id="a1", tool_calls=[_call("c1"), _call("c2")]),
        ToolMessage(id="t1", tool_call_id="c1", content="one"),
        UserMessage(id="u2", content="next"),
    ]
    with pytest.raises(UnansweredToolCall) as info:
        pair_history(history, target="anthropic")
    assert info.value.tool_call_ids == ["c2"]


def test_calls_pending_at_the_end_of_the_history_are_allowed() -> None:
    history = [
        UserMessage(id="u1", content="hi"),
        AssistantMessage(id="a1", tool_calls=[_call("c1")]),
    ]
    paired = pair_history(history, target="x")
    assert paired.turns[1].unanswered == ["c1"]
    with pytest.raises(UnansweredToolCall):
        pair_history(history, target="x", allow_trailing_unanswered=False)


def test_targets_without_adjacency_rules_may_keep_unanswered_calls() -> None:
    history = [
        AssistantMessage(id="a1", tool_calls=[_call("c1")]),
        UserMessage(id="u2", content="next"),
    ]
    paired = pair_history(history, target="dialogflow", allow_unanswered=True)
    assert paired.turns[0].unanswered == ["c1"]


def test_gemini_file_handles_follow_the_backend() -> None:
    api = accepts("gemini", model="gemini-3-pro-preview", backend="gemini_api")
    vertex = accepts("gemini", model="gemini-3-pro-preview", backend="vertex")
    assert "vertex" in vertex.file_providers and "vertex" not in api.file_providers


def test_a_run_input_that_is_not_one_is_a_toolwire_error_naming_the_field() -> None:
    from toolwire.protocol.inputs import as_run_input

    with pytest.raises(UnsupportedInput, match="messages"):
        as_run_input({"threadId": "t", "runId": "r", "messages": "x"}, "anthropic")
    with pytest.raises(UnsupportedInput, match="got str"):
        as_run_input("nope")
    ok = as_run_input({"threadId": "t", "runId": "r", "messages": []})
    assert as_run_input(ok) is ok


def test_values_json_cannot_hold_are_a_vendor_data_error_not_a_value_error() -> None:
    import math

    from toolwire.errors import VendorDataError
    from toolwire.protocol.arguments import dumps_compact

    assert dumps_compact({"a": [1, "é"]}) == '{"a":[1,"é"]}'
    for bad in ({"a": math.nan}, {"a": math.inf}, {"a": b"x"}):
        with pytest.raises(VendorDataError, match=r"anthropic: content\[0\]\.input"):
            dumps_compact(bad, "anthropic", "content[0].input")
