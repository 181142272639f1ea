"""The gateway benchmark's floor: the least any AG-UI gateway over HTTP must do for one run.

Run as its own process (``python benchmarks/gateway_floor.py FRAMES_FILE VENDOR_BASE PORT``;
``bench_gateway.py`` starts it beside the two gateways): a bare ASGI app under uvicorn (the
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
"""

from __future__ import annotations

import json
import sys
from typing import Any


def app_for(frames: dict[str, list[bytes]], base: str) -> Any:
    import httpx

    client: list[Any] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    client.append(httpx.AsyncClient(timeout=60))
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await client[0].aclose()
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
        sent, request = 1, {"model": "floor", "stream": True}
        async with client[0].stream("POST", f"{base}/{vendor}/", json=request) as response:
            total = int(response.headers.get("content-length") or 1)
            seen = 0
            async for piece in response.aiter_bytes():
                seen += len(piece)
                due = min(len(run) - 1, len(run) * seen // total)
                if due > sent:
                    out = b"".join(run[sent:due])
                    await send({"type": "http.response.body", "body": out, "more_body": True})
                    sent = due
        await send({"type": "http.response.body", "body": b"".join(run[sent:])})

    return app


def main() -> None:
    import uvicorn

    frames_file, base, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(frames_file) as f:
        spec = json.load(f)
    frames = {v: [frame.encode() for frame in run] for v, run in spec.items()}
    uvicorn.run(
        app_for(frames, base), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )


if __name__ == "__main__":
    main()
