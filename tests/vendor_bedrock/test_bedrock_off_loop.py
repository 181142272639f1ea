"""A large Bedrock request is built off the event loop and sends the SDK's own bytes.

aiobotocore validates and serializes a request in Python inside the awaited call; for a long
conversation the adapter's client does that in a worker thread (through the client's own
event hooks) and the SDK sends the body it made there. These tests hold the bytes sent by
toolwire's call against the SDK's own call of the same parameters (clock and credentials
fixed, so the signatures compare too), check the signature against the body that left, and
show the loop running other tasks while the large body is being serialized.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import botocore.auth
import pytest
from _bedrock_sdk import FAKE_KEY_ID, FAKE_SECRET, FAKE_TOKEN, MODEL, fake_bedrock
from aiobotocore.session import get_session
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ParamValidationError
from botocore.serialize import RestJSONSerializer
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters.bedrock import client as bedrock_client
from toolwire.adapters.bedrock.client import CLIENT, OFF_LOOP_FROM, large
from toolwire.adapters.bedrock.wire import to_boto3

STREAM = "application/vnd.amazon.eventstream"
#: an empty event stream: the call ends at once (what is compared is the request)
EMPTY = b""
FROZEN = datetime.datetime(2026, 12, 5, 12, 0, 0)
#: a random id per request, the one header two calls of the same request do not share
RANDOM_HEADERS = {"amz-sdk-invocation-id"}


@pytest.fixture(autouse=True)
def _frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """SigV4 signs the time: one fixed time makes two signatures of one request equal."""
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: FROZEN)


class Spy:
    """Where botocore serialized each request: (on the loop's thread?, its messages)."""

    def __init__(self) -> None:
        self.loop_thread: int | None = None
        self.calls: list[tuple[bool, int]] = []
        self.converted: list[bool] = []


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    seen = Spy()
    serialize = RestJSONSerializer.serialize_to_request
    convert = bedrock_client.to_boto3

    def serializing(self: Any, params: dict[str, Any], model: Any) -> Any:
        on_loop = threading.get_ident() == seen.loop_thread
        seen.calls.append((on_loop, len(params.get("messages", ()))))
        return serialize(self, params, model)

    def converting(body: dict[str, Any]) -> dict[str, Any]:
        seen.converted.append(threading.get_ident() == seen.loop_thread)
        return convert(body)

    monkeypatch.setattr(RestJSONSerializer, "serialize_to_request", serializing)
    monkeypatch.setattr(bedrock_client, "to_boto3", converting)
    return seen


@asynccontextmanager
async def aio_client(url: str, **config: Any) -> AsyncIterator[Any]:
    async with get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id=FAKE_KEY_ID,
        aws_secret_access_key=FAKE_SECRET,
        aws_session_token=FAKE_TOKEN,
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}, **config),
    ) as client:
        yield client


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def long_body(turns: int = 120) -> dict[str, Any]:
    """A long conversation in toolwire's form (blobs as base64 text), every kind of block."""
    messages: list[dict[str, Any]] = []
    for i in range(turns):
        messages.append(
            {"role": "user", "content": [{"text": f"question {i} é 中 \ud800 \U0001f600"}]}
        )
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"reasoningContent": {"redactedContent": b64(bytes([i % 256]) * 5)}},
                    {
                        "toolUse": {
                            "toolUseId": f"t{i}",
                            "name": "f",
                            "input": {"a": [i, 1.5, None]},
                        }
                    },
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"toolResult": {"toolUseId": f"t{i}", "content": [{"json": {"deep": [[{}]]}}]}},
                    {
                        "image": {
                            "format": "png",
                            "source": {"bytes": b64(b"\x89PNG\r\n" + bytes(i))},
                        }
                    },
                ],
            }
        )
    return {
        "modelId": MODEL,
        "messages": messages,
        "system": [{"text": "be brief"}],
        "inferenceConfig": {"maxTokens": 64, "temperature": 0.5},
        "toolConfig": {
            "tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]
        },
        "additionalModelRequestFields": {"top_k": 5},
    }


async def read_all(client: Any, body: dict[str, Any]) -> None:
    async for _ in CLIENT.astream(client, body):
        pass


async def sdk_call(client: Any, body: dict[str, Any]) -> None:
    """The SDK's own call of the same parameters (no toolwire hook takes part)."""
    response = await client.converse_stream(**to_boto3(body))
    async for _ in response["stream"]:
        pass


def same_request(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    method_a, path_a, headers_a, body_a = a
    method_b, path_b, headers_b, body_b = b
    assert (method_a, path_a) == (method_b, path_b)
    assert body_a == body_b
    assert {k: v for k, v in headers_a.items() if k not in RANDOM_HEADERS} == {
        k: v for k, v in headers_b.items() if k not in RANDOM_HEADERS
    }


# ------------------------------------------------------------------ the bytes on the wire


def test_a_large_request_sends_over_http_what_the_sdks_own_call_sends(spy: Spy) -> None:
    body = long_body()
    assert large(body)

    async def go(url: str) -> None:
        spy.loop_thread = threading.get_ident()
        async with aio_client(url) as client:
            await read_all(client, body)
            ours = list(spy.calls)
            await sdk_call(client, body)
            theirs = spy.calls[len(ours) :]
        # toolwire's call: the whole conversation serialized in a worker thread (and once
        # more with an empty conversation, to check the stand-in differs in its body only),
        # the SDK's serializer on the loop given the empty conversation
        turns = len(body["messages"])
        assert ours == [(False, turns), (False, 0), (True, 0)]
        assert spy.converted[0] is False  # the blobs' conversion off the loop too
        assert theirs == [(True, turns)]  # the SDK's own call: all of it on the loop

    with fake_bedrock([(200, STREAM, EMPTY)] * 2, timeout=30) as (url, served):
        asyncio.run(go(url))
    ours, theirs = served.requests
    same_request(ours, theirs)
    assert int(ours[2]["content-length"]) == len(ours[3])
    assert ours[2]["content-type"] == "application/json"
    assert ours[3].count(b'"toolUseId": "t') == 2 * len(body["messages"]) // 3


def _signature(method: str, path: str, url: str, headers: dict[str, str], body: bytes) -> str:
    """SigV4's ``Authorization`` for this request at its ``X-Amz-Date``: the headers it
    signed (named in the sent ``Authorization``) and ``body`` as its payload."""
    signed = headers["authorization"].split("SignedHeaders=")[1].split(",")[0].split(";")
    request = AWSRequest(
        method=method,
        url=url + path,
        data=body,
        headers={k: v for k, v in headers.items() if k in signed and k != "x-amz-date"},
    )
    auth = botocore.auth.SigV4Auth(
        Credentials(FAKE_KEY_ID, FAKE_SECRET, FAKE_TOKEN), "bedrock", "us-east-1"
    )
    auth.add_auth(request)
    assert request.headers["X-Amz-Date"] == headers["x-amz-date"]
    return str(request.headers["Authorization"])


def test_the_signature_sent_covers_the_body_sent() -> None:
    body = long_body(40)
    with fake_bedrock([(200, STREAM, EMPTY)], timeout=30) as (url, served):

        async def go() -> None:
            async with aio_client(url) as client:
                await read_all(client, body)

        asyncio.run(go())
    ((method, path, headers, sent),) = served.requests
    # the stand-in's body (an empty conversation) would be signed otherwise
    stand_in = b'{"messages": []}'
    assert sent != stand_in and sent.startswith(b'{"messages": [{"role": "user"')
    assert _signature(method, path, url, headers, sent) == headers["authorization"]
    assert _signature(method, path, url, headers, stand_in) != headers["authorization"]


class _Sent(Exception):
    """Raised by the capture hook: the request as it would leave, signed."""

    def __init__(self, headers: dict[str, str], body: bytes) -> None:
        super().__init__("captured")
        self.headers = headers
        self.body = body


def _capture(request: Any, **_: Any) -> None:
    headers = {str(k).lower(): str(v) for k, v in request.headers.items()}
    body = request.body if isinstance(request.body, bytes) else bytes(request.body or b"")
    raise _Sent(headers, body)


async def _sent(call: Any) -> _Sent:
    try:
        await call
    except _Sent as sent:
        return sent
    raise AssertionError("the request was not sent")


def both_sent(body: dict[str, Any], **config: Any) -> tuple[_Sent, _Sent]:
    """The request toolwire's call and the SDK's own call would send (signed, not sent)."""

    async def go() -> tuple[_Sent, _Sent]:
        async with aio_client("http://127.0.0.1:9", **config) as client:
            client.meta.events.register(
                "before-send.bedrock-runtime.ConverseStream", _capture, unique_id="capture"
            )
            ours = await _sent(read_all(client, body))
            theirs = await _sent(sdk_call(client, body))
            return ours, theirs

    return asyncio.run(go())


def _strip(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k not in RANDOM_HEADERS}


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3)
    ),
    max_leaves=12,
)
#: any text, lone surrogates included (not empty: botocore's validation refuses that, which
#: the error test covers)
_text = st.text(st.characters(blacklist_categories=()), min_size=1, max_size=30)
_blob = st.binary(max_size=24).map(b64)
_block = st.one_of(
    st.builds(lambda t: {"text": t}, _text),
    st.builds(lambda b: {"image": {"format": "png", "source": {"bytes": b}}}, _blob),
    st.builds(lambda b: {"reasoningContent": {"redactedContent": b}}, _blob),
    st.builds(
        lambda t, s: {"reasoningContent": {"reasoningText": {"text": t, "signature": s}}},
        _text,
        _text,
    ),
    st.builds(lambda i, d: {"toolUse": {"toolUseId": i, "name": "f", "input": d}}, _text, _json),
    st.builds(
        lambda i, d, t: {"toolResult": {"toolUseId": i, "content": [{"json": d}, {"text": t}]}},
        _text,
        _json,
        _text,
    ),
)
_message = st.builds(
    lambda role, content: {"role": role, "content": content},
    st.sampled_from(["user", "assistant"]),
    st.lists(_block, min_size=1, max_size=4),
)


@st.composite
def large_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A body over the threshold: a few drawn messages repeated, other members drawn."""
    some = draw(st.lists(_message, min_size=1, max_size=5))
    per = sum(1 + len(m["content"]) for m in some)
    body: dict[str, Any] = {"modelId": MODEL, "messages": some * (OFF_LOOP_FROM // per + 1)}
    if draw(st.booleans()):
        body["system"] = [{"text": t} for t in draw(st.lists(_text, min_size=1, max_size=3))]
    if draw(st.booleans()):
        body["toolConfig"] = {
            "tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": draw(_json)}}}]
        }
    if draw(st.booleans()):
        body["inferenceConfig"] = {"maxTokens": draw(st.integers(1, 10_000))}
    if draw(st.booleans()):
        body["additionalModelRequestFields"] = {"x": draw(_json)}
    return body


@settings(max_examples=25, deadline=None)
@given(large_bodies(), st.booleans())
def test_any_large_request_is_signed_and_sent_as_the_sdk_sends_it(
    body: dict[str, Any], validation: bool
) -> None:
    assert large(body)
    ours, theirs = both_sent(body, parameter_validation=validation)
    assert ours.body == theirs.body
    assert _strip(ours.headers) == _strip(theirs.headers)
    assert "authorization" in ours.headers


# ------------------------------------------------------------------ the event loop


def test_the_loop_runs_other_tasks_while_a_large_request_is_serialized(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The full conversation's serialization waits, in its thread, until a task on the loop
    has run three times since it began: it can only go on if the loop is free meanwhile.
    The SDK's own call (serialized on the loop) is the control: its wait times out."""
    serialize = RestJSONSerializer.serialize_to_request
    began, gate = threading.Event(), threading.Event()
    waited: list[bool] = []
    timeout = [10.0]

    def held(self: Any, params: dict[str, Any], model: Any) -> Any:
        if len(params.get("messages", ())) > 1:
            began.set()
            waited.append(gate.wait(timeout[0]))
        return serialize(self, params, model)

    monkeypatch.setattr(RestJSONSerializer, "serialize_to_request", held)

    async def ticker() -> int:
        ticks = 0
        while not gate.is_set():
            await asyncio.sleep(0.001)
            if began.is_set():
                ticks += 1
                if ticks == 3:
                    gate.set()
        return ticks

    async def call_beside_ticker(client: Any, call: Any) -> int:
        began.clear()
        gate.clear()
        tick = asyncio.create_task(ticker())
        await call
        gate.set()  # the control's ticker ends too
        return await tick

    body = long_body(30)

    async def go(url: str) -> int:
        async with aio_client(url) as client:
            ours = await call_beside_ticker(client, read_all(client, body))
            timeout[0] = 0.5
            await call_beside_ticker(client, sdk_call(client, body))
            return ours

    with fake_bedrock([(200, STREAM, EMPTY)] * 2, timeout=30) as (url, served):
        ours = asyncio.run(go(url))
    # toolwire's call: the loop ticked while the conversation was serialized (the gate opened);
    # the SDK's own: the loop stood still until the wait gave up
    assert waited == [True, False]
    assert ours == 3
    same_request(*served.requests)


# ------------------------------------------------------------------ what stays as it was


def test_a_small_request_is_built_on_the_loop_as_the_sdk_builds_it(spy: Spy) -> None:
    body = {"modelId": MODEL, "messages": [{"role": "user", "content": [{"text": "hi"}]}]}
    assert not large(body)

    async def go() -> tuple[_Sent, _Sent]:
        spy.loop_thread = threading.get_ident()
        async with aio_client("http://127.0.0.1:9") as client:
            client.meta.events.register(
                "before-send.bedrock-runtime.ConverseStream", _capture, unique_id="capture"
            )
            return (
                await _sent(read_all(client, body)),
                await _sent(sdk_call(client, body)),
            )

    ours, theirs = asyncio.run(go())
    assert spy.calls == [(True, 1), (True, 1)]
    assert spy.converted == [True]
    assert (
        ours.body == theirs.body == b'{"messages": [{"role": "user", "content": [{"text": "hi"}]}]}'
    )


def test_the_callers_own_calls_on_the_client_are_left_to_the_sdk(spy: Spy) -> None:
    """toolwire's hooks stay on the caller's client after its call: they act on toolwire's
    call only, a large call of the caller's own is serialized by the SDK as before."""
    body = long_body(30)

    async def go() -> None:
        spy.loop_thread = threading.get_ident()
        async with aio_client("http://127.0.0.1:9") as client:
            client.meta.events.register(
                "before-send.bedrock-runtime.ConverseStream", _capture, unique_id="capture"
            )
            await _sent(read_all(client, body))
            spy.calls.clear()
            sent = await _sent(sdk_call(client, body))
            assert spy.calls == [(True, len(body["messages"]))]
            assert sent.body.startswith(b'{"messages": [{"role": "user"')

    asyncio.run(go())


@pytest.mark.parametrize("register", ["register", "register_last", "register_first"])
def test_a_parameter_hook_of_the_callers_is_heard_before_the_build(register: str) -> None:
    """The build runs after every ``before-parameter-build`` handler (it is registered last,
    anew for each call): a handler that changes the parameters changes the body sent, as
    with the SDK, even one registered last after toolwire's first call."""

    def louder(params: dict[str, Any], **_: Any) -> None:
        params["inferenceConfig"] = {"maxTokens": 7}
        params["messages"][-1] = {"role": "user", "content": [{"text": "changed"}]}

    body = long_body(30)

    async def go() -> tuple[_Sent, _Sent]:
        async with aio_client("http://127.0.0.1:9") as client:
            client.meta.events.register(
                "before-send.bedrock-runtime.ConverseStream", _capture, unique_id="capture"
            )
            # registered after toolwire's first call put its hooks on the client
            ours_first = await _sent(read_all(client, long_body(30)))
            assert b'"maxTokens": 7' not in ours_first.body
            getattr(client.meta.events, register)(
                "before-parameter-build.bedrock-runtime.ConverseStream", louder
            )
            return (
                await _sent(read_all(client, body)),
                await _sent(sdk_call(client, body)),
            )

    ours, theirs = asyncio.run(go())
    assert ours.body == theirs.body
    assert b'"maxTokens": 7' in ours.body and b'"changed"' in ours.body
    assert _strip(ours.headers) == _strip(theirs.headers)


@pytest.mark.parametrize("validation", [True, False])
def test_bad_parameters_raise_the_sdks_own_error(validation: bool) -> None:
    body = long_body(30)
    body["messages"][5]["content"][0] = {"text": 12}  # not a string
    body["inferenceConfig"] = {"maxTokens": "many"}

    async def go() -> tuple[BaseException, BaseException]:
        async with aio_client("http://127.0.0.1:9", parameter_validation=validation) as client:
            with pytest.raises(Exception) as ours:
                await read_all(client, body)
            with pytest.raises(Exception) as theirs:
                await sdk_call(client, body)
            return ours.value, theirs.value

    ours, theirs = asyncio.run(go())
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)
    if validation:
        assert isinstance(ours, ParamValidationError)
        assert "messages[5].content[0].text" in str(ours)
    else:  # no validation: the request is sent, and refused for want of a server
        assert not isinstance(ours, ParamValidationError)


# ------------------------------------------------------------------ the pieces


def _parts(messages: int, blocks: int, system: int, tools: int) -> dict[str, Any]:
    """A body of ``messages`` messages of ``blocks`` text blocks each, ``system`` system
    blocks and ``tools`` tools."""
    return {
        "modelId": MODEL,
        "messages": [
            {"role": "user", "content": [{"text": "a"}] * blocks} for _ in range(messages)
        ],
        "system": [{"text": "s"}] * system,
        "toolConfig": {"tools": [{"toolSpec": {}}] * tools},
        "inferenceConfig": {"maxTokens": 5},
    }


#: (messages, blocks per message, system blocks, tools): 64 parts, and 63
_SIXTY_FOUR = [
    ((10, 2, 20, 14), (10, 2, 20, 13)),
    ((32, 1, 0, 0), (31, 1, 1, 0)),
    ((1, 60, 2, 1), (1, 60, 2, 0)),
    ((0, 0, 30, 34), (0, 0, 29, 34)),
    ((21, 2, 0, 1), (21, 2, 0, 0)),
]


@pytest.mark.parametrize(("enough", "fewer"), _SIXTY_FOUR)
def test_a_body_is_large_from_its_sixty_fourth_part(
    enough: tuple[int, int, int, int], fewer: tuple[int, int, int, int]
) -> None:
    """Each message counts once and once per content block, each system block and each
    tool once."""
    assert OFF_LOOP_FROM == 64
    for (messages, blocks, system, tools), parts in ((enough, 64), (fewer, 63)):
        assert messages * (1 + blocks) + system + tools == parts
    assert large(_parts(*enough))
    assert not large(_parts(*fewer))


def test_a_body_of_another_shape_is_not_large() -> None:
    assert not large({"modelId": MODEL})
    assert not large({"messages": "no list", "system": {}, "toolConfig": []})
    assert not large({"messages": ["x"] * 63})  # a message that is no dict counts once
    assert large({"messages": ["x"] * 64})


class _Serializer:
    """A serializer whose stand-in request differs from the real one in ``differs``."""

    def __init__(self, differs: str) -> None:
        self.differs = differs

    def serialize_to_request(self, params: dict[str, Any], model: Any) -> dict[str, Any]:
        empty = not params.get("messages")
        out: dict[str, Any] = {
            "url_path": "/m",
            "query_string": "",
            "method": "POST",
            "headers": {"Content-Type": "application/json"},
            "body": b"empty" if empty else b"full",
        }
        if empty and self.differs:
            out[self.differs] = {"X-Other": "1"} if self.differs == "headers" else "other"
        return out


@pytest.mark.parametrize("differs", ["headers", "url_path", "query_string", "method"])
def test_a_stand_in_whose_request_differs_beyond_its_body_is_not_used(differs: str) -> None:
    params = {"modelId": MODEL, "messages": [{"role": "user", "content": []}]}
    assert bedrock_client._built(_Serializer(""), params, None) == (
        b"full",
        {"modelId": MODEL, "messages": []},
    )
    assert bedrock_client._built(_Serializer(differs), params, None) is None


def test_the_stand_in_empties_the_conversation_and_keeps_the_rest() -> None:
    params = {
        "modelId": MODEL,
        "system": [{"text": "s"}],
        "messages": [{"role": "user", "content": []}],
        "toolConfig": {"tools": []},
        "inferenceConfig": {"maxTokens": 3},
    }
    stand_in = bedrock_client._stand_in(params)
    assert stand_in == {
        "modelId": MODEL,
        "system": [],
        "messages": [],
        "inferenceConfig": {"maxTokens": 3},
    }
    assert list(stand_in) == ["modelId", "system", "messages", "inferenceConfig"]
    assert params["messages"] == [{"role": "user", "content": []}]  # the caller's kept
