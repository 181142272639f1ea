"""A second Dialogflow call sharing an answer record (issue 12.7): its own call, its result kept.

The ``ToolCallInfo`` objects are the documented JSON shape, parsed by google-cloud-
dialogflow first; the second call (another tool under the same ``answerRecord``) must not
be dropped with its result: it gets a minted id, the record stays in its metadata.
"""

from __future__ import annotations

import json

from ag_ui.core import EventType
from google.cloud import dialogflow_v2 as df

from toolwire.adapters import dialogflow
from toolwire.protocol import VENDOR_ID_KEY, frame_run, validate_stream

RECORD = "projects/p/locations/global/answerRecords/shared-1"
INFOS = [
    {
        "toolCall": {"action": "lookup_order", "answerRecord": RECORD, "inputParameters": {"o": 1}},
        "toolCallResult": {"action": "lookup_order", "answerRecord": RECORD, "content": "shipped"},
    },
    {
        "toolCall": {"action": "refund", "answerRecord": RECORD, "inputParameters": {"o": 1}},
        "toolCallResult": {"action": "refund", "answerRecord": RECORD, "content": "refunded"},
    },
]


def test_the_sdk_reads_both_calls_under_one_record() -> None:
    parsed = [df.GeneratorSuggestion.ToolCallInfo.from_json(json.dumps(i)) for i in INFOS]
    assert [p.tool_call.answer_record for p in parsed] == [RECORD, RECORD]
    assert [p.tool_call.action for p in parsed] == ["lookup_order", "refund"]


def test_a_second_call_under_one_answer_record_is_kept_with_its_result() -> None:
    events = list(
        frame_run(dialogflow.Decoder(), [{"toolCallInfo": INFOS}], thread_id="t", run_id="r")
    )
    validate_stream(events)  # ids unique, every result answers a started call
    starts = [e for e in events if e.type is EventType.TOOL_CALL_START]
    results = {e.tool_call_id: e.content for e in events if e.type is EventType.TOOL_CALL_RESULT}
    assert [s.tool_call_name for s in starts] == ["lookup_order", "refund"]
    first, second = (s.tool_call_id for s in starts)
    assert first == RECORD and second != RECORD
    assert starts[1].metadata[VENDOR_ID_KEY] == {"vendor": "dialogflow", "id": RECORD}
    assert starts[1].metadata["dialogflow"]["answerRecord"] == RECORD
    assert results == {first: "shipped", second: "refunded"}


def test_a_call_restated_under_its_record_is_still_one_call() -> None:
    restated = [INFOS[0]["toolCall"], {**INFOS[0]["toolCall"], "state": "TRIGGERED"}]
    events = list(dialogflow.decode_stream([{"toolCallInfo": [{"toolCall": c} for c in restated]}]))
    assert [e.tool_call_id for e in events if e.type is EventType.TOOL_CALL_START] == [RECORD]
