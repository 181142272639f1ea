"""The server's own streaming path, in process: what ``toolwire serve`` does for one run.

A vendor agent of ``toolwire serve`` is a ``VendorProvider``: ``toolwire.arun`` over the
vendor's async SDK client (its adapter's ``CLIENT``: the raw body read through
``FRAMING.reader()``, or the SDK's own objects where the adapter reads those), its events a
list at a time (``batches``), and each list goes out through ``EventStreamResponse``: the
losses held, the agent's key values masked, each event written as its SSE frame, what is
ready together handed to ``send`` in one write, as uvicorn writes it to the socket. This
module runs exactly that, the response's ASGI call included, with two stand-ins only: the
SDK's HTTP transport serves the body from memory, in 64 KiB pieces as a socket read gives
them (httpx2's ``MockTransport``, as the SDK-parse case does), and ``send`` counts the bytes
instead of writing them. The agent's key is a secret the response masks, as a configured
agent's key (from the server's environment) is.

One event loop serves every repetition (a real server keeps one too); the provider builds
its SDK client once and reuses it, as the server's provider does.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from ag_ui.core import RunAgentInput, Tool, UserMessage

#: the frontend tools of the run (a turn that calls them ends the run, as in a UI)
TOOLS = ("get_weather", "get_time", "search_docs")
KEY = "bench-key-not-a-secret"
#: the most bytes of the vendor's body one read hands the driver (httpx's read size)
PIECE = 65536


def run_input() -> RunAgentInput:
    schema = {"type": "object", "additionalProperties": True}
    return RunAgentInput(
        thread_id="t-bench",
        run_id="r-bench",
        messages=[UserMessage(id="u1", content="hi")],
        tools=[Tool(name=n, description=n, parameters=schema) for n in TOOLS],
        context=[],
        state=None,
        forwarded_props=None,
        protocol_version="1.0",  # a current client (a legacy one gets every event reshaped)
    )


async def frames_sent(provider: Any, given: RunAgentInput, secrets: list[str]) -> list[bytes]:
    """The bodies ``toolwire serve``'s response sends for one run of ``provider``, in order
    (the client stays to the end), the provider's SDK client closed after: for the tests
    that compare two ways of serving (the bench's :class:`Served` keeps no frame)."""
    from toolwire.protocol.stream_redact import StreamRedactor
    from toolwire.server._streaming import EventStreamResponse, StreamHub

    response = EventStreamResponse(
        provider.events(given),
        run_input=given,
        hub=StreamHub(),
        agent="t",
        redactor=StreamRedactor(secrets),
    )
    sent: list[bytes] = []
    forever = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await forever.wait()
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        if message.get("body"):
            sent.append(message["body"])

    try:
        await response({"type": "http", "method": "POST"}, receive, send)
    finally:
        if provider._built is not None:
            await provider.client.aclose(provider._built.client)
    return sent


class NotMeasured(Exception):
    """This vendor's served path cannot run in process: the reason, shown in the page."""


@functools.cache  # asked once per group: one client built and dropped per vendor is enough
def in_memory_reason(vendor: str) -> str | None:
    """Why ``vendor``'s SDK client cannot be served from memory (its ``make_client`` refuses
    another library's HTTP client, as botocore does), or None."""
    from toolwire import adapters
    from toolwire.errors import UnsupportedInput

    try:
        import httpx2

        http = httpx2.AsyncClient()
        try:
            made = adapters.client(vendor).make_client(api_key=KEY, base_url=None, http_client=http)
        finally:
            asyncio.run(http.aclose())
    except UnsupportedInput as exc:
        return str(exc).split(", so ")[0].split(";")[0]
    asyncio.run(adapters.client(vendor).aclose(made))
    return None


def in_memory_provider(vendor: str, body: bytes | list[bytes], media_type: str) -> Any:
    """The configured vendor provider of ``toolwire serve``, its SDK client on an in-memory
    transport answering ``body`` (bytes, or the pieces it arrives in), its key a secret."""
    import httpx2

    from toolwire.server import AgentConfig
    from toolwire.server._providers import SharedClient, VendorProvider

    async def handler(request: Any) -> Any:
        if isinstance(body, bytes):
            content: Any = body
        else:

            async def pieces() -> Any:
                for piece in body:
                    yield piece

            content = pieces()
        return httpx2.Response(200, headers={"content-type": media_type}, content=content)

    class InMemory(VendorProvider):
        """The configured provider, its SDK client on an in-memory transport."""

        def _key(self) -> str | None:
            return KEY

        def secret_values(self) -> list[str]:
            # the key is in the server's environment: every frame is checked for it
            return [KEY]

        async def _shared(self, key: str) -> Any:
            if self._built is None:
                http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
                made = self.client.make_client(api_key=key, base_url=None, http_client=http)
                self._built = SharedClient("", asyncio.get_running_loop(), made)
            return self._built

    return InMemory(AgentConfig(name="bench", provider=vendor))


class Served:
    """``toolwire serve``'s response for one run of ``vendor`` over ``body``, repeatable."""

    def __init__(self, vendor: str, body: bytes, media_type: str) -> None:
        why = in_memory_reason(vendor)
        if why is not None:
            raise NotMeasured(why)
        # in the pieces a socket read gives (httpx reads 64 KiB at a time): a server never
        # has a whole 2 MB body in one piece
        pieces = [body[i : i + PIECE] for i in range(0, len(body), PIECE)]
        self.provider = in_memory_provider(vendor, pieces, media_type)
        self.secrets = self.provider.secret_values()
        self.input = run_input()
        self.loop = asyncio.new_event_loop()

    async def _once(self) -> int:
        from toolwire.protocol.stream_redact import StreamRedactor
        from toolwire.server._streaming import EventStreamResponse, StreamHub

        response = EventStreamResponse(
            self.provider.events(self.input),
            run_input=self.input,
            hub=StreamHub(),
            agent="bench",
            redactor=StreamRedactor(self.secrets),
        )
        size = 0
        frames = 0
        last = b""
        forever = asyncio.Event()

        async def receive() -> dict[str, Any]:
            await forever.wait()  # the client stays: no disconnect
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal size, frames, last
            body = message.get("body")
            if body:
                size += len(body)
                frames += 1
                last = body

        await response({"type": "http", "method": "POST"}, receive, send)
        if not frames:
            raise RuntimeError("the served run sent no frame")
        if b'"RUN_ERROR"' in last:  # a run that failed is no measure of the path
            raise RuntimeError(f"the served run ended in an error: {last[:300]!r}")
        return size

    def __call__(self) -> int:
        return self.loop.run_until_complete(self._once())

    async def _client_chunks(self, first_only: bool) -> tuple[int, bool]:
        """The vendor's answer read as the driver reads it, through the adapter's ``CLIENT``
        and nothing else: (chunks, whether they are the SDK's own objects, not dicts)."""
        from toolwire import adapters
        from toolwire.clients import TICK
        from toolwire.protocol.pushed import Piece

        sdk = self.provider.client
        client = await self.provider._sdk_client(KEY)
        vendor = self.provider.config.provider
        body = adapters.get(vendor).encode_request(self.input, model=self.provider.model)
        n, objects = 0, False
        stream = sdk.astream(client, body)
        try:
            async for chunk in stream:
                if chunk is TICK:
                    continue
                if n == 0:  # the raw body's chunks: dicts, or a piece's (``Piece``)
                    objects = not isinstance(chunk, (dict, Piece))
                n += 1
                if first_only:
                    break
        finally:
            closer = getattr(stream, "aclose", None)
            if closer is not None:
                await closer()
        return n, objects

    def reads_sdk_objects(self) -> bool:
        """Whether the driver reads the SDK's parsed objects (not the raw body): then every
        served run pays the SDK's parse, and :meth:`client_read` is part of its floor."""
        return self.loop.run_until_complete(self._client_chunks(first_only=True))[1]

    def client_read(self) -> int:
        """One read of the answer through ``CLIENT`` alone (the SDK's request and parse)."""
        return self.loop.run_until_complete(self._client_chunks(first_only=False))[0]

    def close(self) -> None:
        built = self.provider._built
        if built is not None:
            self.loop.run_until_complete(self.provider.client.aclose(built.client))
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()
