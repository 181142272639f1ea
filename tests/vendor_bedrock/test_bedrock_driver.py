"""``toolwire.run`` over a real boto3 ``bedrock-runtime`` client talking to a fake on
127.0.0.1: the registry picks the Bedrock adapter from the client, the driver's retry
policy (not botocore's) retries throttling before the first event, and the run's events
are those of the bytes served."""

from __future__ import annotations

import json
import warnings
from typing import Any

from _bedrock_sdk import (
    CASSETTES,
    FAKE_KEY_ID,
    FAKE_SECRET,
    MODEL,
    client,
    fake_bedrock,
)
from ag_ui.core import EventType, RunAgentInput, UserMessage

import toolwire
from toolwire.adapters.bedrock import Decoder, sse_chunks
from toolwire.protocol.runs import frame_run
from toolwire.recordings import load_recording

STREAM = "application/vnd.amazon.eventstream"
NO_WAIT = toolwire.RetryPolicy(attempts=3, initial_backoff=0, max_backoff=0)


def body_of(name: str) -> bytes:
    path = CASSETTES / name
    return load_recording(path.read_bytes(), path.name)[0].response_body


def run_input() -> RunAgentInput:
    return RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u", content="Weather in Paris, Oslo and Lima?")],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )


def events_of(result: Any) -> list[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(result)


def comparable(events: list[Any]) -> list[dict[str, Any]]:
    return [
        e.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"input"})
        for e in events
        if e.type not in (EventType.RUN_STARTED, EventType.RUN_FINISHED)
    ]


def test_a_run_over_a_boto3_client_gives_the_turn_the_bytes_hold() -> None:
    data = body_of("parallel_three_tool_use.yaml")
    with fake_bedrock([(200, STREAM, data)]) as (url, served):
        events = events_of(toolwire.run(client(url), run_input(), model=MODEL, temperature=0.1))
    assert events[0].type == EventType.RUN_STARTED
    assert events[-1].type == EventType.RUN_FINISHED
    expected = list(frame_run(Decoder(), sse_chunks(data), thread_id="t", run_id="r"))
    assert comparable(events) == comparable(expected)
    assert events[-1].metadata["bedrock.stop_reason"] == "tool_use"
    ((_, path, _, sent),) = served.requests
    assert path.endswith("/converse-stream")
    assert json.loads(sent)["inferenceConfig"] == {"temperature": 0.1}


def test_throttling_before_the_first_event_is_retried_by_the_drivers_policy() -> None:
    throttled = json.dumps({"__type": "ThrottlingException", "message": "slow"}).encode()
    unavailable = json.dumps({"__type": "ServiceUnavailableException", "message": "x"}).encode()
    data = body_of("parallel_three_tool_use.yaml")
    responses = [
        (429, "application/json", throttled),
        (503, "application/json", unavailable),
        (200, STREAM, data),
    ]
    with fake_bedrock(responses) as (url, served):
        events = events_of(toolwire.run(client(url), run_input(), model=MODEL, retry=NO_WAIT))
    assert len(served.requests) == 3
    assert events[-1].type == EventType.RUN_FINISHED


def test_a_validation_error_is_not_retried_and_ends_the_run_with_its_code() -> None:
    invalid = json.dumps({"__type": "ValidationException", "message": "bad model"}).encode()
    with fake_bedrock([(400, "application/json", invalid)]) as (url, served):
        events = events_of(toolwire.run(client(url), run_input(), model=MODEL, retry=NO_WAIT))
    assert len(served.requests) == 1
    assert events[-1].type == EventType.RUN_ERROR
    assert events[-1].code == "ValidationException"


def test_an_in_stream_exception_ends_the_run_with_its_type_and_no_secret() -> None:
    data = body_of("throttling_exception.yaml")
    with fake_bedrock([(200, STREAM, data)]) as (url, _):
        events = events_of(toolwire.run(client(url), run_input(), model=MODEL, retry=NO_WAIT))
    last = events[-1]
    assert last.type == EventType.RUN_ERROR and last.code == "throttlingException"
    text = json.dumps([e.model_dump(mode="json") for e in events])
    assert FAKE_KEY_ID not in text and FAKE_SECRET not in text


def test_a_truncated_stream_is_never_a_finished_run() -> None:
    data = body_of("no_message_stop.yaml")
    one = toolwire.RetryPolicy(attempts=1)
    with fake_bedrock([(200, STREAM, data)]) as (url, _):
        events = events_of(toolwire.run(client(url), run_input(), model=MODEL, retry=one))
    assert events[-1].type == EventType.RUN_ERROR
    assert "messageStop" in events[-1].message


def test_arun_over_an_aiobotocore_client() -> None:
    import asyncio

    from aiobotocore.session import get_session

    data = body_of("interleaved_tool_use.yaml")

    async def go(url: str) -> list[Any]:
        async with get_session().create_client(
            "bedrock-runtime",
            region_name="us-east-1",
            endpoint_url=url,
            aws_access_key_id=FAKE_KEY_ID,
            aws_secret_access_key=FAKE_SECRET,
        ) as c:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return [e async for e in toolwire.arun(c, run_input(), model=MODEL)]

    with fake_bedrock([(200, STREAM, data)]) as (url, _):
        events = asyncio.run(go(url))
    expected = list(frame_run(Decoder(), sse_chunks(data), thread_id="t", run_id="r"))
    assert events[-1].type == EventType.RUN_FINISHED
    assert comparable(events) == comparable(expected)
