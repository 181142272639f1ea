"""The gateway benchmark's floors: the least any AG-UI gateway over HTTP must do for one run.

Run as its own process (``python benchmarks/gateway_floor.py FRAMES_FILE VENDOR_BASE PORT
[relay|client]``; ``bench_gateway.py`` starts it beside the two gateways): a bare ASGI app
under uvicorn (the
same server and HTTP parser ``toolwire serve`` runs on) that answers ``POST /agents/<vendor>``
as a gateway must, and no more: it reads and parses the request's JSON, sends the run's first
frame, posts to the same fake vendor (one shared ``httpx.AsyncClient``, as a gateway keeps
one) and reads its whole body, and sends the run's AG-UI frames as the vendor's bytes arrive,
all the frames one vendor piece pays for in one write. The frames are the run ``toolwire``
makes of the same turn, made once by the bench (``FRAMES_FILE``: ``{vendor: [frame, ...]}``),
so nothing is parsed, translated, checked or masked per run: what it costs is the HTTP
server, the HTTP client and the writes. Its CPU per run bounds what any gateway's runs per
CPU-second can reach, and its first-event times under load are what the event loop and the
two shared cores give a run that does nothing else.

``client``: the same, but the vendor is called as toolwire's driver calls it, through the
adapter's ``CLIENT`` over the vendor's own async SDK client (``CLIENT.astream`` of the
request ``encode_request`` made once): where that client reads the SDK's parsed objects
(google-genai, ollama), what it costs is the SDK's, and it is the least any gateway over
that SDK pays; where it reads the raw body (the Stainless SDKs), it is toolwire's reader.
"""

from __future__ import annotations

import copy
import json
import sys
from typing import Any


class _Client:
    """The vendor called through toolwire's ``CLIENT`` (the ``client`` mode)."""

    def __init__(self, spec: dict[str, Any], base: str) -> None:
        from ag_ui.core import RunAgentInput

        from toolwire import adapters

        self.calls: dict[str, tuple[Any, Any, Any, int]] = {}
        for vendor, run in spec.items():
            sdk = adapters.client(vendor)
            body = adapters.get(vendor).encode_request(
                RunAgentInput.model_validate(run["input"]), model=run["model"]
            )
            client = sdk.make_client(api_key=run["key"], base_url=f"{base}/{vendor}")
            self.calls[vendor] = (sdk, client, body, run["chunks"])

    async def pieces(self, vendor: str) -> Any:
        """(chunks seen, chunks the turn has) after each chunk of the vendor's answer."""
        sdk, client, body, total = self.calls[vendor]
        seen = 0
        async for _ in sdk.astream(client, copy.deepcopy(body)):
            seen += 1
            yield seen, total

    async def aclose(self) -> None:
        for sdk, client, _, _ in self.calls.values():
            await sdk.aclose(client)


def app_for(frames: dict[str, list[bytes]], base: str, through: _Client | None = None) -> Any:
    import httpx

    client: list[Any] = []

    async def relay(vendor: str) -> Any:
        """(bytes seen, bytes the answer has) after each piece of the vendor's answer."""
        request = {"model": "floor", "stream": True}
        async with client[0].stream("POST", f"{base}/{vendor}/", json=request) as response:
            total = int(response.headers.get("content-length") or 1)
            seen = 0
            async for piece in response.aiter_bytes():
                seen += len(piece)
                yield seen, total

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    client.append(httpx.AsyncClient(timeout=60))
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await client[0].aclose()
                    if through is not None:
                        await through.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        vendor = scope["path"].rsplit("/", 1)[-1]
        run = frames.get(vendor)
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if run is None:
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        json.loads(body)  # a gateway reads its input
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": run[0], "more_body": True})
        sent = 1
        answer = relay(vendor) if through is None else through.pieces(vendor)
        async for seen, total in answer:
            due = min(len(run) - 1, len(run) * seen // max(total, 1))
            if due > sent:
                out = b"".join(run[sent:due])
                await send({"type": "http.response.body", "body": out, "more_body": True})
                sent = due
        await send({"type": "http.response.body", "body": b"".join(run[sent:])})

    return app


def main() -> None:
    import uvicorn

    frames_file, base, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mode = sys.argv[4] if len(sys.argv) > 4 else "relay"
    with open(frames_file) as f:
        spec = json.load(f)
    frames = {v: [frame.encode() for frame in run["frames"]] for v, run in spec.items()}
    through = _Client(spec, base) if mode == "client" else None
    app = app_for(frames, base, through)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
