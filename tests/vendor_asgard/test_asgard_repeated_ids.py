"""A second Asgard start reusing processId/callSeq with another tool (issue 12.7).

Frames are written in the documented envelope (checked by the shape checker); the second
call must not be dropped with its result: it is a call of its own under a minted id,
with the id the pair gives kept in metadata. A restated start of the same tool is still
the one call the SDK keeps.
"""

from __future__ import annotations

from test_asgard_decode import DONE, INIT, call, fr, run

from toolwire.protocol import VENDOR_ID_KEY


def test_another_tool_under_a_used_pair_is_its_own_call_with_its_result() -> None:
    ev = run(
        [
            INIT,
            fr("asgard.tool_call.start", call("p", 0, "lookup", {"o": 1})),
            fr("asgard.tool_call.start", call("p", 0, "refund", {"o": 1})),
            fr("asgard.tool_call.complete", call("p", 0, "lookup", {}, toolCallResult="found")),
            fr("asgard.tool_call.complete", call("p", 0, "refund", {}, toolCallResult="done")),
            DONE,
        ]
    )
    starts = [e for e in ev if e["type"] == "TOOL_CALL_START"]
    assert [s["toolCallName"] for s in starts] == ["lookup", "refund"]
    assert starts[0]["toolCallId"] == "p-0" and starts[1]["toolCallId"] != "p-0"
    assert starts[1]["metadata"][VENDOR_ID_KEY] == {"vendor": "asgard", "id": "p-0"}
    results = {e["toolCallId"]: e["content"] for e in ev if e["type"] == "TOOL_CALL_RESULT"}
    assert results == {"p-0": "found", starts[1]["toolCallId"]: "done"}


def test_a_restated_start_of_the_same_tool_is_still_one_call() -> None:
    ev = run(
        [
            INIT,
            fr("asgard.tool_call.start", call("p", 0, "lookup", {"o": 1})),
            fr("asgard.tool_call.start", call("p", 0, "lookup", {"o": 1})),
            fr("asgard.tool_call.complete", call("p", 0, "lookup", {}, toolCallResult="found")),
            DONE,
        ]
    )
    assert [e["toolCallId"] for e in ev if e["type"] == "TOOL_CALL_START"] == ["p-0"]
