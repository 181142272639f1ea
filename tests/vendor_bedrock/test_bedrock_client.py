"""The adapter's ``client.py`` over a real boto3 ``bedrock-runtime`` client talking to a fake
on 127.0.0.1: raw event-stream bytes read by toolwire's frame reader, botocore's retries
off for toolwire's call only, credentials kept out of every text."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import boto3
import pytest
from _bedrock_sdk import (
    CASSETTES,
    FAKE_KEY_ID,
    FAKE_SECRET,
    FAKE_TOKEN,
    MODEL,
    client,
    fake_bedrock,
    sdk_events,
)
from ag_ui.core import EventType, RunAgentInput, UserMessage
from botocore.exceptions import ClientError

from toolwire import clients
from toolwire.adapters.bedrock import decode_stream, encode_request, sse_chunks, to_sse
from toolwire.adapters.bedrock.client import CLIENT, BedrockHTTPError
from toolwire.errors import VendorStreamError
from toolwire.failures import classify
from toolwire.protocol.pushed import Piece
from toolwire.recordings import load_recording

STREAM = "application/vnd.amazon.eventstream"


def body_of(name: str, n: int = 0) -> bytes:
    path = CASSETTES / name
    return load_recording(path.read_bytes(), path.name)[n].response_body


def request() -> dict[str, Any]:
    ri = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u", content="Weather in Paris?")],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    return encode_request(ri, model=MODEL)


def plain(events: list[Any]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def test_a_boto3_client_is_claimed_and_another_service_is_not() -> None:
    bedrock = client("http://127.0.0.1:9")
    assert CLIENT.claims(bedrock, None)
    assert not CLIENT.is_async(bedrock)
    s3 = boto3.client(
        "s3", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    assert not CLIENT.claims(s3, None)
    assert not CLIENT.claims(object(), None)


def test_the_stream_is_read_from_its_raw_bytes_and_decodes_as_the_bytes_do() -> None:
    data = body_of("parallel_three_tool_use.yaml")
    with fake_bedrock([(200, STREAM, data)]) as (url, served):
        streamed = list(CLIENT.stream(client(url), request()))
    # the body's pieces as the push reader's (``Piece``: the driver reads them fused);
    # iterating one gives its chunk dicts
    assert streamed and all(type(p) is Piece for p in streamed if p is not clients.TICK)
    chunks = [c for p in streamed if p is not clients.TICK for c in p]
    # the raw frames' padding member survives: toolwire's reader read the bytes, not botocore
    assert chunks[0] == {"messageStart": {"role": "assistant", "p": "abcdefghijklmnop"}}
    assert plain(list(decode_stream(chunks))) == plain(list(decode_stream(sse_chunks(data))))
    ((method, path, headers, sent),) = served.requests
    assert method == "POST"
    assert path == "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
    assert json.loads(sent)["messages"] == [
        {"role": "user", "content": [{"text": "Weather in Paris?"}]}
    ]
    # what SigV4 sends is what the client declares secret
    assert headers["authorization"].startswith("AWS4-HMAC-SHA256")
    assert FAKE_KEY_ID in headers["authorization"]
    assert headers["x-amz-security-token"] == FAKE_TOKEN
    assert {"authorization", "x-amz-security-token"} <= CLIENT.secret_headers


def test_the_clients_key_values_are_listed_for_masking() -> None:
    secrets = CLIENT.secrets(client("http://127.0.0.1:9"))
    assert {FAKE_KEY_ID, FAKE_SECRET, FAKE_TOKEN} <= set(secrets)


def test_an_exception_frame_through_the_client_is_a_retryable_vendor_error() -> None:
    data = body_of("throttling_exception.yaml")
    with fake_bedrock([(200, STREAM, data)]) as (url, _):
        with pytest.raises(VendorStreamError) as info:
            list(decode_stream(_chunks(CLIENT.stream(client(url), request()))))
    assert info.value.error_type == "throttlingException" and info.value.retryable


def test_the_sdk_path_gives_the_same_chunks_as_its_events() -> None:
    data = body_of("reasoning_tool_use_signature.yaml")
    assert plain(list(decode_stream(sdk_events(data)))) == plain(
        list(decode_stream(CLIENT._events(_Events(sdk_events(data)))))
    )


def _chunks(streamed: Any) -> list[Any]:
    """The chunk dicts of a run's stream of pieces (``Piece``; ``clients.TICK`` for none)."""
    return [c for p in streamed if p is not clients.TICK for c in p]


class _Events:
    """An EventStream-like object with no raw body: the SDK's dicts path."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events

    def __iter__(self) -> Any:
        return iter(self.events)


def test_botocores_retries_are_off_for_toolwires_call_only() -> None:
    throttled = json.dumps({"__type": "ThrottlingException", "message": "slow"}).encode()
    data = body_of("parallel_three_tool_use.yaml")
    # the caller's client asks botocore for 3 attempts; toolwire's call makes one
    responses = [(429, "application/json", throttled)] * 3 + [(200, STREAM, data)]
    with fake_bedrock(responses) as (url, served):
        wanting = _with_retries(url, 3)
        with pytest.raises(BedrockHTTPError) as info:
            list(CLIENT.stream(wanting, request()))
        assert isinstance(info.value.__cause__, ClientError)  # botocore's, kept as the cause
        failure = classify(info.value)  # what the driver's retry policy reads
        assert (failure.code, failure.retryable, failure.status) == (
            "ThrottlingException",
            True,
            429,
        )
        assert len(served.requests) == 1
        # the caller's own call on the same client still retries: 2 more 429s, then 200
        response = wanting.converse_stream(
            modelId=MODEL, messages=[{"role": "user", "content": [{"text": "x"}]}]
        )
        assert list(response["stream"])
    assert len(served.requests) == 4


def _with_retries(url: str, attempts: int) -> Any:
    from botocore.config import Config

    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id=FAKE_KEY_ID,
        aws_secret_access_key=FAKE_SECRET,
        config=Config(retries={"total_max_attempts": attempts, "mode": "standard"}),
    )


def test_params_go_into_inference_config() -> None:
    body: dict[str, Any] = {"modelId": MODEL}
    CLIENT.add_params(
        body, {"temperature": 0.2, "max_tokens": 50, "stop": "END", "guardrailConfig": {"x": 1}}
    )
    assert body == {
        "modelId": MODEL,
        "inferenceConfig": {"temperature": 0.2, "maxTokens": 50, "stopSequences": ["END"]},
        "guardrailConfig": {"x": 1},
    }


def test_the_async_path_reads_aiobotocores_stream() -> None:
    from aiobotocore.session import get_session

    data = body_of("interleaved_tool_use.yaml")

    async def go(url: str) -> list[Any]:
        session = get_session()
        async with session.create_client(
            "bedrock-runtime",
            region_name="us-east-1",
            endpoint_url=url,
            aws_access_key_id=FAKE_KEY_ID,
            aws_secret_access_key=FAKE_SECRET,
        ) as c:
            assert CLIENT.claims(c, None) and CLIENT.is_async(c)
            got = [piece async for piece in CLIENT.astream(c, request())]
            assert all(type(p) is Piece for p in got)
            return [chunk for piece in got for chunk in piece]

    with fake_bedrock([(200, STREAM, data)]) as (url, served):
        chunks = asyncio.run(go(url))
    assert len(served.requests) == 1
    assert plain(list(decode_stream(chunks))) == plain(list(decode_stream(sse_chunks(data))))


def test_encoded_bytes_served_to_boto3_come_back_as_the_same_events() -> None:
    data = body_of("reasoning_tool_use_signature.yaml")
    events = list(decode_stream(sse_chunks(data)))
    from toolwire.adapters.bedrock import encode_stream

    again = to_sse(encode_stream(events))
    with fake_bedrock([(200, STREAM, again)]) as (url, _):
        response = client(url).converse_stream(
            modelId=MODEL, messages=[{"role": "user", "content": [{"text": "x"}]}]
        )
        theirs = list(response["stream"])
    assert plain(list(decode_stream(theirs))) == plain(events)
    assert [e.type for e in events].count(EventType.TOOL_CALL_START) == 1


def test_the_cassette_kit_treats_sigv4_headers_and_query_keys_as_secrets() -> None:
    from toolwire.testing.secrets import QUERY_KEYS, REQUEST_HEADERS, filtered_uri

    assert {"authorization", "x-amz-security-token"} <= REQUEST_HEADERS
    assert {"x-amz-signature", "x-amz-credential", "x-amz-security-token"} <= QUERY_KEYS
    presigned = (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse?"
        f"X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={FAKE_KEY_ID}%2F20261205"
        f"&X-Amz-Security-Token={FAKE_TOKEN}&X-Amz-Signature=deadbeef00112233"
    )
    kept = filtered_uri(presigned)
    for secret in (FAKE_KEY_ID, FAKE_TOKEN, "deadbeef00112233"):
        assert secret not in kept
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in kept
