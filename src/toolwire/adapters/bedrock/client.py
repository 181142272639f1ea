"""boto3's ``bedrock-runtime`` client, for the drivers (the contract's ``VendorClient``).

A run streams ``converse_stream``. toolwire reads the response's raw event-stream bytes with
its own frame reader (``toolwire.protocol.eventstream``) where botocore exposes them (its
``EventStream`` wraps the HTTP body, which it reads with ``.stream()``; aiobotocore's with
``.content.iter_chunks()``), else it takes the SDK's event dicts, which the decoder reads
alike. botocore raises an exception frame as ``EventStreamError``: on the SDK path it
becomes the same ``{exceptionType: {...}}`` chunk the frame reader gives, so the decoder
names it the same way.

botocore's own retries are switched off for toolwire's call only: a ``needs-retry``
handler registered first on the client answers "no retry" while toolwire's call runs (a
context variable says so) and nothing otherwise, so the caller's client keeps its
behaviour for every other call. The async path is aiobotocore's client (the
``bedrock-async`` extra installs it); a plain boto3 client is sync only.

A long conversation is built off the event loop: botocore validates and serializes the
request in Python inside the awaited call (~10 µs a message), which on a server's loop would
hold every other stream up. For a large request (:data:`OFF_LOOP_FROM`) the client's own
hooks do it elsewhere: the last ``before-parameter-build`` handler serializes the final
parameters with botocore's serializer (the client's protocol and validation) in a worker
thread and leaves the SDK an empty conversation in their place, and the first
``before-call`` handler puts the real body back before the request is signed: the body,
its length and its signature are those the SDK would have made.

Credentials never leave through toolwire: SigV4's ``Authorization`` and
``X-Amz-Security-Token`` headers (and a bearer key's ``Authorization``) are secret
headers, ``X-Amz-Signature`` / ``X-Amz-Credential`` / ``X-Amz-Security-Token`` secret query
keys (a presigned URL), and :meth:`BedrockClient.secrets` lists the client's key values so
a run masks them. ``X-Amz-Date`` is not secret (a timestamp; a cassette matcher ignores it).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from toolwire import clients
from toolwire.adapters.bedrock.wire import (
    FRAMING,
    RETRYABLE_ERRORS,
    VENDOR,
    add_options,
    to_boto3,
)
from toolwire.errors import UnsupportedInput, VendorStreamError

#: the operations a run calls (the events the no-retry handler is registered for)
_OPERATIONS = ("ConverseStream", "Converse")
_SERVICE = "bedrock-runtime"
#: set while toolwire's own call runs: botocore's retry handlers are answered "no"
_NO_SDK_RETRY: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "toolwire_bedrock_no_sdk_retry", default=False
)


def _no_retry(**_: Any) -> bool | None:
    """botocore's ``needs-retry``: ``False`` (do not retry, and stop asking the others)
    during toolwire's call, ``None`` (no opinion) otherwise."""
    return False if _NO_SDK_RETRY.get() else None


#: extra headers (the trace context) for the request toolwire's call is sending now
_HEADERS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "toolwire_bedrock_headers", default=None
)


def _add_headers(request: Any, **_: Any) -> None:
    """botocore's ``before-send``: the held headers on toolwire's request (after signing:
    they are not signed, which SigV4 allows); nothing otherwise."""
    headers = _HEADERS.get()
    if headers:
        for name, value in headers.items():
            request.headers[name] = value


def _sdk_retries_off(client: Any) -> None:
    events = client.meta.events
    for op in _OPERATIONS:
        events.register_first(
            f"needs-retry.{_SERVICE}.{op}", _no_retry, unique_id=f"toolwire-no-retry-{op}"
        )
    events.register_first(
        f"before-send.{_SERVICE}", _add_headers, unique_id="toolwire-trace-headers"
    )


#: the conversation's members: their values are what makes a request long
_CONVERSATION = ("system", "messages", "toolConfig")
#: a request with this many parts (messages, their content blocks, system blocks, tools) or
#: more is converted and serialized in worker threads; below it the hop to a thread and back
#: costs more than the work (~10 µs a part) on a busy loop
OFF_LOOP_FROM = 64


def large(body: dict[str, Any]) -> bool:
    """Whether a request body has :data:`OFF_LOOP_FROM` parts botocore walks one by one
    (messages, their content blocks, system blocks, tools) or more: counted until there are
    that many, so a long history costs the loop no walk of its own."""
    parts = 0
    system = body.get("system")
    parts += len(system) if isinstance(system, list) else 0
    tools = body.get("toolConfig")
    tools = tools.get("tools") if isinstance(tools, dict) else None
    parts += len(tools) if isinstance(tools, list) else 0
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else ():
        if parts >= OFF_LOOP_FROM:
            return True
        content = message.get("content") if isinstance(message, dict) else None
        parts += 1 + (len(content) if isinstance(content, list) else 0)
    return parts >= OFF_LOOP_FROM


@dataclass
class _OffLoop:
    """toolwire's current call is built off the loop: the serializer to build it with, then
    the real body the ``before-call`` hook puts in place of the stand-in's."""

    serializer: Any
    body: Any = None


#: set around toolwire's awaited call of a large request
_OFF_LOOP: contextvars.ContextVar[_OffLoop | None] = contextvars.ContextVar(
    "toolwire_bedrock_off_loop", default=None
)


def _serializer(client: Any) -> Any:
    """botocore's serializer as the client makes its own: its protocol, its validation."""
    from botocore.serialize import create_serializer  # type: ignore[import-untyped, unused-ignore]

    model = client.meta.service_model
    protocol = getattr(model, "resolved_protocol", None) or model.protocol
    return create_serializer(protocol, bool(client.meta.config.parameter_validation))


def _stand_in(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with an empty conversation: a list member empty, another left out."""
    out = {k: v for k, v in params.items() if k not in _CONVERSATION or type(v) is list}
    for key in _CONVERSATION:
        if type(out.get(key)) is list:
            out[key] = []
    return out


def _built(
    serializer: Any, params: dict[str, Any], model: Any
) -> tuple[Any, dict[str, Any]] | None:
    """In a worker thread: the body botocore makes of ``params``, and the stand-in parameters
    whose request differs from it in the body only. ``None`` when the parameters fail
    validation or the stand-in's request differs otherwise: the SDK then builds the request
    itself, as always, and raises its own error in its own order."""
    try:
        real = serializer.serialize_to_request(params, model)
        stand_in = _stand_in(params)
        small = serializer.serialize_to_request(stand_in, model)
    except Exception:
        return None
    if {k: v for k, v in real.items() if k != "body"} != {
        k: v for k, v in small.items() if k != "body"
    }:
        return None
    return real["body"], stand_in


async def _build_off_loop(params: dict[str, Any], model: Any, **_: Any) -> None:
    """aiobotocore's ``before-parameter-build``, registered last (after every handler that
    may change the parameters): for toolwire's large call, the request body built in a worker
    thread and the parameters replaced by their stand-in; nothing otherwise."""
    off = _OFF_LOOP.get()
    if off is None or off.body is not None:
        return
    built = await asyncio.to_thread(_built, off.serializer, params, model)
    if built is None:
        return
    off.body, stand_in = built
    params.clear()
    params.update(stand_in)


def _put_body(params: dict[str, Any], **_: Any) -> None:
    """botocore's ``before-call``, registered first: the body built off the loop in place of
    the stand-in's, before the request is made and signed (its length and signature follow
    the body); nothing otherwise."""
    off = _OFF_LOOP.get()
    if off is not None and off.body is not None:
        params["body"], off.body = off.body, None


def _off_loop_hooks(client: Any) -> None:
    """The two hooks on the client, the build registered last anew for each call: after
    every parameter handler the caller registered so far, ``register_last`` ones included."""
    events = client.meta.events
    build = f"before-parameter-build.{_SERVICE}.ConverseStream"
    events.unregister(build, unique_id="toolwire-off-loop-build")
    events.register_last(build, _build_off_loop, unique_id="toolwire-off-loop-build")
    events.register_first(
        f"before-call.{_SERVICE}.ConverseStream", _put_body, unique_id="toolwire-off-loop-body"
    )


def _service_name(client: Any) -> str | None:
    meta = getattr(client, "meta", None)
    model = getattr(meta, "service_model", None)
    name = getattr(model, "service_name", None)
    return name if isinstance(name, str) else None


class _Headers(dict[str, str]):
    """A response's headers, lower-cased (what ``failures`` reads ``retry-after`` from)."""


class _Response:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = _Headers({k.lower(): v for k, v in headers.items()})


class BedrockHTTPError(Exception):
    """botocore's ``ClientError`` for an HTTP error answer, with the facts the drivers'
    failure classifier reads (``status_code``, the error ``body``, the response headers),
    so throttling and 5xx are retried by the driver's policy; raised ``from`` the original.
    """

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str]) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.status_code = status
        self.message = message or code
        self.body = {"error": {"type": code, "message": message or code}}
        self.response = _Response(headers)


def _http_error(exc: Exception) -> BedrockHTTPError | None:
    """The :class:`BedrockHTTPError` of a botocore ``ClientError`` with an HTTP status."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return None
    meta = response.get("ResponseMetadata")
    status = meta.get("HTTPStatusCode") if isinstance(meta, dict) else None
    if not isinstance(status, int) or status < 400:
        return None
    error = response.get("Error")
    error = error if isinstance(error, dict) else {}
    code = error.get("Code")
    message = error.get("Message")
    headers = meta.get("HTTPHeaders") if isinstance(meta, dict) else None
    return BedrockHTTPError(
        status,
        code if isinstance(code, str) and code else f"http_{status}",
        message if isinstance(message, str) else "",
        {str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {},
    )


def _call_error(exc: Exception) -> Exception | None:
    """What a failed botocore call raises as ours: its HTTP error, or a plain-HTTP endpoint
    refused for a bearer token."""
    return _http_error(exc) or _https_only(exc)


_HTTPS_ONLY = (
    f"{VENDOR}: a Bedrock API key (bearer token) is sent over HTTPS only and the endpoint "
    "is plain HTTP: give an https:// base_url, or AWS credentials (SigV4) instead of the key"
)


def _https_only(exc: Exception) -> UnsupportedInput | None:
    """botocore (1.44 on) refuses a bearer token for a plain ``http://`` endpoint itself;
    said here in terms of the agent's settings."""
    if type(exc).__name__ != "InvalidEndpointConfigurationError" or "HTTPS" not in str(exc):
        return None
    return UnsupportedInput(_HTTPS_ONLY)


def _ready(client: Any) -> None:
    """Before toolwire's call: a bearer token never goes to a plain ``http://`` endpoint,
    whatever botocore's version checks (older ones send it), and the SDK's retries are off."""
    meta = getattr(client, "meta", None)
    config = getattr(meta, "config", None)
    endpoint = str(getattr(meta, "endpoint_url", "") or "")
    if getattr(config, "signature_version", None) == "bearer" and endpoint.startswith("http:"):
        raise UnsupportedInput(_HTTPS_ONLY)
    _sdk_retries_off(client)


def _exception_chunk(exc: Exception) -> dict[str, Any] | None:
    """botocore's ``EventStreamError`` (an exception frame) as the frame reader's chunk."""
    response = getattr(exc, "response", None)
    if type(exc).__name__ != "EventStreamError" or not isinstance(response, dict):
        return None
    error = response.get("Error")
    error = error if isinstance(error, dict) else {}
    code = error.get("Code")
    message = error.get("Message")
    name = code if isinstance(code, str) and code else "internalServerException"
    return {name: {"message": message if isinstance(message, str) else ""}}


def _json_error(response: dict[str, Any]) -> VendorStreamError | None:
    """A JSON error answered with status 200 where an event stream was asked for (AWS
    answers its errors with a 4xx/5xx status; a proxy or a stand-in may not): the error it
    states (``x-amzn-errortype`` or the body's ``__type``, its ``message``), rather than a
    CRC failure of bytes that are no event stream. ``None`` for a stream."""
    meta = response.get("ResponseMetadata")
    sent = meta.get("HTTPHeaders") if isinstance(meta, dict) else None
    headers = {str(k).lower(): str(v) for k, v in sent.items()} if isinstance(sent, dict) else {}
    media = headers.get("content-type", "").lower()
    raw = getattr(response.get("stream"), "_raw_stream", None)
    read = getattr(raw, "read", None)
    if "json" not in media or "eventstream" in media or not callable(read):
        return None
    data = read()
    try:
        body = json.loads(data) if isinstance(data, (bytes, str)) else None
    except (ValueError, RecursionError):
        body = None
    body = body if isinstance(body, dict) else {}
    code = headers.get("x-amzn-errortype", "").split(":")[0] or str(body.get("__type") or "")
    code = code.rsplit("#", 1)[-1] or "error"
    message = body.get("message") or body.get("Message")
    text = message if isinstance(message, str) and message else code
    return VendorStreamError(VENDOR, code, text, retryable=code in RETRYABLE_ERRORS)


def _aws_env_values(names: tuple[str, ...]) -> set[str]:
    import os

    return {v for n in names if (v := os.environ.get(n))}


def _with_token(session: Any, token: str) -> None:
    """A botocore session that signs with ``token`` as its bearer token (a Bedrock API key)."""
    from botocore.tokens import FrozenAuthToken  # type: ignore[import-untyped, unused-ignore]

    class _Provider:
        def load_token(self, **_: Any) -> Any:
            return FrozenAuthToken(token)

    session.register_component("token_provider", _Provider())


async def _threaded(open_stream: Any) -> AsyncIterator[Any]:
    """A sync stream read in worker threads (the SDK call and each read), so a boto3 client
    serves ``arun`` without blocking the event loop; closed in a thread as well."""
    import asyncio

    done = object()
    stream = await asyncio.to_thread(open_stream)
    try:
        while True:
            item = await asyncio.to_thread(next, stream, done)
            if item is done:
                return
            yield item
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            await asyncio.to_thread(close)


@contextmanager
def _sdk_call(headers: dict[str, str]) -> Iterator[None]:
    """Around one SDK call, sync or awaited: botocore's own retries off and the caller's
    headers held for the request hook; an HTTP error answer raised as the vendor's error."""
    token = _NO_SDK_RETRY.set(True)
    held = _HEADERS.set(headers)
    try:
        yield
    except Exception as exc:
        http = _call_error(exc)
        if http is None:
            raise
        raise http from exc
    finally:
        _NO_SDK_RETRY.reset(token)
        _HEADERS.reset(held)


class AioClientHandle:
    """An aiobotocore client :meth:`BedrockClient.make_client` made: aiobotocore builds its
    clients inside an async context, so this enters it on first use and ``aclose`` leaves it.

    It holds a factory, not the context: aiobotocore's context wraps a coroutine made at once,
    which a handle built and dropped unused (a server's warm-up) would leave never awaited.
    """

    def __init__(self, make_creator: Callable[[], Any]) -> None:
        self._make_creator = make_creator
        self._creator: Any = None
        self._client: Any = None

    async def open(self) -> Any:
        if self._client is None:
            self._creator = self._make_creator()
            self._client = await self._creator.__aenter__()
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            creator, self._creator, self._client = self._creator, None, None
            await creator.__aexit__(None, None, None)


class _Events(Iterator[Any]):
    """A turn's chunks over botocore's event stream, closable from another thread while
    a read is in flight: ``arun`` reads a boto3 client in worker threads, and a cancelled
    task or a deadline closes the stream while a worker is still inside ``next``. Closing
    the generator itself then would fail ("generator already executing") and mask the
    cancellation; closing the SDK's stream ends that read, and the generator's own
    ``finally`` closes it once it runs again."""

    def __init__(self, sdk_stream: Any, chunks: Iterator[Any]) -> None:
        self._sdk_stream = sdk_stream
        self._chunks = chunks

    def __next__(self) -> Any:
        return next(self._chunks)

    def close(self) -> None:
        close = getattr(self._sdk_stream, "close", None)
        if callable(close):
            close()
        if inspect.getgeneratorstate(self._chunks) != inspect.GEN_RUNNING:  # type: ignore[arg-type]
            self._chunks.close()  # type: ignore[attr-defined]


class BedrockClient:
    """The drivers' view of a boto3 (or aiobotocore) ``bedrock-runtime`` client."""

    extras: tuple[str, ...] = ("bedrock",)
    #: where AWS's SDK finds a key (it reads them itself: these are only masked)
    key_env: tuple[str, ...] = (
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
    )
    default_model = "us.anthropic.claude-sonnet-4-20250514-v1:0"
    conversation_keys: tuple[str, ...] = _CONVERSATION
    retryable_errors = RETRYABLE_ERRORS
    secret_headers = frozenset({"authorization", "x-amz-security-token"})
    secret_query_keys = frozenset({"x-amz-signature", "x-amz-credential", "x-amz-security-token"})
    api: str | None = None
    provider_aliases: tuple[str, ...] = ("aws-bedrock", "bedrock-runtime")
    #: botocore appends ``/model/{modelId}/converse-stream`` to its endpoint URL
    endpoint_suffix = "/converse-stream"
    #: AWS access key ids (long-lived ``AKIA``, temporary ``ASIA``) and Bedrock API keys
    key_shapes: tuple[tuple[str, str], ...] = (
        ("an AWS access key id (AKIA…/ASIA…)", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        ("an Amazon Bedrock API key (ABSK…)", r"\bABSK[A-Za-z0-9+/=]{40,400}"),
    )
    #: the request id names the account's call, not the conversation
    account_headers = frozenset({"x-amzn-requestid", "x-amz-id-2"})

    # -------------------------------------------------------------- recognising

    def claims(self, client: Any, api: str | None) -> bool:
        return isinstance(client, AioClientHandle) or _service_name(client) == _SERVICE

    def is_async(self, client: Any) -> bool:
        if isinstance(client, AioClientHandle):
            return True
        return any((k.__module__ or "").startswith("aiobotocore") for k in type(client).__mro__)

    def drives_async(self, client: Any) -> bool:
        """``arun`` drives an aiobotocore client natively and a boto3 one in worker threads."""
        return self.claims(client, None)

    def encode_options(self, client: Any) -> dict[str, Any]:
        return {}

    def add_params(self, body: dict[str, Any], params: dict[str, Any]) -> None:
        """Sampling params go into ``inferenceConfig``; anything else to the top level."""
        add_options(body, params)

    # -------------------------------------------------------------- streaming

    def stream(self, client: Any, body: dict[str, Any]) -> Iterator[Any]:
        """One streamed turn: the chunk dicts of its raw bytes (or the SDK's events)."""
        _ready(client)
        body, headers = clients.split_headers(body)
        with _sdk_call(headers):
            response = client.converse_stream(**to_boto3(body))
        failed = _json_error(response)
        if failed is not None:
            response["stream"].close()
            raise failed
        return _Events(response["stream"], self._events(response["stream"]))

    def _events(self, stream: Any) -> Iterator[Any]:
        """The raw body's pieces through the push reader, a ``protocol.pushed.Piece`` each
        (its chunks, which the driver reads fused), else the SDK's dicts."""
        raw = getattr(stream, "_raw_stream", None)
        try:
            if raw is not None and callable(getattr(raw, "stream", None)):
                reader = clients.push_reader(self, FRAMING)
                for piece in raw.stream():
                    # a piece that completes no message is reported, so a sync run's
                    # deadline sees the time pass under a trickle
                    yield from reader.feed(piece) or (clients.TICK,)
                yield from reader.close()
                return
            try:
                yield from stream
            except Exception as exc:
                chunk = _exception_chunk(exc)
                if chunk is None:
                    raise
                yield chunk
        finally:
            close = getattr(stream, "close", None)
            if callable(close):
                close()

    def astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        """The same through aiobotocore's client, or a boto3 one read in worker threads."""
        if not self.is_async(client):
            return _threaded(lambda: self.stream(client, body))
        return self._astream(client, body)

    async def _astream(self, client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
        if isinstance(client, AioClientHandle):
            client = await client.open()
        _ready(client)
        body, headers = clients.split_headers(body)
        off = None
        if large(body):
            _off_loop_hooks(client)
            off = _OffLoop(_serializer(client))
            kwargs = await asyncio.to_thread(to_boto3, body)
        else:
            kwargs = to_boto3(body)
        held = _OFF_LOOP.set(off)
        try:
            with _sdk_call(headers):
                response = await client.converse_stream(**kwargs)
        finally:
            _OFF_LOOP.reset(held)
        stream = response["stream"]
        raw = getattr(stream, "_raw_stream", None)
        content = getattr(raw, "content", None)
        try:
            if content is not None and callable(getattr(content, "iter_chunks", None)):
                reader = clients.push_reader(self, FRAMING)
                async for piece, _ in content.iter_chunks():
                    for chunk in reader.feed(piece):
                        yield chunk
                for chunk in reader.close():
                    yield chunk
                return
            try:
                async for event in stream:
                    yield event
            except Exception as exc:
                failed = _exception_chunk(exc)
                if failed is None:
                    raise
                yield failed
        finally:
            close = getattr(stream, "close", None)
            if callable(close):
                result = close()
                if hasattr(result, "__await__"):
                    await result

    def respond(self, client: Any, body: dict[str, Any]) -> Any:
        """One whole (non-streamed) ``converse`` call, SDK retries off."""
        _ready(client)
        body, headers = clients.split_headers(body)
        with _sdk_call(headers):
            return client.converse(**to_boto3(body))

    # -------------------------------------------------------------- building

    def make_client(
        self, *, api_key: str | None, base_url: str | None, http_client: Any = None
    ) -> Any:
        """A ``bedrock-runtime`` client for a server agent: aiobotocore's when installed
        (entered on first use, left by :meth:`aclose`), else boto3's, which ``arun`` reads in
        worker threads. Retries off, ``base_url`` as the ``endpoint_url``. Credentials: AWS's
        own chain (environment, profile, role); an ``api_key`` that is not one of the AWS
        variables' values is sent as a Bedrock API key (a bearer token).
        """
        if http_client is not None:
            raise UnsupportedInput(
                f"{VENDOR}: botocore takes no HTTP client of another library, so a recorded "
                "Bedrock conversation cannot be replayed through it; decode the cassette "
                "with `toolwire decode --from bedrock` instead"
            )
        import importlib.util
        import os

        from botocore.config import Config  # type: ignore[import-untyped, unused-ignore]

        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        bearer = api_key if api_key and api_key not in _aws_env_values(self.key_env) else None
        config = Config(
            retries={"total_max_attempts": 1, "mode": "standard"},
            **({"signature_version": "bearer"} if bearer else {}),
        )
        options = {"endpoint_url": base_url, "region_name": region, "config": config}
        if importlib.util.find_spec("aiobotocore") is not None:
            from aiobotocore.session import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
                get_session,
            )

            session = get_session()
            if bearer:
                _with_token(session, bearer)
            return AioClientHandle(partial(session.create_client, _SERVICE, **options))
        import botocore.session  # type: ignore[import-untyped, unused-ignore]

        plain = botocore.session.get_session()
        if bearer:
            _with_token(plain, bearer)
        return plain.create_client(_SERVICE, **options)

    async def aclose(self, client: Any) -> None:
        close = getattr(client, "close", None)
        if callable(close):
            result = close()
            if hasattr(result, "__await__"):
                await result

    def telemetry_provider(self, client: Any) -> str:
        return "aws.bedrock"

    def base_url(self, client: Any) -> str | None:
        if isinstance(client, AioClientHandle):
            return None  # not opened yet: its endpoint is botocore's to resolve
        meta = getattr(client, "meta", None)
        url = getattr(meta, "endpoint_url", None)
        return str(url) if url else None

    def add_headers(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        clients.hold_headers(body, headers)

    def secrets(self, client: Any) -> list[str]:
        """The key values the client signs with (to mask in every text a run sends)."""
        getter = getattr(client, "_get_credentials", None)
        creds = getter() if callable(getter) else None
        out: list[str] = []
        for name in ("access_key", "secret_key", "token"):
            value = getattr(creds, name, None)
            if isinstance(value, str) and value:
                out.append(value)
        import os

        bearer = os.environ.get("AWS_BEARER_TOKEN_BEDROCK")
        if bearer:
            out.append(bearer)
        return out


CLIENT = BedrockClient()

__all__ = ["CLIENT", "AioClientHandle", "BedrockClient", "BedrockHTTPError"]
