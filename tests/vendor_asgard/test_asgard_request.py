"""RunAgentInput <-> FetchSsePayload (types/client.ts@bf54342): user text and consent answers."""

from __future__ import annotations

import pytest
from _asgard_shapes import check_request
from ag_ui.core import (
    AssistantMessage,
    DataSource,
    FunctionCall,
    ImagePart,
    ResumeEntry,
    RunAgentInput,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from conftest import POSTS, replay_cassette
from toolwire import ContentLossWarning, PartsDroppedWarning, ToolwireWarning
from toolwire.adapters import asgard
from toolwire.errors import UnsupportedInput


@pytest.mark.parametrize("name", POSTS)
def test_recorded_requests_survive_decode_then_encode(name: str) -> None:
    for ex in replay_cassette(name):
        run_input = asgard.decode_request(ex.request)
        body = asgard.encode_request(run_input, model="any")
        check_request(body)
        assert body == ex.request


def test_consent_reply_from_the_cassette() -> None:
    reply = replay_cassette("consent.yaml")[1].request
    run_input = asgard.decode_request(reply)
    assert run_input.thread_id == reply["customChannelId"]
    assert [(r.interrupt_id, r.status, r.payload) for r in run_input.resume or []] == [
        (c["toolCallId"], "resolved", {"result": c["result"]}) for c in reply["toolCallConsents"]
    ]


def base(**kw: object) -> RunAgentInput:
    fields: dict[str, object] = {"thread_id": "chan", "run_id": "r", "messages": [], "tools": []}
    fields.update(kw)
    return RunAgentInput.model_validate(fields)


def test_resume_maps_to_consents_and_cancel_never_approves() -> None:
    ri = base(
        messages=[UserMessage(id="u1", content="refund")],
        resume=[
            ResumeEntry(interrupt_id="a", status="resolved", payload={"result": "ALLOW_ALWAYS"}),
            ResumeEntry(
                interrupt_id="b",
                status="resolved",
                payload={"result": "DENY_ONCE", "denyReason": "no"},
            ),
            ResumeEntry(interrupt_id="c", status="cancelled", payload={"result": "ALLOW_ONCE"}),
        ],
    )
    body = asgard.encode_request(ri, model="m", already_allowed=["d"])
    check_request(body)
    assert body["action"] == "RESPONSE_TOOL_CALL_CONSENT" and body["text"] == ""
    assert body["customMessageId"] == "u1"
    assert body["toolCallConsents"] == [
        {"toolCallId": "a", "result": "ALLOW_ALWAYS", "denyReason": ""},
        {"toolCallId": "b", "result": "DENY_ONCE", "denyReason": "no"},
        {"toolCallId": "c", "result": "DENY_ONCE", "denyReason": ""},
        {"toolCallId": "d", "result": "ALLOW_ONCE", "denyReason": ""},
    ]
    bad = base(resume=[ResumeEntry(interrupt_id="x", status="resolved", payload={"result": "YES"})])
    with pytest.raises(UnsupportedInput, match="'x'"):
        asgard.encode_request(bad, model="m")


def test_last_user_text_is_sent_and_losses_are_reported() -> None:
    ri = base(
        messages=[
            UserMessage(id="u0", content="old"),
            AssistantMessage(
                id="a",
                tool_calls=[ToolCall(id="c", function=FunctionCall(name="f", arguments="{}"))],
            ),
            UserMessage(
                id="u1",
                content=[
                    TextPart(text="look: "),
                    ImagePart(source=DataSource(value="aGk=", mime_type="image/png")),
                ],
            ),
            ToolMessage(id="t", tool_call_id="c", content="client result"),
        ],
        tools=[Tool(name="f", description="", parameters={})],
    )
    losses: list = []
    with pytest.warns(ToolwireWarning) as caught:
        body = asgard.encode_request(ri, model="m", losses=losses)
    assert {w.category for w in caught} == {PartsDroppedWarning, ContentLossWarning}
    check_request(body)
    assert body == {
        "customChannelId": "chan",
        "customMessageId": "u1",
        "action": "NONE",
        "text": "look: ",
    }
    assert sorted(loss.kind for loss in losses) == [
        "part-dropped",
        "result-dropped",
        "tools-dropped",
    ]


def test_a_run_input_dict_works_like_the_model_and_a_malformed_one_is_named() -> None:
    # DESIGN.md: bad input is a toolwire.errors exception, never a bare AttributeError
    ri = base(messages=[UserMessage(id="u1", content="hi")])
    as_dict = ri.model_dump(mode="json", by_alias=True)
    assert asgard.encode_request(as_dict, model="m") == asgard.encode_request(ri, model="m")
    with pytest.raises(UnsupportedInput, match="messages"):
        asgard.encode_request({"threadId": "t", "runId": "r", "messages": 5}, model="m")
