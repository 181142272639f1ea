"""What the driver tests share: one case per vendor (real SDK clients, our cassettes),
the offline decode of the same bytes to compare with, and the checks every run passes."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import io
import json
import re
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic
import boto3
import cohere
import ollama
import openai
import pytest
from ag_ui.core import PROTOCOL_VERSION, BaseEvent, EventType
from botocore.config import Config
from google import genai
from mistralai.client import Mistral

import toolwire
from toolwire import adapters, cli
from toolwire.errors import VendorStreamError
from toolwire.testing.fake_vendor import FakeVendor, Reply, replies_from_cassette, split_events
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes"

#: Fake credentials: they must never show up in an event.
KEY = "sk-test-FAKE-key-0123456789abcdef"
GOOGLE_KEY = "AIzaFAKE-google-key-0123456789"


#: One TLS context for every client these tests build: the fake vendor speaks plain HTTP, and
#: each SDK client loading the CA bundle anew cost ~20 ms, seconds over the driver tests.
TLS = ssl.create_default_context()


def _close_when_collected(client: Any) -> None:
    if not getattr(client, "is_closed", True):  # half built: nothing to close
        client.close()


class _AnthropicHttp(anthropic.DefaultHttpxClient):
    """The SDK's default HTTP client on the shared context; it closes its pool when collected,
    as the client the SDK builds for itself does (a passed-in one otherwise leaks sockets).
    The async clients' pools go with their event loop, which every async test closes."""

    def __del__(self) -> None:
        _close_when_collected(self)


class _OpenAIHttp(openai.DefaultHttpxClient):
    """As ``_AnthropicHttp``, for the OpenAI SDK."""

    def __del__(self) -> None:
        _close_when_collected(self)


def anthropic_http(is_async: bool = False) -> Any:
    """An ``http_client=`` for an Anthropic SDK client, on the shared TLS context."""
    return anthropic.DefaultAsyncHttpxClient(verify=TLS) if is_async else _AnthropicHttp(verify=TLS)


def openai_http(is_async: bool = False) -> Any:
    """An ``http_client=`` for an OpenAI SDK client, on the shared TLS context."""
    return openai.DefaultAsyncHttpxClient(verify=TLS) if is_async else _OpenAIHttp(verify=TLS)


def gemini_http(**options: Any) -> dict[str, Any]:
    """``http_options=`` for a Gemini SDK client (``base_url``...), on the shared TLS context."""
    return {"client_args": {"verify": TLS}, "async_client_args": {"verify": TLS}, **options}


TOOL = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


#: ``(HTTP status, error type, message) -> (body, headers)``: a vendor's documented error
#: answer, as its API sends one
ErrorAnswer = Callable[[int, str, str], tuple[dict[str, Any], dict[str, str]]]
#: ``(client, model) -> stream``: a user's own streaming call through the vendor's SDK
SdkCall = Callable[[Any, str], Any]


@dataclass(frozen=True)
class Case:
    """One model adapter's vendor as the driver tests meet it. Everything that differs
    between vendors is here, as data, so each shared test runs the same for all."""

    vendor: str  # the adapter
    clean: str  # a recorded turn that ends with frontend calls pending
    broken: str  # a recorded turn with an in-stream vendor error after the first delta
    model: str
    error_answer: ErrorAnswer  # the vendor's documented HTTP error body (and headers)
    error_type: str  # the type of the documented 400 the tests send
    error_message: str  # and its message
    sync_client: Callable[[str], Any]
    async_client: Callable[[str], Any]
    #: the user's own streaming call through the SDK (sync; async: awaited if awaitable)
    sdk_stream: SdkCall
    asdk_stream: SdkCall
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: whether the error answer names its type; where it does not (Cohere's, Ollama's
    #: bodies hold a message only) ``RUN_ERROR.code`` is ``http_<status>``
    typed_errors: bool = True
    #: a recorded body cut into the vendor's own frames, when the cassette holds it whole
    #: (NDJSON lines, AWS event-stream messages): what cancel and split tests cut between
    frames: Callable[[bytes], list[bytes]] | None = None
    #: where the request says the model and that it streams: ``None`` for the body's
    #: ``model`` and ``stream: true``, else what the request path holds for each
    path_says: Callable[[str], tuple[str, str]] | None = None
    #: bytes that keep a connection alive and make no chunk in the vendor's framing (SSE
    #: comments, blank lines); ``None``: the framing has none (the AWS event stream), and
    #: the deadline test trickles the recorded body itself a byte at a time
    keep_alive: bytes | None = b":\n\n"
    #: whether ``toolwire.run`` reads the stream's bytes itself (its byte reader reports
    #: every piece, so a sync run sees the time pass under keep-alive bytes); an SDK that
    #: parses the stream itself swallows them until its next event
    reads_bytes: bool = True
    #: the SDK's own retries turned off for the user's own call (``with_options``...)
    no_retries: Callable[[Any], Any] = lambda client: client
    #: the credential the client sends (what must never reach an event)
    key: str = KEY
    #: whether the broken recording's in-stream error is one the vendor marks transient:
    #: an overloaded / server / throttling error type; not Cohere's bare ``finish_reason``
    #: ``ERROR`` nor Ollama's untyped ``{"error": ...}`` line without a busy/overloaded/
    #: timeout word (neither says another attempt would help)
    stream_error_retryable: bool = True
    #: whether the SDK raises an in-stream error as an exception (``frame_run`` classifies
    #: it, its retryability known) rather than yielding it as an event for the decoder
    #: (OpenAI Responses' ``error`` event, Cohere's ``message-end`` with ``ERROR``)
    sdk_raises_stream_errors: bool = True
    #: known gaps: shared test name -> why it fails for this vendor today. Such a test runs
    #: as a strict xfail (it fails loudly once the gap is closed), never skipped
    gaps: dict[str, str] = field(default_factory=dict)

    def client(self, base_url: str, is_async: bool) -> Any:
        return (self.async_client if is_async else self.sync_client)(base_url)

    def code_of(self, error_type: str, status: int) -> str:
        """``RUN_ERROR.code`` for an HTTP error answer of ``error_type`` at ``status``."""
        return error_type if self.typed_errors else f"http_{status}"

    @property
    def error_code(self) -> str:
        """The code of the documented 400."""
        return self.code_of(self.error_type, 400)


def _gemini(base_url: str) -> Any:
    return genai.Client(api_key=GOOGLE_KEY, http_options=gemini_http(base_url=base_url))


def _gemini_async(base_url: str) -> Any:
    return _gemini(base_url).aio


def ndjson_lines(body: bytes) -> list[bytes]:
    """An NDJSON body cut after each line; the pieces join back to ``body``."""
    return [line for line in body.splitlines(keepends=True) if line]


def eventstream_messages(body: bytes) -> list[bytes]:
    """An AWS event-stream body cut into its messages (each starts with its total length)."""
    out: list[bytes] = []
    at = 0
    while at < len(body):
        size = int.from_bytes(body[at : at + 4], "big")
        assert size >= 16, f"not an event-stream message at byte {at}"
        out.append(body[at : at + size])
        at += size
    return out


#: the AWS credentials the Bedrock client signs with (SigV4: plain HTTP to the fake is fine)
AWS_KEY_ID = "AKIAFAKEFAKEFAKEFAKE"
AWS_SECRET = "fakeSecretKeyThatIsNotARealOneAtAll0000000"


def _bedrock(base_url: str) -> Any:
    """boto3's client; ``toolwire.arun`` reads it in worker threads (aiobotocore has its
    own tests in tests/vendor_bedrock)."""
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=base_url,
        aws_access_key_id=AWS_KEY_ID,
        aws_secret_access_key=AWS_SECRET,
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}, read_timeout=10),
    )


def _ollama(base_url: str) -> Any:
    return ollama.Client(host=base_url, headers={"authorization": f"Bearer {KEY}"})


def _ollama_async(base_url: str) -> Any:
    return ollama.AsyncClient(host=base_url, headers={"authorization": f"Bearer {KEY}"})


def _mistral(base_url: str) -> Any:
    return Mistral(api_key=KEY, server_url=base_url)


def _cohere(base_url: str) -> Any:
    return cohere.ClientV2(api_key=KEY, base_url=base_url)


def _cohere_async(base_url: str) -> Any:
    return cohere.AsyncClientV2(api_key=KEY, base_url=base_url)


MESSAGES = [{"role": "user", "content": "hi"}]


def _anthropic_error(status: int, kind: str, message: str) -> tuple[dict[str, Any], dict[str, str]]:
    return {"type": "error", "error": {"type": kind, "message": message}}, {}


def _openai_error(status: int, kind: str, message: str) -> tuple[dict[str, Any], dict[str, str]]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}, {}


def _gemini_error(status: int, kind: str, message: str) -> tuple[dict[str, Any], dict[str, str]]:
    return {"error": {"code": status, "message": message, "status": kind}}, {}


def _bedrock_error(status: int, kind: str, message: str) -> tuple[dict[str, Any], dict[str, str]]:
    """AWS's JSON protocol: the message in the body, the type in ``x-amzn-errortype``."""
    return {"message": message}, {"x-amzn-errortype": f"{kind}:http://internal.amazon.com/"}


def _ollama_error(status: int, kind: str, message: str) -> tuple[dict[str, Any], dict[str, str]]:
    return {"error": message}, {}  # the server's words only, no type


def _mistral_error(status: int, kind: str, message: str) -> tuple[dict[str, Any], dict[str, str]]:
    body = {"object": "error", "message": message, "type": kind, "param": None, "code": "1500"}
    return body, {}


def _cohere_error(status: int, kind: str, message: str) -> tuple[dict[str, Any], dict[str, str]]:
    return {"message": message}, {}  # a message only, no type


def _awaited(call: SdkCall) -> SdkCall:
    """An async SDK call whose result is awaited (the SDKs whose create is a coroutine)."""

    async def go(client: Any, model: str) -> Any:
        return await call(client, model)

    return go


def _bedrock_stream(client: Any, model: str) -> Any:
    said = [{"role": "user", "content": [{"text": "hi"}]}]
    return client.converse_stream(modelId=model, messages=said)["stream"]


async def _bedrock_astream(client: Any, model: str) -> Any:
    """boto3 has no async client: its stream read in worker threads, as an async user
    of boto3 reads it."""
    events = await asyncio.to_thread(lambda: iter(_bedrock_stream(client, model)))
    done = object()
    while (event := await asyncio.to_thread(next, events, done)) is not done:
        yield event


def _bedrock_path(model: str) -> tuple[str, str]:
    return f"/model/{model}/", "/converse-stream"


def _gemini_path(model: str) -> tuple[str, str]:
    return model, "alt=sse"


def _stainless_no_retries(client: Any) -> Any:
    return client.with_options(max_retries=0)


def _anthropic_stream(client: Any, model: str) -> Any:
    return client.messages.create(model=model, max_tokens=64, messages=MESSAGES, stream=True)


def _chat_stream(client: Any, model: str) -> Any:
    return client.chat.completions.create(model=model, messages=MESSAGES, stream=True)


def _responses_stream(client: Any, model: str) -> Any:
    return client.responses.create(model=model, input="hi", stream=True)


def _gemini_stream(client: Any, model: str) -> Any:
    return client.models.generate_content_stream(model=model, contents="hi")


def _ollama_stream(client: Any, model: str) -> Any:
    return client.chat(model=model, messages=MESSAGES, stream=True)


def _mistral_stream(client: Any, model: str) -> Any:
    return client.chat.stream(model=model, messages=MESSAGES)


def _mistral_astream(client: Any, model: str) -> Any:
    return client.chat.stream_async(model=model, messages=MESSAGES)


def _cohere_stream(client: Any, model: str) -> Any:
    return client.chat_stream(model=model, messages=MESSAGES)


_BY_VENDOR = {
    c.vendor: c
    for c in [
        Case(
            "anthropic",
            "anthropic/thinking_tool_use_signature.yaml",
            "anthropic/overloaded_error.yaml",
            "claude-sonnet-4-5",
            _anthropic_error,
            "invalid_request_error",
            "max_tokens: bad",
            lambda u: anthropic.Anthropic(api_key=KEY, base_url=u, http_client=anthropic_http()),
            lambda u: anthropic.AsyncAnthropic(
                api_key=KEY, base_url=u, http_client=anthropic_http(is_async=True)
            ),
            _anthropic_stream,
            _awaited(_anthropic_stream),
            no_retries=_stainless_no_retries,
        ),
        Case(
            "openai_chat",
            "openai_chat/parallel_three_interleaved.yaml",
            "openai_chat/in_stream_error.yaml",
            "gpt-4.1",
            _openai_error,
            "invalid_request_error",
            "Invalid 'messages[0].role'",
            lambda u: openai.OpenAI(api_key=KEY, base_url=u + "/v1", http_client=openai_http()),
            lambda u: openai.AsyncOpenAI(
                api_key=KEY, base_url=u + "/v1", http_client=openai_http(is_async=True)
            ),
            _chat_stream,
            _awaited(_chat_stream),
            no_retries=_stainless_no_retries,
        ),
        Case(
            "openai_responses",
            "openai_responses/reasoning_parallel_calls.yaml",
            "openai_responses/error_event.yaml",
            "gpt-4.1",
            _openai_error,
            "invalid_request_error",
            "Unsupported parameter: 'temperature'",
            lambda u: openai.OpenAI(api_key=KEY, base_url=u + "/v1", http_client=openai_http()),
            lambda u: openai.AsyncOpenAI(
                api_key=KEY, base_url=u + "/v1", http_client=openai_http(is_async=True)
            ),
            _responses_stream,
            _awaited(_responses_stream),
            {"api": "responses"},
            no_retries=_stainless_no_retries,
            sdk_raises_stream_errors=False,
        ),
        Case(
            "gemini",
            "gemini/gemini3_parallel_calls_signature.yaml",
            "gemini/stream_error.yaml",
            "gemini-3-pro-preview",
            _gemini_error,
            "INVALID_ARGUMENT",
            "Invalid JSON payload",
            _gemini,
            _gemini_async,
            _gemini_stream,
            _awaited(_gemini_stream),
            path_says=_gemini_path,
            keep_alive=b"\n",  # google-genai takes no SSE comment
            reads_bytes=False,
            key=GOOGLE_KEY,
        ),
        Case(
            "bedrock",
            "bedrock/interleaved_tool_use.yaml",
            "bedrock/throttling_exception.yaml",
            "us.anthropic.claude-sonnet-4-20250514-v1:0",
            _bedrock_error,
            "ValidationException",
            "The provided model identifier is invalid.",
            _bedrock,
            _bedrock,  # toolwire.arun reads a boto3 client in worker threads
            _bedrock_stream,
            _bedrock_astream,
            frames=eventstream_messages,
            path_says=_bedrock_path,
            keep_alive=None,
            key=AWS_KEY_ID,  # SigV4: the key id goes out in the signature's credential
        ),
        Case(
            "ollama",
            "ollama/parallel_three_calls.yaml",
            "ollama/in_stream_error.yaml",
            "qwen3:8b",
            _ollama_error,
            "error",
            "model 'qwen3:8b' not found",
            _ollama,
            _ollama_async,
            _ollama_stream,
            _awaited(_ollama_stream),
            typed_errors=False,
            frames=ndjson_lines,
            keep_alive=b"\n",
            stream_error_retryable=False,
            gaps={
                "test_a_clean_sdk_stream_frames_as_the_offline_decode": (
                    "the SDK's ChatResponse drops the tool call ids the bytes hold "
                    "(adapters/ollama/client.py reads the bytes for that)"
                ),
            },
        ),
        Case(
            "mistral",
            "mistral/parallel_three_calls.yaml",
            "mistral/in_stream_error.yaml",
            "mistral-large-latest",
            _mistral_error,
            "invalid_model",
            "Invalid model: mistral-larg",
            _mistral,
            _mistral,  # one client, both sides
            _mistral_stream,
            _awaited(_mistral_astream),
        ),
        Case(
            "cohere",
            "cohere/parallel_three_calls.yaml",
            "cohere/in_stream_error.yaml",
            "command-a-03-2025",
            _cohere_error,
            "invalid_request",
            "invalid request: model 'command-x' not found",
            _cohere,
            _cohere_async,
            _cohere_stream,
            _cohere_stream,  # an async generator, not a coroutine
            typed_errors=False,
            stream_error_retryable=False,
            sdk_raises_stream_errors=False,
        ),
    ]
}

#: One case per model adapter, in the registry's order: a model adapter without a case
#: fails tests/driver/test_driver_covers_the_registry.py, naming it.
CASES = [_BY_VENDOR[name] for name in adapters.model_names() if name in _BY_VENDOR]
CASE_IDS = [c.vendor for c in CASES]


def cases(test: str) -> list[Any]:
    """``CASES`` as the parameters of the shared test ``test``: a case with a known gap
    there runs as a strict xfail naming why."""
    out: list[Any] = []
    for case in CASES:
        reason = case.gaps.get(test)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        out.append(pytest.param(case, id=case.vendor, marks=marks))
    return out


def _framed(case: Case, reply: Reply) -> list[bytes]:
    if case.frames is None:
        return list(reply.chunks)
    return case.frames(b"".join(reply.chunks))


def clean_reply(case: Case, **kw: Any) -> Reply:
    [reply] = replies_from_cassette(CASSETTES / case.clean)
    return Reply(status=reply.status, headers=reply.headers, chunks=_framed(case, reply), **kw)


def broken_reply(case: Case) -> Reply:
    [reply] = replies_from_cassette(CASSETTES / case.broken)
    return Reply(status=reply.status, headers=reply.headers, chunks=_framed(case, reply))


#: the events that carry a turn's content
_CONTENT = frozenset(
    {
        EventType.TEXT_MESSAGE_START,
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.REASONING_START,
        EventType.REASONING_MESSAGE_START,
        EventType.REASONING_MESSAGE_CONTENT,
    }
)


def error_before_first_delta(case: Case) -> Reply:
    """The recorded in-stream error with the frames that carry the turn taken out: only
    the frames that say nothing of it (Anthropic ``message_start``, Responses
    ``response.created``, Bedrock ``messageStart`` ...) and the error itself are left.
    Which frame says what is read through the adapter's own framing and decoder."""
    reply = broken_reply(case)
    adapter = adapters.get(case.vendor)
    decoder = adapter.Decoder()
    kept: list[bytes] = []
    for piece in reply.chunks:
        try:
            said = [ev for chunk in adapter.FRAMING.read(piece) for ev in decoder.feed(chunk)]
        except VendorStreamError:
            kept.append(piece)  # the vendor's error: nothing after it matters
            break
        if not any(ev.type in _CONTENT for ev in said):
            kept.append(piece)
    else:
        raise AssertionError(f"{case.broken} holds no in-stream error")
    assert kept != reply.chunks
    return Reply(status=reply.status, headers=reply.headers, chunks=kept)


def error_reply(
    case: Case,
    status: int,
    error_type: str | None = None,
    message: str | None = None,
    **headers: str,
) -> Reply:
    """The vendor's own error answer at ``status`` (the case's documented 400 type and
    message unless given), with ``headers`` added."""
    kind = case.error_type if error_type is None else error_type
    said = case.error_message if message is None else message
    body, vendor_headers = case.error_answer(status, kind, said)
    return Reply(
        status=status,
        headers={"content-type": "application/json", **vendor_headers, **headers},
        chunks=[json.dumps(body).encode()],
    )


def run_input(case: Case, **extra: Any) -> dict[str, Any]:
    """The recorded request of the clean cassette, as AG-UI (the CLI reads it the same way)."""
    [ex] = recording(CASSETTES / case.clean)
    data: dict[str, Any]
    if ex.request_body is None:  # recorded without its request: one question, one tool
        data = {
            "messages": [{"id": "u1", "role": "user", "content": "Weather in Paris and Tokyo?"}],
            "tools": [{"name": "get_weather", "description": "Weather.", "parameters": TOOL}],
            "state": None,
            "context": [],
            "forwardedProps": {},
        }
    else:
        ri = adapters.get(case.vendor).decode_request(ex.request_body)
        data = ri.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.update(threadId="thread-1", runId="run-1", protocolVersion=PROTOCOL_VERSION)
    data.update(extra)
    return data


#: a 1x1 PNG
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJ"
    "RU5ErkJggg=="
)


def answered_with_image(case: Case, *, legacy: bool = False) -> dict[str, Any]:
    """Run 2 of a frontend-tool loop: the UI answered the call with text and an image."""
    ri = run_input(case)
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
    }
    ri["messages"] = [
        {"id": "u1", "role": "user", "content": "Weather in Oslo?"},
        {"id": "a1", "role": "assistant", "toolCalls": [call]},
        {
            "id": "t1",
            "role": "tool",
            "toolCallId": "call_1",
            "content": [
                {"type": "text", "text": "Sunny, 21 C"},
                {
                    "type": "image",
                    "source": {"type": "data", "value": PNG, "mimeType": "image/png"},
                },
            ],
        },
    ]
    if legacy:
        del ri["protocolVersion"]
    return ri


def dump(ev: BaseEvent) -> dict[str, Any]:
    return ev.model_dump(mode="json", by_alias=True, exclude_none=True)


def comparable(events: list[BaseEvent]) -> list[dict[str, Any]]:
    """A run without what differs between an online and an offline decode of the same
    bytes: RUN_STARTED (its input), the run ids and the driver's own RUN_ERROR facts."""
    out = []
    for ev in events:
        d = dump(ev)
        if ev.type == EventType.RUN_STARTED:
            continue
        d.pop("threadId", None)
        d.pop("runId", None)
        d.pop("timestamp", None)
        if ev.type == EventType.RUN_ERROR and "metadata" in d:
            d["metadata"] = {
                k: v for k, v in d["metadata"].items() if not k.startswith("toolwire.")
            }
            if not d["metadata"]:
                del d["metadata"]
        out.append(d)
    return out


def offline(case: Case, cassette: str) -> list[BaseEvent]:
    """The CLI's decode of the recorded bytes (no SDK, no HTTP)."""
    path = CASSETTES / cassette
    return list(cli.decode_runs(adapters.get(case.vendor), path.read_bytes(), str(path)))


def check_run(events: list[BaseEvent], tmp_path: Path) -> None:
    """One run, no event twice, and ``toolwire validate`` accepts it."""
    types = [ev.type for ev in events]
    assert types[0] == EventType.RUN_STARTED
    assert types.count(EventType.RUN_STARTED) == 1
    assert types[-1] in (EventType.RUN_FINISHED, EventType.RUN_ERROR)
    assert types.count(EventType.RUN_FINISHED) + types.count(EventType.RUN_ERROR) == 1
    for kind, key in (
        (EventType.TEXT_MESSAGE_START, "message_id"),
        (EventType.TOOL_CALL_START, "tool_call_id"),
        (EventType.REASONING_MESSAGE_START, "message_id"),
    ):
        ids = [getattr(ev, key) for ev in events if ev.type == kind]
        assert len(ids) == len(set(ids)), f"{kind.value} repeated: {ids}"
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(dump(ev)) + "\n" for ev in events))
    out = io.StringIO()
    assert cli.cmd_validate(argparse.Namespace(file=str(path)), out) == 0  # `toolwire validate`
    assert out.getvalue().startswith(f"valid: {len(events)} events, 1 run(s)")


def no_secret(events: list[BaseEvent], *secrets: str) -> None:
    text = json.dumps([dump(ev) for ev in events])
    for secret in secrets:
        assert secret not in text
        assert secret[-12:] not in text


def close_client(client: Any) -> None:
    """The client's pool closed: its own ``close``, or (Mistral's and Cohere's SDKs have
    none) the httpx clients it holds."""
    closing = getattr(client, "close", None)
    if closing is not None:
        closing()
        return
    config = getattr(client, "sdk_configuration", None)  # Mistral
    wrapper = getattr(client, "_client_wrapper", None)  # Cohere
    held = [getattr(config, "client", None)]
    held.append(getattr(getattr(wrapper, "httpx_client", None), "httpx_client", None))
    for http in held:
        if http is not None and callable(getattr(http, "close", None)):
            http.close()


async def aclose_client(client: Any) -> None:
    closing = getattr(client, "aclose", None) or getattr(client, "close", None)
    if closing is None:  # Mistral's and Cohere's SDKs: the adapter knows where the pool is
        for name in adapters.model_names():
            if adapters.client(name).claims(client, None):
                await adapters.client(name).aclose(client)
        return
    result = closing()
    if inspect.isawaitable(result):  # boto3's close is not a coroutine
        await result


#: retries whose waits do not slow a test down
FAST = toolwire.RetryPolicy(initial_backoff=0.01, max_backoff=0.05)


def run_case(
    case: Case, fv: FakeVendor, run_input: Any, is_async: bool, **kw: Any
) -> list[BaseEvent]:
    """One run of ``run_input`` over the case's client pointed at ``fv`` (``toolwire.run``,
    or ``toolwire.arun`` in a new event loop), FAST retries, the case's options and
    ``kw``; the client closed after."""
    opts = {"retry": FAST, **case.kwargs, **kw}
    if is_async:

        async def go() -> list[BaseEvent]:
            client = case.client(fv.base_url, True)
            try:
                runs = toolwire.arun(client, run_input, model=case.model, **opts)
                return [ev async for ev in runs]
            finally:
                await aclose_client(client)

        return asyncio.run(go())
    client = case.client(fv.base_url, False)
    try:
        return list(toolwire.run(client, run_input, model=case.model, **opts))
    finally:
        close_client(client)


def vendor_call_id(case: Case, call_id: str) -> str:
    """The id the vendor itself would give a scripted call: ``call_id`` where the adapter's
    documented id rule (``CALL_ID_RULE``) takes it, else the stand-in that rule mints for
    it (Mistral's nine letters and digits), as its encoder sends it."""
    rule = adapters.model(case.vendor).CALL_ID_RULE
    return call_id if rule.why_not(call_id) is None else rule.conforming(call_id)


def split_half(reply: Reply) -> int:
    return max(1, len(reply.chunks) // 2)


__all__ = [
    "CASES",
    "CASE_IDS",
    "CASSETTES",
    "KEY",
    "Case",
    "aclose_client",
    "broken_reply",
    "cases",
    "check_run",
    "clean_reply",
    "close_client",
    "comparable",
    "dump",
    "error_before_first_delta",
    "error_reply",
    "no_secret",
    "offline",
    "run_input",
    "split_events",
    "split_half",
    "vendor_call_id",
]


def recorded_error_type(case: Case) -> str:
    """The error type the broken recording's own bytes state: what RUN_ERROR.code must
    carry. Read here from the bytes as each vendor writes an error, apart from the code
    under test: an ``error`` object's ``type`` (Anthropic, OpenAI Chat) or ``status``
    (Gemini), a Responses ``error`` event's ``code``, a Mistral error object's ``type``,
    an AWS event-stream exception's ``:exception-type`` header (Bedrock), a Cohere
    ``finish_reason`` ``ERROR``; Ollama's ``{"error": "..."}`` line names no type, which
    the decoders call ``error``."""
    raw = b"".join(broken_reply(case).chunks)
    body = raw.decode("utf-8", "replace")
    found = []
    for m in re.finditer(r'"error"\s*:\s*\{', body):
        obj, _ = json.JSONDecoder().raw_decode(body, m.end() - 1)
        kind = obj.get("type") or obj.get("status")
        if isinstance(kind, str):
            found.append(kind)
    for m in re.finditer(r'\{"type"\s*:\s*"error"', body):
        obj, _ = json.JSONDecoder().raw_decode(body, m.start())
        if isinstance(obj.get("code"), str):
            found.append(obj["code"])
    for m in re.finditer(r'\{"object"\s*:\s*"error"', body):
        obj, _ = json.JSONDecoder().raw_decode(body, m.start())
        if isinstance(obj.get("type"), str):
            found.append(obj["type"])
    found += re.findall(r'"finish_reason"\s*:\s*"(ERROR)"', body)
    found += ["error" for _ in re.finditer(r'(?m)^\{"error"\s*:\s*"', body)]
    # an AWS event-stream header: name, type 7 (a string), a 2-byte length, the value
    for m in re.finditer(rb":exception-type\x07", raw):
        size = int.from_bytes(raw[m.end() : m.end() + 2], "big")
        found.append(raw[m.end() + 2 : m.end() + 2 + size].decode())
    assert len(set(found)) == 1, found  # the recording states one error
    return found[0]
