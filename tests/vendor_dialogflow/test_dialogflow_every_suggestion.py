"""Every suggestion kind the Dialogflow SDK declares: an event, an error, or a loss (issue 36).

A ``GeneratorSuggestion`` and a ``SuggestionResult`` hold one of several kinds of Agent
Assist output; the decoder reads tool calls, free-form text and errors, and announces the
others (summaries, coaching, articles, FAQ answers, smart replies, knowledge assist) instead
of dropping them silently. Each sample is parsed by the SDK's ``from_json`` first. Dialogflow
has no start event carrying content: each response is whole.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.cloud.dialogflow_v2.types import generator, participant
from losses_seen import content_losses

from toolwire.adapters.dialogflow import Decoder
from toolwire.errors import VendorStreamError
from toolwire.losses import ContentLossWarning

TOOL_CALL_INFO = [
    {
        "toolCall": {
            "tool": "projects/p/locations/global/tools/t",
            "action": "lookup",
            "inputParameters": {"q": "x"},
            "createTime": "2026-01-01T00:00:00Z",
        },
        "toolCallResult": {
            "tool": "projects/p/locations/global/tools/t",
            "action": "lookup",
            "content": "found",
            "createTime": "2026-01-01T00:00:01Z",
        },
    }
]
GENERATOR: dict[str, dict[str, Any]] = {
    "free_form_suggestion": {"freeFormSuggestion": {"response": "Try restarting."}},
    "summary_suggestion": {
        "summarySuggestion": {"summarySections": [{"section": "issue", "summary": "x"}]}
    },
    "agent_coaching_suggestion": {
        "agentCoachingSuggestion": {"applicableInstructions": [{"displayName": "greet"}]}
    },
    "tool_call_info": {"toolCallInfo": TOOL_CALL_INFO},
}
RESULT: dict[str, dict[str, Any]] = {
    "error": {"error": {"code": 13, "message": "internal"}},
    "suggest_articles_response": {
        "suggestArticlesResponse": {"articleAnswers": [{"title": "t", "uri": "u"}]}
    },
    "suggest_knowledge_assist_response": {
        "suggestKnowledgeAssistResponse": {"knowledgeAssistAnswer": {"answerRecord": "r"}}
    },
    "suggest_faq_answers_response": {
        "suggestFaqAnswersResponse": {"faqAnswers": [{"answer": "a"}]}
    },
    "suggest_smart_replies_response": {
        "suggestSmartRepliesResponse": {"smartReplyAnswers": [{"reply": "r"}]}
    },
    "generate_suggestions_response": {
        "generateSuggestionsResponse": {
            "generatorSuggestionAnswers": [
                {"generatorSuggestion": {"toolCallInfo": TOOL_CALL_INFO}, "answerRecord": "a"}
            ]
        }
    },
    "generate_companion_suggestions_response": {
        "generateCompanionSuggestionsResponse": {
            "answerRecord": "a",
            "companionSuggestion": {
                "guidances": [{"toolCalls": [{"toolCallInfo": TOOL_CALL_INFO[0]}]}]
            },
        }
    },
}


def test_every_declared_kind_is_sampled() -> None:
    assert set(generator.GeneratorSuggestion.meta.fields) == set(GENERATOR)
    assert set(participant.SuggestionResult.meta.fields) == set(RESULT)


def _decode(chunk: dict[str, Any]) -> tuple[list[Any], Decoder, list[Any], Exception | None]:
    d = Decoder()
    events: list[Any] = []
    failed: Exception | None = None
    with content_losses() as lost:
        try:
            events = d.feed(chunk) + d.close()
        except VendorStreamError as exc:
            failed = exc
    return events, d, lost, failed


@pytest.mark.parametrize("name", sorted(GENERATOR))
def test_every_generator_suggestion_kind_gives_an_event_or_a_loss(name: str) -> None:
    sample = GENERATOR[name]
    generator.GeneratorSuggestion.from_json(json.dumps(sample))  # the SDK's shape
    events, d, lost, _ = _decode({"generatorSuggestion": sample})
    assert events or (d.losses and lost), f"{name} vanished without a word"


@pytest.mark.parametrize("name", sorted(RESULT))
def test_every_suggestion_result_kind_gives_an_event_an_error_or_a_loss(name: str) -> None:
    sample = RESULT[name]
    participant.SuggestionResult.from_json(json.dumps(sample))  # the SDK's shape
    chunk = {"humanAgentSuggestionResults": [sample]}
    events, d, lost, failed = _decode(chunk)
    assert events or failed or (d.losses and lost), f"{name} vanished without a word"


def test_a_summary_is_announced_by_name() -> None:
    d = Decoder()
    with pytest.warns(ContentLossWarning, match="summarySuggestion"):
        d.feed({"generatorSuggestion": GENERATOR["summary_suggestion"]})
    assert [loss.kind for loss in d.losses] == ["suggestion-dropped"]
