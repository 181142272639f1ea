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
from ag_ui.core import PROTOCOL_VERSION, BaseEvent, EventType
from botocore.config import Config
from google import genai
from mistralai.client import Mistral

import toolwire
from toolwire import adapters, cli
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


@dataclass(frozen=True)
class Case:
    vendor: str  # the adapter
    clean: str  # a recorded turn that ends with frontend calls pending
    broken: str  # a recorded turn with an in-stream vendor error after the first delta
    lifecycle: frozenset[str]  # SSE event names that carry nothing of the turn
    model: str
    error_body: dict[str, Any]  # the vendor's documented HTTP error body
    error_code: str  # its error type, as RUN_ERROR.code must carry it
    sync_client: Callable[[str], Any]
    async_client: Callable[[str], Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: headers the vendor sends with its error body (Bedrock names the error type in one)
    error_headers: dict[str, str] = field(default_factory=dict)
    #: a recorded body cut into the vendor's own frames, when the cassette holds it whole
    #: (NDJSON lines, AWS event-stream messages): what cancel and split tests cut between
    frames: Callable[[bytes], list[bytes]] | None = None

    @property
    def key(self) -> str:
        return GOOGLE_KEY if self.vendor == "gemini" else KEY

    def client(self, base_url: str, is_async: bool) -> Any:
        return (self.async_client if is_async else self.sync_client)(base_url)


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


CASES = [
    Case(
        "anthropic",
        "anthropic/thinking_tool_use_signature.yaml",
        "anthropic/overloaded_error.yaml",
        frozenset({"message_start", "ping"}),
        "claude-sonnet-4-5",
        {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: bad"}},
        "invalid_request_error",
        lambda u: anthropic.Anthropic(api_key=KEY, base_url=u, http_client=anthropic_http()),
        lambda u: anthropic.AsyncAnthropic(
            api_key=KEY, base_url=u, http_client=anthropic_http(is_async=True)
        ),
    ),
    Case(
        "openai_chat",
        "openai_chat/parallel_three_interleaved.yaml",
        "openai_chat/in_stream_error.yaml",
        frozenset(),
        "gpt-4.1",
        {
            "error": {
                "message": "Invalid 'messages[0].role'",
                "type": "invalid_request_error",
                "param": "messages",
                "code": None,
            }
        },
        "invalid_request_error",
        lambda u: openai.OpenAI(api_key=KEY, base_url=u + "/v1", http_client=openai_http()),
        lambda u: openai.AsyncOpenAI(
            api_key=KEY, base_url=u + "/v1", http_client=openai_http(is_async=True)
        ),
    ),
    Case(
        "openai_responses",
        "openai_responses/reasoning_parallel_calls.yaml",
        "openai_responses/error_event.yaml",
        frozenset({"response.created", "response.in_progress"}),
        "gpt-4.1",
        {
            "error": {
                "message": "Unsupported parameter: 'temperature'",
                "type": "invalid_request_error",
                "param": "temperature",
                "code": "unsupported_parameter",
            }
        },
        "invalid_request_error",
        lambda u: openai.OpenAI(api_key=KEY, base_url=u + "/v1", http_client=openai_http()),
        lambda u: openai.AsyncOpenAI(
            api_key=KEY, base_url=u + "/v1", http_client=openai_http(is_async=True)
        ),
        {"api": "responses"},
    ),
    Case(
        "gemini",
        "gemini/gemini3_parallel_calls_signature.yaml",
        "gemini/stream_error.yaml",
        frozenset(),
        "gemini-3-pro-preview",
        {"error": {"code": 400, "message": "Invalid JSON payload", "status": "INVALID_ARGUMENT"}},
        "INVALID_ARGUMENT",
        _gemini,
        _gemini_async,
    ),
]

#: The cases of the four model adapters merged last (real SDK clients, recordings cut into
#: frames, documented error bodies). Not in CASES yet: the shared suites still hard-code
#: OpenAI/Anthropic-shaped facts (error bodies, SSE event names, ``with_options``, request
#: keys) that fail for them; see the fixa report for the list. Move them into CASES as each
#: shared test reads its vendor facts from the case.
NEW_CASES = [
    Case(
        "bedrock",
        "bedrock/interleaved_tool_use.yaml",
        "bedrock/throttling_exception.yaml",
        frozenset({"messageStart"}),
        "us.anthropic.claude-sonnet-4-20250514-v1:0",
        {"message": "The provided model identifier is invalid."},
        "ValidationException",
        _bedrock,
        _bedrock,
        error_headers={"x-amzn-errortype": "ValidationException:http://internal.amazon.com/"},
        frames=eventstream_messages,
    ),
    Case(
        "ollama",
        "ollama/parallel_three_calls.yaml",
        "ollama/in_stream_error.yaml",
        frozenset(),
        "qwen3:8b",
        {"error": "model 'qwen3:8b' not found"},
        "error",
        _ollama,
        _ollama_async,
        frames=ndjson_lines,
    ),
    Case(
        "mistral",
        "mistral/parallel_three_calls.yaml",
        "mistral/in_stream_error.yaml",
        frozenset(),
        "mistral-large-latest",
        {
            "object": "error",
            "message": "Invalid model: mistral-larg",
            "type": "invalid_model",
            "param": None,
            "code": "1500",
        },
        "invalid_model",
        _mistral,
        _mistral,
    ),
    Case(
        "cohere",
        "cohere/parallel_three_calls.yaml",
        "cohere/in_stream_error.yaml",
        frozenset(),
        "command-a-03-2025",
        {"message": "invalid request: model 'command-x' not found"},
        "http_400",
        _cohere,
        _cohere_async,
    ),
]

CASE_IDS = [c.vendor for c in CASES]


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


_EVENT_NAME = re.compile(rb"^event: *(\S+)", re.M)


def error_before_first_delta(case: Case) -> Reply:
    """The recorded in-stream error with the events that carry the turn taken out: only
    the lifecycle events (Anthropic ``message_start``, Responses ``response.created``)
    and the error itself are left."""
    reply = broken_reply(case)
    kept = []
    for piece in reply.chunks:
        if piece.lstrip().startswith(b"{"):  # Gemini: the error written as plain JSON lines
            kept.append(piece)
            continue
        m = _EVENT_NAME.search(piece)
        name = m.group(1).decode() if m else None
        data = piece.split(b"data:", 1)[-1]
        if name in case.lifecycle or name == "error" or b'"error"' in data[:12]:
            kept.append(piece)
    assert kept and kept != reply.chunks
    return Reply(status=reply.status, headers=reply.headers, chunks=kept)


def error_reply(
    case: Case, status: int, body: dict[str, Any] | None = None, **headers: str
) -> Reply:
    payload = json.dumps(case.error_body if body is None else body).encode()
    return Reply(
        status=status,
        headers={"content-type": "application/json", **case.error_headers, **headers},
        chunks=[payload],
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
]


def recorded_error_type(case: Case) -> str:
    """The error type the broken recording's own bytes state (Anthropic/OpenAI Chat
    ``error.type``, Gemini ``error.status``, a Responses ``error`` event's ``code``): what
    RUN_ERROR.code must carry."""
    body = b"".join(broken_reply(case).chunks).decode()
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
    assert len(set(found)) == 1, found  # the recording states one error
    return found[0]
