"""Two Gemini ``functionCall`` parts with one ``id`` (issue 12.7): two calls, never merged.

The chunk is the documented response shape, parsed by google-genai first; the decoder
keeps the two calls apart (the repeat under a minted id, the vendor's id in metadata),
and a request for Gemini never carries one id twice.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from ag_ui.core import AssistantMessage, RunAgentInput, ToolMessage
from google.genai import types
from vendor_rules import check_request

from toolwire.adapters import gemini
from toolwire.protocol import VENDOR_ID_KEY, StreamMachine, frame_run

SAME = "fc_same_1"
CHUNK: dict[str, Any] = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"functionCall": {"id": SAME, "name": "get_weather", "args": {"city": "Oslo"}}},
                    {"functionCall": {"id": SAME, "name": "get_weather", "args": {"city": "Rome"}}},
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "responseId": "resp-dup",
    "modelVersion": "gemini-3-pro-preview",
}


def test_two_function_calls_with_one_id_are_two_calls() -> None:
    sdk = types.GenerateContentResponse.model_validate(CHUNK)
    assert [p.function_call.id for p in sdk.candidates[0].content.parts] == [SAME, SAME]
    machine = StreamMachine()
    events = list(frame_run(gemini.Decoder(), [sdk], thread_id="t", run_id="r", machine=machine))
    starts = [e for e in events if e.type == "TOOL_CALL_START"]
    assert starts[0].tool_call_id == SAME and starts[1].tool_call_id != SAME
    assert starts[1].metadata[VENDOR_ID_KEY] == {"vendor": "gemini", "id": SAME}
    (message,) = [m for m in machine.messages if isinstance(m, AssistantMessage)]
    calls = message.tool_calls or []
    assert [json.loads(c.function.arguments) for c in calls] == [{"city": "Oslo"}, {"city": "Rome"}]
    answers = [
        ToolMessage(id=f"r{n}", tool_call_id=c.id, content="ok") for n, c in enumerate(calls)
    ]
    ri = RunAgentInput(
        thread_id="t",
        run_id="r2",
        messages=[message, *answers],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = gemini.encode_request(ri, model="gemini-3-pro-preview")
    assert len(check_request("gemini", body)) == 2  # unique ids, answered in order
