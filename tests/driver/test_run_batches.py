"""``AsyncRunEvents.batches()``: the run's events a list at a time (a body piece's, read in
one step), what the server writes together. Flattened, the lists are exactly the events
iterated one by one, for bodies cut anywhere, a chunk that fails mid-piece (the events of
the chunks before it still come, then the same ``RUN_ERROR``) and a body cut short; a
piece's events come as one list, not one each."""

from __future__ import annotations

import asyncio
from itertools import pairwise
from typing import Any

import pytest
from _agent_support import agent_input, turn
from _driver_support import CASES
from benchmarks.served import KEY, in_memory_provider, run_input
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire
from toolwire import adapters
from toolwire.driver import _runner, arun
from toolwire.testing.fake_vendor import FakeVendor

VENDORS = ["anthropic", "openai_chat", "openai_responses", "mistral", "cohere"]


async def _read(vendor: str, split: list[bytes], lists: bool) -> list[list[dict[str, Any]]]:
    provider = in_memory_provider(vendor, split, adapters.get(vendor).FRAMING.media_type)
    client = await provider._sdk_client(KEY)
    got: list[list[dict[str, Any]]] = []
    try:
        run = arun(client, run_input(), model=provider.model, vendor=vendor, forward_losses=True)
        async with run:
            if lists:
                async for batch in run.batches():
                    assert isinstance(batch, list) and batch
                    got.append([e.model_dump(mode="json") for e in batch])
            else:
                async for event in run:
                    got.append([event.model_dump(mode="json")])
    finally:
        await provider.client.aclose(client)
    return got


def _both(vendor: str, split: list[bytes]) -> tuple[list[Any], list[list[Any]]]:
    one = asyncio.run(_read(vendor, split, lists=False))
    many = asyncio.run(_read(vendor, split, lists=True))
    return [e for (e,) in one], many


def _body(vendor: str, shape: str, n: int) -> bytes:
    from benchmarks.suite import VENDORS as BENCH

    body = BENCH[vendor].build(shape, n)
    assert isinstance(body, bytes)
    return body


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_piece_s_events_come_as_one_list(vendor: str) -> None:
    body = _body(vendor, "tool", 120)
    one, many = _both(vendor, [body])
    assert [e for batch in many for e in batch] == one
    assert one[-1]["type"] == "RUN_FINISHED"
    # the body came in one piece: its events in a few lists (a step gathers at most
    # PIECE_EVENTS), not one list each
    assert len(many) <= 3 + len(one) // _runner.PIECE_EVENTS
    assert max(map(len, many)) > 1


@settings(max_examples=10, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("vendor", VENDORS)
def test_the_lists_are_the_events_one_by_one_for_any_cut(vendor: str, data: st.DataObject) -> None:
    body = _body(vendor, data.draw(st.sampled_from(["tool", "text", "parallel"])), 30)
    how = data.draw(st.sampled_from(["whole", "bad chunk", "cut short"]))
    if how == "bad chunk":  # a chunk that is not JSON, between two events mid-body
        ends = [i + 1 for i in range(len(body)) if body[i : i + 1] == b"\n"]
        at = ends[data.draw(st.integers(1, len(ends) // 2))]  # before the end marker
        body = body[:at] + b"data: {not json\n\n" + body[at:]
    elif how == "cut short":
        body = body[: data.draw(st.integers(2, len(body) - 1))]
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(body) - 1), max_size=6))))
    points = [0, *cuts, len(body)]
    split = [body[a:b] for a, b in pairwise(points) if b > a]
    one, many = _both(vendor, split)
    assert [e for batch in many for e in batch] == one
    if how == "whole":
        assert one[-1]["type"] == "RUN_FINISHED"
    if how == "bad chunk":
        assert one[-1]["type"] == "RUN_ERROR"


#: a chunk of valid JSON that the decoder refuses (a delta for a block never opened, a call
#: fragment with no name): the failure is the decoder's, mid-piece, after events were read
_REFUSED = {
    "anthropic": b'event: content_block_delta\ndata: {"type":"content_block_delta","index":9,'
    b'"delta":{"type":"text_delta","text":"x"}}\n\n',
    "openai_chat": b'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{"tool_calls":[{"index":5,"function":{"arguments":"{"}}]}}]}'
    b"\n\n",
}


@pytest.mark.parametrize("vendor", sorted(_REFUSED))
def test_a_chunk_failing_mid_piece_comes_after_the_events_before_it(vendor: str) -> None:
    body = _body(vendor, "text", 40)
    cut = body.index(b"\n\n", len(body) // 2) + 2  # between two events, mid-body
    bad = body[:cut] + _REFUSED[vendor] + body[cut:]
    one, many = _both(vendor, [bad])  # one piece: the failure is inside it
    assert [e for batch in many for e in batch] == one
    assert one[-1]["type"] == "RUN_ERROR" and one[-1]["code"] == "VendorDataError"
    assert len(one) >= 12  # the chunks before the refused one were read and sent
    # in a list of their own, before the error's
    assert len(many[-2]) >= 10 and [e["type"] for e in many[-1]] == ["RUN_ERROR"]


async def test_a_run_with_backend_tools_gives_its_events_in_lists_of_one() -> None:
    """A run that loops over turns (``tools=``) has no piece to read in one step: its
    ``batches()`` are its events, a list of one each, the same as iterated."""
    case = next(c for c in CASES if c.vendor == "anthropic")

    def get_time(city: str) -> str:
        """The time in a city."""
        return f"noon in {city}"

    script = [
        turn("anthropic", [("call_1", "get_time", {"city": "Oslo"})]),
        turn("anthropic", text="done", message_id="msg_2"),
    ]
    got: dict[str, list[list[str]]] = {}
    for how in ("events", "lists"):
        with FakeVendor(list(script)) as fv:
            client = case.client(fv.base_url, True)
            run = toolwire.arun(client, agent_input(), model=case.model, tools=[get_time])
            async with run:
                if how == "lists":
                    got[how] = [[e.type.value for e in batch] async for batch in run.batches()]
                else:
                    got[how] = [[e.type.value] async for e in run]
    assert got["lists"] == got["events"]
    assert "TOOL_CALL_RESULT" in [t for (t,) in got["events"]]
    assert got["events"][-1] == ["RUN_FINISHED"]
