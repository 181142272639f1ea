"""``toolwire.run``/``arun`` with ``tools=``: backend tools executed inside one AG-UI run.

Every vendor turn is scripted (AG-UI events said in the vendor's words) and served by
FakeVendor to the vendor's real SDK client; what the loop sent back is read from the
requests the fake vendor received.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pydantic
import pytest
from _agent_support import PNG, PNG_B64, agent_input, hanging_tool, requests_json, turn
from _driver_support import CASE_IDS, CASES, Case, check_run, vendor_call_id
from ag_ui.core import EventType, ImagePart, TextPart

import toolwire
from toolwire.capabilities import accepts
from toolwire.errors import UnsupportedInput
from toolwire.protocol import RESULT_ERROR_KEY, validate_stream
from toolwire.testing.fake_vendor import FakeVendor

ANTHROPIC = next(c for c in CASES if c.vendor == "anthropic")


def get_weather(city: str) -> list[Any]:
    """The weather in a city, with a picture of the sky.

    Args:
        city: the city's name
    """
    return [f"Sunny in {city}, 21 C", toolwire.media_part(PNG, "image/png")]


def _types(events: list[Any]) -> list[str]:
    return [e.type.value for e in events]


def _results(events: list[Any]) -> list[Any]:
    return [e for e in events if e.type == EventType.TOOL_CALL_RESULT]


def _run(case: Case, fv: FakeVendor, run_input: dict[str, Any], **kw: Any) -> list[Any]:
    client = case.client(fv.base_url, False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(toolwire.run(client, run_input, model=case.model, **case.kwargs, **kw))


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_backend_call_is_run_and_answered_inside_one_run(case: Case, tmp_path: Path) -> None:
    v = case.vendor
    # the ids as the vendor itself gives them (Mistral's are nine letters and digits)
    weather, confirm = vendor_call_id(case, "call_w"), vendor_call_id(case, "call_c")
    script = [
        turn(v, [(weather, "get_weather", {"city": "Oslo"})], message_id="msg_1"),
        turn(
            v,
            [(confirm, "confirm_booking", {"hotel": "Grand"})],
            text="Shall I?",
            message_id="msg_2",
        ),
    ]
    with FakeVendor(script) as fv:
        events = _run(case, fv, agent_input(), tools=[get_weather])
    check_run(events, tmp_path)
    assert _types(events).count("RUN_STARTED") == 1
    (result,) = _results(events)
    assert result.tool_call_id == weather
    assert result.message_id not in {
        e.message_id for e in events if hasattr(e, "message_id") and e is not result
    }
    assert [p.type for p in result.content] == ["text", "image"]
    assert result.content[0].text == "Sunny in Oslo, 21 C"
    assert result.content[1].source.value == PNG_B64
    end = events[-1]
    assert end.type == EventType.RUN_FINISHED
    assert end.outcome.pending_tool_call_ids == [confirm]  # the frontend call only
    # usage: both turns' counts summed (each turn said 10 in, 5 out)
    assert sum(u.input_tokens or 0 for u in end.usage) == 20
    assert sum(u.output_tokens or 0 for u in end.usage) == 10
    assert end.metadata["toolwire.finishReason"] == "tool_calls"
    # both tools advertised; the second request carries the result, the image as the
    # target's capabilities say
    first, second = requests_json(fv)
    assert "get_weather" in json.dumps(first) and "confirm_booking" in json.dumps(first)
    assert "Sunny in Oslo, 21 C" in json.dumps(second)
    image = ImagePart.model_validate(
        {"type": "image", "source": {"type": "data", "value": PNG_B64, "mimeType": "image/png"}}
    )
    native = accepts(v, model=case.model).why_not(image) is None
    assert (PNG_B64 in json.dumps(second)) == native


class Unit(pydantic.BaseModel):
    name: str


def test_the_schema_comes_from_the_hints_and_the_docstring() -> None:
    def book(hotel: str, nights: int = 1, unit: Unit | None = None) -> str:
        """Book a hotel room.

        More words that are not the summary.

        Args:
            hotel: which hotel
            nights: how many nights,
                at least one
        """
        return "ok"

    tool = toolwire.Tool.from_function(book)
    assert tool.name == "book"
    assert tool.description == "Book a hotel room."
    props = tool.parameters["properties"]
    assert props["hotel"] == {"type": "string", "description": "which hotel"}
    assert props["nights"]["type"] == "integer" and props["nights"]["default"] == 1
    assert props["nights"]["description"] == "how many nights, at least one"
    assert tool.parameters["required"] == ["hotel"]
    assert "title" not in tool.parameters
    args, kwargs = tool.call_arguments({"hotel": "Grand", "nights": "2"})
    assert args == [] and kwargs["nights"] == 2
    with pytest.raises(ValueError, match="nights"):
        tool.call_arguments({"hotel": "Grand", "nights": "many"})


def test_what_a_tool_returns_becomes_content(tmp_path: Path) -> None:
    from toolwire.driver._tools import tool_content

    @dataclasses.dataclass
    class Room:
        number: int
        view: str

    class Price(pydantic.BaseModel):
        amount: float
        currency: str

    image = toolwire.media_part(PNG, "image/png")
    assert tool_content("plain") == "plain"
    assert tool_content({"a": [1, 2]}) == '{"a":[1,2]}'
    assert tool_content(Room(3, "sea")) == '{"number":3,"view":"sea"}'
    assert tool_content(Price(amount=9.5, currency="EUR")) == '{"amount":9.5,"currency":"EUR"}'
    assert tool_content(None) == "null"
    assert tool_content(image) == [image]
    parts = tool_content(["a caption", image])
    assert isinstance(parts, list) and isinstance(parts[0], TextPart) and parts[1] is image
    with pytest.raises(TypeError, match="media_part"):
        tool_content(b"raw")
    path = tmp_path / "doc.pdf"
    path.write_bytes(b"%PDF-1.4 tiny")
    doc = toolwire.file_part(path)
    assert doc.type == "document" and doc.source.mime_type == "application/pdf"
    with pytest.raises(UnsupportedInput, match="MIME"):
        toolwire.file_part(tmp_path / "no-suffix")


def test_a_tool_that_raises_is_answered_with_an_error_and_the_run_goes_on() -> None:
    def get_weather(city: str) -> str:
        raise LookupError(f"no station in {city}")

    v = "anthropic"
    script = [
        turn(v, [("call_w", "get_weather", {"city": "Atlantis"})]),
        turn(v, text="I could not find it.", message_id="msg_2"),
    ]
    with FakeVendor(script) as fv:
        events = _run(ANTHROPIC, fv, agent_input(), tools=[get_weather])
    (result,) = _results(events)
    assert result.content == "get_weather failed: LookupError: no station in Atlantis"
    assert result.metadata[RESULT_ERROR_KEY] == result.content
    assert "Traceback" not in result.content
    assert events[-1].type == EventType.RUN_FINISHED
    assert len(fv.requests) == 2
    sent = requests_json(fv)[1]["messages"][-1]["content"][0]
    assert sent["type"] == "tool_result" and sent["is_error"] is True


def test_a_traceback_is_sent_only_when_asked() -> None:
    def get_weather(city: str) -> str:
        raise LookupError("down")

    v = "anthropic"
    script = [turn(v, [("call_w", "get_weather", {"city": "Oslo"})]), turn(v, text="ok")]
    with FakeVendor(script) as fv:
        events = _run(ANTHROPIC, fv, agent_input(), tools=[get_weather], tool_tracebacks=True)
    (result,) = _results(events)
    assert "Traceback (most recent call last)" in result.content
    assert "LookupError: down" in result.content


def test_bad_arguments_and_an_unknown_tool_are_told_to_the_model() -> None:
    v = "anthropic"
    script = [
        turn(v, [("call_1", "get_weather", {"town": "Oslo"}), ("call_2", "teleport", {})]),
        turn(v, text="Sorry."),
    ]
    with FakeVendor(script) as fv:
        events = _run(ANTHROPIC, fv, agent_input(), tools=[get_weather])
    bad, unknown = _results(events)
    assert "invalid arguments" in bad.content and "city" in bad.content
    assert "teleport" in unknown.content and unknown.metadata[RESULT_ERROR_KEY]
    assert events[-1].outcome.pending_tool_call_ids is None


def test_a_sync_tool_that_times_out_is_answered_with_an_error() -> None:
    release = threading.Event()

    def get_weather(city: str) -> str:
        release.wait(5)
        return "late"

    v = "anthropic"
    script = [turn(v, [("call_w", "get_weather", {"city": "Oslo"})]), turn(v, text="ok")]
    try:
        with FakeVendor(script) as fv:
            started = time.monotonic()
            events = _run(ANTHROPIC, fv, agent_input(), tools=[get_weather], tool_timeout=0.2)
            took = time.monotonic() - started
    finally:
        release.set()
    (result,) = _results(events)
    assert result.content == "get_weather timed out after 0.2 s"
    assert took < 4
    assert events[-1].type == EventType.RUN_FINISHED


async def test_an_async_tool_that_times_out_is_cancelled_and_answered() -> None:
    cancelled = asyncio.Event()
    get_weather = hanging_tool(asyncio.Event(), cancelled)

    v = "anthropic"
    script = [turn(v, [("call_w", "get_weather", {"city": "Oslo"})]), turn(v, text="ok")]
    with FakeVendor(script) as fv:
        client = ANTHROPIC.client(fv.base_url, True)
        run = toolwire.arun(
            client, agent_input(), model=ANTHROPIC.model, tools=[get_weather], tool_timeout=0.2
        )
        events = [e async for e in run]
    (result,) = _results(events)
    assert result.content == "get_weather timed out after 0.2 s"
    assert cancelled.is_set()


def test_max_steps_ends_the_run_with_every_backend_call_answered() -> None:
    calls = []

    def get_weather(city: str) -> str:
        calls.append(city)
        return f"rain in {city}"

    v = "anthropic"
    script = [
        turn(v, [("call_1", "get_weather", {"city": "Oslo"})], message_id="msg_1"),
        turn(v, [("call_2", "get_weather", {"city": "Bergen"})], message_id="msg_2"),
    ]
    with FakeVendor(script) as fv:
        events = _run(ANTHROPIC, fv, agent_input(), tools=[get_weather], max_steps=2)
    assert calls == ["Oslo", "Bergen"]
    assert len(fv.requests) == 2
    assert [r.tool_call_id for r in _results(events)] == ["call_1", "call_2"]
    end = events[-1]
    assert end.type == EventType.RUN_FINISHED
    assert end.metadata["toolwire.stopped"] == "max_steps"
    assert end.outcome.pending_tool_call_ids is None
    validate_stream(events)


async def test_parallel_calls_run_concurrently_bounded_and_answer_in_call_order() -> None:
    running = 0
    most = 0
    finished: list[str] = []

    async def get_weather(city: str) -> str:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep({"A": 0.15, "B": 0.1, "C": 0.05, "D": 0.01}[city])
        running -= 1
        finished.append(city)
        return f"weather {city}"

    v = "anthropic"
    calls = [(f"call_{c}", "get_weather", {"city": c}) for c in "ABCD"]
    script = [turn(v, calls), turn(v, text="done", message_id="msg_2")]
    with FakeVendor(script) as fv:
        client = ANTHROPIC.client(fv.base_url, True)
        run = toolwire.arun(
            client, agent_input(), model=ANTHROPIC.model, tools=[get_weather], tool_concurrency=2
        )
        events = [e async for e in run]
    assert most == 2
    assert finished != ["A", "B", "C", "D"]  # they did not run one after another
    assert [r.content for r in _results(events)] == [f"weather {c}" for c in "ABCD"]
    sent = requests_json(fv)[1]["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in sent] == [f"call_{c}" for c in "ABCD"]


def _reading(run: Any, events: list[Any]) -> asyncio.Future[None]:
    """A task that reads the async run into ``events`` (the test cancels it)."""

    async def read() -> None:
        async for e in run:
            events.append(e)

    return asyncio.ensure_future(read())


@pytest.mark.parametrize("on_cancel", ["finish", "close"])
async def test_cancelling_the_run_cancels_a_running_tool(on_cancel: str) -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()
    get_weather = hanging_tool(started, cancelled)

    v = "anthropic"
    script = [turn(v, [("call_w", "get_weather", {"city": "Oslo"})])]
    events: list[Any] = []
    with FakeVendor(script) as fv:
        client = ANTHROPIC.client(fv.base_url, True)

        run = toolwire.arun(
            client,
            agent_input(),
            model=ANTHROPIC.model,
            tools=[get_weather],
            on_cancel=on_cancel,  # type: ignore[arg-type]
        )
        task = _reading(run, events)
        await asyncio.wait_for(started.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert cancelled.is_set()
    assert not _results(events)
    if on_cancel == "finish":
        assert events[-1].type == EventType.RUN_FINISHED
        assert events[-1].outcome.type == "cancelled"
        validate_stream(events)
    else:
        assert events[-1].type != EventType.RUN_FINISHED


async def test_events_cancel_stops_a_running_tool_and_finishes_the_run() -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()
    get_weather = hanging_tool(started, cancelled)

    v = "anthropic"
    script = [turn(v, [("call_w", "get_weather", {"city": "Oslo"})])]
    with FakeVendor(script) as fv:
        client = ANTHROPIC.client(fv.base_url, True)
        run = toolwire.arun(
            client, agent_input(), model=ANTHROPIC.model, tools=[get_weather], on_cancel="finish"
        )
        events = []

        async def stop() -> None:
            await started.wait()
            run.cancel()

        stopper = asyncio.ensure_future(stop())
        async for e in run:
            events.append(e)
        await stopper
    assert cancelled.is_set()
    assert events[-1].outcome.type == "cancelled"
    validate_stream(events)


def test_a_name_in_both_kinds_of_tools_is_refused() -> None:
    def confirm_booking(hotel: str) -> str:
        return "yes"

    client = ANTHROPIC.client("http://127.0.0.1:9", False)
    with pytest.raises(UnsupportedInput, match=r"confirm_booking.*both"):
        toolwire.run(client, agent_input(), model=ANTHROPIC.model, tools=[confirm_booking])
    with pytest.raises(UnsupportedInput, match="two backend tools"):
        toolwire.run(client, agent_input(), model="m", tools=[get_weather, get_weather])
    with pytest.raises(UnsupportedInput, match="max_steps= needs tools="):
        toolwire.run(client, agent_input(), model="m", max_steps=3)
    with pytest.raises(UnsupportedInput, match="max_steps"):
        toolwire.run(client, agent_input(), model="m", tools=[get_weather], max_steps=0)
    with pytest.raises(UnsupportedInput, match="a tool must be"):
        toolwire.run(client, agent_input(), model="m", tools=["get_weather"])


def test_a_loss_is_warned_once_however_many_turns_resend_it() -> None:
    chat = next(c for c in CASES if c.vendor == "openai_chat")
    v = chat.vendor
    script = [
        turn(v, [("call_1", "get_weather", {"city": "Oslo"})], message_id="m1"),
        turn(v, [("call_2", "get_weather", {"city": "Bergen"})], message_id="m2"),
        turn(v, text="done", message_id="m3"),
    ]
    lost: list[Any] = []
    with FakeVendor(script) as fv:
        client = chat.client(fv.base_url, False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            events = list(
                toolwire.run(
                    client,
                    agent_input(),
                    model=chat.model,
                    tools=[get_weather],
                    losses=lost,
                    forward_losses=True,
                )
            )
    # each image dropped once: call_1's was re-sent in turns 2 and 3, call_2's in turn 3
    assert sorted(x.tool_call_id for x in lost) == ["call_1", "call_2"]
    tw = [w for w in caught if issubclass(w.category, toolwire.ToolwireWarning)]
    assert len(tw) == 2
    assert all(w.filename == __file__ for w in tw)
    (forwarded,) = [e for e in events if e.type == EventType.CUSTOM]
    assert sorted(r["toolCallId"] for r in forwarded.value) == ["call_1", "call_2"]
    assert events[-2] is forwarded


def test_a_stop_pressed_during_a_sync_tool_ends_the_run_cancelled_without_another_turn() -> None:
    held: dict[str, Any] = {}

    def get_weather(city: str) -> str:
        held["run"].cancel()  # the UI's stop button, while the tool runs
        return "sunny"

    v = "anthropic"
    script = [turn(v, [("call_w", "get_weather", {"city": "Oslo"})]), turn(v, text="never")]
    with FakeVendor(script) as fv:
        client = ANTHROPIC.client(fv.base_url, False)
        run = toolwire.run(
            client, agent_input(), model=ANTHROPIC.model, tools=[get_weather], on_cancel="finish"
        )
        held["run"] = run
        events = list(run)
    assert len(fv.requests) == 1  # the model was not called again
    assert [r.content for r in _results(events)] == ["sunny"]  # the finished tool is answered
    assert events[-1].type == EventType.RUN_FINISHED
    assert events[-1].outcome.type == "cancelled"
    validate_stream(events)


def test_a_legacy_peer_gets_the_results_flattened_with_the_dropped_parts_warned() -> None:
    v = "anthropic"
    script = [turn(v, [("call_w", "get_weather", {"city": "Oslo"})]), turn(v, text="ok")]
    legacy = agent_input()
    del legacy["protocolVersion"]  # a peer that predates content parts
    lost: list[Any] = []
    with FakeVendor(script) as fv:
        client = ANTHROPIC.client(fv.base_url, False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            events = list(
                toolwire.run(
                    client, legacy, model=ANTHROPIC.model, tools=[get_weather], losses=lost
                )
            )
    (result,) = _results(events)
    assert result.content == "Sunny in Oslo, 21 C"  # text only, for a peer without parts
    assert [(x.tool_call_id, x.part_kind) for x in lost] == [("call_w", "image")]
    assert len([w for w in caught if issubclass(w.category, toolwire.ToolwireWarning)]) == 1
    # the vendor still got the image: only the legacy UI's copy is flattened
    assert (
        PNG_B64
        in requests_json(fv)[1]["messages"][-1]["content"][0]["content"][1]["source"]["data"]
    )


async def test_cancelling_during_a_model_turn_after_a_tool_ends_the_one_run() -> None:
    from toolwire.testing.fake_vendor import Reply

    v = "anthropic"
    slow = turn(v, text="a long answer that trickles in", message_id="msg_2")
    script = [
        turn(v, [("call_w", "get_weather", {"city": "Oslo"})]),
        Reply(headers=slow.headers, chunks=slow.chunks, delay=0.5, eager=3),
    ]
    events: list[Any] = []
    with FakeVendor(script) as fv:
        client = ANTHROPIC.client(fv.base_url, True)

        run = toolwire.arun(
            client, agent_input(), model=ANTHROPIC.model, tools=[get_weather], on_cancel="finish"
        )
        task = _reading(run, events)
        for _ in range(200):  # until the second turn's text has begun
            if any(e.type == EventType.TEXT_MESSAGE_START for e in events):
                break
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert len(_results(events)) == 1
    assert events[-1].type == EventType.RUN_FINISHED and events[-1].outcome.type == "cancelled"
    assert [e.type for e in events].count(EventType.RUN_STARTED) == 1
    validate_stream(events)
    assert fv.requests[1].outcome == "client_gone"


def test_gemini_thought_signatures_and_call_ids_survive_into_the_next_turn() -> None:
    from _driver_support import clean_reply

    gemini = next(c for c in CASES if c.vendor == "gemini")
    recorded = b"".join(clean_reply(gemini).chunks).decode()
    signatures = ["dGhvdWdodC1zaWctMQ==", "Y2FsbC1zaWctMQ=="]
    assert all(s in recorded for s in signatures)  # what the recorded turn signed

    def get_weather(
        city: str, units: str = "celsius", days: list[float] | None = None, note: str = ""
    ) -> str:
        return f"{city}: 20 {units}"

    script = [clean_reply(gemini), turn("gemini", text="All sunny.", message_id="m2")]
    with FakeVendor(script) as fv:
        events = _run(gemini, fv, agent_input(), tools=[get_weather])
    results = _results(events)
    assert [r.tool_call_id for r in results] == ["fc-paris", "fc-tokyo", "fc-lima", "fc-time"]
    assert RESULT_ERROR_KEY in (results[-1].metadata or {})  # get_time is no tool of ours
    second = json.dumps(requests_json(fv)[1])
    for signature in signatures:
        assert signature in second
    for call_id in ("fc-paris", "fc-tokyo", "fc-lima", "fc-time"):
        assert second.count(call_id) == 2  # the call and its response
    assert events[-1].outcome.pending_tool_call_ids is None
