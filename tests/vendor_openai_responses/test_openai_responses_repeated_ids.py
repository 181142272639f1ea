"""Two ``function_call`` items with one ``call_id`` (issue 12.7): two calls, never merged.

The stream is hand-built to the documented event shape and parsed by the openai SDK
first; the decoder must keep two calls apart (the repeat under a minted id, the vendor's
id in metadata), and so must ``decode_request``; the encoders never send one id twice.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from _openai_responses_support import response, sdk_accepts, sdk_events, sse
from ag_ui.core import AssistantMessage, ToolMessage
from vendor_rules import check_request

from toolwire.adapters import openai_responses as a
from toolwire.protocol import VENDOR_ID_KEY, StreamMachine, frame_run

SAME = "call_SameIdTwice0001"


#: this stream's own response id and time
_RESPONSE = {"id": "resp_dup", "created_at": 1764400000}


def _item(n: int, city: str, done: bool) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_dup_{n}",
        "call_id": SAME,
        "name": "get_weather",
        "arguments": json.dumps({"city": city}) if done else "",
        "status": "completed" if done else "in_progress",
    }


EVENTS: list[dict[str, Any]] = [
    {"type": "response.created", "response": response("in_progress", [], **_RESPONSE)},
]
for n, city in enumerate(("Oslo", "Bergen")):
    EVENTS += [
        {"type": "response.output_item.added", "output_index": n, "item": _item(n, city, False)},
        {
            "type": "response.function_call_arguments.delta",
            "item_id": f"fc_dup_{n}",
            "output_index": n,
            "delta": json.dumps({"city": city}),
        },
        {"type": "response.output_item.done", "output_index": n, "item": _item(n, city, True)},
    ]
EVENTS.append(
    {
        "type": "response.completed",
        "response": response(
            "completed", [_item(0, "Oslo", True), _item(1, "Bergen", True)], **_RESPONSE
        ),
    }
)
BODY = sse(EVENTS)


def test_the_sdk_reads_two_items_with_one_call_id() -> None:
    done = [e.item for e in sdk_events(BODY) if e.type == "response.output_item.done"]
    assert [i.call_id for i in done] == [SAME, SAME]


def test_two_function_call_items_with_one_call_id_are_two_calls() -> None:
    machine = StreamMachine()
    events = list(
        frame_run(a.Decoder(), a.sse_chunks(BODY), thread_id="t", run_id="r", machine=machine)
    )
    starts = [e for e in events if e.type == "TOOL_CALL_START"]
    assert starts[0].tool_call_id == SAME and starts[1].tool_call_id != SAME
    assert starts[1].metadata[VENDOR_ID_KEY] == {"vendor": "openai_responses", "id": SAME}
    (message,) = [m for m in machine.messages if isinstance(m, AssistantMessage)]
    args = [json.loads(c.function.arguments) for c in message.tool_calls or []]
    assert args == [{"city": "Oslo"}, {"city": "Bergen"}]


def test_a_request_with_a_repeated_call_id_decodes_apart_and_encodes_back_unique() -> None:
    body = {
        "model": "gpt-5",
        "input": [
            {"role": "user", "content": "Weather?"},
            _item(0, "Oslo", True),
            _item(1, "Bergen", True),
            {"type": "function_call_output", "call_id": SAME, "output": "sun"},
            {"type": "function_call_output", "call_id": SAME, "output": "rain"},
        ],
    }
    ri = a.decode_request(body)
    (message,) = [m for m in ri.messages if isinstance(m, AssistantMessage)]
    first, second = message.tool_calls or []
    assert first.id == SAME and second.id != SAME
    answers = {m.tool_call_id: m.content for m in ri.messages if isinstance(m, ToolMessage)}
    assert answers == {first.id: "sun", second.id: "rain"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = a.encode_request(ri, model="gpt-5")
    sdk_accepts(again)
    assert len(check_request("openai_responses", again)) == 2
