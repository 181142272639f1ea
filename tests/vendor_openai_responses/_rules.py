"""The Responses API's request rules as the cross-vendor tests check them
(``tests/cross/vendor_rules`` loads this file): written from the API's own validation messages,
never read from toolwire.

* a ``call_id`` is at most 64 characters ("Invalid 'input[i].call_id': string too long.
  Expected ... maximum length 64");
* every ``*_output`` item answers a ``*_call`` item made before it; ids unique.
"""

from __future__ import annotations

from typing import Any

from rule_kit import check_id, unique

MODEL = "gpt-5"
#: the capability family row (``adapters/openai_responses/capabilities.json``) that covers ``MODEL``
FAMILY = "default"
#: where the body holds the conversation
CONVERSATION = "input"
ID_RULE: tuple[int | None, str | None] = (64, None)


def _check_id(call_id: Any) -> None:
    check_id("openai_responses", ID_RULE, call_id)


def _unique(ids: list[str]) -> None:
    unique("openai_responses", ids)


def check(body: dict[str, Any]) -> list[str]:
    items = body["input"]
    calls = [
        (i, it["call_id"])
        for i, it in enumerate(items)
        if str(it.get("type")).endswith("_call") and "call_id" in it
    ]
    made = {cid for _, cid in calls}
    for it in items:
        if str(it.get("type")).endswith("_output") and "call_id" in it:
            assert it["call_id"] in made, f"output {it['call_id']} answers nothing"
    for at, cid in calls:
        _check_id(cid)
        outputs = [
            i
            for i, it in enumerate(items)
            if str(it.get("type")).endswith("_output") and it.get("call_id") == cid
        ]
        assert outputs and outputs[0] > at, f"{cid} is answered after it is made"
    answered = [cid for _, cid in calls]
    _unique(answered)
    return answered


def stream_ids(chunks: list[dict[str, Any]]) -> list[str]:
    """The call ids of a stream's events (a ``function_call`` item's ``call_id`` when added)."""
    out: list[str] = []
    for c in chunks:
        item = c.get("item") if c.get("type") == "response.output_item.added" else None
        if item and item.get("type") == "function_call":
            out.append(item["call_id"])
    return out


#: the smallest reply the SDK parses (the request is what is checked)
_REPLY = {
    "id": "resp_x",
    "object": "response",
    "created_at": 1,
    "status": "completed",
    "output": [],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
}


def _client(http_client: Any) -> Any:
    import openai

    return openai.OpenAI(api_key="test-key", max_retries=0, http_client=http_client)


def sdk_accepts(body: dict[str, Any]) -> None:
    """The openai SDK's param types take the body unchanged, and its client sends it so."""
    from openai.types.responses.response_input_param import ResponseInputParam
    from openai.types.responses.tool_param import ToolParam
    from pydantic import TypeAdapter
    from sdk_judge import same, sends_unchanged

    same(TypeAdapter(ResponseInputParam), body["input"])
    same(TypeAdapter(list[ToolParam]), body.get("tools", []))
    sends_unchanged(_client, "responses.create", body, {**_REPLY, "model": body["model"]})
