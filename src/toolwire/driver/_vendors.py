"""Per vendor: which adapter a client takes, and how its SDK is asked for one streamed turn.

The fast path reads the vendor's bytes through the SDK's own streaming-response API
(``with_streaming_response``: the SDK's auth, base URL, headers and timeouts) and
decodes them with toolwire's SSE parser and the adapter's ``Decoder``. google-genai
has no public raw-response API, and Bedrock streams AWS event-stream frames, not SSE:
those two take the SDK's event objects (the adapters accept them as well).

The SDK's own retries are switched off for the call (``with_options(max_retries=0)``,
google-genai's per-request ``retry_options``) so the driver's policy is the only one;
``with_options`` returns a copy, so the caller's client is never changed.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from toolwire import adapters
from toolwire.adapters.contract import Adapter
from toolwire.errors import UnsupportedInput
from toolwire.failures import error_in_body
from toolwire.protocol.jsontext import CheckedObject
from toolwire.protocol.sse import SSEEvent, SSEParser, json_object, piece_objects
from toolwire.protocol.surface import Encoded

#: The vendors ``toolwire.run`` drives (the adapters that talk to a model).
MODEL_VENDORS = ("anthropic", "openai_chat", "openai_responses", "gemini")

#: an event, its index, and its data when parsed with the rest of its piece's
ChunkOf = Callable[[SSEEvent, int, "CheckedObject | None"], "dict[str, Any] | None"]


#: what the byte-reading streams yield for a piece that completed no chunk, so the driver
#: can check its run deadline while a vendor trickles keep-alive bytes (skipped, never fed)
TICK = object()


class ChunkReader:
    """Push-style: byte pieces in, the vendor's chunk dicts out (sync and async alike)."""

    def __init__(self, chunk_of: ChunkOf, stop_at: str | None = None) -> None:
        self._parser = SSEParser()
        self._chunk_of = chunk_of
        self._stop_at = stop_at
        self._n = 0
        self.done = False

    def feed(self, piece: bytes) -> list[dict[str, Any]]:
        return self._take(self._parser.feed(piece))

    def close(self) -> list[dict[str, Any]]:
        return self._take(self._parser.close())

    def _take(self, events: list[SSEEvent]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for ev, fine in zip(events, piece_objects(events), strict=True):
            if self.done:
                break
            if self._stop_at is not None and ev.data.startswith(self._stop_at):
                self.done = True  # OpenAI's [DONE]: anything after it is ignored, as the SDK does
                break
            chunk = self._chunk_of(ev, self._n, fine)
            self._n += 1
            if chunk is not None:
                out.append(chunk)
        return out


def _json_chunk(vendor: str) -> ChunkOf:
    def chunk_of(ev: SSEEvent, n: int, fine: CheckedObject | None) -> dict[str, Any] | None:
        return fine if fine is not None else json_object(ev, vendor, n)

    return chunk_of


@dataclass(frozen=True)
class Plan:
    """One vendor call worked out: the adapter, the request, and how to stream it."""

    vendor: str
    adapter: Adapter
    body: Encoded
    is_async: bool
    open_sync: Callable[[], Iterator[Any]]
    open_async: Callable[[], AsyncIterator[Any]]


# ------------------------------------------------------------------ which vendor


def _root(client: Any) -> str:
    for klass in type(client).__mro__:
        mod = klass.__module__ or ""
        if mod.startswith("google.genai"):
            return "google.genai"
        head = mod.split(".")[0]
        if head in ("anthropic", "openai"):
            return head
    return ""


def _class_names(client: Any) -> set[str]:
    return {k.__name__ for k in type(client).__mro__}


def _openai_default_api(client: Any) -> str:
    if _class_names(client) & {"AzureOpenAI", "AsyncAzureOpenAI"}:
        return "responses"
    host = urlsplit(str(getattr(client, "base_url", ""))).hostname or ""
    return "responses" if host == "api.openai.com" else "chat"


def choose_vendor(client: Any, vendor: str | None, api: str | None) -> str:
    """The adapter for ``client`` (``vendor=`` wins; ``api=`` picks OpenAI Chat or Responses)."""
    if api is not None and api not in ("chat", "responses"):
        raise UnsupportedInput(f"toolwire.run: api must be 'chat' or 'responses', not {api!r}")
    if vendor is not None:
        key = vendor.replace("-", "_").lower()
        if key not in MODEL_VENDORS:
            raise UnsupportedInput(
                f"toolwire.run: vendor {vendor!r} is not a model vendor; "
                f"one of {', '.join(MODEL_VENDORS)}"
            )
        return key
    root = _root(client)
    if root == "anthropic":
        return "anthropic"
    if root == "openai":
        return "openai_" + (api or _openai_default_api(client))
    if root == "google.genai":
        return "gemini"
    raise UnsupportedInput(
        f"toolwire.run: cannot tell the vendor of a {type(client).__name__} client; "
        "pass an anthropic, openai or google.genai client, or vendor="
    )


def is_async_client(client: Any) -> bool:
    names = _class_names(client)
    if "AsyncClient" in names and _root(client) == "google.genai":
        return True
    return any(n.startswith("Async") for n in names if n != "AsyncClient")


# ------------------------------------------------------------------ the request


def _encode(
    adapter: Adapter,
    vendor: str,
    client: Any,
    run_input: Any,
    model: str,
    params: dict[str, Any],
) -> Encoded:
    """``encode_request`` with the params it names; the rest go into the request body
    (for Gemini into ``config``, where google-genai takes generation options). Its
    losses come back on the body (``Encoded.losses``) for the driver to report."""
    sig = inspect.signature(adapter.encode_request)
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    named = {k: v for k, v in params.items() if takes_any or k in sig.parameters}
    rest = {k: v for k, v in params.items() if k not in named}
    if vendor == "gemini" and "backend" not in named and _is_vertex(client):
        named["backend"] = "vertex"
    body: Encoded = adapter.encode_request(run_input, model=model, **named)
    if rest:
        if vendor == "gemini":
            body["config"] = {**(body.get("config") or {}), **rest}
        else:
            body.update(rest)
    return body


def _is_vertex(client: Any) -> bool:
    for holder in (client, getattr(client, "_api_client", None)):
        value = getattr(holder, "vertexai", None) if holder is not None else None
        if isinstance(value, bool):
            return value
    return False


# ------------------------------------------------------------------ the stream


def _resource(client: Any, vendor: str) -> Any:
    if vendor == "anthropic":
        return client.messages
    if vendor == "openai_chat":
        return client.chat.completions
    return client.responses


def _stream_kwargs(vendor: str, body: dict[str, Any]) -> dict[str, Any]:
    kw = {**body, "stream": True}
    if vendor == "openai_chat" and "stream_options" not in kw:
        kw["stream_options"] = {"include_usage": True}  # usage for RUN_FINISHED
    return kw


def _chunk_reader(vendor: str) -> ChunkReader:
    if vendor == "anthropic":
        from toolwire.adapters.anthropic.wire import sse_event_chunk

        return ChunkReader(sse_event_chunk)
    return ChunkReader(_json_chunk(vendor), stop_at="[DONE]")


def _raw_sync(client: Any, vendor: str, body: dict[str, Any]) -> Iterator[Any]:
    create = _resource(client.with_options(max_retries=0), vendor).with_streaming_response.create
    reader = _chunk_reader(vendor)
    with create(**_stream_kwargs(vendor, body)) as response:
        if _whole_json(response):  # an error sent as a 200 JSON body, not a stream
            yield from _whole_body(vendor, reader, response.read())
            return
        for piece in response.iter_bytes():
            chunks = reader.feed(piece)
            yield from chunks or (TICK,)
            if reader.done:
                return
        yield from reader.close()


async def _raw_async(client: Any, vendor: str, body: dict[str, Any]) -> AsyncIterator[Any]:
    create = _resource(client.with_options(max_retries=0), vendor).with_streaming_response.create
    reader = _chunk_reader(vendor)
    async with create(**_stream_kwargs(vendor, body)) as response:
        if _whole_json(response):  # an error sent as a 200 JSON body, not a stream
            for chunk in _whole_body(vendor, reader, await response.read()):
                yield chunk
            return
        async for piece in response.iter_bytes():
            for chunk in reader.feed(piece) or (TICK,):
                yield chunk
            if reader.done:
                return
        for chunk in reader.close():
            yield chunk


def _whole_json(response: Any) -> bool:
    """A response that is one JSON document, not ``text/event-stream``."""
    kind = str(response.headers.get("content-type", "")).lower()
    return "json" in kind and "event-stream" not in kind


def _whole_body(vendor: str, reader: ChunkReader, body: bytes) -> Iterator[Any]:
    """A JSON body where a stream was asked for: the vendor's error, or read as the stream."""
    error = error_in_body(vendor, body)
    if error is not None:
        raise error
    yield from reader.feed(body)
    yield from reader.close()


def _is_bedrock(client: Any) -> bool:
    return bool(_class_names(client) & {"AnthropicBedrock", "AsyncAnthropicBedrock"})


def _objects_sync(client: Any, body: dict[str, Any]) -> Iterator[Any]:
    with client.with_options(max_retries=0).messages.create(**body, stream=True) as stream:
        yield from stream


async def _objects_async(client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
    stream = await client.with_options(max_retries=0).messages.create(**body, stream=True)
    async with stream:
        async for event in stream:
            yield event


def _gemini_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    config = dict(body.get("config") or {})
    http = config.get("http_options") or {}
    if not isinstance(http, dict):
        http = http.model_dump(exclude_none=True)
    # one attempt per call: toolwire's policy retries (a new dict: the caller's stays as is)
    config["http_options"] = {**http, "retry_options": {"attempts": 1}}
    return {**body, "config": config}


def _gemini_sync(client: Any, body: dict[str, Any]) -> Iterator[Any]:
    stream = client.models.generate_content_stream(**_gemini_kwargs(body))
    try:
        yield from stream
    finally:
        stream.close()


async def _gemini_async(client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
    aio = getattr(client, "aio", client)
    stream = await aio.models.generate_content_stream(**_gemini_kwargs(body))
    done = False
    try:
        async for chunk in stream:
            yield chunk
        done = True
    finally:
        # google-genai's async stream does not close its HTTP response when the stream is
        # closed early (its inner generators are left to the garbage collector, and the
        # response sits in a reference cycle): find the response and close it ourselves.
        responses = [] if done else _open_responses(stream)
        await stream.aclose()
        for response in responses:
            await response.aclose()


def _open_responses(agen: Any, depth: int = 0) -> list[Any]:
    """HTTP responses held by a chain of suspended async generators (a few levels deep)."""
    frame = getattr(agen, "ag_frame", None)
    if frame is None or depth > 8:
        return []
    out: list[Any] = []
    for value in frame.f_locals.values():
        inner = getattr(value, "response_stream", None)
        if inner is not None and callable(getattr(inner, "aclose", None)):
            out.append(inner)
        elif getattr(value, "ag_frame", None) is not None:
            out.extend(_open_responses(value, depth + 1))
    return out


def plan(
    client: Any,
    run_input: Any,
    *,
    model: str,
    vendor: str | None,
    api: str | None,
    params: dict[str, Any],
) -> Plan:
    """Choose the adapter, encode the request and bind how to stream it."""
    name = choose_vendor(client, vendor, api)
    adapter = adapters.get(name)
    body = _encode(adapter, name, client, run_input, model, params)
    is_async = is_async_client(client)
    if name == "gemini":
        return Plan(
            name,
            adapter,
            body,
            is_async,
            lambda: _gemini_sync(client, body),
            lambda: _gemini_async(client, body),
        )
    if _is_bedrock(client):
        return Plan(
            name,
            adapter,
            body,
            is_async,
            lambda: _objects_sync(client, body),
            lambda: _objects_async(client, body),
        )
    return Plan(
        name,
        adapter,
        body,
        is_async,
        lambda: _raw_sync(client, name, body),
        lambda: _raw_async(client, name, body),
    )


__all__ = [
    "MODEL_VENDORS",
    "TICK",
    "ChunkReader",
    "Plan",
    "choose_vendor",
    "is_async_client",
    "plan",
]
