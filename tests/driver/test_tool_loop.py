"""The whole frontend-tool loop of docs/guide/runs.md, per vendor: run 1 ends with the calls
pending; the UI answers each with a ToolMessage of text + an image; run 2 sends them to
the vendor fitted to what it takes (Chat Completions drops the image, with a loss)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from _driver_support import CASE_IDS, CASES, Case, check_run, clean_reply, run_input
from ag_ui.core import EventType, ImagePart, ToolMessage

import toolwire
from toolwire import adapters
from toolwire.capabilities import accepts
from toolwire.protocol import StreamMachine
from toolwire.testing.fake_vendor import FakeVendor

PNG = (  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJ"
    "RU5ErkJggg=="
)


def _answer(call_id: str) -> ToolMessage:
    return ToolMessage.model_validate(
        {
            "id": f"result-{call_id}",
            "role": "tool",
            "toolCallId": call_id,
            "content": [
                {"type": "text", "text": f"Sunny, 21 C ({call_id})"},
                {
                    "type": "image",
                    "source": {"type": "data", "value": PNG, "mimeType": "image/png"},
                },
            ],
        }
    )


def _results_sent(case: Case, body: dict[str, Any]) -> dict[str, str]:
    """Each tool result of the request, by call id, as JSON text: the request read back
    by the adapter's own ``decode_request`` (what the vendor will see)."""
    given = adapters.get(case.vendor).decode_request(body)
    return {
        m.tool_call_id: m.model_dump_json(by_alias=True, exclude_none=True)
        for m in given.messages
        if m.role == "tool"
    }


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_run_one_leaves_calls_pending_and_run_two_sends_the_answers(
    case: Case, tmp_path: Path
) -> None:
    with FakeVendor([clean_reply(case), clean_reply(case)]) as fv:
        client = case.client(fv.base_url, False)
        first = run_input(case)

        # run 1: the UI sees the calls; nothing answers them but the UI
        history = StreamMachine()  # what a UI keeps: the conversation so far
        run1 = []
        for ev in toolwire.run(client, first, model=case.model, **case.kwargs):
            history.feed(ev)
            run1.append(ev)
        pending = run1[-1].outcome.pending_tool_call_ids
        assert pending

        # run 2: the same thread, with the UI's answers
        second = {
            **first,
            "runId": "run-2",
            "messages": [*history.messages, *(_answer(c) for c in pending)],
        }
        lost: list[Any] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run2 = list(toolwire.run(client, second, model=case.model, losses=lost, **case.kwargs))
    check_run(run1, tmp_path)
    check_run(run2, tmp_path)
    assert run2[-1].type == EventType.RUN_FINISHED
    sent = _results_sent(case, json.loads(fv.requests[1].body))
    assert sorted(sent) == sorted(pending)  # every call answered, each once
    # whether the vendor takes an image in a tool result (a Chat tool message holds text
    # only), as toolwire's documented capabilities say
    image = ImagePart.model_validate(
        {"type": "image", "source": {"type": "data", "value": PNG, "mimeType": "image/png"}}
    )
    native = accepts(case.vendor, model=case.model).why_not(image) is None
    for call_id, text in sent.items():
        assert f"Sunny, 21 C ({call_id})" in text
        assert (PNG in text) == native
    if not native:
        assert sorted(x.tool_call_id for x in lost) == sorted(pending)
        assert {x.part_kind for x in lost} == {"image"}
    else:
        assert lost == []
